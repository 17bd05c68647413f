"""The keys of batched games: the deal of game ``seed`` on a JAX engine is always the same.

Every game's JAX batches start from ``game_keys(seeds)`` (``results_table.play_batch``, each game's
``play_games`` part, the tune), so the same seed deals the same game in every batch and size.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def game_keys(seeds: np.ndarray) -> jax.Array:
    """One PRNG key per game from its integer seed: the deal of game `seed` is always the same."""
    return jax.vmap(jax.random.PRNGKey)(jnp.asarray(seeds, jnp.uint32))
