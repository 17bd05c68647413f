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
| Actions | ``Discrete(size * size * 4 + 1)`` (2917 on the 27 x 27 table) |
| Observations | ``Dict(observation=Dict(planes, vector), action_mask)`` |

**Turns.** One decision per turn: lay the tile in hand. Turns go round the table.

**Action space.** ``(y * size + x) * 4 + turns``: lay the tile at (x, y) turned ``turns`` quarter
turns clockwise; the last action sets the tile aside, legal only when it fits nowhere.

**Observation space.** ``planes`` ``(30, 27, 27)`` float32 and ``vector`` ``(45,)`` float32
(every entry: :mod:`monkey_env.forbidden_city.jaxgame.observe`): the city, and the observer's
own hand. Other players' tiles in hand and every stack's order stay hidden. ``action_mask``:
``(2917,)`` int8, the legal actions of the agent to act (zeros for the others).

**Rewards.** ``reward_mode="coins"`` (default): each seat's coin change at that step (a room
closed by anyone pays its majority at once); ``"zero_sum"``, ``"terminal"``: see
:mod:`monkey_env.envs.rewards`. An illegal action ends the game with
``illegal_penalty`` (-10) for its player (``env()`` applies PettingZoo's TerminateIllegalWrapper).

**Termination.** Every agent terminates at the end (option ``ending``: every player has two
tiles left, or every tile is laid); ``max_cycles=N`` truncates after N rounds (every seat one turn).

**Infos.** ``round`` (from 1), ``scores`` (every seat's coins, int array), ``turn`` (turns played).

**Arguments.** The options of :class:`monkey_env.forbidden_city.options.ForbiddenCityOptions`
(``players``, ``start_side``, ``ending``, ``config_dir``, ``reward_mode``, ``observation_format``),
``seed`` (the deal of ``reset()`` without a seed), ``max_cycles``, ``illegal_penalty``,
``render_mode`` (``"human"``/``"ansi"``: the city as text; ``"rgb_array"``: a picture).
"""

from __future__ import annotations

from monkey_env.envs.aec import JaxAECEnv, wrapped
from monkey_env.envs.hooks import EnvHooks
from monkey_env.forbidden_city.envs.observation import observation_space
from monkey_env.forbidden_city.jaxgame.env import jax_game_for
from monkey_env.forbidden_city.options import REWARD_MODES, ForbiddenCityOptions

ENV_NAME = "forbidden_city_v0"


def _reference_game(engine, first_state, options):
    from monkey_env.forbidden_city.engine import Game
    return Game(options, deal=engine.deal(first_state), data=engine.data)


HOOKS = EnvHooks(
    name=ENV_NAME, game="forbidden_city", options_class=ForbiddenCityOptions, reward_modes=REWARD_MODES,
    engine=lambda options, penalty: jax_game_for(options, illegal_penalty=penalty),
    observation_space=observation_space,
    round=lambda state: int(state.round) + 1,        # the state counts rounds played
    reference_game=_reference_game, positional=("players",),
    extra_info=lambda state, players: {"turn": int(state.turns)}, compiled_steps=True,
)


class raw_env(JaxAECEnv):  # lower case: PettingZoo's naming convention
    hooks = HOOKS
    metadata = {**JaxAECEnv.metadata, "name": ENV_NAME}


env = wrapped(raw_env)
