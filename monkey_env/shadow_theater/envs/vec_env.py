"""The Shadow Theater as a batched VecEnv (Stable-Baselines3's interface) over the JAX engine.

``num_envs`` games advance together; in each the learner plays one seat (``learner_seat``: 0, 1,
or None to alternate: game i's learner is seat i % 2) and ``opponents`` (a registry name with
``act_batch``: random, greedy) play the others in batches, so ``step`` returns at the learner's
next decision. Observations: ``{"planes": (N,2,3,3), "vector": (N,V)}`` float32; ``action_masks()``:
(N, 29) bool. Reward: the learner's Lantern rewards (+1/-1 per Lantern taken, zero-sum). A finished
game is reset at once (its last observation in ``infos[i]["terminal_observation"]``, SB3's way).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from monkey_env.agents.registry import make_batch_agent
from monkey_env.shadow_theater.envs.pettingzoo_env import space_for
from monkey_env.shadow_theater.jaxgame.engine import jax_engine_for
from monkey_env.shadow_theater.options import ShadowTheaterOptions


class ShadowTheaterVecEnv(VecEnv):
    def __init__(self, num_envs: int = 8, opponents="random", seed: int = 0, learner_seat: int | None = None,
                 options: ShadowTheaterOptions | None = None, max_opponent_steps: int = 64, **game_options):
        self.options = options or ShadowTheaterOptions(**game_options)
        self.render_mode = None
        self.engine = jax_engine_for(self.options)
        obs_space = space_for(self.engine)
        import gymnasium
        super().__init__(num_envs, obs_space, gymnasium.spaces.Discrete(self.engine.num_actions))
        self.opponent = make_batch_agent(opponents, seed, game="shadow_theater")
        self.learner = (np.full(num_envs, learner_seat) if learner_seat is not None
                        else np.arange(num_envs) % 2).astype(np.int32)
        self._seed, self._next_game, self.max_opponent_steps = seed, 0, max_opponent_steps
        self._key = jax.random.PRNGKey(seed)
        e = self.engine

        @jax.jit
        def masked_step(states, actions, move):
            after = e.batch_step(states, actions)
            return jax.tree_util.tree_map(lambda a, b: jnp.where(move.reshape((-1,) + (1,) * (a.ndim - 1)), a, b),
                                          after, states)
        self._masked_step = masked_step
        self._observe = jax.jit(jax.vmap(e.observe))
        self.states = None
        self._actions = None

    # ------------------------------------------------------------------ helpers
    def _keys(self, n: int):
        seeds = np.arange(self._next_game, self._next_game + n) + self._seed * 1_000_003
        self._next_game += n
        return jax.vmap(jax.random.PRNGKey)(jnp.asarray(seeds % 2**31, jnp.uint32))

    def _opponents(self, states):
        """Play the opponents' decisions until every game waits for its learner (or is over)."""
        learner = jnp.asarray(self.learner)
        gained = np.zeros(self.num_envs)
        for _ in range(self.max_opponent_steps):
            theirs = ~states.terminated & (states.current != learner)
            if not bool(jnp.any(theirs)):
                break
            masks = self.engine.batch_legal_mask(states) & theirs[:, None]
            self._key, sub = jax.random.split(self._key)
            actions = jnp.asarray(self.opponent.act_batch(self.engine, states, masks, sub), jnp.int32)
            states = self._masked_step(states, actions, theirs)
            gained += np.asarray(states.rewards)[np.arange(self.num_envs), self.learner] * np.asarray(theirs)
        return states, gained

    def _obs(self, states):
        obs = self._observe(states, jnp.asarray(self.learner))
        return {k: np.asarray(v) for k, v in obs.items()}

    # ------------------------------------------------------------------ VecEnv
    def reset(self):
        self.states, _ = self._opponents(self.engine.batch_init(self._keys(self.num_envs), None))
        return self._obs(self.states)

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.engine.batch_legal_mask(self.states))

    def step_async(self, actions):
        self._actions = np.asarray(actions, np.int32)

    def step_wait(self):
        live = ~self.states.terminated
        states = self._masked_step(self.states, jnp.asarray(self._actions), live)
        rewards = np.asarray(states.rewards)[np.arange(self.num_envs), self.learner] * np.asarray(live)
        states, gained = self._opponents(states)
        rewards = rewards + gained
        done = np.asarray(states.terminated)
        infos = [{} for _ in range(self.num_envs)]
        if done.any():
            last = self._obs(states)
            for i in np.flatnonzero(done):
                infos[i]["terminal_observation"] = {k: v[i] for k, v in last.items()}
                infos[i]["lanterns"] = np.asarray(states.lanterns[i]).tolist()
            fresh = self.engine.batch_init(self._keys(self.num_envs), None)
            states = jax.tree_util.tree_map(
                lambda f, s: jnp.where(jnp.asarray(done).reshape((-1,) + (1,) * (s.ndim - 1)), f, s), fresh, states)
            states, _ = self._opponents(states)
        self.states = states
        return self._obs(states), rewards.astype(np.float32), done, infos

    def close(self):
        pass

    def seed(self, seed=None):
        if seed is not None:
            self._seed, self._next_game, self._key = int(seed), 0, jax.random.PRNGKey(int(seed))
        return [self._seed] * self.num_envs

    def get_attr(self, attr_name, indices=None):
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name, value, indices=None):
        setattr(self, attr_name, value)

    def env_method(self, method_name, *args, indices=None, **kwargs):
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        return [getattr(self, method_name)(*args, **kwargs) for _ in self._indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._indices(indices))

    def _indices(self, indices):
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)
