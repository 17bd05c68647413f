"""Tournaments batched on the JAX engine: rows, determinism after a partial loss, and every
game recorded as play_batch plays it.

One small chunk size (4) so the compiled programs are few; they are cached on disk
(~/.cache/monkey-palace/jax), which makes a second run of this file much faster."""

from __future__ import annotations

import numpy as np

from monkey_env.agents.registry import make_agent
from monkey_env.apps.arena.games import derived_seed, ranks_of, shared_jax_game
from monkey_env.apps.arena.results import Results
from monkey_env.apps.arena.runner import plan_tournament, run_tournament
from monkey_env.monkey_palace.apps.play_games import play_batch

OPTIONS = {"butterfly": False, "frog": False, "monkey_move": "optional", "butterfly_rule": "highest_overall",
           "end_trigger": "shortfall"}
AGENTS = ["random", "monkey_env.agents.random_agent:RandomAgent"]


def test_jax_tournament_rows_are_deterministic_and_survive_lost_games(tmp_path):
    plan = plan_tournament(AGENTS, 2, "1", OPTIONS, 7, 21, "auto", 4)
    assert plan.spec["engine"] == "jax" and plan.schedule.total_games == 8
    db = Results(tmp_path / "j.sqlite")
    tour, added = run_tournament(db, plan, workers=1, progress=False)
    assert added == 8
    rows = db.games(tour.id)
    for r in rows:
        assert r["engine"] == "jax" and r["rounds"] > 3
        assert r["end_trigger"] in ("arches", "bricks", "columns", "arches and bricks")
    assert [r["seed"] for r in rows] == [21, 21, 22, 22, 23, 23, 24, 24]
    # Games lost from the middle of chunks are played again exactly as before.
    db.db.execute("DELETE FROM games WHERE game_index IN (2, 4)")     # two games of the first chunk
    _, added = run_tournament(db, plan, workers=1, progress=False)
    assert added == 2
    strip = lambda rs: [{k: v for k, v in r.items() if k not in ("finished", "duration")} for r in rs]
    assert strip(db.games(tour.id)) == strip(rows)

    # The recorded games are play_batch's own play.
    chunk = plan.schedule.chunks()[0]
    r = play_batch(shared_jax_game(), [make_agent(n, 0) for n in chunk.seating], players=2, map="1",
                   seeds=list(chunk.seeds), options=OPTIONS,
                   agent_key=derived_seed(21, chunk.deals[0], chunk.seating_index))
    recorded = [g for g in rows if g["game_index"] in chunk.indices]
    assert [g["scores"] for g in recorded] == r.scores.tolist()
    # The recorded ranks are the rulebook's places (the Monkey trophy's holder wins a tie).
    assert [g["ranks"] for g in recorded] == r.places.tolist()
    assert all(g["ranks"] == ranks_of(g["scores"], int(m)) for g, m in zip(recorded, r.holders[:, 0]))
    assert np.all(r.decisions > 0)


def test_a_short_chunk_is_not_played_at_the_full_chunk_width(monkeypatch):
    """60 games of 3 agents are 6 chunks of 10 deals: each is one batch of 16 (a power of two),
    not 256; a full chunk is played at the chunk size."""
    import monkey_env.apps.results_table as results_table
    from monkey_env.apps.arena.games import ChunkPlayer

    widths = []

    class Played(Exception):
        pass

    def fake_play_games(agents, options, seeds, **kw):
        widths.append((len(seeds), kw["batch"], seeds[len(set(seeds)) - 1] == seeds[-1]))
        raise Played

    monkeypatch.setattr(results_table, "play_games", fake_play_games)
    for games, chunk_size, expected in [(60, 256, 16), (18, 256, 4), (6 * 300, 256, 256), (30, 4, 4)]:
        plan = plan_tournament(["random", "greedy", AGENTS[1]], 2, "1", OPTIONS, games, 0, "jax", chunk_size)
        player = ChunkPlayer(plan.spec)
        player._jax_game = object()                 # no engine is needed: play_games is replaced
        chunk = plan.schedule.chunks()[0]
        try:
            player.play(chunk)
        except Played:
            pass
        assert widths[-1] == (expected, expected, True), (games, chunk_size, widths[-1])
