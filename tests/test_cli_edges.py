"""The command line's rough edges (issue 31): one save format that every loader opens and checks
against its history; bad values and Ctrl-C as one line and an exit status, never a traceback;
no silently wrong results (an empty --config-dir, --players out of range)."""

from __future__ import annotations

import io
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from monkey_env.apps.cli import main

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("monkey_palace", "shadow_theater", "forbidden_city")
TITLES = {"monkey_palace": "Monkey Palace", "shadow_theater": "The Shadow Theater", "forbidden_city": "Forbidden City"}

# An agent with act only (no act_batch): evaluate plays it on the reference engine, with no JAX compile.
ACT_ONLY = '''
import numpy as np

class FirstLegal:
    name = "first-legal"

    def __init__(self, seed=0):
        pass

    def act(self, game, mask):
        return int(np.flatnonzero(mask)[0])
'''


def one_error_line(capsys, rc: int, *words: str, code: int = 2) -> str:
    """The command failed with `code`, and said so in one line holding `words`, without a traceback."""
    out, err = capsys.readouterr()
    assert rc == code, (out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


# ============================================================================ item 3: saves
def play_and_save(game: str, path: Path, monkeypatch, answers: str = "1\n1\n1\n") -> dict:
    """`play` of `game`, a few answers, then the input closes: play saves the game to `path`."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(answers))
    rc = main(["play", "--game", game, "--yes", "--seed", "3", "--save", str(path), "--png", ""])
    assert rc == 0 and path.is_file()
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from fastapi.testclient import TestClient

    from monkey_env.apps.web.app import create_app

    return TestClient(create_app(tmp_path_factory.mktemp("web") / "games"))


@pytest.mark.parametrize("game", GAMES)
def test_a_play_save_opens_in_show_the_browser_and_play_resume_without_game(game, tmp_path, monkeypatch, capsys,
                                                                           client):
    save = tmp_path / "game.json"
    doc = play_and_save(game, save, monkeypatch)
    assert doc["game"] == game and doc["human"] == 0 and isinstance(doc["state"], dict)   # the one format
    capsys.readouterr()

    assert main(["show", str(save)]) == 0                    # no --game: the file says which
    out, err = capsys.readouterr()
    assert out.strip() and not err

    r = client.post("/api/records", content=save.read_bytes())
    assert r.status_code == 200, r.text
    frames = client.get(f"/api/replays/record/{r.json()['id']}").json()
    history = doc["state"].get("history", doc["state"].get("actions"))
    assert frames["game"] == game and frames["steps"] == len(history)

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "--resume", str(save), "--png", ""]) == 0
    out = capsys.readouterr().out
    assert "game saved to" in out and "Stopped: the input closed" in out
    if game == "monkey_palace":
        assert f"Resuming {save}" in out
    else:
        assert out.startswith(TITLES[game])
    again = json.loads(save.read_text())
    assert again["game"] == game and again["state"] == doc["state"]   # the same game goes on


EDITS = {
    "monkey_palace": (lambda s: s["players"][0]["supply"].__setitem__("arches", 40), "players[0].supply.arches is 40"),
    "shadow_theater": (lambda s: s["lanterns"].__setitem__(0, 9), "lanterns[0] is 9"),
    "forbidden_city": (lambda s: s["coins"].__setitem__(0, 99), "coins[0] is 99"),
}


@pytest.mark.parametrize("game", GAMES)
def test_a_save_edited_by_hand_is_refused_everywhere_naming_the_field(game, tmp_path, monkeypatch, capsys, client):
    save = tmp_path / "game.json"
    doc = play_and_save(game, save, monkeypatch)
    edit, words = EDITS[game]
    edit(doc["state"])
    save.write_text(json.dumps(doc))
    capsys.readouterr()

    line = one_error_line(capsys, main(["show", str(save)]), str(save), "disagrees with its own history", words)
    assert "replaying its" in line

    r = client.post("/api/records", content=save.read_bytes())
    assert r.status_code == 422 and words in r.json()["detail"], r.text

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    one_error_line(capsys, main(["play", "--resume", str(save), "--png", ""]), words)

    # The engine save alone (no seats around it) is checked the same way.
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(doc["state"]))
    one_error_line(capsys, main(["show", str(plain)]), words)


def test_the_first_monkey_palace_play_saves_still_open(tmp_path, monkeypatch, capsys):
    save = tmp_path / "game.json"
    doc = play_and_save("monkey_palace", save, monkeypatch)
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"monkey_palace_play": 1, "human": 0, "opponents": ["random"], "game": doc["state"]}))
    capsys.readouterr()
    assert main(["show", str(old)]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "--resume", str(old), "--png", ""]) == 0
    assert f"Resuming {old}" in capsys.readouterr().out


@pytest.mark.parametrize("content, words", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
    (json.dumps({"hello": 1}), "neither a game record"),
    (json.dumps({"game": "chess", "actions": []}), "'chess'"),
])
def test_a_file_that_is_no_save_is_one_line(tmp_path, monkeypatch, capsys, content, words):
    f = tmp_path / "x.json"
    f.write_text(content)
    one_error_line(capsys, main(["show", str(f)]), str(f), words)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    one_error_line(capsys, main(["play", "--resume", str(f)]), str(f), words)


# ============================================================================ item 4: one line, not a traceback
@pytest.mark.parametrize("argv, words", [
    (["simulate", "--games", "2", "--seed", str(2 ** 63), "--quiet"], ["argument --seed", "2^63 - 1"]),
    (["simulate", "--games", "3", "--seed", str(2 ** 63 - 2), "--quiet"], ["argument --seed", "past 2^63 - 1"]),
    (["evaluate", "--agents", "random", "--games", "2", "--seed", str(2 ** 64)], ["argument --seed"]),
    (["simulate", "--games", "1000000000000", "--quiet"], ["argument --games", "1,000,000,000,000"]),
    (["evaluate", "--agents", "random,greedy", "--games", "1000000000000"], ["argument --games"]),
    (["tournament", "--agents", "random,greedy", "--games", "1000000000000"], ["argument --games"]),
    (["simulate", "--agents", "os:system", "--games", "1", "--quiet"], ["argument --agents", "not an agent class"]),
    (["evaluate", "--agents", "os:system,random", "--games", "1"], ["argument --agents", "function"]),
    (["balance", "--from", "/no/such/games.npz", "--out", "unused"], ["argument --from", "no such file"]),
    (["balance", "--game", "shadow_theater", "--from", "x.npz", "--out", "unused"], ["argument --from"]),
])
def test_bad_values_are_one_line_naming_the_argument(argv, words, capsys):
    one_error_line(capsys, main(argv), *words)


@pytest.mark.parametrize("game", GAMES)
def test_show_png_into_a_missing_folder(game, tmp_path, monkeypatch, capsys):
    save = tmp_path / "game.json"
    play_and_save(game, save, monkeypatch)
    capsys.readouterr()
    png = tmp_path / "no" / "such" / "folder" / "x.png"
    one_error_line(capsys, main(["show", str(save), "--png", str(png)]), "argument --png", str(png.parent))
    assert not png.parent.exists()


def test_an_import_path_to_a_function_is_never_called():
    from monkey_env.agents.registry import make_agent

    with pytest.raises(ValueError, match="is a function, not an agent class"):
        make_agent("os:getcwd")


def test_evaluate_stopped_after_a_finished_rotation_reports_it(tmp_path, monkeypatch, capsys):
    (tmp_path / "edge_agents.py").write_text(ACT_ONLY)
    monkeypatch.syspath_prepend(str(tmp_path))
    import monkey_env.apps.evaluate as evaluate

    real, calls = evaluate.play_games, []

    def second_is_interrupted(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(evaluate, "play_games", second_is_interrupted)
    rc = main(["evaluate", "--agents", "random,edge_agents:FirstLegal", "--games", "4", "--quiet"])
    out, err = capsys.readouterr()
    assert rc == 130 and "Traceback" not in err
    assert out.startswith("2 games, 2 players")               # the finished rotation's table
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == ["monkey-palace evaluate: stopped (Ctrl-C) after 2 of 4 games; "
                     "the report above is of them (whole seat rotations)"]


def interrupted(args: list[str], tmp_path: Path) -> tuple[int, str, str]:
    """Run `monkey-palace ARGS` until its progress bar shows, then Ctrl-C (SIGINT) it."""
    (tmp_path / "edge_agents.py").write_text(ACT_ONLY)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]))
    # A command started in the background (CI run with `&`, nohup) inherits an ignored SIGINT, and
    # Python then leaves Ctrl-C ignored: give the child the default disposition, as a terminal would.
    proc = subprocess.Popen([sys.executable, "-m", "monkey_env.apps.cli", *args], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    err, deadline = b"", time.time() + 120
    while b"games:" not in err:
        ready, _, _ = select.select([proc.stderr], [], [], max(0.0, deadline - time.time()))
        assert ready, f"no progress bar in 120 s: {err.decode()}"
        chunk = os.read(proc.stderr.fileno(), 1 << 16)
        assert chunk, f"ended before its progress bar: {err.decode()}"
        err += chunk
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, rest = proc.communicate(timeout=60)
    return proc.returncode, out.decode(), (err + rest).decode()


def last_line(err: str) -> str:
    return [line for line in re.split(r"[\r\n]", err) if line.strip()][-1]


@pytest.mark.parametrize("game", GAMES)
def test_ctrl_c_during_evaluate(game, tmp_path):
    rc, out, err = interrupted(["evaluate", "--game", game, "--agents", "random,edge_agents:FirstLegal",
                                "--games", "100000"], tmp_path)
    assert rc == 130 and "Traceback" not in err, err
    assert re.fullmatch(r"monkey-palace evaluate: stopped \(Ctrl-C\) after \d+ of 100000 games; .+", last_line(err))


@pytest.mark.parametrize("game", ["monkey_palace", "forbidden_city"])
def test_ctrl_c_during_simulate_keeps_the_finished_games(game, tmp_path):
    out_dir = tmp_path / "games"
    rc, out, err = interrupted(["simulate", "--game", game, "--games", "100000", "--out", str(out_dir)], tmp_path)
    assert rc == 130 and "Traceback" not in err, err
    m = re.fullmatch(r"monkey-palace simulate: stopped \(Ctrl-C\) after (\d+) of 100000 games; "
                     r"the finished games are saved in (.+)", last_line(err))
    assert m and m.group(2) == str(out_dir), last_line(err)
    assert len(list(out_dir.glob("*.json"))) == int(m.group(1))


# ============================================================================ item 5: no silent wrong results
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("folder", ["empty", "missing"])
def test_an_empty_or_missing_config_dir_is_refused_for_every_game(game, folder, tmp_path, capsys):
    d = tmp_path / "configs"
    if folder == "empty":
        d.mkdir()
    one_error_line(capsys, main(["simulate", "--game", game, "--config-dir", str(d), "--games", "1", "--quiet"]),
                   "argument --config-dir", str(d))


def test_a_shadow_theater_folder_with_one_edited_file_still_plays(tmp_path, capsys):
    import shutil

    (tmp_path / "shadow_theater").mkdir()
    shutil.copy(ROOT / "configs" / "shadow_theater" / "weapons.yaml", tmp_path / "shadow_theater")
    assert main(["simulate", "--game", "shadow_theater", "--config-dir", str(tmp_path), "--games", "1",
                 "--quiet"]) == 0


@pytest.mark.parametrize("argv, words", [
    (["simulate", "--players", "-1", "--games", "1"], "Monkey Palace is played by 2 to 4 players, got -1"),
    (["evaluate", "--players", "5", "--agents", "random"], "Monkey Palace is played by 2 to 4 players, got 5"),
    (["simulate", "--game", "shadow_theater", "--players", "3"], "The Shadow Theater is played by 2 players, got 3"),
    (["simulate", "--game", "forbidden_city", "--players", "0"], "Forbidden City is played by 2 to 4 players, got 0"),
])
def test_players_out_of_range_says_the_games_count(argv, words, capsys):
    one_error_line(capsys, main(argv), "argument --players", words)


def test_ctrl_c_is_held_back_until_a_finished_game_is_saved_and_counted():
    """A Ctrl-C while a finished game is being written lands after the file and the count
    (simulate's count once disagreed with the files when it came mid-write)."""
    import os as _os

    from monkey_env.apps.cli_edges import ctrl_c_deferred

    done = []
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_deferred():
            _os.kill(_os.getpid(), signal.SIGINT)
            time.sleep(0.05)            # the signal arrives now, and is held back
            done.append("saved")
            done.append("counted")
    assert done == ["saved", "counted"]
