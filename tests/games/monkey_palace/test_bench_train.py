"""bench --train repeats its timings and reports medians with their spread (issue 32): the
aggregation, the progress lines and the flags, without training (the trainers are stood in for)."""

from __future__ import annotations

import pytest

import monkey_env.monkey_palace.apps.bench_train as bench_train


def fake_once(ratios):
    ratios = iter(ratios)

    def once(jax_iterations, sb3_updates, log, complete=False):
        assert jax_iterations == sb3_updates == 4
        r = next(ratios)
        log(f"JAX trainer: {100.0 * r:.0f} learner decisions/s")
        row = {"train_decisions_per_second_jax": 100.0 * r, "train_decisions_per_second_sb3": 100.0,
               "train_decisions_per_second_jax_sb3_sized": 50.0 * r, "train_ratio_vs_sb3": r,
               "train_ratio_vs_sb3_same_size": r / 2, "jax": {"r": r}, "jax_sb3_sized": {}, "sb3": {}, "devices": ["cpu"]}
        if complete:
            row.update(train_decisions_per_second_jax_complete=30.0 * r,
                       train_games_per_second_jax_complete_vs_catalogue=r / 10, jax_complete={"r": r})
        return row
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


def test_the_complete_build_actions_trainer_is_reported_only_when_asked(monkeypatch):
    monkeypatch.setattr(bench_train, "train_bench_once", fake_once([1.0, 5.0, 2.0] * 2))
    plain = bench_train.run_train_bench(iterations=4, repeats=3)
    assert "jax_complete" not in plain and "train_decisions_per_second_jax_complete" not in plain["spread"]
    report = bench_train.run_train_bench(iterations=4, repeats=3, complete=True)
    assert report["train_decisions_per_second_jax_complete"] == 60.0
    assert report["spread"]["train_games_per_second_jax_complete_vs_catalogue"] == [0.1, 0.5]
    assert [r["train_decisions_per_second_jax_complete"] for r in report["repeats"]] == [30.0, 150.0, 60.0]
    assert report["jax_complete"] == {"r": 2.0}


@pytest.mark.parametrize("flag", ["--train-iterations", "--train-repeats"])
def test_the_repeat_flags_refuse_zero(flag, capsys):
    from monkey_env.apps.cli import main

    assert main(["bench", "--train", flag, "0"]) == 2      # refused before any training
    assert f"argument {flag}: must be at least 1" in capsys.readouterr().err


def test_the_complete_trainer_runs_its_own_config_on_the_catalogues_games(monkeypatch):
    """The four timings' configs, assembled as the bench runs them (the trainers stood in for)."""
    seen = []

    def jax_trainer(cfg, iterations):
        seen.append(cfg)
        return {"train_decisions_per_second": 10.0 * len(seen), "games_per_second": 1.0 * len(seen),
                "compile_seconds": 0.0, "parameters": 1000}

    monkeypatch.setattr(bench_train, "bench_jax_trainer", jax_trainer)
    monkeypatch.setattr(bench_train, "bench_sb3_trainer", lambda cfg, updates: {
        "train_decisions_per_second": 5.0, "first_update_seconds": 0.0, "parameters": 4000})
    row = bench_train.train_bench_once(2, 2, complete=True)
    catalogue, _, complete = seen
    assert catalogue.games.options.build_action == "catalogue" and complete.games.options.build_action == "complete"
    for cfg in (catalogue, complete):
        assert cfg.games.players == [2] and cfg.games.maps == ["1"] and cfg.ppo.num_envs == 64
    assert complete.league.weights == catalogue.league.weights
    assert complete.name == "ppo_jax_complete"
    assert row["train_decisions_per_second_jax_complete"] == 30.0
    assert row["train_games_per_second_jax_complete_vs_catalogue"] == 3.0
