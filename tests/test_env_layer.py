"""One environment layer for every game (monkey_env.envs): the same policy for illegal actions,
truncation, infos, the learner's seat, reward modes and the batched VecEnv, checked per game."""

import numpy as np
import pytest

from monkey_env.core.protocol import ILLEGAL_PENALTY
from monkey_env.games import game_names, game_spec

N = 8   # one VecEnv batch size (each new shape compiles the engine again), as tests/games/monkey_palace/test_training_envs.py



@pytest.mark.parametrize("name", game_names())
def test_an_illegal_action_ends_the_game_with_the_same_penalty_in_every_game(name):
    raw = game_spec(name).load("aec_env")
    env = raw(seed=3)
    env.reset()
    mask = env.observe(env.agent_selection)["action_mask"]
    author = env.agent_selection
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env._cumulative_rewards[author] == ILLEGAL_PENALTY
    assert all(r == 0 for a, r in env._cumulative_rewards.items() if a != author)


@pytest.mark.parametrize("name", game_names())
def test_max_cycles_counts_rounds_and_infos_carry_round_and_scores(name):
    env = game_spec(name).load("aec_env")(seed=5, max_cycles=1)
    env.reset()
    rng, steps = np.random.default_rng(0), 0
    while not any(env.truncations.values()) and not any(env.terminations.values()):
        info = env.infos[env.agent_selection]
        assert info["round"] == 1 and len(info["scores"]) == len(env.possible_agents)
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert all(env.truncations.values()) and env.infos["player_0"]["round"] == 2
    assert steps >= len(env.possible_agents)          # every seat had its turn of round 1


@pytest.mark.parametrize("name", game_names())
def test_the_gymnasium_view_defaults_to_seat_0_and_repeats_after_a_seeded_reset(name):
    view = game_spec(name).load("gym_env")
    env = view(opponents="random")
    first, _ = env.reset(seed=9)
    assert env.seat == 0
    again, _ = env.reset()
    other = view(opponents="random")
    other.reset(seed=9)
    second, _ = other.reset()
    np.testing.assert_array_equal(again["vector"], second["vector"])      # reset() after reset(seed) repeats
    drawn = view(opponents="random", learner_seat=None)
    seats = {drawn.reset(seed=s)[1]["seat"] for s in range(12)}
    assert len(seats) > 1


@pytest.mark.parametrize("name", game_names())
def test_the_vec_env_of_every_game_rewards_terminal_wins_and_reports_episodes(name):
    venv = game_spec(name).load("vec_env")(N, reward_mode="terminal", seed=2)
    venv.reset()
    rng, episodes = np.random.default_rng(1), []
    for _ in range(400):
        masks = venv.action_masks()
        assert masks.any(1).all()                     # every game waits for its learner
        _, rewards, dones, infos = venv.step(np.argmax(np.where(masks, rng.random(masks.shape), -1), 1))
        assert (rewards[~dones] == 0).all()           # terminal: nothing before the end
        for i in np.flatnonzero(dones):
            episode = infos[i]["episode"]
            assert episode["r"] == rewards[i] and not episode["illegal"]
            assert (episode["r"] > 0) == episode["won"] and (episode["r"] == -1 or 0 < episode["r"] <= 1)
            episodes.append(episode)
        if len(episodes) >= N:
            break
    assert len(episodes) >= N and {e["seat"] for e in episodes} == set(range(venv.players))


@pytest.mark.parametrize("name", game_names())
def test_an_illegal_action_in_the_vec_env_costs_the_penalty_and_restarts_the_game(name):
    venv = game_spec(name).load("vec_env")(N, seed=4, learner_seat=0)
    venv.reset()
    masks = venv.action_masks()
    actions = np.argmax(masks, 1)
    actions[0] = np.flatnonzero(~masks[0])[0]
    _, rewards, dones, infos = venv.step(actions)
    assert dones[0] and rewards[0] == ILLEGAL_PENALTY and infos[0]["episode"]["illegal"]
    assert venv.action_masks()[0].any()               # a fresh game, at the learner's decision
