"""One PettingZoo AEC environment for every game, over its JAX engine (``EnvHooks`` say the game).

A game's ``envs/pettingzoo_env.py`` subclasses :class:`JaxAECEnv` with its hooks and its
documentation, and ``env = wrapped(raw_env)`` adds PettingZoo's wrappers for turn-based games.
The reference engine mirrors the game (same deal, same decisions) for text, pictures and agents
that read a reference game; it is replayed only when asked.
"""

from __future__ import annotations

from functools import lru_cache

import jax
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from monkey_env.core.jax_cache import prng_key
from monkey_env.core.protocol import ILLEGAL_PENALTY
from monkey_env.envs.hooks import EnvHooks
from monkey_env.envs.observation import flat_space, flatten, to_numpy
from monkey_env.envs.rewards import batch_seat_rewards

# A game's state as a batch of one, for the batched reward functions.
_one_game_batch = jax.jit(lambda state: jax.tree_util.tree_map(lambda x: x[None], state))


def wrapped(raw_class):
    """``env(**kwargs)``: the raw env with PettingZoo's standard wrappers (an illegal action ends the
    game with the env's penalty; actions out of bounds are refused; the call order is enforced)."""
    def env(**kwargs):
        base = raw_class(**kwargs)
        out = wrappers.TerminateIllegalWrapper(base, illegal_reward=base.illegal_penalty)
        out = wrappers.AssertOutOfBoundsWrapper(out)
        return wrappers.OrderEnforcingWrapper(out)
    env.__doc__ = f"The {raw_class.metadata['name']} environment with PettingZoo's wrappers."
    return env


@lru_cache(maxsize=16)
def _programs(engine, compiled_steps: bool):
    """One engine's single-game programs, compiled once for every env of that engine."""
    init, step = (engine.init, engine.step) if compiled_steps else (jax.jit(engine.init), jax.jit(engine.step))
    return init, step, jax.jit(engine.legal_action_mask), jax.jit(engine.observe)


class ReferenceMirror:
    """The game on the reference engine at the same decision as the JAX game, replayed on request."""

    def __init__(self, hooks: EnvHooks, engine, first_state, options):
        self._start = lambda: hooks.reference_game(engine, jax.device_get(first_state), options)
        self._actions: list[int] = []
        self._game = None

    def record(self, action: int) -> None:
        """An action the JAX engine took as legal."""
        self._actions.append(action)

    def game(self):
        if self._game is None:
            self._game = self._start()
        for action in self._actions[len(self._game.history):]:
            self._game.apply(action)
        return self._game


class JaxAECEnv(AECEnv):
    """Subclasses set ``hooks`` and ``metadata["name"]``."""

    hooks: EnvHooks
    metadata = {"name": "", "render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, *args, seed: int | None = None, max_cycles: int | None = None,
                 illegal_penalty: float = ILLEGAL_PENALTY, render_mode: str | None = None,
                 options=None, **game_options):
        """``options`` (the game's options object) or its fields as keywords (or positionally, in
        the order of ``hooks.positional``) choose the game; ``seed`` the deal of reset()."""
        super().__init__()
        hooks = self.hooks
        options = hooks.options(args, options, game_options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be at least 1, got {max_cycles}")
        self.options, self.render_mode, self.max_cycles = options, render_mode, max_cycles
        self.reward_mode = options.reward_mode
        self.illegal_penalty = float(illegal_penalty)
        self.default_seed = seed
        self.jax_game = hooks.engine(options, self.illegal_penalty)
        self.params = self.jax_game.params(options)
        self._init, self._step, self._legal, self._observe = _programs(self.jax_game, hooks.compiled_steps)
        self.possible_agents = [f"player_{i}" for i in range(options.players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        structured = hooks.observation_space(self.jax_game)
        observation = flat_space(structured) if options.observation_format == "flat" else structured
        n = self.jax_game.num_actions
        obs_space = spaces.Dict({"observation": observation, "action_mask": spaces.Box(0, 1, (n,), np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.state = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is None:
            seed = self.default_seed if self.default_seed is not None else int(np.random.SeedSequence().entropy % 2**31)
        self.game_seed = int(seed)
        self.state = self._init(prng_key(self.game_seed), self.params)
        self.mirror = ReferenceMirror(self.hooks, self.jax_game, self.state, self.options.with_seed(self.game_seed))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._refresh()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        before = self.state
        self.state = self._step(before, np.int32(action))
        if not bool(self.state.illegal):
            self.mirror.record(int(action))
        players = len(self.possible_agents)
        rewards = batch_seat_rewards(self.hooks, self.jax_game, self.reward_mode, _one_game_batch(before),
                                     _one_game_batch(self.state), players)[0]
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(rewards[i]) for i, a in enumerate(self.agents)}
        self._refresh()
        self._accumulate_rewards()

    def scores(self) -> list[int]:
        """Every seat's score now (the final scores once the game is over)."""
        return [int(v) for v in np.asarray(self.jax_game.scores(self.state))[:len(self.possible_agents)]]

    def reference_game(self):
        """The game so far on the reference engine (same deal, same decisions)."""
        return self.mirror.game()

    def _refresh(self) -> None:
        """Terminations, truncations, infos, agent_selection and the cached observations."""
        done = bool(self.state.terminated)
        players = len(self.possible_agents)
        round_now = self.hooks.round(self.state)
        truncate = not done and self.max_cycles is not None and round_now > self.max_cycles
        for a in self.agents:
            self.terminations[a], self.truncations[a] = done, truncate
        info = {"round": round_now, "scores": np.asarray(self.scores(), np.int64),
                **self.hooks.extra_info(self.state, players)}
        self.infos = {a: {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in info.items()}
                      for a in self.agents}
        self.agent_selection = self.possible_agents[int(self.state.current)]
        self._obs_cache = {}
        self._mask = np.asarray(self._legal(self.state)).astype(np.int8)

    def observe(self, agent):
        if agent not in self._obs_cache:
            seat = self.agent_name_mapping[agent]
            mine = agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent])
            obs = to_numpy(self._observe(self.state, seat))
            if self.options.observation_format == "flat":
                obs = flatten(obs)
            self._obs_cache[agent] = {"observation": obs,
                                      "action_mask": self._mask if mine else np.zeros_like(self._mask)}
        return self._obs_cache[agent]

    # ------------------------------------------------------------------ rendering
    def render(self):
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        if self.state is None:
            raise RuntimeError("render() before reset()")
        game = self.reference_game()
        if self.render_mode == "human":     # the text view, printed (a terminal is the human's screen)
            print(self.hooks.view("text")(game))
            return None
        if self.render_mode == "ansi":
            return self.hooks.view("text")(game)
        return self.hooks.view("picture")(game)

    def close(self):
        pass
