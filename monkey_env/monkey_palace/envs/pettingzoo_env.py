"""Monkey Palace as a PettingZoo AEC environment (``monkey_palace_v0``), over the JAX engine.

    from monkey_env import pettingzoo_env
    env = pettingzoo_env.env(players=3, map=2, frog=True, render_mode="rgb_array")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)
        env.step(action)

This environment is part of the classic-style (turn-based) environments of monkey-palace.

| | |
|---|---|
| Agents | ``player_0`` ... ``player_{n-1}``, n = 2, 3 or 4 (seat 1 is ``player_0``, who plays first) |
| Actions | ``Discrete(2438)`` |
| Observations | ``Dict(observation=Dict(planes, vector), action_mask)`` |
| Import | ``from monkey_env import pettingzoo_env`` (also ``monkey_env.env`` / ``monkey_env.raw_env``) |

**Turns.** The game is turn-based: ``agent_selection`` is the player who must decide, and a
turn takes several decisions in a row by the same player (anchor, staircase shape, purchases,
an arch-or-brick choice, a slot, the monkey, the frog). Decisions with a single legal option
are taken by the engine and never asked.

**Action space.** ``Discrete(2438)``, the indices of :class:`monkey_env.monkey_palace.actions.ActionLayout`:
0-1023 a stud (flat ``y * 32 + x``) as the anchor of the staircase; 1024-2415 a staircase
shape of the template catalogue (heading, base, turn programme, rises; ``configs/catalogue.yaml``)
at that anchor; 2416-2427 buy the top card of pile 0-11; 2428 stop buying; 2429/2430 take an arch /
a brick; 2431-2434 put a card on slot 0-3; 2435 leave the monkey where it is; 2436/2437 take /
decline the frog. The build is thus a parameterized staircase template chosen in two
decisions (anchor, then shape), and card purchases are actions too.

**Observation space.** ``observation["action_mask"]``: ``(2438,)`` int8, 1 for the legal
actions of the agent to act (all zero for the others). ``observation["observation"]``:

- ``planes``: ``(20, 32, 32)`` float32 over the plate: height / 16; the knob on top of each stud
  one-hot (13 kinds: empty plate, light / dark / gold stud, blocked, white start stud, corner,
  arch end, arch middle, brick, column, decorations of the three colours); monkey, butterfly,
  frog; this turn's legal anchors (for the agent choosing one); the chosen anchor; the new
  decoration.
- ``vector``: float32, seat-relative (the observing player first): phase one-hot (8), seat to play
  (4), every player's supply of arches, bricks, columns (4×3), the tray (3), pile sizes (12), the
  cost, Banana Points and recurring supply of each pile's top card (12×5), the recurring supply of
  the top card of every slot of every board (4×4×3), bonus cards (4), trophy holders (3×5),
  credits of this turn, round, end triggered, bonus cards left, every player's Banana Points (4).
  Only public information: the order of the cards under the pile tops stays hidden.

**Rewards.** ``reward_mode="banana"`` (default): each player's change in Banana Points at that
step, so a player's rewards over a game sum to their final score (a trophy lost is a negative
reward at once). ``"zero_sum"``: own change minus the mean of the others'. ``"terminal"``: +1 to
the winners (ties share), -1 to the others, at the end only. See :mod:`monkey_env.monkey_palace.envs.rewards`.

**Termination and truncation.** Every agent terminates when the game ends (the round in which
a supply ran short is finished). An illegal action ends the game at once for everyone, with
``illegal_penalty`` (default -10) as the reward of the player who made it and 0 to the others
(``env()`` applies PettingZoo's ``TerminateIllegalWrapper`` for this; ``raw_env`` lets the JAX
engine do the same). With ``max_cycles=N`` every agent is truncated after N rounds (a cycle is a
round: every player one turn).

**Infos.** Numbers only (so that TorchRL and RLlib can stack them): ``phase`` (the
decision's kind as an integer: 0 anchor, 1 shape, 2 buy, 3 instant, 4 slot, 5 monkey, 6 frog,
7 game over; ``monkey_env.monkey_palace.actions.Phase``), ``round``, ``scores`` (every player's
Banana Points, an int array).

**Observation formats.** ``observation_format="structured"`` (default): the ``Dict`` above;
``"flat"``: one ``Box`` holding the planes flattened channel-major (20 x 32 x 32) followed by the
vector, for libraries without a nested-space encoder (RLlib).

**Arguments.** ``players`` (2-4), ``map`` (1-4 or the path of a map file), ``butterfly``, ``frog``
(the micro-expansions), ``catalogue`` (path of a template catalogue yaml), ``reward_mode``,
``seed`` (the deal of ``reset()`` without a seed), ``max_cycles``, ``illegal_penalty``,
``render_mode`` (``"ansi"``: the palace as text; ``"rgb_array"``: a 3-D picture), and the rule
readings ``monkey_move``, ``butterfly_rule``, ``end_trigger`` (docs/RULES.md).
"""

