"""The framework's proof: Pebble Piles (examples/pebble_piles), a game installed from outside the
package and found through the ``monkey_env.games`` entry point, runs through every command and
the browser API. The shared suite (tests/test_games_shared.py, test_env_layer.py,
test_information_sets.py) runs on it as on every registered game. ``make setup`` installs it.

Small batches (8) and few games: the JAX engine compiles once per batch size.
"""

import io
import json
import sys
from importlib.metadata import entry_points

import numpy as np
import pytest
from fastapi.testclient import TestClient

from monkey_env.apps.cli import main
from monkey_env.apps.web.app import create_app
from monkey_env.games import PLUGIN_GROUP, game_names, game_spec

NAME = "pebble_piles"
if NAME not in game_names():
    pytest.fail("the example game is not installed: pip install -e examples/pebble_piles (make setup does)",
                pytrace=False)


def new_game(**options):
    spec = game_spec(NAME)
    return spec.load("reference").from_options(spec.load("options")(**options))


def test_it_is_registered_by_its_entry_point_not_by_the_package():
    assert [ep.value for ep in entry_points(group=PLUGIN_GROUP) if ep.name == NAME] == ["pebble_piles.spec:SPEC"]
    spec = game_spec(NAME)
    assert all(not path.startswith("monkey_env") for path in spec.parts.values())


def test_a_turn_takes_from_an_end_of_the_row_and_a_tie_goes_to_the_last_taker():
    game = new_game(players=2, seed=0)
    game.piles = [0, 2, 5, 0, 1, 0]                     # the row's ends: piles 2 and 5
    assert game.row_ends() == [1, 4]
    assert game.explain(2 * 3 + 0) == "pile 3 is not at an end of the row (the ends: piles 2 and 5)"
    assert game.explain(4 * 3 + 1) == "pile 5 has only 1 pebble(s), not 2"
    game.points = [10, 11]
    game.apply(1 * 3 + 1)                              # seat 1 takes 2 from pile 2: 12-11
    game.apply(4 * 3 + 0)                              # seat 2 takes pile 5's last: 12-12
    assert game.row_ends() == [2] and game.current == 0
    game.apply(2 * 3 + 2)                              # seat 1: 3 of pile 3's 5 -> 15-12
    game.apply(2 * 3 + 1)                              # seat 2 takes the last 2 -> 15-14
    assert game.game_over and game.scores() == [15, 14] and game.winners() == [0]
    tied = new_game(players=3, seed=0)
    tied.piles, tied.points, tied.current = [0, 0, 1, 0, 0, 0], [5, 4, 4], 2
    tied.apply(2 * 3 + 0)                              # seat 3 takes the last pebble: 5-4-5
    assert tied.places() == [2, 3, 1]
    assert tied.winners() == [2] and tied.end_reason == "the piles are empty"


def test_simulate_saves_games_that_show_reads(tmp_path, capsys):
    out = tmp_path / "sims"
    assert main(["simulate", "--game", NAME, "--games", "3", "--players", "3", "--agents", "greedy,random,random",
                 "--seed", "4", "--out", str(out), "--json", "--quiet"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert len(rows) == 3 and all(sum(r["scores"]) > 0 and r["end_trigger"] == "the piles are empty" for r in rows)
    assert main(["show", str(out / "game_4.json"), "--png", str(tmp_path / "p.png")]) == 0
    shown = capsys.readouterr().out
    assert "Pebble Piles" in shown and "Game over" in shown and (tmp_path / "p.png").stat().st_size > 0


def test_evaluate_on_the_jax_engine(capsys):
    assert main(["evaluate", "--game", NAME, "--agents", "greedy,random", "--games", "8", "--batch", "8",
                 "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["engine"] == "jax" and report["games"] == 8
    assert report["win_rate"]["greedy"] > report["win_rate"]["random"]


def test_tournaments_on_both_engines(tmp_path, capsys):
    for engine in ("jax", "reference"):
        db = tmp_path / f"{engine}.db"
        assert main(["tournament", "--game", NAME, "--agents", "greedy,random", "--games", "8", "--engine", engine,
                     "--chunk", "8" if engine == "jax" else "4", "--workers", "1", "--db", str(db), "--json",
                     "--quiet"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["tournament"]["engine"] == engine and report["tournament"]["game"] == NAME
        assert report["games_recorded"] == 8 and report["leaderboard"][0]["agent"] == "greedy"


def test_balance_per_player_count(tmp_path):
    out = tmp_path / "balance"
    assert main(["balance", "--game", NAME, "--players", "2,3", "--games", "8", "--batch", "8", "--out", str(out)]) == 0
    report = (out / "report.md").read_text()
    assert "Balance report: Pebble Piles" in report and "3 players" in report


def test_play_in_the_terminal_with_scripted_answers(tmp_path, monkeypatch, capsys):
    save = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("help\n1\n2\nsave\nquit\n"))
    assert main(["play", "--game", NAME, "--players", "3", "--opponents", "greedy,random", "--seed", "2", "--yes",
                 "--save", str(save), "--png", ""]) == 0
    said = capsys.readouterr().out
    assert "* = a pile at an end of the row" in said and "take 1 from pile" in said and "seat 2 (greedy): take" in said
    assert len(json.loads(save.read_text())["state"]["history"]) == 6       # 2 of mine, 4 of the bots'
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 200))
    assert main(["play", "--resume", str(save), "--png", ""]) == 0
    assert "Game over (the piles are empty)" in capsys.readouterr().out


def test_the_browser_shows_it_with_the_generic_view(tmp_path):
    client = TestClient(create_app(tmp_path / "games"))
    meta = {g["name"]: g for g in client.get("/api/meta").json()["games"]}
    assert meta[NAME]["title"] == "Pebble Piles" and meta[NAME]["options"]["players"]["choices"] == [2, 3, 4]
    assert "greedy" in meta[NAME]["agents"]
    r = client.post("/api/games", json={"game": NAME, "options": {"players": 2, "seed": 5},
                                        "seats": [{"kind": "human"}, {"kind": "bot", "agent": "greedy"}]})
    assert r.status_code == 200, r.text
    g = r.json()
    st = g["state"]
    assert st["game"] == NAME and "pile 1" in st["text"] and g["to_move"] == "human"
    buttons = st["decision"]["buttons"]
    assert {b["action"] for b in buttons} == set(np.flatnonzero(new_game(seed=5).legal_mask()).tolist())
    refused = client.post(f"/api/games/{g['id']}/move", json={"action": 7, "expect": 0})   # pile 3: not an end
    assert refused.status_code == 422 and "not at an end of the row" in refused.json()["detail"]
    moved = client.post(f"/api/games/{g['id']}/move", json={"action": buttons[0]["action"], "expect": 0}).json()
    assert moved["move"]["label"] == buttons[0]["label"] and moved["to_move"] == "bot"
    assert "decision" not in moved["state"]                    # the bot's decision is not the page's
    bot = client.post(f"/api/games/{g['id']}/bot", json={"expect": 1}).json()
    assert bot["move"]["seat"] == 1 and bot["state"]["decisions"] == 2
    record = client.get(f"/api/games/{g['id']}/record").json()
    assert record["game"] == NAME and len(record["actions"]) == 2
    uploaded = client.post("/api/records", content=json.dumps(record)).json()
    frames = client.get(f"/api/replays/record/{uploaded['id']}?step=1").json()
    assert frames["steps"] == 2 and frames["frame"]["move"]["label"] == buttons[0]["label"]
    assert client.get("/static/js/views/generic_view.js").status_code == 200
