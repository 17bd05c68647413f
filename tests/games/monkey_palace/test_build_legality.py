"""The fast all-pairs legality (build_legality) agrees with the readable rules (Palace.check_staircase)."""

import numpy as np
import pytest

from monkey_env import Game
from monkey_env.agents.random_agent import RandomAgent
from monkey_env.monkey_palace.build_legality import legal_build_matrix
from monkey_env.monkey_palace.geometry import NUM_CELLS, cell_xy
from monkey_env.monkey_palace.palace import Supply


def positions(map_id, seed, stops):
    """Palaces from a random game, taken at the anchor decisions listed in ``stops``."""
    game = Game.new(3, map_id, seed=seed, butterfly=True, frog=True)
    agent, anchors_seen = RandomAgent(seed), 0
    while not game.game_over:
        if game.phase.name == "ANCHOR":
            if anchors_seen in stops:
                yield game
            anchors_seen += 1
        game.apply(agent.act(game, game.legal_mask()))


@pytest.mark.parametrize("map_id,seed", [(1, 0), (2, 1), (3, 2), (4, 3)])
def test_fast_legality_matches_the_readable_rules(map_id, seed):
    rng = np.random.default_rng(seed)
    checked = legal_seen = 0
    for game in positions(map_id, seed, stops={2, 9, 16}):
        # The player's own supply, and a rich one so that long staircases and columns are exercised.
        for s in (game.player.supply, Supply(8, 12, 2)):
            matrix = legal_build_matrix(game.palace, game.data.lane_tree, s.arches, s.bricks, s.columns)
            matrix = matrix.reshape(len(game.data.shapes), NUM_CELLS)
            legal_anchors = np.flatnonzero(matrix.any(axis=0))
            anchors = set(rng.choice(NUM_CELLS, 12, replace=False).tolist())
            anchors |= set(rng.choice(legal_anchors, min(8, len(legal_anchors)), replace=False).tolist())
            for anchor in anchors:
                for shape in game.data.shapes:
                    plan = game.palace.check_staircase(cell_xy(anchor), shape, s)
                    assert plan.legal == matrix[shape.index, anchor], (
                        f"shape {shape.index} ({shape.describe()}) at {cell_xy(anchor)}: "
                        f"readable says {plan.legal} ({plan.reason}), fast says {matrix[shape.index, anchor]}")
                    checked += 1
                    legal_seen += plan.legal
    assert checked > 100_000
    assert legal_seen > 100  # the sample holds legal staircases, not only refusals
