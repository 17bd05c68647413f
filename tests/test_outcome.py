"""One definition of a win (monkey_env.core.outcome) in every pipeline, and the one table of results.

The regression of issue 13, bug 4: two seats tie on points and one of them holds the Monkey
trophy; the rulebook gives that seat the win alone. Every pipeline must say so: the reference
engine, the JAX engine on the same final state, BatchResult, the results table (so simulate and
evaluate), the arena's ranks and ratings, and the balance lab's win shares.
"""

from __future__ import annotations

import numpy as np
import pytest

from monkey_env.core.outcome import batch_places, places, win_shares, winners
from monkey_env.monkey_palace.config import PILE_IDS
from monkey_env.monkey_palace.engine import Game

SCORES = [8, 8, 0]        # seats 1 and 2 (0 and 1) tie; seat 2 (index 1) holds the Monkey trophy
PLACES = [2, 1, 3]
SHARES = [0.0, 1.0, 0.0]


def monkey_tie_game() -> Game:
    """3 players: seat 1 has 2 bonus cards (8); seat 2 has 1 bonus card, a 2-banana card and the
    Monkey trophy (8); seat 3 nothing. The game is marked over."""
    game = Game.new(players=3)
    for p, bonus in zip(game.players, [2, 1, 0]):
        p.slots = [[], [], [], []]
        p.bonus_cards = bonus
    game.holders = {"monkey": 1, "butterfly": -1, "frog": -1}
    multi2 = PILE_IDS.index("multi-2")
    card = next(c for c in game.data.pile_cards[multi2] if game.data.cards[c].bananas == 2)
    for pile in game.piles:
        if card in pile:
            pile.remove(card)
    game.players[1].slots[0] = [card]
    from monkey_env.monkey_palace.actions import Phase
    game.phase = Phase.GAME_OVER
    assert game.scores() == SCORES
    return game


# ------------------------------------------------------------------------------ the definition
def test_outcome_functions():
    assert places(SCORES, 1) == PLACES and winners(SCORES, 1) == [1] and win_shares(SCORES, 1) == SHARES
    assert places(SCORES) == [1, 1, 3] and win_shares(SCORES) == [0.5, 0.5, 0.0]
    assert win_shares(SCORES, 2) == [0.5, 0.5, 0.0]          # the holder is not among the tied
    b = batch_places(np.asarray([SCORES, SCORES, [3, 3, 3]]), np.asarray([3, 3, 2]), np.asarray([1, -1, 0]))
    assert b.tolist() == [PLACES, [1, 1, 3], [1, 2, 0]]


def test_reference_engine_places():
    game = monkey_tie_game()
    assert game.places() == PLACES and game.winners() == [1]


def test_seats_are_indices_in_code_and_counted_from_1_for_people():
    """winners() keeps seat indices (scores()[w] is the winner's score); every screen says
    the same winner counted from 1: the words, show's text, the picture's legend, play's end."""
    import io
    from pathlib import Path

    from monkey_env.core.outcome import seat_label, winners_label
    from monkey_env.monkey_palace.apps.play import Session
    from monkey_env.monkey_palace.text_view import game_text

    assert seat_label(0) == "seat 1" and winners_label([1]) == "seat 2"
    assert winners_label([0, 2]) == "seats 1 and 3 (a shared win)"
    game = monkey_tie_game()
    assert game.winners() == [1] and game.scores()[game.winners()[0]] == 8
    assert game.winners_text() == "seat 2" and Game.new(players=2).winners_text() == ""
    text = game_text(game)
    assert "game over, won by seat 2" in text
    assert [line.split(":")[0] for line in text.splitlines() if line.endswith("WINNER")] == ["seat 2"]
    out = io.StringIO()
    session = Session(game, 1, ["random", "random"], Path("unused.json"), out, io.StringIO())
    session.finish()
    assert "seat 2 (you): 8 Banana Points  WINNER" in out.getvalue()
    assert "You win! Won by seat 2." in out.getvalue()


def test_jax_places_on_the_same_final_state():
    from monkey_env.monkey_palace.jaxgame.env import jax_game_for
    from monkey_env.monkey_palace.jaxgame.from_reference import jax_state_from_game

    game = monkey_tie_game()
    jg = jax_game_for(game.options)
    state = jax_state_from_game(jg, game)
    assert jg.scores(state).tolist() == SCORES
    assert jg.places(state) == PLACES
    batched = np.asarray(jg.batch_places(jax_tree_stack([state, state])))
    assert batched[:, :3].tolist() == [PLACES, PLACES] and (batched[:, 3] == 0).all()


