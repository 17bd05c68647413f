"""The rules as pure functions of a State (no Python branching on traced values).

Rooms are kept as labels (each node holds its room's smallest node number). Laying a tile
gives its parts new labels and merges them with the rooms they meet through open sides; a
merge relabels the whole (H, W, 2) array at once, so the flood fill of the reference engine
becomes at most four whole-array relabels per tile, the same cost under vmap for every game
(Pgx's Go keeps its chains the same way). Closure: a room is closed when none of its open
sides faces an empty cell or the table's edge, counted per room with a segment sum.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from monkey_env.forbidden_city.geometry import DOOR, OPEN, STEP, WALL
from monkey_env.forbidden_city.jaxgame.state import MAX_PLAYERS, State
from monkey_env.forbidden_city.jaxgame.tables import Static, Tables

ROOMS_CLOSED_AT_ONCE = 6      # one tile closes at most its two parts' rooms and four neighbours'


def shift(a: jnp.ndarray, d: int, fill) -> jnp.ndarray:
    """b[y, x] = a at the neighbour of (y, x) in direction d (``fill`` off the table)."""
    dx, dy = STEP[d]
    pad = [(1, 1), (1, 1)] + [(0, 0)] * (a.ndim - 2)
    p = jnp.pad(a, pad, constant_values=fill)
    h, w = a.shape[:2]
    return p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]


def payout(value, advisors):
    """The rulebook's majority payout (scoring.payout) for (4,) advisors: (4,) int32 coins."""
    most = advisors.max()
    top = advisors == most
    tie = top.sum() >= 2
    second = jnp.where(top, 0, advisors).max()
    is_second = (advisors == second) & (second > 0) & ~top
    sole_second = is_second.sum() == 1
    coins = jnp.where(tie, jnp.where(top, value // 2, 0),
                      jnp.where(top, value, jnp.where(is_second & sole_second, value // 2, 0)))
    return jnp.where(most > 0, coins, 0).astype(jnp.int32)


class Rules:
    def __init__(self, tables: Tables, static: Static):
        self.t = tables
        self.s = static

    # ------------------------------------------------------------------ the faces on the table
    def faces(self, state: State):
        """Per cell: occupied (H, W), sides (H, W, 4), quarter part (H, W, 4), floor colour of each
        quarter (H, W, 4), of both parts."""
        occ = state.tile >= 0
        t = jnp.maximum(state.tile, 0).astype(jnp.int32)
        r = state.rotation.astype(jnp.int32)
        sides = jnp.where(occ[..., None], self.t.sides[t, r], WALL)
        qpart = self.t.quarter_part[t, r].astype(jnp.int32)
        floors = self.t.floors[t]
        qcolour = jnp.where(occ[..., None], jnp.take_along_axis(floors, qpart, -1), -1)
        return occ, sides, qpart, qcolour

    # ------------------------------------------------------------------ legality
    def placement_mask(self, state: State) -> jnp.ndarray:
        """(H, W, 4 turns) bool: where the current hand's tile may be laid."""
        occ, sides, _, qcolour = self.faces(state)
        held = jnp.maximum(state.held[state.current], 0).astype(jnp.int32) + self.s.n_start * 2   # table id
        my_sides = self.t.sides[held]                                              # (4 r, 4 d)
        my_colour = jnp.take_along_axis(self.t.floors[held][None, :].repeat(4, 0),
                                        self.t.quarter_part[held].astype(jnp.int32), -1)  # (4 r, 4 d)
        nocc = jnp.stack([shift(occ, d, False) for d in range(4)], -1)             # (H, W, 4 d)
        nside = jnp.stack([shift(sides[..., (d + 2) % 4], d, WALL) for d in range(4)], -1)
        ncolour = jnp.stack([shift(qcolour[..., (d + 2) % 4], d, -1) for d in range(4)], -1)
        clash = (nocc[:, :, None, :] & (my_sides == OPEN)[None, None] & (nside == OPEN)[:, :, None, :]
                 & (my_colour[None, None] != ncolour[:, :, None, :]))
        ok = ~occ[..., None] & nocc.any(-1)[..., None] & ~clash.any(-1)
        return ok & (state.held[state.current] >= 0)

    def legal_action_mask(self, state: State) -> jnp.ndarray:
        place = self.placement_mask(state).reshape(-1)
        return jnp.concatenate([place, (~place.any())[None]]) & ~state.terminated

    # ------------------------------------------------------------------ laying a tile
    def lay(self, state: State, x, y, tile, turns, owner) -> State:
        """Put a tile on (x, y) and merge its parts with the rooms they open onto."""
        size = self.s.size
        tile = jnp.asarray(tile, jnp.int32)
        turns = jnp.asarray(turns, jnp.int32)
        first = (y * size + x) * 2
        label = state.label.at[y, x, 0].set(first)
        label = label.at[y, x, 1].set(jnp.where(self.t.parts[tile] == 2, first + 1, -1))
        state = state._replace(tile=state.tile.at[y, x].set(tile.astype(jnp.int16)),
                               rotation=state.rotation.at[y, x].set(turns.astype(jnp.int8)),
                               owner=state.owner.at[y, x].set(jnp.asarray(owner, jnp.int8)))
        sides = self.t.sides[tile, turns]
        qpart = self.t.quarter_part[tile, turns].astype(jnp.int32)
        for d in range(4):
            dx, dy = STEP[d]
            nx, ny = x + dx, y + dy
            inside = (nx >= 0) & (nx < size) & (ny >= 0) & (ny < size)
            nxc, nyc = jnp.clip(nx, 0, size - 1), jnp.clip(ny, 0, size - 1)
            ntile = state.tile[nyc, nxc].astype(jnp.int32)
            nrot = state.rotation[nyc, nxc].astype(jnp.int32)
            there = jnp.maximum(ntile, 0)
            join = (inside & (ntile >= 0) & (sides[d] == OPEN)
                    & (self.t.sides[there, nrot, (d + 2) % 4] == OPEN))
            a = label[y, x, qpart[d]]
            b = jnp.where(join, label[nyc, nxc, self.t.quarter_part[there, nrot, (d + 2) % 4]], a)
            low = jnp.minimum(a, b)
            label = jnp.where((label == a) | (label == b), low, label)
        return state._replace(label=label)

    # ------------------------------------------------------------------ rooms
    def closed_rooms(self, state: State) -> jnp.ndarray:
        """(N,) bool: the rooms (by label) with no open side facing an empty cell or the edge."""
        n = self.s.nodes
        occ, sides, qpart, _ = self.faces(state)
        nocc = jnp.stack([shift(occ, d, False) for d in range(4)], -1)
        front = occ[..., None] & (sides == OPEN) & ~nocc                          # (H, W, 4)
        per_part = jnp.stack([(front & (qpart == p)).sum(-1) for p in range(2)], -1)
        lab = state.label.reshape(-1)
        where = jnp.where(lab >= 0, lab, n)
        open_sides = jax.ops.segment_sum(per_part.reshape(-1), where, n + 1)[:n]
        exists = jax.ops.segment_sum((lab >= 0).astype(jnp.int32), where, n + 1)[:n] > 0
        return exists & (open_sides == 0)

    def room_totals(self, state: State):
        """Per room label: coins of its own (tiles once each, dragons) (N,), advisors per seat (N, 4)."""
        n = self.s.nodes
        occ = state.tile >= 0
        t = jnp.maximum(state.tile, 0).astype(jnp.int32)
        counts = occ & self.t.counts[t]
        lab = state.label
        second_room = (lab[..., 1] >= 0) & (lab[..., 1] != lab[..., 0])
        tiles = jnp.stack([counts, counts & second_room], -1).astype(jnp.int32)   # (H, W, 2)
        where = jnp.where(lab >= 0, lab, n).reshape(-1)
        dragons = jnp.where(occ[..., None], self.t.dragons[t], 0).astype(jnp.int32)
        own = (self.s.coin_tile * jax.ops.segment_sum(tiles.reshape(-1), where, n + 1)
               + self.s.coin_dragon * jax.ops.segment_sum(dragons.reshape(-1), where, n + 1))
        adv = jnp.where(occ[..., None], self.t.advisors[t], 0).astype(jnp.int32)          # (H, W, 2)
        seat = (state.owner[..., None] == jnp.arange(MAX_PLAYERS)).astype(jnp.int32)       # (H, W, 4)
        per_seat = adv[..., :, None] * seat[..., None, :]                                  # (H, W, 2, 4)
        advisors = jax.ops.segment_sum(per_seat.reshape(-1, MAX_PLAYERS), where, n + 1)
        return own, advisors                                                               # (N+1,), (N+1, 4)

    def door_links(self, state: State):
        """Every shared side (east and south of each cell): the two rooms' labels and whether a
        door joins them (a door, and no plain wall on the other tile)."""
        occ, sides, qpart, _ = self.faces(state)
        quarter_label = jnp.take_along_axis(state.label, jnp.clip(qpart, 0, 1), -1)  # (H, W, 4)
        here, there, link = [], [], []
        for d in (1, 2):                                  # east, south
            o = (d + 2) % 4
            a, b = sides[..., d], shift(sides[..., o], d, WALL)
            ok = occ & shift(occ, d, False) & ((a == DOOR) | (b == DOOR)) & (a != WALL) & (b != WALL)
            here.append(quarter_label[..., d].reshape(-1))
            there.append(shift(quarter_label[..., o], d, -1).reshape(-1))
            link.append(ok.reshape(-1))
        return jnp.concatenate(here), jnp.concatenate(there), jnp.concatenate(link)

    def score_new_rooms(self, state: State, closed_before: jnp.ndarray) -> State:
        """Pay every room that is closed now and was not before (at most ROOMS_CLOSED_AT_ONCE)."""
        n = self.s.nodes
        closed = self.closed_rooms(state)
        new = closed & ~closed_before
        (which,) = jnp.nonzero(new, size=ROOMS_CLOSED_AT_ONCE, fill_value=n)
        own, advisors = self.room_totals(state)
        here, there, link = self.door_links(state)

        def one(room):
            touched = jnp.zeros((n + 1,), bool)
            touched = touched.at[jnp.where(link & (here == room), there, n)].set(True)
            touched = touched.at[jnp.where(link & (there == room), here, n)].set(True)
            touched = touched.at[room].set(False).at[n].set(False)
            value = own[room] + jnp.where(touched, own, 0).sum()
            return jnp.where(room < n, payout(value, advisors[room]), 0)

        gained = jax.vmap(one)(which).sum(0)
        return state._replace(coins=state.coins + gained, closed=closed)

    # ------------------------------------------------------------------ a turn
    def draw(self, state: State, seat) -> State:
        nxt = jnp.where(state.drawn[seat] < state.stack_size,
                        state.stacks[seat, jnp.minimum(state.drawn[seat], self.s.n_kinds - 1)], -1)
        return state._replace(held=state.held.at[seat].set(nxt.astype(jnp.int16)),
                              drawn=state.drawn.at[seat].add(1))

    def end_of_game(self, state: State) -> State:
        done = state.turns >= state.turns_total
        j = jnp.arange(self.s.n_kinds)
        seated = jnp.arange(MAX_PLAYERS) < state.players
        kept = seated[:, None] & (j[None, :] >= state.drawn[:, None]) & (j[None, :] < state.stack_size)   # (4, K)
        coins_of = self.t.kind_end_coins[jnp.maximum(state.stacks, 0).astype(jnp.int32)]
        held = jnp.where(state.held >= 0, self.t.kind_end_coins[jnp.maximum(state.held, 0).astype(jnp.int32)], 0)
        end = jnp.where(kept, coins_of, 0).sum(1) + held
        end = jnp.where(done & (state.ending == 0), end, 0).astype(jnp.int32)
        return state._replace(terminated=done, end_coins=end, coins=state.coins + end)

    def apply(self, state: State, action) -> State:
        """One (legal) turn: lay the tile or set it aside, score, draw, pass, and maybe end."""
        size = self.s.size
        seat = state.current
        aside = action == size * size * 4
        cell, turns = jnp.divmod(jnp.minimum(action, size * size * 4 - 1), 4)
        y, x = jnp.divmod(cell, size)
        held = jnp.maximum(state.held[seat], 0)
        laid = self.lay(state, x, y, self.s.n_start * 2 + held.astype(jnp.int32), turns, seat)
        laid = self.score_new_rooms(laid, state.closed)
        pick = lambda a, b: jax.tree_util.tree_map(lambda u, v: jnp.where(aside, u, v), a, b)  # noqa: E731
        state = pick(state, laid)
        state = self.draw(state, seat)
        state = state._replace(turns=state.turns + 1, current=(seat + 1) % state.players)
        return self.end_of_game(state)


def closing_cells(rules: Rules, state: State) -> jnp.ndarray:
    """(H, W) int32 for each empty cell: 2 where a neighbour's room has all its open sides
    against the cell (laying a tile there may close it), else 1 where some turn of the tile in
    hand has a part holding advisors whose open sides all face a neighbour's wall (that part
    would be a closed room of its own, paying its owner), else 0: laying the tile there closes no
    room that pays anyone (a necessary condition; agents/forbidden_city_greedy.py plays out
    only these cells)."""
    n = rules.s.nodes
    occ, sides, qpart, _ = rules.faces(state)
    nocc = jnp.stack([shift(occ, d, False) for d in range(4)], -1)                     # (H, W, 4)
    front = occ[..., None] & (sides == OPEN) & ~nocc
    per_part = jnp.stack([(front & (qpart == p)).sum(-1) for p in range(2)], -1)
    lab = state.label.reshape(-1)
    where = jnp.where(lab >= 0, lab, n)
    open_sides = jax.ops.segment_sum(per_part.reshape(-1), where, n + 1)
    quarter_label = jnp.take_along_axis(state.label, jnp.clip(qpart, 0, 1), -1)         # (H, W, 4)
    # For an empty cell, the room of each neighbour's quarter that faces it through open floor.
    facing = jnp.stack([jnp.where(shift(front[..., (d + 2) % 4], d, False),
                                  shift(quarter_label[..., (d + 2) % 4], d, -1), -1) for d in range(4)], -1)
    at_cell = (facing[..., :, None] == facing[..., None, :]).sum(-1)                     # sides of that room here
    whole = (facing >= 0) & (open_sides[jnp.where(facing >= 0, facing, n)] == at_cell)
    held = jnp.maximum(state.held[state.current], 0).astype(jnp.int32) + rules.s.n_start * 2
    t_sides, t_part = rules.t.sides[held], rules.t.quarter_part[held]                    # (4 r, 4 d)
    nside = jnp.stack([shift(sides[..., (d + 2) % 4], d, WALL) for d in range(4)], -1)
    walled = nocc & (nside != OPEN)                                                    # (H, W, 4)
    exposed = (t_sides == OPEN)[None, None] & ~walled[:, :, None, :]                   # (H, W, 4 r, 4 d)
    alone = jnp.stack([~(exposed & (t_part == p)[None, None]).any(-1) for p in range(2)], -1)
    paying = jnp.stack([rules.t.advisors[held, 0] > 0, (rules.t.parts[held] == 2) & (rules.t.advisors[held, 1] > 0)])
    alone = (alone & paying).any(-1).any(-1)
    frontier = ~occ & nocc.any(-1)
    return jnp.where(frontier & whole.any(-1), 2, jnp.where(frontier & alone, 1, 0)).astype(jnp.int32)
