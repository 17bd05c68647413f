"""The Shadow Theater as a PettingZoo AEC environment (``shadow_theater_v0``), over the JAX engine.

    import monkey_env
    env = monkey_env.make("shadow_theater_v0", render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(observation["action_mask"])
        env.step(action)

| | |
|---|---|
| Agents | ``player_0`` (seat 1, starts the first round), ``player_1`` |
| Actions | ``Discrete(29)`` (actions.py): play card 0-16, place 17-19, collect 20-22, King 23-25, keep 26-27, pass 28 |
| Observations | ``Dict(observation=Dict(planes (2,3,3), vector), action_mask (29,) int8)`` (jaxgame.engine.observe) |

**Turns.** ``agent_selection`` is the seat to decide; a turn is several decisions by the same
player (weapon cards, then place or collect, then a King move after a Garden placement), and
the scroll draft is one decision per player at each round's start.

**Rewards.** ``reward_mode`` (monkey_env.shadow_theater.envs.rewards): ``lanterns`` (default,
+1/-1 when a Lantern is taken), ``round_points`` (also the round's point margin / 10),
``terminal`` (+1/-1 at the end).

**Termination.** Both agents terminate when a player holds 2 Lanterns (or after 12 rounds, void
rounds only). An illegal action ends the game with ``illegal_penalty`` (-1) to its author
(``env()`` applies PettingZoo's TerminateIllegalWrapper). ``max_cycles=N`` truncates after N rounds.

**Infos.** ``phase`` (0 draft, 1 turn, 2 King move, 3 over), ``round``, ``scores`` (Lanterns).

**Arguments.** the options' fields (``seed``, ``config_dir``, ``reward_mode``; ``players`` is 2),
``max_cycles``, ``illegal_penalty``, ``render_mode`` (``human``/``ansi``: text, ``rgb_array``: a picture).
"""

from __future__ import annotations

from functools import lru_cache

import jax
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from monkey_env.shadow_theater.engine import Game
from monkey_env.shadow_theater.envs.rewards import MODES, seat_rewards
from monkey_env.shadow_theater.jaxgame.engine import ShadowTheaterJax, jax_engine_for
from monkey_env.shadow_theater.options import ShadowTheaterOptions

ENV_NAME = "shadow_theater_v0"


def env(**kwargs):
    """The environment with PettingZoo's standard wrappers for turn-based games."""
    base = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(base, illegal_reward=base.illegal_penalty)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


@lru_cache(maxsize=8)
def compiled(engine: ShadowTheaterJax):
    """One jitted program per engine: reset from a seed, and a step returning the new state,
    its legal mask and both seats' observations (one compilation serves every env)."""
    def after(state):
        return state, engine.legal_action_mask(state), engine.observe(state, 0), engine.observe(state, 1)

    reset = jax.jit(lambda seed: after(engine.init(jax.random.PRNGKey(seed))))
    step = jax.jit(lambda state, action: after(engine.step(state, action)))
    return reset, step


def deal_of(state) -> dict:
    """The reference engine's deal of a JAX state (to mirror the game on the reference engine)."""
    return {"cards": np.asarray(state.deal_cards).tolist(), "scrolls": np.asarray(state.deal_scrolls).tolist(),
            "king": np.asarray(state.deal_king).tolist()}


def space_for(engine: ShadowTheaterJax) -> spaces.Dict:
    sizes = engine.observation_sizes()
    return spaces.Dict({"planes": spaces.Box(0.0, 1.0, sizes["planes"], np.float32),
                        "vector": spaces.Box(-np.inf, np.inf, sizes["vector"], np.float32)})


class raw_env(AECEnv):  # lower case: PettingZoo's naming convention
    metadata = {"name": ENV_NAME, "render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, *, seed: int | None = None, max_cycles: int | None = None, illegal_penalty: float = -1.0,
                 render_mode: str | None = None, options: ShadowTheaterOptions | None = None, **game_options):
        super().__init__()
        if options is None:
            if game_options.get("reward_mode", "lanterns") not in MODES:
                raise ValueError(f"reward_mode {game_options['reward_mode']!r}: one of {', '.join(MODES)}")
            options = ShadowTheaterOptions(**game_options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be at least 1, got {max_cycles}")
        self.options, self.render_mode, self.max_cycles = options, render_mode, max_cycles
        self.illegal_penalty = float(illegal_penalty)
        self.default_seed = seed
        self.engine = jax_engine_for(options)
        self._reset, self._step = compiled(self.engine)
        self.possible_agents = ["player_0", "player_1"]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({"observation": space_for(self.engine),
                                 "action_mask": spaces.Box(0, 1, (self.engine.num_actions,), np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.engine.num_actions) for a in self.possible_agents}
        self.state = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is None:
            seed = self.default_seed if self.default_seed is not None else int(np.random.SeedSequence().entropy % 2**31)
        self.game_seed = int(seed)
        self._set(*self._reset(np.uint32(self.game_seed)))
        self.actions: list[int] = []
        self.mirror = Game(self.options.with_seed(self.game_seed), deal=deal_of(self.state))   # the same game, readable
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._refresh()

    def _set(self, state, mask, obs0, obs1) -> None:
        self.state = state
        self._mask = np.asarray(mask).astype(np.int8)
        self._obs = [{k: np.asarray(v) for k, v in o.items()} for o in (obs0, obs1)]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        before = self.state
        self._set(*self._step(before, np.int32(action)))
        illegal = bool(self.state.illegal)
        if not illegal:
            self.actions.append(int(action))
            self.mirror.apply(int(action))
        self._cumulative_rewards[agent] = 0.0
        rewards = np.asarray(self.state.rewards) if illegal else seat_rewards(self.options.reward_mode, before, self.state)
        self.rewards = {a: float(rewards[i]) for i, a in enumerate(self.agents)}
        self._refresh()
        self._accumulate_rewards()

    def scores(self) -> list[int]:
        return [int(v) for v in np.asarray(self.state.lanterns)]

    def _refresh(self) -> None:
        done = bool(self.state.terminated)
        truncate = not done and self.max_cycles is not None and int(self.state.round) > self.max_cycles
        for a in self.agents:
            self.terminations[a], self.truncations[a] = done, truncate
        info = {"phase": int(self.state.phase), "round": int(self.state.round),
                "scores": np.asarray(self.state.lanterns, np.int64)}
        self.infos = {a: dict(info) for a in self.agents}
        self.agent_selection = self.possible_agents[int(self.state.current)]

    def observe(self, agent):
        seat = self.agent_name_mapping[agent]
        mine = agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent])
        return {"observation": self._obs[seat], "action_mask": self._mask if mine else np.zeros_like(self._mask)}

    def reference_game(self) -> Game:
        """The game so far on the reference engine (same deal, same decisions): agents' ``act`` reads it."""
        return self.mirror

    def render(self):
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        if self.state is None:
            raise RuntimeError("render() before reset()")
        game = self.reference_game()
        if self.render_mode in ("human", "ansi"):
            from monkey_env.shadow_theater.text_view import game_text
            if self.render_mode == "human":
                print(game_text(game))
                return None
            return game_text(game)
        from monkey_env.shadow_theater.render import game_picture
        return game_picture(game)

    def close(self):
        pass
