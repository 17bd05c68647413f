"""Forbidden City through the command line: simulate and show (text and picture), and the
generic balance report with one block per player count."""

import json

from monkey_env.apps.cli import main


def test_simulate_saves_games_that_show_reads(tmp_path, capsys):
    out = tmp_path / "games"
    assert main(["simulate", "--game", "forbidden_city", "--games", "2", "--players", "3", "--agents",
                 "greedy,random,random", "--out", str(out), "--quiet"]) == 0
    assert "seat 1 (greedy)" in capsys.readouterr().out
    png = tmp_path / "city.png"
    assert main(["show", str(out / "game_0.json"), "--png", str(png)]) == 0
    text = capsys.readouterr().out
    assert "coins" in text and "game over" in text and png.stat().st_size > 10_000


def test_balance_reports_every_player_count(tmp_path):
    out = tmp_path / "balance"
    assert main(["balance", "--game", "forbidden_city", "--players", "2,3", "--agents", "random", "--games", "4",
                 "--batch", "4", "--out", str(out), "--quiet"]) == 0
    titles = [s["title"] for s in json.loads((out / "figures.json").read_text())["sections"]]
    assert any("2 players" in t for t in titles) and any("3 players" in t for t in titles)
    assert any(t.startswith("Tile kinds") for t in titles)
    # the report names the game's own score and win rule
    assert "Scores count coins; the winner has the most coins" in (out / "report.md").read_text()
