"""Forbidden City as a PettingZoo AEC environment (``forbidden_city_v0``), over the JAX engine.

    import monkey_env
    env = monkey_env.make("forbidden_city_v0", players=3, start_side="advanced")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(observation["action_mask"])
        env.step(action)

| | |
|---|---|
| Agents | ``player_0`` ... ``player_{n-1}``, n = 2, 3 or 4 (``player_0`` plays first) |
| Actions | ``Discrete(size * size * 4 + 1)`` (1157 on the 17 x 17 table) |
| Observations | ``Dict(observation=Dict(planes, vector), action_mask)`` |

**Turns.** One decision per turn: lay the tile in hand. Turns go round the table.

**Action space.** ``(y * size + x) * 4 + turns``: lay the tile at (x, y) turned ``turns`` quarter
turns clockwise; the last action sets the tile aside, legal only when it fits nowhere.

**Observation space.** ``planes`` ``(30, 17, 17)`` float32 and ``vector`` ``(45,)`` float32
(every entry: :mod:`monkey_env.forbidden_city.jaxgame.observe`): the city, and the observer's
own hand. Other players' tiles in hand and every stack's order stay hidden. ``action_mask``:
``(1157,)`` int8, the legal actions of the agent to act (zeros for the others).

**Rewards.** ``reward_mode="coins"`` (default): each seat's coin change at that step (a room
closed by anyone pays its majority at once); ``"zero_sum"``, ``"terminal"``: see
:mod:`monkey_env.forbidden_city.envs.rewards`. An illegal action ends the game with
``illegal_penalty`` (-10) for its player (``env()`` applies PettingZoo's TerminateIllegalWrapper).

**Termination.** Every agent terminates at the end (option ``ending``: every player has two
tiles left, or every tile is laid); ``max_cycles=N`` truncates after N rounds.

**Infos.** ``turn`` (turns played), ``coins`` (every seat's coins, int array).

**Arguments.** The options of :class:`monkey_env.forbidden_city.options.ForbiddenCityOptions`
(``players``, ``start_side``, ``ending``, ``config_dir``, ``reward_mode``, ``observation_format``),
``seed`` (the deal of ``reset()`` without a seed), ``max_cycles``, ``illegal_penalty``,
``render_mode`` (``"human"``/``"ansi"``: the city as text; ``"rgb_array"``: a picture).
"""

from __future__ import annotations

import jax
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from monkey_env.forbidden_city.envs.observation import flatten, space_for, to_numpy
from monkey_env.forbidden_city.envs.rewards import seat_rewards
from monkey_env.forbidden_city.jaxgame.env import jax_game_for
from monkey_env.forbidden_city.options import ForbiddenCityOptions

ENV_NAME = "forbidden_city_v0"


def env(**kwargs):
    base = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(base, illegal_reward=base.illegal_penalty)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class ReferenceMirror:
    """The reference engine's copy of the game (for text and pictures), replayed on request."""

    def __init__(self, jax_game, first_state, options: ForbiddenCityOptions):
        self._deal = jax_game.deal(jax.device_get(first_state))
        self._options, self._data = options, jax_game.data
        self._actions: list[int] = []
        self._game = None

    def record(self, action: int) -> None:
        self._actions.append(action)

    def game(self):
        from monkey_env.forbidden_city.engine import Game
        if self._game is None:
            self._game = Game(self._options, deal=self._deal, data=self._data)
        for a in self._actions[len(self._game.history):]:
            self._game.apply(a)
        return self._game


class raw_env(AECEnv):  # lower case: PettingZoo's naming convention
    metadata = {"name": ENV_NAME, "render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, players: int = 2, *, seed: int | None = None, max_cycles: int | None = None,
                 illegal_penalty: float = -10.0, render_mode: str | None = None,
                 options: ForbiddenCityOptions | None = None, **game_options):
        super().__init__()
        if options is None:
            options = ForbiddenCityOptions(players=players, **game_options)
        self.options = options
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be at least 1, got {max_cycles}")
        self.render_mode, self.max_cycles = render_mode, max_cycles
        self.illegal_penalty = float(illegal_penalty)
        self.default_seed = seed
        self.jax_game = jax_game_for(options, illegal_penalty=illegal_penalty)
        self.params = self.jax_game.params(options)
        self.possible_agents = [f"player_{i}" for i in range(options.players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        n = self.jax_game.num_actions
        obs_space = spaces.Dict({"observation": space_for(self.jax_game, options.observation_format),
                                 "action_mask": spaces.Box(0, 1, (n,), np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.state = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is None:
            seed = self.default_seed if self.default_seed is not None else int(np.random.SeedSequence().entropy % 2**31)
        self.game_seed = int(seed)
        self.state = self.jax_game.init(jax.random.PRNGKey(self.game_seed), self.params)
        self.mirror = ReferenceMirror(self.jax_game, self.state, self.options.with_seed(self.game_seed))
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
        self.state = self.jax_game.step(self.state, int(action))
        illegal = bool(self.state.illegal)
        if not illegal:
            self.mirror.record(int(action))
        self._cumulative_rewards[agent] = 0.0
        n = len(self.possible_agents)
        deltas = np.asarray(self.state.rewards)[:n]
        rewards = deltas if illegal else seat_rewards(self.options.reward_mode, deltas,
                                                      np.asarray(self.state.coins)[:n], bool(self.state.terminated))
        self.rewards = {a: float(rewards[i]) for i, a in enumerate(self.agents)}
        self._refresh()
        self._accumulate_rewards()

    def scores(self) -> list[int]:
        return [int(v) for v in self.jax_game.scores(self.state)]

    def _refresh(self) -> None:
        done = bool(self.state.terminated)
        players = len(self.possible_agents)
        truncate = (not done and self.max_cycles is not None and int(self.state.turns) >= self.max_cycles * players)
        for a in self.agents:
            self.terminations[a] = done
            self.truncations[a] = truncate
        coins = np.asarray(self.state.coins)[:players].astype(np.int64)
        self.infos = {a: {"turn": int(self.state.turns), "coins": coins.copy()} for a in self.agents}
        self.agent_selection = self.possible_agents[int(self.state.current)]
        self._obs_cache = {}
        self._mask = np.asarray(self.jax_game._legal(self.state)).astype(np.int8)

    def observe(self, agent):
        if agent not in self._obs_cache:
            seat = self.agent_name_mapping[agent]
            mine = agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent])
            obs = to_numpy(self.jax_game.observe(self.state, seat))
            if self.options.observation_format == "flat":
                obs = flatten(obs)
            self._obs_cache[agent] = {"observation": obs,
                                      "action_mask": self._mask if mine else np.zeros_like(self._mask)}
        return self._obs_cache[agent]

    def render(self):
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        if self.state is None:
            raise RuntimeError("render() before reset()")
        game = self.mirror.game()
        if self.render_mode in ("human", "ansi"):
            from monkey_env.forbidden_city.text_view import game_text
            text = game_text(game)
            if self.render_mode == "human":
                print(text)
                return None
            return text
        from monkey_env.forbidden_city.render import game_picture
        return game_picture(game)

    def close(self):
        pass
