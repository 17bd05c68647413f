"""The environments on the complete build action (issue 28): PettingZoo's api_test, Gymnasium's
check_env, the VecEnv, and the observation of the staircase in progress, checked against the
reference engine's own prefix (the env's mirror: same deal, same decisions)."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from monkey_env.monkey_palace.actions import ActionLayout, Phase
from monkey_env.monkey_palace.envs import pettingzoo_env
from monkey_env.monkey_palace.envs.gym_env import MonkeyPalaceGymEnv
from monkey_env.monkey_palace.envs.vec_env import MonkeyPalaceVecEnv
from monkey_env.monkey_palace.geometry import BOARD_SIZE
from monkey_env.monkey_palace.jaxgame.observe import N_PLANES, VECTOR_SIZE

COMPLETE = dict(build_action="complete")
N = 8   # one VecEnv batch size: each new one compiles the engine again


def test_the_pettingzoo_env_passes_api_test_on_the_complete_action():
    env = pettingzoo_env.env(players=2, map=1, **COMPLETE)
    api_test(env, num_cycles=30)
    raw = pettingzoo_env.raw_env(players=3, map=2, **COMPLETE)
    raw.reset(seed=1)
    assert raw.action_space("player_0").n == ActionLayout(0, 129).size == 1563
    obs = raw.observe("player_0")["observation"]
    assert obs["planes"].shape == (N_PLANES + 2, 32, 32) and obs["vector"].shape == (VECTOR_SIZE + 9,)
    assert raw.observation_space("player_0")["observation"].contains(obs)


def _arch_plane(game) -> np.ndarray:
    """The arches chosen so far, from the reference engine's own prefix arithmetic: each arch's
    studs at its top / 16, a later arch's near end over the earlier far end (building order)."""
    search = game.build_search()
    p = search.start((game.turn.anchor % BOARD_SIZE, game.turn.anchor // BOARD_SIZE))
    plane = np.zeros((BOARD_SIZE, BOARD_SIZE), np.float32)
    for heading, rise in game.turn.steps:
        q = search.extend(p, heading, rise)
        for x, y in (q.visited - p.visited) | {(p.x, p.y)}:
            plane[y, x] = (q.level + 1) / 16
        p = q
    return plane


def test_the_observation_shows_the_staircase_in_progress_as_the_reference_builds_it():
    """Random games: at every build decision the arch plane holds exactly the studs the
    reference prefix covers past its anchor (at each arch's top), the cursor plane the prefix's
    cursor, and the vector's last 9 entries its heading, level, arches, units, tallest stack and
    attachment; outside the build decision all of them are zero."""
    env = pettingzoo_env.raw_env(players=2, map=3, **COMPLETE)
    rng = np.random.default_rng(0)
    seen_building = seen_attached = 0
    for seed in (11, 12):
        env.reset(seed=seed)
        for _agent in env.agent_iter(max_iter=400):
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            planes, vector = obs["observation"]["planes"], obs["observation"]["vector"]
            arch_plane, cursor_plane, extra = planes[N_PLANES], planes[N_PLANES + 1], vector[VECTOR_SIZE:]
            if info["phase"] == Phase.SHAPE:
                game = env.reference_game()
                prefix = game.build_prefix()
                assert cursor_plane[prefix.y, prefix.x] == 1.0 and cursor_plane.sum() == 1.0
                np.testing.assert_allclose(arch_plane, _arch_plane(game), atol=1e-6)
                np.testing.assert_array_equal(arch_plane > 0, _covered(prefix) if prefix.arches else
                                              np.zeros_like(arch_plane, bool))
                heading = np.zeros(4, np.float32)
                if prefix.arches:
                    heading[prefix.heading] = 1.0
                np.testing.assert_allclose(extra, np.concatenate([heading, [
                    (prefix.level + 1) / 16 if prefix.arches else 0.0, prefix.arches / 10, prefix.units / 10,
                    prefix.tallest / 10, float(prefix.attached)]]), atol=1e-6)
                if prefix.arches:   # the last arch's studs show its top
                    assert arch_plane[prefix.y, prefix.x] == pytest.approx((prefix.level + 1) / 16)
                seen_building += 1
                seen_attached += prefix.attached
            else:
                assert not arch_plane.any() and not cursor_plane.any() and not extra.any()
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen_building >= 20 and seen_attached >= 5


def _covered(prefix) -> np.ndarray:
    plane = np.zeros((BOARD_SIZE, BOARD_SIZE), bool)
    for x, y in prefix.visited:
        plane[y, x] = True
    return plane


def test_the_mirror_replays_the_jax_games_decisions_on_the_reference_engine():
    """The JAX engine's masks are the reference engine's at every decision of a random game on
    the complete action (so the text and picture of a complete game are its own)."""
    env = pettingzoo_env.raw_env(players=3, map=4, frog=True, render_mode="ansi", **COMPLETE)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    decisions = 0
    for _agent in env.agent_iter(max_iter=200):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        game = env.reference_game()
        assert not bool(env.state.over_cap)
        np.testing.assert_array_equal(obs["action_mask"].astype(bool), game.legal_mask())
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        decisions += 1
    assert decisions >= 100
    assert "round" in env.render()


def test_the_gymnasium_view_passes_check_env_on_the_complete_action():
    env = MonkeyPalaceGymEnv(players=2, map=1, learner_seat=None, **COMPLETE)
    check_env(env, skip_render_check=True)
    assert env.action_space.n == 1563


def test_the_vec_env_plays_whole_games_on_the_complete_action():
    venv = MonkeyPalaceVecEnv(N, players=2, map=2, opponents=["random"], seed=2, **COMPLETE)
    obs = venv.reset()
    assert obs["planes"].shape == (N, N_PLANES + 2, 32, 32) and obs["vector"].shape == (N, VECTOR_SIZE + 9)
    assert venv.action_space.n == 1563
    rng = np.random.default_rng(2)
    episodes = []
    for _ in range(150):
        masks = venv.action_masks()
        assert masks.any(-1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        assert venv.observation_space.contains({k: v[0] for k, v in obs.items()})
        episodes += [info["episode"] for info in infos if "episode" in info]
    assert len(episodes) >= N
    for ep in episodes:
        assert ep["r"] == pytest.approx(ep["score"]) and not ep["illegal"]


def test_greedy_and_random_play_the_complete_action_batched():
    """Both baselines decide batches of the JAX engine with either build action (greedy's walk
    over every staircase: tests/games/monkey_palace/test_greedy.py holds it to the reference)."""
    from monkey_env.agents.base import plays_batched
    from monkey_env.agents.random_agent import RandomAgent
    from monkey_env.monkey_palace.agents.greedy import GreedyAgent
    from monkey_env.monkey_palace.options import GameOptions

    complete = GameOptions(**COMPLETE)
    assert complete.jax_plays()
    for agent in (RandomAgent(0), GreedyAgent(0)):
        assert plays_batched(agent, complete) and plays_batched(agent, GameOptions())


def test_evaluate_plays_random_on_the_jax_engine_on_the_complete_action(capsys):
    import json

    from monkey_env.apps.cli import main

    assert main(["evaluate", "--agents", "random", "--games", "4", "--batch", "4", "--build-action", "complete",
                 "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["engine"] == "jax" and report["games"] == 4
    # the report says which game it measured: the build action with the other rules
    assert report["options"]["build_action"] == "complete" and "seed" not in report["options"]


def test_a_match_in_parts_refuses_parts_of_another_build_action():
    from experiments.mcts_match import combine

    part = {"agents": ["a", "b"], "players": 2, "map": "1", "games": 4, "seed": 0,
            "options": {"build_action": "complete"}, "win_rate": {"a": 0.75, "b": 0.25},
            "seat_games": {"a": 4, "b": 4}, "mean_score": {"a": 10.0, "b": 5.0},
            "decisions": {"a": 10, "b": 10}, "seconds_per_decision": {"a": 0.1, "b": 0.01}}
    later = dict(part, seed=2)
    both = combine([part, later])
    assert both["games"] == 8 and both["win_rate"]["a"] == 0.75 and both["options"] == part["options"]
    with pytest.raises(ValueError, match="parts differ in options"):
        combine([part, dict(later, options={"build_action": "catalogue"})])
