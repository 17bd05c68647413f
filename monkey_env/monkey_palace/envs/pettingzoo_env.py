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
| Actions | ``Discrete(1563)`` (``build_action="catalogue"``: ``Discrete(2438)``) |
| Observations | ``Dict(observation=Dict(planes, vector), action_mask)`` |
| Import | ``from monkey_env import pettingzoo_env`` (also ``monkey_env.env`` / ``monkey_env.raw_env``) |

**Turns.** The game is turn-based: ``agent_selection`` is the player who must decide, and a
turn takes several decisions in a row by the same player (anchor, the staircase arch by arch,
purchases, an arch-or-brick choice, a slot, the monkey, the frog). Decisions with a single legal
option are taken by the engine and never asked.

**Action space.** By default (``build_action="complete"``) ``Discrete(1563)``: 0-1023 a stud
(flat ``y * 32 + x``) as the anchor of the staircase; 1024-1539 the next arch, as
``1024 + heading * 129 + rise`` (heading 0-3, rise 0-128 brick units); 1540 finish
the staircase; 1541-1562 the small actions below, in the same order. Any staircase the rules
allow can be built this way, and the masks are exact: every allowed step leads to a legal
staircase, and finish is allowed exactly when the staircase so far is legal. With
``build_action="catalogue"`` (the small action space), ``Discrete(2438)``, the indices of
:class:`monkey_env.monkey_palace.actions.ActionLayout`: 0-1023 the anchor; 1024-2415 a staircase
shape of the template catalogue (heading, base, turn programme, rises; ``configs/catalogue.yaml``)
at that anchor; 2416-2427 buy the top card of pile 0-11; 2428 stop buying; 2429/2430 take an arch /
a brick; 2431-2434 put a card on slot 0-3; 2435 leave the monkey where it is; 2436/2437 take /
decline the frog. Either way the build is a parameterized staircase template chosen in masked
steps, and card purchases are actions too.

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
- With ``build_action="complete"`` (the default) both go on with the staircase in progress,
  zero outside the build decision: planes 20-21, the arches chosen so
  far (each arch's studs at its top height / 16) and the cursor (where the next arch starts);
  vector's last 9, the last arch's heading one-hot (4), its top height / 16, arches, brick units
  and tallest stack so far / 10, and whether a leg rests on an element yet (docs/ENVIRONMENTS.md).

**Rewards.** ``reward_mode="banana"`` (default): each player's change in Banana Points at that
step, so a player's rewards over a game sum to their final score (a trophy lost is a negative
reward at once). ``"zero_sum"``: own change minus the mean of the others'. ``"terminal"``: +1 to
the winners (ties share), -1 to the others, at the end only. See :mod:`monkey_env.envs.rewards`.

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
(the micro-expansions), ``build_action`` (``"complete"``, the default: arch by arch, or
``"catalogue"``), ``catalogue`` (path of a template catalogue yaml), ``reward_mode``,
``seed`` (the deal of ``reset()`` without a seed), ``max_cycles``, ``illegal_penalty``,
``render_mode`` (``"ansi"``: the palace as text; ``"rgb_array"``: a 3-D picture), and the rule
readings ``monkey_move``, ``butterfly_rule``, ``end_trigger`` (docs/RULES.md).
"""

from __future__ import annotations

from monkey_env.envs.aec import JaxAECEnv, wrapped
from monkey_env.envs.hooks import EnvHooks
from monkey_env.monkey_palace.envs.observation import observation_space
from monkey_env.monkey_palace.jaxgame.env import jax_game_for
from monkey_env.monkey_palace.options import REWARD_MODES, GameOptions

ENV_NAME = "monkey_palace_v0"


def _reference_game(engine, first_state, options):
    """The reference engine's game on the JAX deal: the state holds heights and knobs, not which
    piece stands where, which a picture needs."""
    from monkey_env.monkey_palace.engine import Game
    return Game.from_options(options, pile_orders=engine.pile_orders(first_state))


HOOKS = EnvHooks(
    name=ENV_NAME, game="monkey_palace", options_class=GameOptions, reward_modes=REWARD_MODES,
    engine=lambda options, penalty: jax_game_for(options, illegal_penalty=penalty),
    observation_space=observation_space, round=lambda state: int(state.round),
    reference_game=_reference_game, positional=("players", "map"),
    extra_info=lambda state, players: {"phase": int(state.phase)}, compiled_steps=True,
)


class raw_env(JaxAECEnv):  # lower case: PettingZoo's naming convention
    hooks = HOOKS
    metadata = {**JaxAECEnv.metadata, "name": ENV_NAME}


env = wrapped(raw_env)
