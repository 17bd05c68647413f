"""A single-agent Gymnasium view of Monkey Palace: one learning seat, the others played by agents.

    env = MonkeyPalaceGymEnv(players=2, map=1, opponents="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_masks().nonzero()[0][0])

Observation: ``Dict(planes=(20, 32, 32) float32, vector=(V,) float32)`` from the learner's
seat (see :mod:`monkey_env.monkey_palace.envs.pettingzoo_env` for every entry). Action: ``Discrete(2438)``;
``action_masks()`` gives the legal ones (for sb3-contrib's MaskablePPO). A step is one
decision of the learner, followed by the opponents' decisions up to the learner's next one;
its reward is what the learner's reward mode gave over those decisions (by default the
change of its Banana Points, so the rewards of an episode sum to its final score). An illegal
action ends the episode with the illegal penalty.

Opponents are agents with ``act_batch`` (agents/base.py), by name or as objects: one for
every other seat, or a list in seat order (skipping the learner). ``learner_seat=None``
draws the learner's seat at every reset (from the reset's seed), so it learns every seat.
"""

from __future__ import annotations

import gymnasium
import jax
import numpy as np
from gymnasium import spaces

from monkey_env.monkey_palace.envs.pettingzoo_env import raw_env


class MonkeyPalaceGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, players: int = 2, map: int | str = 1, *, opponents="random", learner_seat: int | None = 0,
                 render_mode: str | None = None, **env_options):
        self.aec = raw_env(players=players, map=map, render_mode=render_mode, **env_options)
        self.render_mode = render_mode
        if learner_seat is not None and not 0 <= learner_seat < players:
            raise ValueError(f"learner_seat must be 0..{players - 1} or None, got {learner_seat}")
        self.learner_seat = learner_seat
        self.players = players
        self._opponent_specs = _opponent_list(opponents, players)
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = spaces.Discrete(self.aec.jax_game.num_actions)
        self.seat = learner_seat or 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**31))
        self.seat = self.learner_seat if self.learner_seat is not None else int(self.np_random.integers(self.players))
        self.opponents = _make_agents(self._opponent_specs, game_seed)
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
        """(2438,) bool: the learner's legal actions (all false once the episode is over)."""
        return self.aec.observe(self.aec.possible_agents[self.seat])["action_mask"].astype(bool)

    def render(self):
        return self.aec.render()

    # ------------------------------------------------------------------ inside
    def _done(self) -> bool:
        me = self.aec.possible_agents[self.seat]
        return self.aec.terminations[me] or self.aec.truncations[me]

    def _play_opponents(self) -> None:
        """The other seats decide until it is the learner's turn or the game is over."""
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


def _opponent_list(opponents, players: int) -> list:
    """One opponent spec (name or agent) per other seat."""
    if isinstance(opponents, (str, bytes)) or not isinstance(opponents, (list, tuple)):
        return [opponents] * (players - 1)
    if len(opponents) != players - 1:
        raise ValueError(f"{players} players need {players - 1} opponents, got {len(opponents)}")
    return list(opponents)


def _make_agents(specs: list, seed: int) -> list:
    from monkey_env.agents.registry import make_batch_agent

    return [make_batch_agent(spec, seed + i) for i, spec in enumerate(specs)]
