"""The PPO value's calibration for the search (agents/value_calibration.py, ``mcts:value=fitted``):
the raw reading is the search's old conversion, a fitted line is read as written, a broken or
stale file is refused with its problem named, and the shipped file is the shipped checkpoint's."""

from __future__ import annotations

import json

import jax.numpy as jnp
import numpy as np
import pytest

from experiments.value_calibration import fit, future_utility
from monkey_env.agents.mcts import MCTSAgent, MCTSSettings, backup_terms, policy_backup_terms
from monkey_env.agents.ppo_jax import DEFAULT_CHECKPOINT, checkpoint_hash
from monkey_env.agents.registry import make_agent
from monkey_env.agents.value_calibration import RAW, CalibrationError, ValueCalibration, calibration_path


def write(path, players=(2, 3, 4), checkpoint="abc", **line):
    fits = {str(p): {"own": {"slope": 0.5, "intercept": 1.0, "corr": 0.4},
                     "other": {"slope": -0.1 * p, "intercept": 2.0}} for p in players}
    for p, f in line.items():
        fits[p[1:]] = f
    path.write_text(json.dumps({"checkpoint": checkpoint, "players": fits}))
    return path


def test_the_raw_reading_is_the_old_conversion():
    v, players = jnp.asarray([2.0, 2.0, 2.0]), jnp.asarray([2, 3, 4])
    np.testing.assert_allclose(RAW.own(v, players), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(RAW.other(v, players), [-2.0, -4.0, -6.0])      # -(players - 1) v


def test_a_fitted_line_is_read_at_both_kinds_of_node(tmp_path):
    cal = ValueCalibration.load(write(tmp_path / "c.json"), "abc")
    players, v = jnp.asarray([4, 4]), jnp.asarray([3.0, 3.0])
    rewards = jnp.zeros((2, 4))
    # tree: the searching seat 0 moves next in row 0 (own line), seat 2 in row 1 (-(other line))
    _, _, value = backup_terms(jnp.asarray([0, 0]), jnp.asarray([0, 2]), rewards, jnp.asarray([False, False]),
                               v, jnp.zeros(2, jnp.int32), players, calibration=cal)
    np.testing.assert_allclose(value, [0.5 * 3 + 1.0, -(-0.4 * 3 + 2.0)], rtol=1e-6)
    # policy opponents: every node from the searching seat's view
    _, _, value = policy_backup_terms(rewards, rewards, jnp.asarray([False, False]), jnp.asarray([0, 2]), v,
                                      jnp.zeros(2, jnp.int32), players, calibration=cal)
    np.testing.assert_allclose(value, [0.5 * 3 + 1.0, -0.4 * 3 + 2.0], rtol=1e-6)


@pytest.mark.parametrize("problem, match", [
    ("missing", "not found"), ("json", "malformed"), ("field", "malformed"), ("players", r"no fit for \[3\]"),
    ("stale", "measured checkpoint abc, not xyz"),
])
def test_a_broken_or_stale_file_is_refused_by_name(tmp_path, problem, match):
    path = tmp_path / "c.json"
    if problem == "json":
        path.write_text("{not json")
    elif problem == "field":
        write(path, _2={"own": {"slope": "steep", "intercept": 0}, "other": {"slope": 0, "intercept": 0}})
    elif problem == "players":
        write(path, players=(2, 4))
    elif problem in ("stale",):
        write(path)
    with pytest.raises(CalibrationError, match=match):
        ValueCalibration.load(path, "xyz" if problem == "stale" else "abc")


def test_fitted_needs_the_ppo_prior():
    with pytest.raises(ValueError, match="prior=ppo"):
        make_agent("mcts:value=fitted,prior=greedy")
    assert MCTSSettings.parse("value=fitted").value == "fitted"
    with pytest.raises(ValueError, match="value="):
        make_agent("mcts:value=exact")


@pytest.mark.parametrize("name", ["ppo_jax_complete.msgpack", "ppo_jax.msgpack"])
def test_the_shipped_calibration_is_the_shipped_checkpoints(name):
    checkpoint = DEFAULT_CHECKPOINT.with_name(name)
    cal = ValueCalibration.load(calibration_path(checkpoint), checkpoint_hash(checkpoint))
    if name == "ppo_jax_complete.msgpack":          # the default build action's network
        assert MCTSAgent(MCTSSettings(value="fitted")).calibration == cal
    # what the shipped games measured: the own value predicts its seat's future (a positive
    # slope below 1), another seat's value much less with 4 players than the raw reading's -3
    assert all(0 < cal.own_slope[p] < 1 for p in (2, 3, 4))
    assert abs(cal.other_slope[4]) < 1


def test_the_fit_and_the_utility_on_a_known_table():
    final, now = np.asarray([[10.0, 4.0, 4.0]]), np.asarray([[2.0, 1.0, 1.0]])
    shares = np.asarray([[1.0, 0.0, 0.0]])
    u = future_utility(final, now, shares, 3, 6.0)
    np.testing.assert_allclose(u, [[8 - 3 + 6 * (2 / 3), 3 - 5.5 - 2, 3 - 5.5 - 2]])
    v = np.arange(10.0)
    f = fit(v, 0.5 * v - 1.0)
    assert f["slope"] == pytest.approx(0.5) and f["intercept"] == pytest.approx(-1.0) and f["corr"] == pytest.approx(1.0)


def test_each_build_action_reads_its_own_checkpoints_calibration(tmp_path, monkeypatch):
    """The search's fitted values on an engine are those of the shipped checkpoint that plays it:
    the complete action's file on the complete action (the default), the catalogue's own file on
    the catalogue, refused by name while that network has none (never the other network's lines)."""
    import shutil

    from monkey_env.agents import ppo_jax
    from monkey_env.monkey_palace.jaxgame.env import jax_game_for
    from monkey_env.monkey_palace.options import GameOptions

    for name in ("ppo_jax_complete.msgpack", "ppo_jax_complete.calibration.json"):
        shutil.copy(DEFAULT_CHECKPOINT.with_name(name), tmp_path / name)
    monkeypatch.setattr(ppo_jax, "CHECKPOINTS", tmp_path)
    agent = MCTSAgent(MCTSSettings(value="fitted"))      # the default (complete) action's calibration
    catalogue, complete = jax_game_for(GameOptions(build_action="catalogue")), jax_game_for(GameOptions())
    assert agent.calibration_for(complete) is agent.calibration
    network = dict(width=4, hidden=8, stud_features=4)
    ppo_jax.save_checkpoint(tmp_path / "ppo_jax.msgpack", ppo_jax.init_params(catalogue, network), network,
                            {"actions": catalogue.num_actions})
    with pytest.raises(CalibrationError, match="ppo_jax.calibration.json"):
        agent.calibration_for(catalogue)
    write(tmp_path / "ppo_jax.calibration.json", checkpoint=checkpoint_hash(tmp_path / "ppo_jax.msgpack"))
    fitted = agent.calibration_for(catalogue)
    assert fitted.own_slope[2:] == (0.5, 0.5, 0.5) and fitted != agent.calibration
    assert agent.calibration_for(complete) is agent.calibration
    assert MCTSAgent(MCTSSettings(value="raw")).calibration_for(catalogue) == RAW
