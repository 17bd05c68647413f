"""The observation space of Forbidden City's environments (entries: jaxgame/observe.py)."""

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

