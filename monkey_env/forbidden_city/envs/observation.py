"""The observation spaces of Forbidden City's environments (entries: jaxgame/observe.py)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from monkey_env.forbidden_city.jaxgame.observe import N_PLANES, VECTOR_SIZE

PLANES_HIGH = 4.0      # counts / 3 (at most 3 advisors, 1 dragon)
VECTOR_LOW, VECTOR_HIGH = 0.0, 64.0   # coins / 50 stay far below this


def observation_space(jax_game) -> spaces.Dict:
    n = jax_game.static.size
    return spaces.Dict({"planes": spaces.Box(0.0, PLANES_HIGH, (N_PLANES, n, n), np.float32),
                        "vector": spaces.Box(VECTOR_LOW, VECTOR_HIGH, (VECTOR_SIZE,), np.float32)})


def flat_observation_space(jax_game) -> spaces.Box:
    s = observation_space(jax_game)
    low = np.concatenate([s[k].low.reshape(-1) for k in ("planes", "vector")])
    high = np.concatenate([s[k].high.reshape(-1) for k in ("planes", "vector")])
    return spaces.Box(low, high, low.shape, np.float32)


def space_for(jax_game, observation_format: str):
    return flat_observation_space(jax_game) if observation_format == "flat" else observation_space(jax_game)


def flatten(obs: dict) -> np.ndarray:
    return np.concatenate([np.asarray(obs["planes"], np.float32).reshape(-1), np.asarray(obs["vector"], np.float32)])


def to_numpy(obs: dict) -> dict:
    return {"planes": np.asarray(obs["planes"], np.float32), "vector": np.asarray(obs["vector"], np.float32)}
