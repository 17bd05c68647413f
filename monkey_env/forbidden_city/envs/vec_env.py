"""A Stable-Baselines3 ``VecEnv`` over a batch of Forbidden City games on the JAX engine.

    venv = ForbiddenCityVecEnv(256, players=2, opponents=["random", "greedy"], seed=0)

Each game has one learning seat (drawn per episode unless ``learner_seat`` is given) and one
opponent agent for its other seats (drawn per episode from ``opponents``). After every learner
decision the opponents of all games decide together, one batched step at a time, until every
game is back at a learner decision; finished games restart at once (SB3's automatic reset:
``infos[i]["terminal_observation"]`` and ``infos[i]["episode"]`` with the return ``r``, length
``l``, the learner's coins, seat, opponent and ``won``). Observations are the Gymnasium view's.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from monkey_env.forbidden_city.envs.agents import batch_agent
from monkey_env.forbidden_city.envs.observation import observation_space
from monkey_env.forbidden_city.envs.rewards import batch_seat_rewards
from monkey_env.forbidden_city.jaxgame.env import jax_game_for
from monkey_env.forbidden_city.options import ForbiddenCityOptions


class ForbiddenCityVecEnv(VecEnv):
    def __init__(self, num_envs: int, players: int = 2, *, opponents="random", opponent_weights=None,
                 learner_seat: int | None = None, seed: int = 0, illegal_penalty: float = -10.0,
                 options: ForbiddenCityOptions | None = None, **game_options):
        if options is None:
            options = ForbiddenCityOptions(players=players, **game_options)
        self.options = options
        self.players, self.reward_mode = options.players, options.reward_mode
        self.jax_game = jg = jax_game_for(options, illegal_penalty=illegal_penalty)
        self.params = jg.params(options)
        if learner_seat is not None and not 0 <= learner_seat < self.players:
            raise ValueError(f"learner_seat must be 0..{self.players - 1} or None, got {learner_seat}")
        self.learner_seat = learner_seat
        specs = [opponents] if isinstance(opponents, str) or not isinstance(opponents, (list, tuple)) else list(opponents)
        self.opponents = [batch_agent(s, seed + i) for i, s in enumerate(specs)]
        w = np.ones(len(self.opponents)) if opponent_weights is None else np.asarray(opponent_weights, float)
        if w.shape != (len(self.opponents),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"opponent_weights must be {len(self.opponents)} non-negative numbers, not all 0")
        self.opponent_weights = w / w.sum()
        self._reseed(seed)
        self._keep = jax.jit(lambda need, new, old: jax.tree_util.tree_map(
            lambda a, b: jnp.where(need.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), new, old))
        self.render_mode = None
        super().__init__(num_envs, observation_space(jg), spaces.Discrete(jg.num_actions))

    def _reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.base_key = jax.random.PRNGKey(seed)
        self.agent_key = jax.random.fold_in(self.base_key, 2**30)
        self.games_dealt = 0

    def reset(self):
        n = self.num_envs
        if any(s is not None for s in self._seeds):
            self._reseed(int(next(s for s in self._seeds if s is not None)))
            self._reset_seeds()
        self.states = self._deal(n)
        self.seat = self._draw_seats(n)
        self.opponent = self.rng.choice(len(self.opponents), size=n, p=self.opponent_weights)
        self.episode_return = np.zeros(n, np.float32)
        self.episode_length = np.zeros(n, np.int64)
        self.carry = self._play_opponents()
        self._after_step()
        return self._obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int32).reshape(self.num_envs)

    def step_wait(self):
        before = self.states
        self.states = self.jax_game.batch_step(self.states, jnp.asarray(self._actions))
        rewards = self._learner_rewards(before, np.ones(self.num_envs, bool)) + self.carry
        self.carry = np.zeros(self.num_envs, np.float32)
        rewards += self._play_opponents()
        self.episode_return += rewards
        self.episode_length += 1
        dones = np.asarray(self.states.terminated).copy()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            self._after_step()
            coins = np.asarray(self.states.coins)
            places = np.asarray(self.jax_game.batch_places(self.states))
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = {k: v[i] for k, v in self._obs.items()}
                infos[i]["episode"] = {"r": float(self.episode_return[i]), "l": int(self.episode_length[i]),
                                       "score": int(coins[i, self.seat[i]]), "seat": int(self.seat[i]),
                                       "opponent": self.opponents[self.opponent[i]].name,
                                       "won": bool(places[i, self.seat[i]] == 1),
                                       "illegal": bool(self.states.illegal[i])}
            self._restart(np.flatnonzero(dones))
        self._after_step()
        return self._obs, rewards, dones, infos

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        return self._masks

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self._masks[idx])
        return [getattr(self, method_name)(*method_args, **method_kwargs)] * len(idx)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    # ------------------------------------------------------------------ inside
    def _deal(self, n: int):
        ids = jnp.arange(self.games_dealt, self.games_dealt + n)
        self.games_dealt += n
        keys = jax.vmap(lambda i: jax.random.fold_in(self.base_key, i))(ids)
        params = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (n,) + x.shape), self.params)
        return self.jax_game.batch_init(keys, params)

    def _draw_seats(self, n: int) -> np.ndarray:
        if self.learner_seat is not None:
            return np.full(n, self.learner_seat, np.int32)
        return self.rng.integers(self.players, size=n).astype(np.int32)

    def _learner_rewards(self, before, stepped: np.ndarray) -> np.ndarray:
        s = self.states
        deltas = np.asarray(s.rewards)
        moded = batch_seat_rewards(self.reward_mode, deltas, np.asarray(s.coins), np.asarray(s.terminated), self.players)
        illegal = np.asarray(s.illegal & ~before.illegal)
        moded = np.where(illegal[:, None], deltas[:, :self.players], moded)
        rows = np.arange(self.num_envs)
        return np.where(stepped, moded[rows, self.seat], 0.0).astype(np.float32)

    def _play_opponents(self) -> np.ndarray:
        """Opponents decide (the whole batch steps, games at a learner decision unchanged)."""
        gained = np.zeros(self.num_envs, np.float32)
        while True:
            need = np.asarray((self.states.current != jnp.asarray(self.seat)) & ~self.states.terminated)
            if not need.any():
                return gained
            masks = self.jax_game.batch_legal_mask(self.states)
            actions = jnp.zeros(self.num_envs, jnp.int32)
            for k, agent in enumerate(self.opponents):
                if not (need & (self.opponent == k)).any():
                    continue
                self.agent_key, key = jax.random.split(self.agent_key)
                chosen = jnp.asarray(agent.act_batch(self.jax_game, self.states, masks, key), jnp.int32)
                actions = jnp.where(jnp.asarray(self.opponent == k), chosen, actions)
            before = self.states
            stepped = self.jax_game.batch_step(self.states, actions)
            self.states = self._keep(jnp.asarray(need), stepped, self.states)
            gained += self._learner_rewards(before, need)

    def _restart(self, rows: np.ndarray) -> None:
        reset = np.zeros(self.num_envs, bool)
        reset[rows] = True
        self.states = self._keep(jnp.asarray(reset), self._deal(self.num_envs), self.states)
        self.seat[rows] = self._draw_seats(len(rows))
        self.opponent[rows] = self.rng.choice(len(self.opponents), size=len(rows), p=self.opponent_weights)
        self.episode_return[rows] = 0.0
        self.episode_length[rows] = 0
        self.carry += self._play_opponents()

    def _after_step(self) -> None:
        obs = self.jax_game.batch_observe(self.states, jnp.asarray(self.seat))
        self._obs = {"planes": np.array(obs["planes"]), "vector": np.array(obs["vector"])}
        self._masks = np.array(self.jax_game.batch_legal_mask(self.states))
