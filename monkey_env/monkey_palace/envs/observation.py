"""The observation every environment gives: public information from one seat, as numpy arrays.

``planes`` (20, 32, 32) float32 over the plate, ``vector`` (V,) float32 (with the complete build
action 22 planes and V + 9 entries: the staircase in progress); both come from
:meth:`monkey_env.monkey_palace.jaxgame.JaxGame.observe`, which documents every channel and entry. The
order of the cards inside the piles is never in it (only the visible top cards).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from monkey_env.monkey_palace.jaxgame.observe import sizes

# Heights are at most 120 brick units (the JAX state's int8 bound) and observed as height / 16.
PLANES_HIGH = 8.0
# The vector holds scaled counts, mostly within [0, 1]; supplies (count / 10) and Banana Points
# (/ 40, below zero after lost trophies) can leave it. These bounds hold with a wide margin.
VECTOR_LOW, VECTOR_HIGH = -4.0, 16.0


def observation_space(jax_game) -> spaces.Dict:
    """The Dict space of ``{"planes", "vector"}`` for this game data and build action (the complete
    action's observation goes on with the staircase in progress: jaxgame.observe.sizes)."""
    n_planes, size = sizes(_complete(jax_game))
    return spaces.Dict({
        "planes": spaces.Box(0.0, PLANES_HIGH, (n_planes, 32, 32), np.float32),
        "vector": spaces.Box(VECTOR_LOW, VECTOR_HIGH, (size,), np.float32),
    })


def vector_size(jax_game) -> int:
    """The observation vector's length (a constant of the engine: no tracing at start-up)."""
    return sizes(_complete(jax_game))[1]


def _complete(jax_game) -> bool:
    return getattr(jax_game, "build_action", "catalogue") == "complete"

