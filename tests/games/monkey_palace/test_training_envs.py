"""The single-agent Gymnasium env and the batched SB3 VecEnv that training uses."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from monkey_env.monkey_palace.envs.gym_env import MonkeyPalaceGymEnv
from monkey_env.monkey_palace.envs.vec_env import MonkeyPalaceVecEnv

# One batch size for every VecEnv here: each new batch shape compiles the JAX engine again.
N = 8


def test_gym_env_passes_gymnasium_check_env():
    check_env(MonkeyPalaceGymEnv(players=3, map=2, frog=True, learner_seat=None), skip_render_check=True)


def test_gymnasium_make_and_check_env_with_render_modes():
    """The registered id (after ``import monkey_env``), checked with its render modes; the
    action mask through Gymnasium 1.x wrappers is reached with get_wrapper_attr."""
    import gymnasium

    import monkey_env  # noqa: F401  (registers MonkeyPalace-v0)

    env = gymnasium.make("MonkeyPalace-v0", players=2, map=3, render_mode="rgb_array")
    check_env(env.unwrapped)
    env.reset(seed=1)
    mask = env.get_wrapper_attr("action_masks")()
    assert mask.dtype == bool and mask.any()
    assert env.render().ndim == 3


def test_flat_observation_is_one_box_of_planes_then_vector():
    from monkey_env.monkey_palace.envs import pettingzoo_env

    flat = pettingzoo_env.raw_env(players=2, observation_format="flat")
    nested = pettingzoo_env.raw_env(players=2)
    flat.reset(seed=4), nested.reset(seed=4)
    a, b = flat.observe("player_0")["observation"], nested.observe("player_0")["observation"]
    assert flat.observation_space("player_0")["observation"].contains(a)
    np.testing.assert_array_equal(a, np.concatenate([b["planes"].reshape(-1), b["vector"]]))
    info = flat.infos["player_0"]
    assert all(isinstance(v, (int, np.ndarray)) for v in info.values()), info   # numbers only


def test_vec_env_seed_through_the_sb3_api_changes_the_deals():
    """VecEnv.seed(s) (what MaskablePPO(seed=s) calls) takes effect at the next reset."""
    def first_obs(seed):
        venv = MonkeyPalaceVecEnv(N, players=2, map=1, seed=0)
        venv.seed(seed)
        return venv.reset()["vector"]
    np.testing.assert_array_equal(first_obs(5), first_obs(5))
    assert not np.array_equal(first_obs(5), first_obs(6))


def test_gym_episode_rewards_sum_to_the_learners_score():
    env = MonkeyPalaceGymEnv(players=2, map=1, learner_seat=1)
    obs, info = env.reset(seed=3)
    assert info["seat"] == 1 and obs["planes"].shape == (22, 32, 32)      # the complete build action
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    total, done = 0.0, False
    while not done:
        mask = env.action_masks()
        assert mask.any()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        done = terminated or truncated
    assert total == info["scores"][1]
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_gym_learner_seat_drawn_per_episode_from_the_seed():
    env = MonkeyPalaceGymEnv(players=4, map=3, learner_seat=None)
    seats = [env.reset(seed=s)[1]["seat"] for s in range(12)]
    assert len(set(seats)) > 1
    assert seats == [env.reset(seed=s)[1]["seat"] for s in range(12)]


def test_gym_rejects_a_bad_opponent_list():
    with pytest.raises(ValueError, match="opponents"):
        MonkeyPalaceGymEnv(players=3, opponents=["random"])
    with pytest.raises(ValueError, match="unknown agent"):
        MonkeyPalaceGymEnv(players=2, opponents="nobody").reset(seed=0)


def run_random(venv, steps, seed=0):
    rng = np.random.default_rng(seed)
    episodes, trace = [], []
    for _ in range(steps):
        masks = venv.action_masks()
        assert masks.any(axis=1).all(), "every game waits at a learner decision"
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        trace.append((actions, rewards.copy(), dones.copy()))
        for i, info in enumerate(infos):
            if dones[i]:
                assert "terminal_observation" in info
                episodes.append(info["episode"])
    return episodes, trace


@pytest.mark.parametrize("n", [N, 40])
def test_vec_env_resets_games_and_returns_episode_scores(n):
    """With 40 games the opponents' moves are stepped in gathered sub-batches of 16 games."""
    venv = MonkeyPalaceVecEnv(n, players=2, map=1, opponents=["random"], seed=1)
    assert venv._sizes == ([N] if n == N else [16, 40])
    obs = venv.reset()
    assert obs["planes"].shape == (n, 22, 32, 32) and obs["vector"].shape[0] == n
    assert venv.observation_space.contains({k: v[0] for k, v in obs.items()})
    # Every game is at one of the learner's decisions.
    current = np.asarray(venv.states.current)
    assert (current == venv.seat).all()
    episodes, _ = run_random(venv, 120)
    assert len(episodes) >= n
    for ep in episodes:
        # Banana rewards: the return of an episode is the learner's final score.
        assert ep["r"] == pytest.approx(ep["score"])
        assert ep["l"] > 5 and not ep["illegal"]
    assert {ep["seat"] for ep in episodes} == {0, 1}


def test_vec_env_is_deterministic_for_a_seed():
    a = MonkeyPalaceVecEnv(N, players=3, map=2, seed=7)
    b = MonkeyPalaceVecEnv(N, players=3, map=2, seed=7)
    a.reset(), b.reset()
    _, ta = run_random(a, 30, seed=2)
    _, tb = run_random(b, 30, seed=2)
    for (xa, ra, da), (xb, rb, db) in zip(ta, tb):
        np.testing.assert_array_equal(xa, xb)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)


def test_vec_env_zero_sum_rewards_and_bad_options():
    venv = MonkeyPalaceVecEnv(N, players=2, map=4, reward_mode="zero_sum", learner_seat=0, seed=3)
    venv.reset()
    episodes, _ = run_random(venv, 120)
    assert episodes
    for ep in episodes:
        assert ep["seat"] == 0
    with pytest.raises(ValueError, match="opponent_weights"):
        MonkeyPalaceVecEnv(2, opponents=["random", "random"], opponent_weights=[1.0])
    with pytest.raises(ValueError, match="learner_seat"):
        MonkeyPalaceVecEnv(2, players=2, learner_seat=2)


def test_maskable_ppo_trains_on_the_vec_env():
    import torch
    from sb3_contrib import MaskablePPO

    torch.manual_seed(0)
    venv = MonkeyPalaceVecEnv(N, players=2, map=1, seed=0)
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=32, batch_size=64, n_epochs=2, seed=0, verbose=0,
                        policy_kwargs={"net_arch": [64]})
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    changed = sum(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))
    assert changed > 0, "PPO updated no weights"
    # The trained policy only ever picks legal actions when given the masks.
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=True)
    assert venv.action_masks()[np.arange(N), actions].all()
