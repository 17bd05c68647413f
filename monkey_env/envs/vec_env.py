"""One Stable-Baselines3 ``VecEnv`` for every game: a batch of JAX games, one learning seat in each.

    venv = SomeGameVecEnv(256, players=2, opponents=["random", "greedy"], seed=0)
    model = MaskablePPO("MultiInputPolicy", venv)      # sb3-contrib; masks from action_masks()

Each of the ``num_envs`` games has one learning seat (drawn per episode from the env's seeded
generator unless ``learner_seat`` is given) and one opponent agent for its other seats, drawn
per episode from ``opponents`` (the game's agents by name, or objects with ``act_batch``;
weights with ``opponent_weights``). After every learner decision the opponents of all games
decide together until every game is back at a learner decision: only the games where an
opponent is to play are stepped, gathered into a sub-batch of 1/16, 1/4 or all of ``num_envs``
(at least 16), so the few long opponent turns do not cost whole-batch steps. Finished games
restart at once from a pool of freshly dealt games (SB3's automatic reset: the last observation
is in ``infos[i]["terminal_observation"]``, and ``infos[i]["episode"]`` has the return ``r``,
length ``l``, the learner's final ``score``, ``seat``, ``opponent``, ``won`` and ``illegal``).

Observations, actions, reward modes and the illegal-action policy are those of the game's
PettingZoo env (monkey_env.envs); rewards are the learner seat's.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from monkey_env.core.protocol import ILLEGAL_PENALTY
from monkey_env.envs.hooks import EnvHooks
from monkey_env.envs.observation import flat_space, flatten_batch, to_numpy
from monkey_env.envs.rewards import batch_seat_rewards


class JaxVecEnv(VecEnv):
    """Subclasses set ``hooks`` (the game's EnvHooks)."""

    hooks: EnvHooks

    def __init__(self, num_envs: int, *args, opponents="random", opponent_weights=None,
                 learner_seat: int | None = None, seed: int = 0, illegal_penalty: float = ILLEGAL_PENALTY,
                 options=None, **game_options):
        """``options`` (the game's options object) or its fields as keywords (or positionally after
        ``num_envs``, as the game's PettingZoo env takes them) choose the games."""
        from monkey_env.agents.registry import make_batch_agent
        hooks = self.hooks
        self.options = options = hooks.options(args, options, game_options)
        self.players, self.reward_mode = options.players, options.reward_mode
        self.jax_game = engine = hooks.engine(options, float(illegal_penalty))
        self.params = engine.params(options)
        if learner_seat is not None and not 0 <= learner_seat < self.players:
            raise ValueError(f"learner_seat must be 0..{self.players - 1} or None, got {learner_seat}")
        self.learner_seat = learner_seat
        specs = [opponents] if isinstance(opponents, str) or not isinstance(opponents, (list, tuple)) else list(opponents)
        self.opponents = [make_batch_agent(s, seed + i, game=hooks.game) for i, s in enumerate(specs)]
        w = np.ones(len(self.opponents)) if opponent_weights is None else np.asarray(opponent_weights, float)
        if w.shape != (len(self.opponents),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"opponent_weights must be {len(self.opponents)} non-negative numbers, not all 0")
        self.opponent_weights = w / w.sum()
        self._reseed(seed)
        self._observe = jax.jit(jax.vmap(engine.observe))
        # Fixed shapes (one pool index per game, used where `reset`), so each compiles once.
        self._refill = jax.jit(lambda states, reset, pool, pool_idx: jax.tree_util.tree_map(
            lambda p, s: jnp.where(reset.reshape((-1,) + (1,) * (s.ndim - 1)), p[pool_idx], s), pool, states))
        self._gather = jax.jit(lambda states, rows: jax.tree_util.tree_map(lambda x: x[rows], states))
        self._scatter = jax.jit(lambda states, sub, rows: jax.tree_util.tree_map(
            lambda x, y: x.at[rows].set(y, mode="drop"), states, sub))
        # Sub-batch sizes for the opponents' moves: few sizes (each compiles), none below 16.
        self._sizes = sorted({min(num_envs, max(16, num_envs // k)) for k in (16, 4, 1)})
        self.render_mode = None
        structured = hooks.observation_space(engine)
        self.flat = options.observation_format == "flat"
        super().__init__(num_envs, flat_space(structured) if self.flat else structured,
                         spaces.Discrete(engine.num_actions))
        self._pool = None
        self._pool_next = 0
        self._actions = None

    def _reseed(self, seed: int) -> None:
        """Every random choice from here on (deals, seats, opponents' keys) follows this seed."""
        self.rng = np.random.default_rng(seed)
        self.base_key = jax.random.PRNGKey(seed)
        self.agent_key = jax.random.fold_in(self.base_key, 2**30)
        self.games_dealt = 0

    # ------------------------------------------------------------------ SB3 API
    def reset(self):
        n = self.num_envs
        if any(s is not None for s in self._seeds):   # VecEnv.seed(s), e.g. MaskablePPO(seed=s)
            self._reseed(int(next(s for s in self._seeds if s is not None)))
            self._reset_seeds()
        self._pool = None
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
            scores = np.asarray(self.jax_game.batch_scores(self.states))
            places = np.asarray(self.jax_game.batch_places(self.states))
            illegal = np.asarray(self.states.illegal)
            for i in np.flatnonzero(dones):
                seat = self.seat[i]
                infos[i]["terminal_observation"] = self._observation_of(i)
                infos[i]["episode"] = {"r": float(self.episode_return[i]), "l": int(self.episode_length[i]),
                                       "score": int(scores[i, seat]), "seat": int(seat),
                                       "opponent": self.opponents[self.opponent[i]].name,
                                       # the rulebook's winners (monkey_env.core.outcome); a shared win counts
                                       "won": bool(places[i, seat] == 1), "illegal": bool(illegal[i])}
            self._restart(np.flatnonzero(dones))
        self._after_step()
        return self._obs, rewards, dones, infos

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) bool: the learner's legal actions in every game."""
        return self._masks

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self._masks[idx])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(idx)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    # ------------------------------------------------------------------ inside
    def _deal(self, n: int):
        ids = jnp.arange(self.games_dealt, self.games_dealt + n)
        self.games_dealt += n
        keys = jax.vmap(lambda i: jax.random.fold_in(self.base_key, i))(ids)
        params = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (n,) + jnp.shape(x)), self.params)
        return self.jax_game.batch_init(keys, params)

    def _draw_seats(self, n: int) -> np.ndarray:
        if self.learner_seat is not None:
            return np.full(n, self.learner_seat, np.int32)
        return self.rng.integers(self.players, size=n).astype(np.int32)

    def _learner_rewards(self, before, stepped: np.ndarray) -> np.ndarray:
        """The learner's reward in each game for the step from `before` to self.states."""
        moded = batch_seat_rewards(self.hooks, self.jax_game, self.reward_mode, before, self.states, self.players)
        rows = np.arange(self.num_envs)
        return np.where(stepped, moded[rows, self.seat], 0.0).astype(np.float32)

    def _play_opponents(self) -> np.ndarray:
        """Opponents decide in every game until each is at a learner decision or over."""
        gained = np.zeros(self.num_envs, np.float32)
        while True:
            need = np.asarray((self.states.current != jnp.asarray(self.seat)) & ~self.states.terminated)
            rows = np.flatnonzero(need)
            if len(rows) == 0:
                return gained
            # The games to step, padded to a fixed size with a spare row that is not written back.
            size = next(n for n in self._sizes if n >= len(rows))
            gather = np.zeros(size, np.int32)
            gather[:len(rows)] = rows
            write = np.full(size, self.num_envs, np.int32)
            write[:len(rows)] = rows
            sub = self._gather(self.states, jnp.asarray(gather))
            masks = self.jax_game.batch_legal_mask(sub)
            opponent = self.opponent[gather]
            actions = jnp.zeros(size, jnp.int32)
            for k, agent in enumerate(self.opponents):
                if not (opponent[:len(rows)] == k).any():
                    continue
                self.agent_key, key = jax.random.split(self.agent_key)
                chosen = jnp.asarray(agent.act_batch(self.jax_game, sub, masks, key), jnp.int32)
                actions = jnp.where(jnp.asarray(opponent == k), chosen, actions)
            before = self.states
            self.states = self._scatter(self.states, self.jax_game.batch_step(sub, actions), jnp.asarray(write))
            gained += self._learner_rewards(before, need)

    def _restart(self, rows: np.ndarray) -> None:
        """Finished games start again from fresh deals; opponents play up to the learner's turn."""
        k = len(rows)
        if self._pool is None or self._pool_next + k > self.num_envs:
            self._pool = self._deal(self.num_envs)
            self._pool_next = 0
        reset = np.zeros(self.num_envs, bool)
        reset[rows] = True
        take = np.zeros(self.num_envs, np.int32)
        take[rows] = np.arange(self._pool_next, self._pool_next + k)
        self._pool_next += k
        self.states = self._refill(self.states, jnp.asarray(reset), self._pool, jnp.asarray(take))
        self.seat[rows] = self._draw_seats(k)
        self.opponent[rows] = self.rng.choice(len(self.opponents), size=k, p=self.opponent_weights)
        self.episode_return[rows] = 0.0
        self.episode_length[rows] = 0
        self.carry += self._play_opponents()

    def _after_step(self) -> None:
        # Copies: arrays from JAX are read-only, and SB3 hands them to torch.
        obs = {k: np.array(v) for k, v in to_numpy(self._observe(self.states, jnp.asarray(self.seat))).items()}
        self._obs = flatten_batch(obs) if self.flat else obs
        self._masks = np.array(self.jax_game.batch_legal_mask(self.states))

    def _observation_of(self, i: int):
        return self._obs[i].copy() if self.flat else {k: v[i] for k, v in self._obs.items()}

