"""The JAX complete-action design's anchor mask (docs/ENVIRONMENTS.md), stated in plain Python in
experiments/complete_action_depths.py, equals BuildSearch.legal_anchors() on real positions:
the coarse-lattice reading of rule I, the three levels per arch and the depth bound are what
the JAX masks will be built on, so they are checked before any JAX code relies on them."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.complete_action_depths import design_anchor_mask
from monkey_env import Game, Phase
from monkey_env.monkey_palace.staircases import BuildSearch


def position(map_id: int, players: int, turn: int):
    game = Game.new(players=players, map=map_id, seed=map_id, build_action="complete")
    rng = np.random.default_rng(map_id)
    turns = 0
    while not game.game_over:
        if game.phase == Phase.ANCHOR:
            turns += 1
            if turns == turn:
                return game
        game.apply(int(rng.choice(game.legal_actions())))
    raise AssertionError(f"the game on map {map_id} ended before turn {turn}")


@pytest.mark.parametrize("map_id,players,turn", [(1, 2, 4), (2, 4, 9), (3, 3, 6), (4, 2, 12)])
def test_the_design_anchor_mask_is_buildsearch_s(map_id, players, turn):
    game = position(map_id, players, turn)
    s = game.player.supply
    # The player's own supply, a scarce one where columns make the remainders bind, a rich one.
    for arches, bricks, columns in [(s.arches, s.bricks, s.columns), (8, 2, 3), (6, 9, 0)]:
        search = BuildSearch(game.palace, arches, bricks, columns)
        expected = search.legal_anchors()
        got = design_anchor_mask(search)
        assert expected.any(), "a position with no legal anchor checks nothing"
        wrong = np.argwhere(got != expected)
        assert len(wrong) == 0, f"supply {(arches, bricks, columns)}: design and BuildSearch differ at {wrong[:5].tolist()}"
