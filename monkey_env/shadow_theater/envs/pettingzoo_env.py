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

**Rewards.** ``reward_mode`` (monkey_env.envs.rewards): ``lanterns`` (default,
+1/-1 when a Lantern is taken), ``round_points`` (also the round's point margin / 10),
``terminal`` (+1/-1 at the end).

**Termination.** Both agents terminate when a player holds 2 Lanterns (or after 12 rounds, void
rounds only). An illegal action ends the game with ``illegal_penalty`` (-10, as in every game) to
its author (``env()`` applies PettingZoo's TerminateIllegalWrapper). ``max_cycles=N`` truncates
after N rounds.

**Infos.** ``phase`` (0 draft, 1 turn, 2 King move, 3 over), ``round``, ``scores`` (Lanterns).

**Arguments.** the options' fields (``seed``, ``config_dir``, ``reward_mode``, ``observation_format``:
``"flat"`` gives one Box, planes then vector; ``players`` is 2),
``max_cycles``, ``illegal_penalty``, ``render_mode`` (``human``/``ansi``: text, ``rgb_array``: a picture).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from monkey_env.envs.aec import JaxAECEnv, wrapped
from monkey_env.envs.hooks import EnvHooks
from monkey_env.shadow_theater.envs.rewards import round_points_rewards
from monkey_env.shadow_theater.jaxgame.engine import ShadowTheaterJax, jax_engine_for
from monkey_env.shadow_theater.options import REWARD_MODES, ShadowTheaterOptions

ENV_NAME = "shadow_theater_v0"


def deal_of(state) -> dict:
    """The reference engine's deal of a JAX state (to mirror the game on the reference engine)."""
    return {"cards": np.asarray(state.deal_cards).tolist(), "scrolls": np.asarray(state.deal_scrolls).tolist(),
            "king": np.asarray(state.deal_king).tolist()}


def space_for(engine: ShadowTheaterJax) -> spaces.Dict:
    sizes = engine.observation_sizes()
    return spaces.Dict({"planes": spaces.Box(0.0, 1.0, sizes["planes"], np.float32),
                        "vector": spaces.Box(-np.inf, np.inf, sizes["vector"], np.float32)})


def _reference_game(engine, first_state, options):
    from monkey_env.shadow_theater.engine import Game
    return Game(options, deal=deal_of(first_state))


HOOKS = EnvHooks(
    name=ENV_NAME, game="shadow_theater", options_class=ShadowTheaterOptions, reward_modes=REWARD_MODES,
    engine=lambda options, penalty: jax_engine_for(options, illegal_penalty=penalty),
    observation_space=space_for,
    extra_rewards={"round_points": round_points_rewards},
    round=lambda state: int(state.round), reference_game=_reference_game,
    extra_info=lambda state, players: {"phase": int(state.phase)},
)


class raw_env(JaxAECEnv):  # lower case: PettingZoo's naming convention
    hooks = HOOKS
    metadata = {**JaxAECEnv.metadata, "name": ENV_NAME}


env = wrapped(raw_env)
