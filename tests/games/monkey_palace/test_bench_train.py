"""bench --train repeats its timings and reports medians with their spread (issue 32): the
aggregation, the progress lines and the flags, without training (the trainers are stood in for)."""

from __future__ import annotations

import pytest

import monkey_env.monkey_palace.apps.bench_train as bench_train


def fake_once(ratios):
    ratios = iter(ratios)

    def once(jax_iterations, sb3_updates, log):
        assert jax_iterations == sb3_updates == 4
        r = next(ratios)
        log(f"JAX trainer: {100.0 * r:.0f} learner decisions/s")
        return {"train_decisions_per_second_jax": 100.0 * r, "train_decisions_per_second_sb3": 100.0,
                "train_decisions_per_second_jax_sb3_sized": 50.0 * r, "train_ratio_vs_sb3": r,
                "train_ratio_vs_sb3_same_size": r / 2, "jax": {"r": r}, "jax_sb3_sized": {}, "sb3": {}, "devices": ["cpu"]}
    return once


def test_the_report_is_the_median_of_the_repeats_with_their_spread(monkeypatch):
    monkeypatch.setattr(bench_train, "train_bench_once", fake_once([1.0, 5.0, 2.0]))
    said = []
    report = bench_train.run_train_bench(iterations=4, repeats=3, log=said.append)
    assert report["train_ratio_vs_sb3"] == 2.0 and report["spread"]["train_ratio_vs_sb3"] == [1.0, 5.0]
    assert report["train_ratio_vs_sb3_same_size"] == 1.0
    assert [r["train_ratio_vs_sb3"] for r in report["repeats"]] == [1.0, 5.0, 2.0]
    assert all("load_average_before" in r for r in report["repeats"])
    assert report["jax"] == {"r": 2.0}                       # the last repeat's detail
    # Each trainer's figure as it comes (a repeat takes many minutes), then the repeat's summary.
    assert len(said) == 6 and said[0] == "repeat 1/3, JAX trainer: 100 learner decisions/s"
    assert said[1].startswith("repeat 1/3: JAX 100/s, SB3 100/s, ratio 1.00")


@pytest.mark.parametrize("flag", ["--train-iterations", "--train-repeats"])
def test_the_repeat_flags_refuse_zero(flag, capsys):
    from monkey_env.apps.cli import main

    assert main(["bench", "--train", flag, "0"]) == 2      # refused before any training
    assert f"argument {flag}: must be at least 1" in capsys.readouterr().err


def test_each_build_actions_config_runs_on_the_sb3_configs_games():
    cfgs = bench_train.train_configs()
    catalogue, complete, sb3 = cfgs["jax"], cfgs["jax_complete"], cfgs["sb3"]
    assert catalogue.games.options.build_action == "catalogue" and complete.games.options.build_action == "complete"
    assert complete.name == "ppo_jax_complete"
    for cfg in (catalogue, complete):
        assert cfg.games.players == [2] and cfg.games.maps == ["1"] and cfg.ppo.num_envs == sb3.num_envs
        assert cfg.league.weights == {"random": 0.4, "greedy": 0.4, "snapshot": 0.2}


def test_the_build_action_bench_reports_each_actions_medians(monkeypatch):
    """``bench --train-complete``: the JAX trainer timed on each build action per repeat (stood in
    for), the medians of both and of the games-per-second ratio."""
    timings = iter([(100.0, 2.0), (90.0, 1.0), (120.0, 2.0), (60.0, 0.5), (110.0, 2.5), (80.0, 1.5)])

    def jax_trainer(cfg, iterations):
        assert iterations == 4
        decisions, games = next(timings)
        return {"train_decisions_per_second": decisions, "games_per_second": games, "compile_seconds": 1.0,
                "action": cfg.games.options.build_action}

    monkeypatch.setattr(bench_train, "bench_jax_trainer", jax_trainer)
    said = []
    report = bench_train.run_build_action_bench(iterations=4, repeats=3, log=said.append)
    assert report["train_decisions_per_second_catalogue"] == 110.0 and report["train_decisions_per_second_complete"] == 80.0
    assert report["games_per_second_complete_vs_catalogue"] == 0.5
    assert report["spread"]["games_per_second_complete_vs_catalogue"] == [0.25, 0.6]
    assert report["catalogue"]["action"] == "catalogue" and report["complete"]["action"] == "complete"
    assert len(report["repeats"]) == 3 and all("load_average_after" in r for r in report["repeats"])
    assert said[1] == "repeat 1/3, complete: 90 learner decisions/s, 1.00 games/s (compile 1 s)"


def test_bench_train_complete_prints_both_actions(monkeypatch, capsys):
    from monkey_env.apps.cli import main

    row = {"train_decisions_per_second": 1.0, "games_per_second": 1.0, "compile_seconds": 0.0,
           "share": {"environment": 0.5, "forward": 0.1, "update": 0.4}}
    monkeypatch.setattr(bench_train, "bench_jax_trainer", lambda cfg, iterations: row)
    assert main(["bench", "--train-complete", "--train-repeats", "1", "--train-iterations", "1"]) == 0
    out = capsys.readouterr().out
    assert "catalogue:" in out and "complete:" in out and "complete over catalogue, median of 1: 1.00x" in out