def jax_tree_stack(states):
    import jax
    import jax.numpy as jnp
    return jax.tree_util.tree_map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]), *states)


def test_batch_result_places():
    from monkey_env.monkey_palace.apps.play_games import BatchResult

    z = np.zeros((1, 0), np.int64)
    r = BatchResult(seeds=np.zeros(1, np.int64), scores=np.asarray([SCORES]), rounds=np.ones(1), end_kind=np.zeros(1),
                    illegal=np.zeros(1, bool), decisions=np.ones(1), card_owner=z, card_round=z,
                    colour_builds=np.zeros((1, 3, 3)), holders=np.asarray([[1, -1, -1]]))
    assert r.ranks().tolist() == [PLACES] and r.winners().tolist() == [[False, True, False]]
    assert r.win_shares().tolist() == [SHARES]
    r.holders = None                                        # no trophy known: the tied share the win
    assert r.win_shares().tolist() == [[0.5, 0.5, 0.0]]


# ------------------------------------------------------------------------------ the pipelines
@pytest.fixture
def every_game_is_the_tie(monkeypatch):
    """Every reference game played by the pipelines ends as monkey_tie_game()."""
    import monkey_env.monkey_palace.apps.play_games as sim

    def play_game(options, agents, data=None):
        game = monkey_tie_game()
        return game, sim.game_summary(game, 0)
    monkeypatch.setattr(sim, "play_game", play_game)


class FirstLegal:
    name = "first"

    def act(self, game, mask):
        return int(np.flatnonzero(mask)[0])


def test_results_table_and_evaluate_count_the_monkey_tie(every_game_is_the_tie):
    from monkey_env.apps.evaluate import evaluate
    from monkey_env.apps.results_table import play_games

    t = play_games([FirstLegal()] * 3, {"players": 3}, [0, 1])
    assert t.engine.tolist() == ["reference"] * 2 and t.places.tolist() == [PLACES] * 2
    assert t.win_shares.tolist() == [SHARES] * 2 and t.monkey_holder.tolist() == [1, 1]
    # evaluate: one game, seats x, y, z; y sits in the Monkey's seat and wins it alone.
    report = evaluate(["x", "y", "z"], players=3, games=1, progress=False,
                      agents={n: FirstLegal() for n in "xyz"})
    assert report["win_rate"] == {"x": 0.0, "y": 1.0, "z": 0.0}
    assert "Monkey" in report["shared_win"]


def test_simulate_summary_counts_the_monkey_tie(every_game_is_the_tie):
    from monkey_env.apps.cli import summarise
    from monkey_env.apps.results_table import play_games

    t = play_games([FirstLegal()] * 3, {"players": 3}, [0, 1, 2])
    text = summarise(t, ["a", "b", "c"])
    assert "seat 1 (a): wins 0 (0%)" in text and "seat 2 (b): wins 3 (100%)" in text and "Monkey" in text


def test_arena_ranks_and_ratings_count_the_monkey_tie(every_game_is_the_tie):
    from monkey_env.apps.arena.games import ChunkPlayer, ranks_of
    from monkey_env.apps.arena.ratings import agent_stats, win_matrix
    from monkey_env.apps.arena.runner import plan_tournament
    from monkey_env.monkey_palace.apps.balance.arena_db import _records

    assert ranks_of(SCORES, 1) == PLACES and ranks_of(SCORES) == [1, 1, 3]
    options = {"butterfly": False, "frog": False, "monkey_move": "optional", "butterfly_rule": "highest_overall",
               "end_trigger": "shortfall"}
    plan = plan_tournament(["random", "monkey_env.agents.random_agent:RandomAgent"], 3, "1", options, 1, 0,
                           "reference", 1)
    chunk = plan.schedule.chunks()[0]
    row = ChunkPlayer(plan.spec).play(chunk)[0]
    assert row["scores"] == SCORES and row["ranks"] == PLACES
    winner = chunk.seating[1]
    stats = agent_stats([row], list(plan.schedule.agents))
    assert stats[winner]["first_place"] == pytest.approx(1 / chunk.seating.count(winner))   # per seat it sat in
    loser = next(a for a in plan.schedule.agents if a != winner)
    m = win_matrix([row], list(plan.schedule.agents))
    assert m[winner][loser]["ties"] == 0
    # The balance lab reading the arena's rows finds the same winner.
    rec = _records([row])
    assert rec.win_shares().tolist() == [SHARES]


