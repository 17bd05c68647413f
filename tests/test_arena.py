"""The arena: fair schedules, the results database, resumption after kill -9, ratings, bad input."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from monkey_env.apps.arena.games import ChunkPlayer, ranks_of
from monkey_env.apps.arena.ratings import agent_stats, openskill_ratings, win_matrix
from monkey_env.apps.arena.report import build_report
from monkey_env.apps.arena.results import Results, ResultsError
from monkey_env.apps.arena.runner import plan_tournament, run_tournament
from monkey_env.apps.arena.schedule import Schedule, seatings
from monkey_env.apps.balance.stats import wilson
from monkey_env.apps.cli import main

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = {"butterfly": False, "frog": False, "monkey_move": "optional", "butterfly_rule": "highest_overall",
           "end_trigger": "shortfall"}
RANDOM2 = "monkey_env.agents.random_agent:RandomAgent"     # a second agent name for the same class


class BadAgent:
    """Deliberately bad: never buys a card, else takes the first legal action."""

    name = "bad"

    def act(self, game, mask):
        end = game.layout.buy_end
        return end if mask[end] else int(np.flatnonzero(mask)[0])


# ------------------------------------------------------------------------------ schedule
@pytest.mark.parametrize("n_agents,players", [(2, 2), (3, 2), (2, 3), (2, 4), (3, 4), (4, 4), (5, 3)])
def test_every_agent_sits_in_every_seat_equally_often(n_agents, players):
    agents = [f"a{i}" for i in range(n_agents)]
    seats = seatings(agents, players)
    assert len(set(seats)) == len(seats)
    for seat in range(players):
        counts = Counter(s[seat] for s in seats)
        assert set(counts) == set(agents) and len(set(counts.values())) == 1, (seat, counts)
    # Every seating has each agent at least once when there are fewer agents than seats.
    if n_agents <= players:
        assert all(set(s) == set(agents) for s in seats)


def test_each_deal_is_replayed_for_every_seating_and_chunks_cover_the_schedule_once():
    s = Schedule(("a", "b", "c"), 2, games=50, seed=100, chunk_size=4)
    n = len(s.seatings)
    assert n == 6 and s.deals == 9 and s.total_games == 54       # rounded up to whole deals
    chunks = s.chunks()
    indices = [i for c in chunks for i in c.indices]
    assert sorted(indices) == list(range(s.total_games))
    by_deal = {}
    for c in chunks:
        assert len(set(c.seating)) == 2
        for deal, seed, index in zip(c.deals, c.seeds, c.indices):
            assert seed == 100 + deal and s.game(index) == (deal, c.seating, seed)
            by_deal.setdefault(seed, []).append(c.seating)
    assert all(sorted(v) == sorted(s.seatings) for v in by_deal.values())


# ------------------------------------------------------------------------------ games and the database
def is_rulebook_ranking(row) -> bool:
    """The row's ranks are the rulebook's places of its scores for some Monkey holder (or none)."""
    return any(row["ranks"] == ranks_of(row["scores"], t) for t in range(-1, len(row["scores"])))


def _plan(agents, games=4, seed=3, chunk=2, players=2):
    return plan_tournament(agents, players, "1", OPTIONS, games, seed, "reference", chunk)


def test_rows_resume_and_extend(tmp_path):
    db = Results(tmp_path / "r.sqlite")
    plan = _plan(["random", RANDOM2], games=4)
    tour, added = run_tournament(db, plan, workers=1, progress=False)
    assert added == 4
    rows = db.games(tour.id)
    assert [r["game_index"] for r in rows] == [0, 1, 2, 3]
    for r in rows:
        assert r["seed"] == 3 + r["deal"] and r["engine"] == "reference" and r["players"] == 2
        assert is_rulebook_ranking(r) and r["rounds"] > 0 and r["decisions"] > 0
        assert r["end_trigger"] in ("arches", "bricks", "columns", "arches and bricks")
        assert len(r["versions"]) == 2 and all(v.startswith("code-") for v in r["versions"])
        # the options as given, and the build action always (its default changed: as_recorded)
        assert r["options"] == {**OPTIONS, "build_action": "complete"}
        assert len(r["config_hash"]) == 16 and r["finished"].endswith("Z")
    # The two seatings of a deal: same seed, agents swapped.
    assert rows[0]["seed"] == rows[1]["seed"] and rows[0]["seats"] == rows[1]["seats"][::-1]
    # Same command again: nothing to do, same tournament.
    tour2, added = run_tournament(db, _plan(["random", RANDOM2], games=4), workers=1, progress=False)
    assert (tour2.id, added) == (tour.id, 0)
    # More games continue the same tournament; the first games are untouched.
    tour3, added = run_tournament(db, _plan(["random", RANDOM2], games=6), workers=1, progress=False)
    assert (tour3.id, added) == (tour.id, 2)
    assert db.games(tour.id)[:4] == rows
    # Another seed is another tournament.
    tour4, _ = run_tournament(db, _plan(["random", RANDOM2], games=2, seed=4), workers=1, progress=False)
    assert tour4.id != tour.id
    # Deterministic: replaying a recorded game gives the same row.
    player = ChunkPlayer(plan.spec)
    chunk = plan.schedule.chunks()[1]
    again = player.play(chunk)
    recorded = {r["game_index"]: r for r in rows}
    for g in again:
        assert {k: g[k] for k in ("scores", "rounds", "decisions")} == \
               {k: recorded[g["game_index"]][k] for k in ("scores", "rounds", "decisions")}


def test_a_duplicate_insert_is_ignored_and_a_failed_chunk_leaves_nothing(tmp_path):
    db = Results(tmp_path / "r.sqlite")
    plan = _plan(["random", RANDOM2], games=2)
    tour, _ = run_tournament(db, plan, workers=1, progress=False)
    rows = db.games(tour.id)
    del rows[0]["finished"]
    assert db.add_games(tour.id, [rows[0]]) == 0
    bad = dict(rows[0], game_index=99)
    del bad["rounds"]                              # a broken row in the middle of a chunk
    with pytest.raises(KeyError):
        db.add_games(tour.id, [dict(rows[0], game_index=98), bad])
    assert len(db.games(tour.id)) == 2


def test_ratings_put_a_clearly_stronger_agent_first(tmp_path):
    db = Results(tmp_path / "r.sqlite")
    plan = _plan(["test_arena:BadAgent", "random"], games=12, chunk=6)
    tour, _ = run_tournament(db, plan, workers=1, progress=False)
    report = build_report(db, tour.id)
    assert [r["agent"] for r in report["leaderboard"]] == ["random", "test_arena:BadAgent"]
    top, bottom = report["leaderboard"]
    assert top["mu"] > bottom["mu"] and top["sigma"] < 25 / 3
    wr = report["win_rates"]["random"]["test_arena:BadAgent"]
    assert wr["games"] == 12 and wr["ci95"][0] > 0.5
    assert top["mean_score"] > bottom["mean_score"]
    assert report["win_rates"]["test_arena:BadAgent"]["random"]["win_rate"] == pytest.approx(1 - wr["win_rate"])


def test_rating_maths_on_made_up_games():
    games = [{"seats": ["a", "b", "c"], "ranks": [1, 2, 3], "scores": [9, 5, 1]}] * 20 + \
            [{"seats": ["c", "a", "b"], "ranks": [3, 1, 1], "scores": [1, 7, 7]}] * 10
    r = openskill_ratings(games, ["a", "b", "c"])
    assert r["a"]["mu"] > r["b"]["mu"] > r["c"]["mu"]
    m = win_matrix(games, ["a", "b", "c"])
    assert m["a"]["b"]["wins"] == 20 and m["a"]["b"]["ties"] == 10 and m["a"]["b"]["win_rate"] == pytest.approx(25 / 30)
    assert m["c"]["a"]["win_rate"] == 0
    e = wilson(50, 100)
    assert e.lo == pytest.approx(0.4038, abs=1e-3) and e.hi == pytest.approx(0.5962, abs=1e-3)
    # First place is a win share: the tie for first of the last 10 games counts half to a and b.
    s = agent_stats(games, ["a", "b", "c"])
    assert s["a"]["first_place"] == pytest.approx(25 / 30) and s["b"]["first_place"] == pytest.approx(5 / 30)
    assert s["a"]["first_place_ci95"][0] < 25 / 30 < s["a"]["first_place_ci95"][1]


# ------------------------------------------------------------------------------ bad input
def _cli_error(capsys, *argv) -> str:
    with pytest.raises(SystemExit) as e:
        main(list(argv))
    return str(e.value.code) + capsys.readouterr().err


def test_bad_input_is_named(tmp_path, capsys):
    db = str(tmp_path / "x.sqlite")
    assert "unknown agent 'nobody'" in _cli_error(capsys, "tournament", "--agents", "random,nobody", "--db", db)
    assert "at least 2 different agents" in _cli_error(capsys, "tournament", "--agents", "random", "--db", db)
    assert "named twice" in _cli_error(capsys, "tournament", "--agents", "random,random", "--db", db)
    assert "cannot import module" in _cli_error(capsys, "tournament", "--agents", "random,no_such.mod:X", "--db", db)
    assert "--games must be at least 1" in _cli_error(capsys, "tournament", "--agents", f"random,{RANDOM2}",
                                                     "--games", "0", "--db", db)
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"this is not a database" * 100)
    msg = _cli_error(capsys, "tournament", "--agents", f"random,{RANDOM2}", "--db", str(broken))
    assert "broken.sqlite is not a monkey-palace results database" in msg
    assert broken.read_bytes() == b"this is not a database" * 100          # left as it was
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    assert "schema version" in _cli_error(capsys, "report", "--db", str(other))
    assert "no such database" in _cli_error(capsys, "report", "--db", str(tmp_path / "missing.sqlite"))
    with pytest.raises(ResultsError):
        Results(tmp_path)


def test_cli_report_json_and_plot(tmp_path, capsys):
    import json

    db, png = str(tmp_path / "c.sqlite"), str(tmp_path / "p.png")
    assert main(["tournament", "--agents", f"random,{RANDOM2}", "--games", "2", "--engine", "reference",
                 "--workers", "1", "--quiet", "--db", db, "--json", "--plot", png]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games_recorded"] == 2 and len(report["leaderboard"]) == 2
    assert Path(png).stat().st_size > 10_000
    assert main(["report", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "Leaderboard" in out and "Win rate" in out


# ------------------------------------------------------------------------------ kill -9 and resume
def test_resumes_after_sigkill_without_losing_or_doubling_games(tmp_path):
    db_path = tmp_path / "k.sqlite"
    games = 24
    cmd = [sys.executable, "-m", "monkey_env.apps.cli", "tournament", "--agents", f"random,{RANDOM2}", "--games",
           str(games), "--engine", "reference", "--chunk", "1", "--workers", "2", "--quiet", "--db", str(db_path)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def count() -> int:
        try:
            with sqlite3.connect(db_path, timeout=10) as c:
                return c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        except sqlite3.OperationalError:   # not created yet
            return 0

    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while count() < 4 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    first = count()
    assert 4 <= first < games, f"killed after {first} games"
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True, timeout=120)
    with sqlite3.connect(db_path) as c:
        indices = [r[0] for r in c.execute("SELECT game_index FROM games ORDER BY game_index")]
        assert c.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0] == 1
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert indices == list(range(games))


def test_a_time_limit_stops_before_new_work_and_the_next_run_continues(tmp_path):
    db = Results(tmp_path / "r.sqlite")
    plan = _plan(["random", RANDOM2], games=4)
    tour, added = run_tournament(db, plan, workers=1, progress=False, time_limit=0)
    assert added == 0 and db.games(tour.id) == []
    _, added = run_tournament(db, plan, workers=1, progress=False, time_limit=3600)
    assert added == 4


def test_another_games_report_names_its_own_win_rule(tmp_path):
    db = Results(tmp_path / "st.sqlite")
    plan = plan_tournament(["random", RANDOM2], 2, "-", {}, 2, 0, "reference", game="shadow_theater")
    tour, added = run_tournament(db, plan, workers=1, progress=False)
    report = build_report(db, tour.id)
    assert added == 2 and report["games_recorded"] == 2
    assert "2 Lanterns" in report["shared_win"] and "Banana" not in report["shared_win"]
    # its score is named as the game counts it, and the figures under one name for every game
    assert report["score_name"] == "Lanterns"
    assert all(row["mean_score"] is not None and len(row["score_ci95"]) == 2 for row in report["leaderboard"])
