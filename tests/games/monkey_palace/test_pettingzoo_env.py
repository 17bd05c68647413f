"""The PettingZoo AEC environment of Monkey Palace: rewards, truncation, illegal actions, hidden information and rendering."""

import jax
import numpy as np
import pytest

from monkey_env.monkey_palace.actions import ActionLayout
from monkey_env.monkey_palace.envs import pettingzoo_env


def play_random(env, seed: int, rng_seed: int = 0, stop=None):
    """Play a whole game with random legal actions; per-agent reward sums and the last infos."""
    env.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    totals = {a: 0.0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        if stop and stop(env):
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return totals, steps


# PettingZoo's api_test and seed_test run for every game in tests/test_games_shared.py.


def test_module_level_factories_and_metadata():
    import monkey_env

    e = monkey_env.env(players=3)
    assert e.metadata["name"] == "monkey_palace_v0"
    assert set(e.metadata["render_modes"]) == {"human", "ansi", "rgb_array"}
    assert isinstance(monkey_env.raw_env(players=2), pettingzoo_env.raw_env)
    e.reset(seed=1)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert e.action_space("player_0").n == ActionLayout(0, 129).size == 1563     # the complete build action
    obs = e.observe("player_0")
    assert obs["observation"]["planes"].shape == (22, 32, 32)
    catalogue = monkey_env.env(players=3, build_action="catalogue")
    catalogue.reset(seed=1)
    assert catalogue.action_space("player_0").n == ActionLayout(1392).size
    assert catalogue.observe("player_0")["observation"]["planes"].shape == (20, 32, 32)
    assert obs["action_mask"].dtype == np.int8
    # Only the agent to act has legal actions.
    assert obs["action_mask"].sum() > 0 and e.observe("player_1")["action_mask"].sum() == 0


def test_banana_rewards_sum_to_final_scores():
    env = pettingzoo_env.env(players=3, map=2, frog=True, butterfly=True)
    totals, _ = play_random(env, seed=5)
    scores = env.unwrapped.scores()
    assert [totals[a] for a in env.possible_agents] == pytest.approx(scores)
    assert max(scores) > 0


def test_zero_sum_rewards_sum_to_zero_each_step_and_to_the_score_margin():
    env = pettingzoo_env.raw_env(players=3, map=1, reward_mode="zero_sum")
    env.reset(seed=8)
    rng = np.random.default_rng(1)
    while not all(env.terminations.values()):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        assert sum(env.rewards.values()) == pytest.approx(0.0, abs=1e-5)
    scores = np.array(env.scores(), float)
    totals, _ = play_random(env, seed=8, rng_seed=1)  # the same game again, summing rewards
    expected = scores - (scores.sum() - scores) / 2  # own score minus the mean of the others'
    assert [totals[a] for a in env.possible_agents] == pytest.approx(expected, abs=1e-4)
    terminal = pettingzoo_env.raw_env(players=3, map=1, reward_mode="terminal")
    totals, _ = play_random(terminal, seed=8, rng_seed=1)
    assert [totals[a] for a in terminal.possible_agents] == [1.0 if s == scores.max() else -1.0 for s in scores]


def test_terminal_rewards_are_zero_until_the_end():
    env = pettingzoo_env.raw_env(players=2, map=3, reward_mode="terminal")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while not all(env.terminations.values()):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        if not all(env.terminations.values()):
            assert set(env.rewards.values()) == {0.0}
    assert sorted(env.rewards.values())[-1] == 1.0


def test_unknown_reward_mode_and_settings_are_refused():
    with pytest.raises(ValueError, match="reward mode"):
        pettingzoo_env.raw_env(reward_mode="money")
    with pytest.raises(ValueError, match="players"):
        pettingzoo_env.raw_env(players=5)
    with pytest.raises(ValueError, match="render_mode"):
        pettingzoo_env.raw_env(render_mode="cinema")


@pytest.mark.parametrize("factory", [pettingzoo_env.env, pettingzoo_env.raw_env])
def test_illegal_action_ends_the_game_with_the_penalty(factory):
    env = factory(players=2, map=1)
    env.reset(seed=2)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[agent] == -10.0
    assert [r for a, r in env.rewards.items() if a != agent] == [0.0]


def test_max_cycles_truncates_after_that_many_rounds():
    env = pettingzoo_env.raw_env(players=3, map=1, max_cycles=2)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    rounds_seen, dead_steps = set(), []
    for agent in env.agent_iter(max_iter=1000):
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and not term
            dead_steps.append(agent)
            env.step(None)
            continue
        rounds_seen.add(info["round"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert rounds_seen == {1, 2}
    assert sorted(dead_steps) == env.possible_agents  # every agent is told once, then removed
    assert env.agents == []


def test_observation_hides_the_order_under_the_pile_tops():
    env = pettingzoo_env.raw_env(players=2, map=1)
    env.reset(seed=6)
    before = env.observe("player_0")["observation"]
    cards = np.array(env.state.pile_cards)
    lengths = np.asarray(env.state.pile_len)
    for p in range(cards.shape[0]):
        if lengths[p] > 2:
            cards[p, : lengths[p] - 1] = cards[p, : lengths[p] - 1][::-1]  # reorder under the top
    env.state = env.state._replace(pile_cards=jax.numpy.asarray(cards))
    env._obs_cache = {}
    after = env.observe("player_0")["observation"]
    np.testing.assert_array_equal(before["vector"], after["vector"])
    np.testing.assert_array_equal(before["planes"], after["planes"])


def test_observations_are_seat_relative():
    env = pettingzoo_env.raw_env(players=2, map=1)
    totals, _ = play_random(env, seed=9, stop=lambda e: e.infos["player_0"]["round"] >= 3)
    v0 = env.observe("player_0")["observation"]["vector"]
    v1 = env.observe("player_1")["observation"]["vector"]
    np.testing.assert_array_equal(env.observe("player_0")["observation"]["planes"][:14],
                                  env.observe("player_1")["observation"]["planes"][:14])
    assert not np.array_equal(v0, v1)
    # Entries 170-173 are every seat's Banana Points, the observer first (the last of the
    # catalogue's 174; the complete action's 9 entries of the staircase in progress follow).
    assert v0.shape == (183,)
    scores = np.array(env.infos["player_0"]["scores"]) / 40.0
    np.testing.assert_allclose(v0[170:172], scores, atol=1e-6)
    np.testing.assert_allclose(v1[170:172], scores[::-1], atol=1e-6)


def test_render_modes():
    ansi = pettingzoo_env.env(players=2, map=2, render_mode="ansi")
    ansi.reset(seed=1)
    text = ansi.render()
    assert isinstance(text, str) and "round 1" in text and "seat 1" in text
    rgb = pettingzoo_env.env(players=2, map=2, render_mode="rgb_array")
    play_random(rgb, seed=1, stop=lambda e: e.unwrapped.infos["player_0"]["round"] >= 4)
    image = rgb.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 50  # a picture, not a blank canvas
    # The picture comes from the reference engine replaying the same game: same heights.
    game = rgb.unwrapped.mirror.game()
    np.testing.assert_array_equal(game.palace.height, np.asarray(rgb.unwrapped.state.height))