def test_balance_win_shares_count_the_monkey_tie():
    from monkey_env.monkey_palace.apps.balance import analysis as A
    from monkey_env.monkey_palace.apps.balance.collect import Records

    n = 4
    rec = Records(seeds=np.arange(n), scores=np.asarray([SCORES] * n), rounds=np.full(n, 9),
                  end_kind=np.zeros(n, np.int64), illegal=np.zeros(n, bool), decisions=np.full(n, 50),
                  card_owner=np.zeros((n, 0), np.int64), card_round=np.zeros((n, 0), np.int64),
                  card_top_turns=np.zeros((n, 0), np.int64), colour_builds=np.zeros((n, 3, 3), np.int64),
                  holders=np.asarray([[1, -1, -1]] * n), bonus_cards=np.zeros((n, 3), np.int64))
    assert A.split_wins(rec).tolist() == [SHARES] * n and rec.sole_winner().tolist() == [1] * n
    f = A.seat_figures(rec)
    assert [s["win"]["value"] for s in f["seats"]] == SHARES and f["ties"]["value"] == 0


# ------------------------------------------------------------------------------ the table
def test_results_table_on_the_reference_engine():
    from monkey_env.agents.registry import make_agent
    from monkey_env.apps.results_table import GameResults, play_games

    seen = []
    t = play_games(lambda i, seed: [make_agent("random", seed), make_agent("random", seed + 1)],
                   {"players": 2, "map": "2"}, [3, 4], names=["r1", "r2"], on_game=lambda g, s: seen.append(g))
    assert t.n == 2 and t.players == 2 and t.seed.tolist() == [3, 4]
    for i, game in enumerate(seen):
        assert t.scores[i].tolist() == game.scores() and t.places[i].tolist() == game.places()
        assert t.monkey_holder[i] == game.holders["monkey"] and t.end_trigger[i] == game.end_shortage
    assert np.allclose(t.win_shares.sum(1), 1) and (t.rounds > 3).all() and (t.decisions > 0).all()
    assert len(set(t.options_hash)) == 1 and t.agents.tolist() == [["r1", "r2"]] * 2
    row = t.row(0)
    assert set(row) == set(GameResults.COLUMNS) and row["seed"] == 3
    both = GameResults.concat([t, t.take([1])])
    assert both.seed.tolist() == [3, 4, 4]
    frame = t.to_frame()
    assert list(frame["place_1"]) == t.places[:, 0].tolist() and len(frame) == 2
    assert t.by_agent()["r1"]["seat_games"] == 2
    # Same seeds, same games.
    again = play_games(lambda i, seed: [make_agent("random", seed), make_agent("random", seed + 1)],
                       {"players": 2, "map": "2"}, [3, 4])
    assert again.scores.tolist() == t.scores.tolist()


def test_results_table_on_the_jax_engine_is_play_batch():
    from monkey_env.agents.registry import make_agent
    from monkey_env.apps.results_table import play_games
    from monkey_env.monkey_palace.apps.play_games import play_batch
    from monkey_env.monkey_palace.jaxgame.env import jax_game_for
    from monkey_env.monkey_palace.options import GameOptions

    agents = [make_agent("random", 0), make_agent("random", 1)]
    opts = GameOptions(players=2, map="1")
    t = play_games(agents, opts, [21, 22, 23, 24, 25], batch=4, agent_key=lambda chunk: int(chunk[0]))
    assert t.engine.tolist() == ["jax"] * 5 and t.batch is not None and len(t.batch.seeds) == 5
    jg = jax_game_for(opts)
    first = play_batch(jg, agents, players=2, map="1", seeds=[21, 22, 23, 24], agent_key=21)
    assert t.scores[:4].tolist() == first.scores.tolist()
    assert t.places[:4].tolist() == first.places.tolist() == first.ranks().tolist()
    assert np.allclose(t.win_shares.sum(1), 1)
    for i in range(5):
        assert t.places[i].tolist() == places(t.scores[i], int(t.monkey_holder[i]))
    assert set(t.end_trigger) <= {"arches", "bricks", "columns", "arches and bricks"}
