"""Forbidden City's majority potential: what a placement does to the majorities of open rooms.

The greedy agent (monkey_env/forbidden_city/agents/greedy.py) values a placement by the coins it pays this
turn, so every placement that closes nothing is worth 0 to it and it picks among them at random:
it never builds a majority in a room that is still open, and it adds its dragons and tiles to
rooms the others lead. ``majority_potential(jg)`` is a traceable ``(state, mask) -> (A,) float32``:
for each placement (at most MAX_LOOKED legal ones, in table order; the others and setting aside
0), the change it makes to

    the sum over the open rooms it touches of
        (what the room would pay the seat to play if it closed now − the most it would pay another seat)
        / the room's open sides

(the open sides: a room with fewer is nearer to closing; its coins are its own, tiles and dragons,
not its door links'). Rooms the placement closes are left out: greedy's values count them. The
JAX PPO of Forbidden City takes the potential as a per-action input (``majority_inputs: 1``,
monkey_env/forbidden_city/agents/network.py CityNet); as a hand-made rule, greedy's value plus half the potential won
0.970 of 400 games against greedy (experiments/forbidden_city_majority_rule.py, docs/games/forbidden_city.md).
"""

from __future__ import annotations

MAX_LOOKED = 176           # legal placements looked at per decision (2 players: 67 on average, 172 the most seen)


def majority_potential(jg):
    import jax
    import jax.numpy as jnp

    from monkey_env.forbidden_city.jaxgame.rules import payout
    from monkey_env.forbidden_city.jaxgame.state import MAX_PLAYERS

    size = jg.static.size

    def margins(value, advisors, open_sides, seat):
        """(6,) float32 each room's payout margin for ``seat`` over its open sides."""
        paid = jax.vmap(payout)(value.astype(jnp.int32), advisors.astype(jnp.int32))           # (6, 4)
        others = jnp.where(jnp.arange(MAX_PLAYERS)[None] == seat, jnp.iinfo(jnp.int32).min, paid).max(-1)
        return (paid[:, seat] - others).astype(jnp.float32) / jnp.maximum(open_sides, 1).astype(jnp.float32)

    def first_of_each(room):
        """(6,) bool: a room label's first occurrence (a room touched on two sides counts once)."""
        earlier = (room[:, None] == room[None, :]) & (jnp.arange(6)[:, None] > jnp.arange(6)[None, :])
        return (room >= 0) & ~earlier.any(-1)

    def potential(state, mask):
        places = mask[:-1]
        order = places.astype(jnp.float32) * 4096.0 - jnp.arange(places.shape[0], dtype=jnp.float32)
        top, actions = jax.lax.top_k(order, MAX_LOOKED)
        looked = top > 0
        seat = state.current
        held = jg.static.n_start * 2 + jnp.maximum(state.held[seat], 0).astype(jnp.int32)

        def change(a):
            y, x = jnp.divmod(a // 4, size)
            laid = jg.rules.lay(state, x, y, held, a % 4, seat)
            parts = laid.last_rooms.astype(jnp.int32)        # the tile's parts, then the neighbours' it faced
            room = jnp.where(parts >= 0, laid.room[jnp.maximum(parts, 0)].astype(jnp.int32), -1)
            r = jnp.maximum(room, 0)
            still_open = first_of_each(room) & (laid.room_open[r] > 0)
            after = jnp.where(still_open, margins(laid.room_value[r], laid.room_advisors[r], laid.room_open[r], seat), 0.0)
            # before: the neighbours' rooms (the tile's own parts did not exist)
            neighbour = jnp.where(jnp.arange(6) >= 2, parts, -1)
            room0 = jnp.where(neighbour >= 0, state.room[jnp.maximum(neighbour, 0)].astype(jnp.int32), -1)
            r0 = jnp.maximum(room0, 0)
            was_open = first_of_each(room0) & (state.room_open[r0] > 0) & ~state.closed[r0]
            before = jnp.where(was_open, margins(state.room_value[r0], state.room_advisors[r0], state.room_open[r0], seat), 0.0)
            return after.sum() - before.sum()

        gain = jnp.where(looked, jax.vmap(change)(actions), 0.0)
        return jnp.zeros(mask.shape[0], jnp.float32).at[jnp.where(looked, actions, mask.shape[0])].set(gain, mode="drop")

    return potential