from __future__ import annotations

import jax
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from monkey_env.monkey_palace.envs.observation import action_mask_space, flatten, space_for, to_numpy
from monkey_env.monkey_palace.envs.reference_mirror import ReferenceMirror
from monkey_env.monkey_palace.envs.rewards import check_mode, seat_rewards
from monkey_env.monkey_palace.jaxgame.env import jax_game_for
from monkey_env.monkey_palace.options import GameOptions

ENV_NAME = "monkey_palace_v0"


def env(**kwargs):
    """The environment with PettingZoo's standard wrappers for turn-based games."""
    base = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(base, illegal_reward=base.illegal_penalty)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):  # lower case: PettingZoo's naming convention
    metadata = {"name": ENV_NAME, "render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, players: int = 2, map: int | str = 1, *, seed: int | None = None,
                 max_cycles: int | None = None, illegal_penalty: float = -10.0, render_mode: str | None = None,
                 options: GameOptions | None = None, **game_options):
        """``options`` (a GameOptions) or its fields as keywords (butterfly, frog, reward_mode,
        config_dir, catalogue, the rule readings) choose the game; ``seed`` the deal of reset()."""
        super().__init__()
        if options is None:
            if "reward_mode" in game_options:
                check_mode(game_options["reward_mode"])
            options = GameOptions(players=players, map=map, **game_options)
        self.options = options
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be at least 1, got {max_cycles}")
        self.reward_mode = options.reward_mode
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.illegal_penalty = float(illegal_penalty)
        self.default_seed = seed
        self.jax_game = jax_game_for(options, illegal_penalty=illegal_penalty)
        self.params = self.jax_game.params(options)
        self.possible_agents = [f"player_{i}" for i in range(options.players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({"observation": space_for(self.jax_game, options.observation_format),
                                 "action_mask": action_mask_space(self.jax_game)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.jax_game.num_actions) for a in self.possible_agents}
        self._legal = jax.jit(self.jax_game.legal_action_mask)
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
        scores = self._scores()
        players = len(self.possible_agents)
        deltas = np.asarray(self.state.rewards)[:players]
        if illegal:
            rewards = deltas  # the penalty to the player who made it, 0 to the others
        else:
            rewards = seat_rewards(self.reward_mode, deltas, scores, bool(self.state.terminated),
                                   int(self.state.holders[0]))
        self.rewards = {a: float(rewards[i]) for i, a in enumerate(self.agents)}
        self._refresh(scores)
        self._accumulate_rewards()

    def scores(self) -> list[int]:
        """Every player's Banana Points now (the final scores once the game is over)."""
        return [int(v) for v in self._scores()]

    def _scores(self) -> np.ndarray:
        return self.jax_game.scores(self.state)

    def _refresh(self, scores: np.ndarray | None = None) -> None:
        """Terminations, truncations, infos, agent_selection and the cached observation."""
        done = bool(self.state.terminated)
        truncate = (not done and self.max_cycles is not None and int(self.state.round) > self.max_cycles)
        for a in self.agents:
            self.terminations[a] = done
            self.truncations[a] = truncate
        scores = [int(s) for s in (self._scores() if scores is None else scores)]
        phase = int(self.state.phase)
        self.infos = {a: {"phase": phase, "round": int(self.state.round), "scores": np.asarray(scores, np.int64)}
                      for a in self.agents}
        self.agent_selection = self.possible_agents[int(self.state.current)]
        self._obs_cache = {}
        self._mask = np.asarray(self._legal(self.state)).astype(np.int8)

    def observe(self, agent):
        if agent not in self._obs_cache:
            seat = self.agent_name_mapping[agent]
            mine = agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent])
            mask = self._mask if mine else np.zeros_like(self._mask)
            obs = to_numpy(self.jax_game.observe(self.state, seat))
            if self.options.observation_format == "flat":
                obs = flatten(obs)
            self._obs_cache[agent] = {"observation": obs, "action_mask": mask}
        return self._obs_cache[agent]

    # ------------------------------------------------------------------ rendering
    def render(self):
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        if self.state is None:
            raise RuntimeError("render() before reset()")
        game = self.mirror.game()
        if self.render_mode == "human":       # the text view, printed (a terminal is the human's screen)
            from monkey_env.monkey_palace.text_view import game_text
            print(game_text(game))
            return None
        if self.render_mode == "ansi":
            from monkey_env.monkey_palace.text_view import game_text
            return game_text(game)
        from monkey_env.monkey_palace.render import game_picture
        return game_picture(game)

    def close(self):
        pass
