"""The Shadow Theater through the applications and clients: the registry's agents, simulate,
show (text and picture), play in the terminal, evaluate on the reference engine, the Gymnasium
view and the VecEnv (small batches: they share the compiled engine of the shared suite)."""

import io
import json
import sys

import gymnasium
import numpy as np
import pytest

import monkey_env  # noqa: F401  (registers the Gymnasium ids)
from monkey_env.agents.registry import known_names, make_agent
from monkey_env.apps.cli import main
from monkey_env.shadow_theater.engine import Game
from monkey_env.shadow_theater.options import ShadowTheaterOptions


def test_the_registry_has_random_greedy_and_ppo_for_the_game_and_keeps_monkey_palaces():
    assert known_names("shadow_theater") == ["greedy", "mcts", "ppo", "ppo-sample", "random"]
    assert "ppo-sb3" in known_names() and "ppo-sb3" not in known_names("shadow_theater")
    with pytest.raises(ValueError, match="unknown agent 'oracle' for shadow_theater"):
        make_agent("oracle", 0, game="shadow_theater")
    assert make_agent("mcts", 0, game="shadow_theater").game == "shadow_theater"   # the search (issue 30)
    g = Game.from_options(ShadowTheaterOptions(seed=1))
    for name in ("random", "greedy"):
        a = make_agent(name, 3, game="shadow_theater")
        assert g.legal_mask()[a.act(g, g.legal_mask())]


def test_greedy_beats_random_on_the_reference_engine():
    from monkey_env.apps.results_table import play_games

    table = play_games(lambda i, s: [make_agent("greedy", s, game="shadow_theater"),
                                     make_agent("random", s + 1, game="shadow_theater")][::1 - 2 * (i % 2)],
                       ShadowTheaterOptions(), range(12), engine="reference")
    greedy_seat = np.arange(12) % 2
    assert table.win_shares[np.arange(12), greedy_seat].sum() >= 10
    assert table.stats["kind_played"].shape == (12, 2, 8) and set(table.end_trigger) == {"2 Lanterns taken"}


