"""A single-agent Gymnasium view of Forbidden City (``ForbiddenCity-v0``): one learning seat,
the other seats played by agents (by name or objects with ``act_batch``).

    env = ForbiddenCityGymEnv(players=2, opponents="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(env.action_masks().nonzero()[0][0]))

Observation ``Dict(planes=(30, 17, 17), vector=(45,))`` from the learner's seat, action
``Discrete(1157)`` with ``action_masks()``; a step is the learner's turn and the opponents'
turns up to its next one, its reward the learner's reward over them (default: coins won).
"""

from __future__ import annotations

import gymnasium
import jax
import numpy as np
from gymnasium import spaces

from monkey_env.forbidden_city.envs.agents import batch_agent
from monkey_env.forbidden_city.envs.pettingzoo_env import raw_env


class ForbiddenCityGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, players: int = 2, *, opponents="random", learner_seat: int | None = 0,
                 render_mode: str | None = None, **env_options):
        self.aec = raw_env(players=players, render_mode=render_mode, **env_options)
        self.render_mode = render_mode
        if learner_seat is not None and not 0 <= learner_seat < players:
            raise ValueError(f"learner_seat must be 0..{players - 1} or None, got {learner_seat}")
        self.learner_seat, self.players = learner_seat, players
        if isinstance(opponents, (str, bytes)) or not isinstance(opponents, (list, tuple)):
            opponents = [opponents] * (players - 1)
        if len(opponents) != players - 1:
            raise ValueError(f"{players} players need {players - 1} opponents, got {len(opponents)}")
        self._opponent_specs = list(opponents)
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = spaces.Discrete(self.aec.jax_game.num_actions)
        self.seat = learner_seat or 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**31))
        self.seat = self.learner_seat if self.learner_seat is not None else int(self.np_random.integers(self.players))
        self.opponents = [batch_agent(s, game_seed + i) for i, s in enumerate(self._opponent_specs)]
        self._key = jax.random.PRNGKey(game_seed)
        self.aec.reset(seed=game_seed)
        self._play_opponents()
        return self._observation(), self._info()

    def step(self, action):
        me = self.aec.possible_agents[self.seat]
        if self._done():
            raise RuntimeError("step() on a finished episode: call reset()")
        self.aec.step(int(action))
        self._play_opponents()
        reward = float(self.aec._cumulative_rewards[me])
        self.aec._cumulative_rewards[me] = 0.0
        return (self._observation(), reward, bool(self.aec.terminations[me]), bool(self.aec.truncations[me]),
                self._info())

    def action_masks(self) -> np.ndarray:
        return self.aec.observe(self.aec.possible_agents[self.seat])["action_mask"].astype(bool)

    def render(self):
        return self.aec.render()

    def _done(self) -> bool:
        me = self.aec.possible_agents[self.seat]
        return self.aec.terminations[me] or self.aec.truncations[me]

    def _play_opponents(self) -> None:
        aec = self.aec
        while not self._done() and aec.agent_selection != aec.possible_agents[self.seat]:
            seat = aec.agent_name_mapping[aec.agent_selection]
            agent = self.opponents[seat if seat < self.seat else seat - 1]
            self._key, sub = jax.random.split(self._key)
            one = jax.tree_util.tree_map(lambda x: x[None], aec.state)
            mask = aec.observe(aec.agent_selection)["action_mask"].astype(bool)[None]
            aec.step(int(np.asarray(agent.act_batch(aec.jax_game, one, mask, sub))[0]))

    def _observation(self) -> dict:
        return self.aec.observe(self.aec.possible_agents[self.seat])["observation"]

    def _info(self) -> dict:
        info = dict(self.aec.infos[self.aec.possible_agents[self.seat]])
        info["seat"] = self.seat
        return info
