"""Pebble Piles as a PettingZoo AEC environment (``pebble_piles_v0``), a Gymnasium view and a VecEnv.

| | |
|---|---|
| Agents | ``player_0`` ... ``player_{n-1}`` (2-4 players), ``player_0`` first |
| Actions | ``Discrete(18)``: pile ``a // 3`` (6 piles), ``a % 3 + 1`` pebbles |
| Observations | ``Dict(observation=Dict(planes (1,1,6), vector (9,)), action_mask (18,) int8)`` |

**Rewards.** ``reward_mode``: ``pebbles`` (default, +1 per pebble taken), ``zero_sum``,
``terminal`` (1/k to the k winners, -1 to the others, at the end).

**Termination.** When the piles are empty; an illegal action ends the game with
``illegal_penalty`` (-10) to its author. ``max_cycles=N`` truncates after N rounds.

**Infos.** ``round``, ``scores`` (points).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from monkey_env.envs.aec import JaxAECEnv, wrapped
from monkey_env.envs.gym_view import JaxGymView
from monkey_env.envs.hooks import EnvHooks
from monkey_env.envs.vec_env import JaxVecEnv
from pebble_piles.jax_engine import PebblePilesJax, jax_engine_for
from pebble_piles.options import REWARD_MODES, PebblePilesOptions

ENV_NAME = "pebble_piles_v0"


def space_for(engine: PebblePilesJax) -> spaces.Dict:
    sizes = engine.observation_sizes()
    return spaces.Dict({"planes": spaces.Box(0.0, 1.0, sizes["planes"], np.float32),
                        "vector": spaces.Box(0.0, 1.0, sizes["vector"], np.float32)})


def _reference_game(engine, first_state, options):
    from pebble_piles.engine import Game
    return Game(options, deal={"piles": np.asarray(first_state.piles).tolist()})


def _text(game) -> str:
    from pebble_piles.text_view import game_text
    return game_text(game)


def _picture(game) -> np.ndarray:
    from pebble_piles.text_view import game_picture
    return game_picture(game)


HOOKS = EnvHooks(
    name=ENV_NAME, game="pebble_piles", options_class=PebblePilesOptions, reward_modes=REWARD_MODES,
    engine=lambda options, penalty: jax_engine_for(options, illegal_penalty=penalty),
    observation_space=space_for, round=lambda state: int(state.round),
    reference_game=_reference_game, text=_text, picture=_picture, positional=("players",),
)


class raw_env(JaxAECEnv):  # lower case: PettingZoo's naming convention
    hooks = HOOKS
    metadata = {**JaxAECEnv.metadata, "name": ENV_NAME}


env = wrapped(raw_env)


class PebblePilesGymEnv(JaxGymView):
    """The learner plays one seat (``learner_seat``) against ``opponents`` (agents of the registry)."""
    aec_class = raw_env


class PebblePilesVecEnv(JaxVecEnv):
    """A batch of JAX games as a Stable-Baselines3 VecEnv."""
    hooks = HOOKS
