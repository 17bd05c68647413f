"""The uniform random agent: every legal action equally likely, at every decision."""

from __future__ import annotations

from functools import cache

import numpy as np


class RandomAgent:
    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def act(self, game, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action to choose from")
        return int(self.rng.choice(legal))

    def act_batch(self, jax_game, states, masks, key):
        return _random_actions()(key, masks)


@cache
def _random_actions():
    """Uniform over each row's legal actions (Gumbel-max), compiled once; (B,) int32."""
    import jax
    import jax.numpy as jnp

    @jax.jit
    def pick(key, masks):
        noise = jax.random.gumbel(key, masks.shape)
        return jnp.argmax(jnp.where(masks, noise, -jnp.inf), axis=-1).astype(jnp.int32)
    return pick
