"""Forbidden City's greedy agent: the best one-turn value, ties at random.

The value of laying the tile in hand at a place is what that turn pays: the coins it wins the
player minus the most coins it pays any other player (closing a room pays its majority at once,
whoever closes it). Laying a tile closes a room only where a neighbouring room has all its open
sides against that cell, or where some turn of the tile has a part holding advisors whose open
sides all face a neighbour's wall (``closing_cells``); every other legal place is worth 0 exactly, so only those cells are
played out (each turn of the tile) on a copy of the game. Among the best values the choice is
uniform at random; setting the tile aside (when it fits nowhere) is worth 0.

``act(game, mask)`` plays on the reference engine; ``act_batch(jax_game, states, masks, key)``
on a batch of JAX states, where at most MAX_CELLS such cells per game are played out (those
where a neighbour's room may close first); in the test games the cap was rarely reached.
"""

from __future__ import annotations

import numpy as np

from monkey_env.forbidden_city.geometry import DIRECTIONS, OPEN, opposite

MAX_CELLS = 24


def reference_closing_cells(game) -> dict[tuple[int, int], int]:
    """The reference engine's closing_cells (the same rule, from its rooms): cell -> 2 or 1."""
    city = game.city
    rooms = game.rooms()
    room_of = {n: r for r in rooms for n in r.nodes}
    open_count = {r.id: city.open_sides(r) for r in rooms}
    face = game.held_face()
    out = {}
    for (x, y) in game.frontier():
        facing = []
        for d in DIRECTIONS:
            nx, ny, other = city.neighbour(x, y, d)
            if other is not None and other.face.sides[opposite(d)] == OPEN:
                facing.append(room_of[(ny * city.size + nx) * 2 + other.face.quarter_part[opposite(d)]].id)
        if any(open_count[r] == facing.count(r) for r in facing):
            out[(x, y)] = 2
            continue
        walled = []
        for d in DIRECTIONS:
            other = city.neighbour(x, y, d)[2]
            walled.append(other is not None and other.face.sides[opposite(d)] != OPEN)
        for turns in range(4):
            f = face.turned(turns)
            for part in range(f.parts):
                if f.advisors[part] and all(f.sides[d] != OPEN or walled[d]
                                            for d in DIRECTIONS if f.quarter_part[d] == part):
                    out[(x, y)] = 1
    return out


class ForbiddenCityGreedy:
    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)
        self._batch = {}

    # ------------------------------------------------------------------ reference engine
    def act(self, game, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action to choose from")
        cells = reference_closing_cells(game) if game.held_face() is not None else set()
        values = np.zeros(len(legal))
        me = game.current
        for i, a in enumerate(legal):
            if a == game.layout.set_aside or game.layout.decode(int(a))[:2] not in cells:
                continue
            trial = game.clone()
            before = trial.scores()
            trial.apply(int(a))
            gain = np.array(trial.scores()) - np.array(before) - np.array(trial.end_coins)
            values[i] = gain[me] - max((g for s, g in enumerate(gain) if s != me), default=0)
        best = legal[values == values.max()]
        return int(self.rng.choice(best))

    # ------------------------------------------------------------------ JAX engine
    def act_batch(self, jax_game, states, masks, key):
        if id(jax_game) not in self._batch:
            self._batch[id(jax_game)] = _batched_greedy(jax_game)
        return self._batch[id(jax_game)](states, masks, key)


def action_values(jg):
    """A traceable ``(state, mask) -> (A,) int32``: every action's one-turn value for the seat to
    play (0 for the actions not played out); the batched greedy's and the JAX PPO's inputs."""
    import jax
    import jax.numpy as jnp

    from monkey_env.forbidden_city.jaxgame.rules import closing_cells

    size = jg.static.size

    def values(state, mask):
        priority = closing_cells(jg.rules, state).reshape(-1)
        # the MAX_CELLS cells of highest priority (a neighbour's room may close first), in table order
        score = priority.astype(jnp.float32) * 4096.0 - jnp.arange(priority.shape[0], dtype=jnp.float32)
        top, which = jax.lax.top_k(score, MAX_CELLS)
        which = jnp.where(top > 0, which, -1)
        actions = (jnp.maximum(which, 0)[:, None] * 4 + jnp.arange(4)[None, :]).reshape(-1)     # (MAX_CELLS * 4,)
        ok = (which >= 0).repeat(4) & mask[actions]
        def paid(a):   # lay the tile and score what it closes (the rest of a turn pays nothing)
            y, x = jnp.divmod(a // 4, size)
            laid = jg.rules.lay(state, x, y, jg.static.n_start * 2 + jnp.maximum(state.held[state.current], 0)
                                .astype(jnp.int32), a % 4, state.current)
            return jg.rules.score_new_rooms(laid, state.closed).coins - state.coins
        gain = jax.vmap(paid)(actions)                                                          # (C, 4)
        seat = state.current
        others = jnp.where(jnp.arange(4)[None] == seat, 0, gain).max(-1)         # gains are never negative
        value = jnp.where(ok, gain[:, seat] - others, 0)
        # every legal action starts at 0; the played-out ones get their value
        return jnp.zeros(mask.shape, jnp.int32).at[jnp.where(ok, actions, mask.shape[0])].set(value, mode="drop")

    return values


def greedy_from_values(values, mask, key):
    """Greedy's decision from its values: the best legal action, ties uniformly at random by ``key``."""
    import jax
    import jax.numpy as jnp

    noise = jax.random.uniform(key, mask.shape)
    score = jnp.where(mask, values.astype(jnp.float32) + 0.5 * noise, -jnp.inf)
    return jnp.argmax(score).astype(jnp.int32)


def _batched_greedy(jg):
    import jax
    import jax.numpy as jnp

    values = action_values(jg)
    batched = jax.jit(jax.vmap(lambda state, mask, key: greedy_from_values(values(state, mask), mask, key)))

    def act(states, masks, key):
        keys = jax.random.split(key, masks.shape[0])
        return batched(states, jnp.asarray(masks), keys)
    return act
