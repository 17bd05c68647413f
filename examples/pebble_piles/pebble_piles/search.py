"""Pebble Piles' hooks for the search agent (``mcts``; the ``search`` part): nothing is hidden, so
the redraw is the state itself; with no JAX PPO, the game gives what the search would read of one
(players, places, score change, a reference game's JAX state), and ``mcts`` searches with every
legal action alike as prior and a value of 0 (``prior=uniform``)."""

from __future__ import annotations

from monkey_env.core.search_hooks import SearchHooks


def redraw(state, seat, key):
    del seat, key
    return state


def players(states):
    return states.players


def places(states):
    from monkey_env.core.outcome import batch_places
    return batch_places(states.points, states.players, states.last_taker)


def score_change(before, after):
    import jax.numpy as jnp
    return (after.points - before.points).astype(jnp.float32)


def state_of(jax_engine, game):
    """The JAX state of a reference game: its deal, then its decisions replayed."""
    import jax.numpy as jnp
    state = jax_engine.from_deal(game.deal["piles"], game.options.players)
    for action in game.history:
        state = jax_engine.step(state, jnp.int32(action))
    return state


SEARCH = SearchHooks(redraw=redraw, players=players, places=places, score_change=score_change, state_of=state_of)