def test_simulate_show_and_png(tmp_path, capsys):
    assert main(["simulate", "--game", "shadow_theater", "--games", "3", "--agents", "greedy,random", "--seed", "4",
                 "--out", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "3 games, 2 players, The Shadow Theater" in out and "mean Lanterns" in out
    # the save names its game: show finds it without --game
    assert main(["show", str(tmp_path / "game_4.json"), "--png", str(tmp_path / "p.png")]) == 0
    out = capsys.readouterr().out
    assert "Lanterns" in out and (tmp_path / "p.png").stat().st_size > 10_000
    import matplotlib.image
    assert matplotlib.image.imread(str(tmp_path / "p.png")).shape[:2] == (620, 900)


def test_play_in_the_terminal_to_the_end_then_resume_a_save(tmp_path, monkeypatch, capsys):
    save = tmp_path / "s.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("help\n1\n1\nquit\n"))
    assert main(["play", "--game", "shadow_theater", "--opponents", "random", "--save", str(save), "--png", ""]) == 0
    doc = json.loads(save.read_text())
    assert doc["game"] == "shadow_theater" and len(doc["state"]["history"]) >= 2
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    assert main(["play", "--game", "shadow_theater", "--resume", str(save), "--png", str(tmp_path / "end.png")]) == 0
    out = capsys.readouterr().out
    assert "Type the number" in out and ("You won!" in out or "Winner: seat 2" in out)
    assert (tmp_path / "end.png").exists()


class ReferenceOnlyRandom:
    """act only: evaluate then plays on the reference engine (no compilation in this test)."""
    name = "ref-random"

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)

    def act(self, game, mask):
        return int(self.rng.choice(np.flatnonzero(mask)))


def test_evaluate_another_game_with_seats_rotated():
    from monkey_env.apps.evaluate import evaluate, format_table

    report = evaluate(["ref-random", "greedy-ref"], games=8, seed=2, progress=False, game_options=ShadowTheaterOptions(),
                      agents={"ref-random": ReferenceOnlyRandom(1),
                              "greedy-ref": _ActOnly(make_agent("greedy", 0, game="shadow_theater"))})
    assert report["engine"] == "reference" and report["seat_games"] == {"ref-random": 8, "greedy-ref": 8}
    assert report["win_rate"]["greedy-ref"] >= 0.75 and "The Shadow Theater" in format_table(report)
    # The game's own win rule, not Monkey Palace's Banana Points.
    assert "2 Lanterns" in report["shared_win"] and "Banana" not in report["shared_win"]


class _ActOnly:
    def __init__(self, agent):
        self.agent, self.name = agent, "greedy-ref"

    def act(self, game, mask):
        return self.agent.act(game, mask)


def test_the_gymnasium_view_plays_a_whole_game_against_greedy():
    env = gymnasium.make("ShadowTheater-v0", opponents="greedy")
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    total, done = 0.0, False
    while not done:
        obs, reward, term, trunc, info = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        total, done = total + reward, term or trunc
    assert total in (-2.0, -1.0, 0.0, 1.0, 2.0) and info["scores"].max() == 2


def test_the_vec_env_resets_finished_games_and_rewards_lanterns():
    from monkey_env.shadow_theater.envs.vec_env import ShadowTheaterVecEnv

    venv = ShadowTheaterVecEnv(4, opponents="random", seed=1)
    obs = venv.reset()
    assert obs["planes"].shape == (4, 2, 3, 3) and obs["vector"].shape[0] == 4
    rng, finished, total = np.random.default_rng(0), 0, 0.0
    for _ in range(120):
        masks = venv.action_masks()
        assert masks.any(1).all()               # every game waits for its learner
        obs, rewards, dones, infos = venv.step(np.argmax(np.where(masks, rng.random(masks.shape), -1), 1))
        total += rewards.sum()
        finished += dones.sum()
        for i in np.flatnonzero(dones):
            episode = infos[i]["episode"]          # the learner's Lanterns and return (its minus the other's)
            assert "terminal_observation" in infos[i] and -2 <= episode["r"] <= 2
            assert episode["won"] == (episode["r"] > 0) and (episode["score"] == 2) <= episode["won"]
    assert finished >= 2 and abs(total) <= 2 * finished


def test_bench_of_the_reference_engine(capsys):
    assert main(["bench", "--game", "shadow_theater", "--reference-only", "--games", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "shadow_theater" and report["reference"]["decisions_per_second"] > 0 and report["jax"] == []


def test_balance_sections_from_a_results_table():
    from monkey_env.apps.balance.any_game import build, markdown
    from monkey_env.apps.results_table import play_games
    from monkey_env.games import game_spec

    table = play_games(lambda i, s: [make_agent("greedy", s, game="shadow_theater"),
                                     make_agent("random", s, game="shadow_theater")], ShadowTheaterOptions(), range(6),
                       engine="reference")
    report = build(game_spec("shadow_theater"), table, {"title": "The Shadow Theater", "games": 6, "agent": "x",
                                                        "seed": 0, "engine": "reference"})
    titles = [s["title"] for s in report["sections"]]
    assert titles[0].startswith("Seats") and any("Weapon-card kinds" in t for t in titles) and any("Scrolls" in t for t in titles)
    assert len(report["sections"][2]["rows"]) == 8 and len(report["sections"][3]["rows"]) == 10
    assert "seat 1 (first player)" in markdown(report)


def test_balance_without_players_plays_the_duel(tmp_path):
    # --players defaults to the game's own count (Monkey Palace's 2,4 would be refused by a duel).
    assert main(["balance", "--game", "shadow_theater", "--agents", "random", "--games", "8", "--batch", "8",
                 "--seed", "3", "--out", str(tmp_path), "--quiet"]) == 0
    figures = json.loads((tmp_path / "figures.json").read_text())
    assert figures["meta"]["games"] == 8 and figures["meta"]["players"] == [] and figures["sections"]
