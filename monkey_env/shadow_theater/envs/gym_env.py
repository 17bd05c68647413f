"""The Shadow Theater as a Gymnasium single-agent environment (``gymnasium.make("ShadowTheater-v0")``).

The learner plays one seat (``learner_seat``: 0, 1, or None for a seat drawn each game from the
env's seeded generator) against
``opponents`` (an agent name of the registry, ``random`` or ``greedy``; or an agent object), who
play on the reference mirror of the AEC env between the learner's decisions.

Observation: ``Dict(planes (2,3,3), vector (V,))`` float32 (jaxgame.engine.observe); action:
``Discrete(29)``; ``action_masks()`` gives the legal actions (sb3-contrib's MaskablePPO reads it).
Reward: the learner's reward of the options' ``reward_mode`` summed over its decision and the
opponents' decisions that follow. An illegal action ends the game with the penalty (-1).
"""

from __future__ import annotations

import gymnasium
import numpy as np

from monkey_env.agents.registry import make_agent
from monkey_env.shadow_theater.envs.pettingzoo_env import raw_env


class ShadowTheaterGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, opponents="random", learner_seat: int | None = 0, seed: int | None = None,
                 render_mode: str | None = None, **options):
        self.aec = raw_env(seed=seed, render_mode=render_mode, **options)
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = self.aec.action_space("player_0")
        self.opponent_spec = opponents
        self.opponent = make_agent(opponents, seed or 0, game="shadow_theater") if isinstance(opponents, str) else opponents
        self.fixed_seat = learner_seat
        self.games = 0

    def action_masks(self) -> np.ndarray:
        return self.aec.observe(self.aec.possible_agents[self.learner])["action_mask"].astype(bool)

    def _obs(self):
        return self.aec.observe(self.aec.possible_agents[self.learner])["observation"]

    def _opponents_play(self) -> float:
        reward = 0.0
        me = self.aec.possible_agents[self.learner]
        while not self.aec.terminations[me] and not self.aec.truncations[me] and self.aec.agent_selection != me:
            game = self.aec.reference_game()
            self.aec.step(self.opponent.act(game, game.legal_mask()))
            reward += self.aec.rewards[me]
        return reward

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        # Every game's chance comes from the env's generator (seeded by reset(seed=...)), so a
        # seeded reset followed by unseeded ones repeats: the deal, the seat and the opponent.
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**31))
        self.learner = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(2))
        self.games += 1
        if isinstance(self.opponent_spec, str):
            self.opponent = make_agent(self.opponent_spec, game_seed, game="shadow_theater")
        self.aec.reset(seed=game_seed)
        self._opponents_play()
        return self._obs(), dict(self.aec.infos[self.aec.possible_agents[self.learner]])

    def step(self, action):
        me = self.aec.possible_agents[self.learner]
        self.aec.step(int(action))
        reward = self.aec.rewards[me]
        if bool(self.aec.state.illegal):
            return self._obs(), float(reward), True, False, dict(self.aec.infos[me])
        reward += self._opponents_play()
        return (self._obs(), float(reward), bool(self.aec.terminations[me]), bool(self.aec.truncations[me]),
                dict(self.aec.infos[me]))

    def render(self):
        return self.aec.render()
