"""Pebble Piles' own agent (the ``agents`` part): ``greedy`` takes as many pebbles as it may,
from the first such pile. ``random`` plays every game already (monkey_env.agents.registry)."""

from __future__ import annotations

import numpy as np

from pebble_piles.rules import MAX_TAKE, NUM_ACTIONS

# an action's preference: more pebbles first, then the lower pile
_PREFERENCE = np.array([(a % MAX_TAKE) * NUM_ACTIONS - a // MAX_TAKE for a in range(NUM_ACTIONS)], np.int32)


class GreedyAgent:
    name = "greedy"

    def __init__(self, seed: int = 0):
        del seed                   # it never draws

    def act(self, game, mask: np.ndarray) -> int:
        return int(np.argmax(np.where(mask, _PREFERENCE, np.iinfo(np.int32).min)))

    def act_batch(self, jax_game, states, masks, key):
        import jax.numpy as jnp

        del jax_game, states, key
        return jnp.argmax(jnp.where(masks, jnp.asarray(_PREFERENCE), jnp.iinfo(jnp.int32).min), axis=-1).astype(jnp.int32)


AGENTS = {"greedy": GreedyAgent}
