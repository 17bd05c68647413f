"""One Gymnasium single-agent view for every game: one learning seat, the other seats played by agents.

    env = SomeGameGymEnv(players=2, opponents="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(env.action_masks().nonzero()[0][0]))

A step is one decision of the learner, then the opponents' decisions up to the learner's next
one; its reward is the learner's reward (the env's ``reward_mode``) over them. An illegal action
ends the episode with the penalty. Opponents are agents by name (the game's agents of the
registry) or objects, one for every other seat or a list in seat order (skipping the learner);
an agent with ``act_batch`` decides on the JAX state, any other with ``act(game, mask)`` on the
reference mirror. ``learner_seat=None`` draws the seat at every reset from the env's generator,
so ``reset(seed=s)`` then ``reset()`` repeats: the deal, the seat and the opponents' seeds.
"""

from __future__ import annotations

import gymnasium
import jax
import numpy as np


class JaxGymView(gymnasium.Env):
    """Subclasses set ``aec_class`` (the game's JaxAECEnv)."""

    aec_class: type
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, *args, opponents="random", learner_seat: int | None = 0, render_mode: str | None = None,
                 **env_options):
        self.aec = self.aec_class(*args, render_mode=render_mode, **env_options)
        self.render_mode = render_mode
        self.players = len(self.aec.possible_agents)
        if learner_seat is not None and not 0 <= learner_seat < self.players:
            raise ValueError(f"learner_seat must be 0..{self.players - 1} or None, got {learner_seat}")
        self.learner_seat = learner_seat
        if isinstance(opponents, (str, bytes)) or not isinstance(opponents, (list, tuple)):
            opponents = [opponents] * (self.players - 1)
        if len(opponents) != self.players - 1:
            raise ValueError(f"{self.players} players need {self.players - 1} opponents, got {len(opponents)}")
        self._opponent_specs = list(opponents)
        self.opponents = self._make_opponents(0)    # made now, so a bad name fails at construction
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = self.aec.action_space("player_0")
        self.seat = learner_seat or 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**31))
        self.seat = self.learner_seat if self.learner_seat is not None else int(self.np_random.integers(self.players))
        self.opponents = self._make_opponents(game_seed)
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
        """The learner's legal actions, bool (all false once the episode is over); MaskablePPO reads it."""
        return self.aec.observe(self.aec.possible_agents[self.seat])["action_mask"].astype(bool)

    def render(self):
        return self.aec.render()

    # ------------------------------------------------------------------ inside
    def _make_opponents(self, seed: int) -> list:
        from monkey_env.agents.registry import make_agent
        return [make_agent(s, seed + i, game=self.aec.hooks.game) if isinstance(s, str) else s
                for i, s in enumerate(self._opponent_specs)]

    def _done(self) -> bool:
        me = self.aec.possible_agents[self.seat]
        return self.aec.terminations[me] or self.aec.truncations[me]

    def _play_opponents(self) -> None:
        """The other seats decide until it is the learner's turn or the game is over."""
        aec = self.aec
        while not self._done() and aec.agent_selection != aec.possible_agents[self.seat]:
            seat = aec.agent_name_mapping[aec.agent_selection]
            agent = self.opponents[seat if seat < self.seat else seat - 1]
            mask = aec.observe(aec.agent_selection)["action_mask"].astype(bool)
            if hasattr(agent, "act_batch"):
                self._key, sub = jax.random.split(self._key)
                one = jax.tree_util.tree_map(lambda x: x[None], aec.state)
                action = int(np.asarray(agent.act_batch(aec.jax_game, one, mask[None], sub))[0])
            else:
                game = aec.reference_game()
                action = int(agent.act(game, game.legal_mask()))
            aec.step(action)

    def _observation(self):
        return self.aec.observe(self.aec.possible_agents[self.seat])["observation"]

    def _info(self) -> dict:
        info = dict(self.aec.infos[self.aec.possible_agents[self.seat]])
        info["seat"] = self.seat
        return info
