"""Forbidden City's hooks for the search agent (agents/mcts.py; the ``search`` part of
monkey_env.games): the JAX form of the reference engine's ``redraw_hidden``."""

from __future__ import annotations

from monkey_env.core.redraw import shuffle_places
from monkey_env.core.search_hooks import SearchHooks


def redraw(state, seat, key):
    """One game's state as ``seat`` has seen it, what it cannot see drawn anew from ``key``
    (engine.Game.redraw_hidden): every stack's order below what was drawn, and the tile each
    other seat holds, shuffled within each seat's unseen tiles (the tile ``seat`` holds and every
    tile laid keep theirs). A seat's held tile is the last it drew (stacks[drawn - 1])."""
    import jax
    import jax.numpy as jnp

    s = state
    seats, width = s.stacks.shape
    j = jnp.arange(width)[None, :]
    row = jnp.arange(seats)
    holds_hidden = (row != seat) & (s.held >= 0)
    first = s.drawn - holds_hidden.astype(s.drawn.dtype)            # (seats,) the first unseen place
    places = (j >= first[:, None]) & (j < s.stack_size) & (row < s.players)[:, None]
    stacks = jax.vmap(shuffle_places)(s.stacks, places, jax.random.split(key, seats))
    top = stacks[row, jnp.clip(s.drawn - 1, 0, width - 1)]
    held = jnp.where(holds_hidden, top, s.held).astype(s.held.dtype)
    out = s._replace(stacks=stacks, held=held)
    return jax.tree_util.tree_map(lambda a, b: jnp.where(s.terminated, b, a), out, s)


# The other seats played by the prior's best action (the tree holds this seat's decisions only):
# on the same 100 games, 0.71 against ``ppo`` and 0.98 against greedy, against 0.54 and 0.815
# searching the other seat's decisions too (docs/AGENTS.md, section MCTS: the figures on the other games).
SEARCH = SearchHooks(redraw=redraw, mcts_settings="opponents=policy")
