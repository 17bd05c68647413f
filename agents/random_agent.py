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
        return random_legal_actions()(key, masks)


@cache
def random_legal_actions(lanes: int = 128):
    """A jitted ``pick(key, masks) -> (B,) int32``: one legal action per row, uniformly (action 0
    for a row with none).

    Each row counts its legal actions, draws a rank uniformly below the count and takes the
    legal action of that rank, the actions ordered by (action mod ``lanes``, action): the
    counts per lane are sums of whole rows of ``lanes`` actions (vector adds), the lane that
    holds the rank comes from a short cumulative sum, and the action inside that lane from
    another. About half the time of scoring every action with a hash, which this replaced (at
    Forbidden City's 2,917 actions that hash was half of a decision at batch 1,024)."""
    import jax
    import jax.numpy as jnp

    @jax.jit
    def pick(key, masks):
        rows, actions = masks.shape
        per_lane = -(-actions // lanes)
        grid = jnp.pad(masks, ((0, 0), (0, per_lane * lanes - actions))).reshape(rows, per_lane, lanes)
        small = jnp.uint8 if per_lane < 256 else jnp.int32       # a lane's count fits a byte: fewer bytes to add
        in_lane = grid.astype(small).sum(1).astype(jnp.int32)     # (B, lanes)
        count = in_lane.sum(-1)
        rank = jax.random.randint(key, (rows,), 0, jnp.maximum(count, 1))
        through = jnp.cumsum(in_lane, -1)                         # legal actions in lanes 0..l
        lane = jnp.minimum((through <= rank[:, None]).sum(-1, dtype=jnp.int32), lanes - 1)
        before = jnp.take_along_axis(through - in_lane, lane[:, None], -1)[:, 0]
        column = jnp.take_along_axis(grid, lane[:, None, None], 2)[..., 0]          # (B, per_lane)
        step = (jnp.cumsum(column, -1, dtype=jnp.int32) <= (rank - before)[:, None]).sum(-1, dtype=jnp.int32)
        return jnp.where(count > 0, step * lanes + lane, 0).astype(jnp.int32)
    return pick
