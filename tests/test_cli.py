"""The monkey-palace command line, run as a user would."""

import json
import subprocess
import sys


def cli(*args, check=True):
    return subprocess.run([sys.executable, "-m", "monkey_env.apps.cli", *args], capture_output=True, text=True,
                          check=check)


def test_simulate_json_has_one_object_per_game(tmp_path):
    out = cli("simulate", "--games", "3", "--players", "3", "--map", "2", "--frog", "--seed", "9", "--json",
              "--quiet", "--out", str(tmp_path)).stdout
    games = [json.loads(line) for line in out.splitlines()]
    assert [g["seed"] for g in games] == [9, 10, 11]
    for g in games:
        assert set(g) >= {"seed", "map", "players", "options", "rounds", "scores", "winners", "end_trigger",
                          "tray_left"}
        assert g["players"] == 3 and g["map"] == "2" and g["options"]["frog"] is True
        assert len(g["scores"]) == 3 and g["winners"]
        assert g["end_trigger"] in ("arches", "bricks", "columns", "arches and bricks")
    # Same seed, same games.
    again = [json.loads(line) for line in cli("simulate", "--games", "3", "--players", "3", "--map", "2",
                                              "--frog", "--seed", "9", "--json", "--quiet").stdout.splitlines()]
    assert again == games


def test_show_prints_the_palace_and_the_players(tmp_path):
    cli("simulate", "--games", "1", "--seed", "4", "--quiet", "--out", str(tmp_path))
    out = cli("show", str(tmp_path / "game_4.json"), "--png", str(tmp_path / "palace.png")).stdout
    assert (tmp_path / "palace.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "game over" in out and "seat 1:" in out and "seat 2:" in out and "Banana Points" in out
    assert "A" in out and "y\\x" in out  # the palace grid with arch end knobs


def test_errors_are_one_clear_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = cli("show", str(bad), check=False)
    assert result.returncode == 2
    assert "not valid JSON" in result.stderr and "Traceback" not in result.stderr
    result = cli("simulate", "--games", "1", "--map", "7", "--quiet", check=False)
    assert result.returncode == 2 and "four ground maps" in result.stderr


def test_bench_reference_reports_decisions_per_second():
    report = json.loads(cli("bench", "--reference-only", "--games", "1", "--json").stdout)
    assert report["reference"]["decisions_per_second"] > 0 and report["reference"]["build_action"] == "catalogue"
    complete = report["reference_complete"]
    assert complete["build_action"] == "complete" and complete["games_per_second"] > 0
    assert complete["decisions_per_game"] > report["reference"]["decisions_per_game"]   # arch by arch


def test_an_evaluate_report_says_where_it_comes_from(capsys):
    """Provenance (issue 31): the command as typed, the commit, the machine and its load, the run time,
    and the hashes of the checkpoints a learned agent read."""
    from monkey_env.apps.cli import main

    assert main(["evaluate", "--game", "shadow_theater", "--agents", "greedy,random", "--games", "4", "--seed", "3",
                 "--json", "--quiet"]) == 0
    prov = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["provenance"]
    assert prov["command"] == ("monkey-palace evaluate --game shadow_theater --agents greedy,random --games 4 --seed 3 "
                               "--json --quiet")
    assert prov["commit"] and prov["seconds"] >= 0 and prov["machine"]["cores"] >= 1
    assert prov["checkpoints"] == {}                 # no learned agent played
    from monkey_env.core.provenance import shipped_checkpoints
    assert any(p.name == "ppo_jax_shadow_theater.msgpack" for p in shipped_checkpoints(["ppo"]))


def test_a_report_names_the_commit_its_run_started_from(monkeypatch):
    """A long run (a tune, a benchmark) writes its report after the checkout may have moved on:
    the provenance names the commit the command started from, and the one at the end if it differs."""
    from monkey_env.core import provenance as prov

    commits = iter(["aaa111", "bbb222+dirty", "aaa111"])
    monkeypatch.setattr(prov, "checkout_commit", lambda: next(commits))
    monkeypatch.setattr(prov, "_commit_at_start", None)
    prov.set_command(["tune", "--game", "forbidden_city"])
    moved = prov.provenance()
    assert moved["commit"] == "aaa111" and moved["commit_at_end"] == "bbb222+dirty"
    same = prov.provenance()
    assert same["commit"] == "aaa111" and "commit_at_end" not in same


def test_a_report_records_the_load_when_its_command_began(monkeypatch):
    """The balance report's provenance named no load before its run (stamp gives none): the load
    taken when the command began is the default."""
    from monkey_env.core import provenance as prov

    loads = iter([[1.5, 1.2, 1.0], [3.0, 2.0, 1.5]])
    monkeypatch.setattr(prov, "load_average", lambda: next(loads))
    monkeypatch.setattr(prov, "checkout_commit", lambda: "aaa111")
    monkeypatch.setattr(prov, "_commit_at_start", None)
    monkeypatch.setattr(prov, "_load_at_start", None)
    prov.set_command(["balance", "--out", "x"])
    machine = prov.provenance()["machine"]
    assert machine["load_average_before"] == [1.5, 1.2, 1.0] and machine["load_average_after"] == [3.0, 2.0, 1.5]


def test_run_as_a_module_every_command_plays_the_chosen_game():
    """`python -m monkey_env.apps.cli` runs the module as __main__; the subcommands in other modules
    must still see the --game it chose (they played Monkey Palace before)."""
    out = cli("evaluate", "--game", "shadow_theater", "--agents", "random,greedy", "--games", "2", "--seed", "1",
              "--json").stdout
    report = json.loads(out)
    assert report["game"] == "shadow_theater" and report["score_name"] == "Lanterns"


def test_the_alternated_ratio_calls_the_engines_in_turn_and_takes_the_median():
    from monkey_env.monkey_palace.apps.bench import alternated_ratios

    calls = []
    first = lambda r: calls.append(("first", r)) or 100.0 + 10 * r
    second = lambda r: calls.append(("second", r)) or [40.0, 60.0, 30.0][r]
    report = alternated_ratios(first, second, 3)
    assert calls == [("first", 0), ("second", 0), ("first", 1), ("second", 1), ("first", 2), ("second", 2)]
    assert [p["ratio"] for p in report["pairs"]] == [0.4, 60 / 110, 0.25]
    assert report["median"] == 0.4 and report["spread"] == [0.25, 60 / 110]
