"""A jittable shuffle of some places of a row, shared by the games' search redraws
(monkey_env/<game>/search.py): the values at the chosen places are put in a canonical order
(ascending), then dealt to those places in an order drawn from a key, so the result depends on
which values are there (public, where a game calls it) and the key only, never on their order."""

from __future__ import annotations


def shuffle_places(row, places, key):
    """row (N,) ints; places (N,) bool: the places whose values are redrawn among themselves."""
    import jax
    import jax.numpy as jnp

    n = row.shape[0]
    pos = jnp.arange(n)
    big = jnp.iinfo(jnp.int32).max
    values = jnp.sort(jnp.where(places, row.astype(jnp.int32), big))          # the hidden values first, ascending
    order = jnp.argsort(jnp.where(places, jax.random.uniform(key, (n,)), 2.0 + pos))   # the places, shuffled, first
    count = places.sum()
    new = jnp.where(pos < count, values, row[order].astype(jnp.int32)).astype(row.dtype)
    return row.at[order].set(new)
