"""The rules as pure functions of a State (no Python branching on traced values).

Each laid part gets the next part number (State.part on the table) and a room label, a part
number (State.room, per part), with running totals per label (State.room_*). Laying a tile gives
its parts new labels and totals and merges them with the rooms they meet through open sides: at
most four merges, each a relabel of the parts plus the sum of two rows of totals (Pgx's Go keeps
its chains the same way), so the flood fill of the reference engine is never needed, and no
work grows with the table's area but the masks. Only a room the tile touched can close (its
parts' rooms, or a neighbour's whose open side faced the cell: State.last_rooms), so closing
reads at most six open-side counts, and scoring reads their totals and the door links
(State.door_parts, appended as tiles are laid), each (room, linked room) pair once. The whole-table recomputations (closed_rooms,
room_totals_of_labels) set up the start tile and check the running totals in the tests.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from monkey_env.forbidden_city.geometry import DOOR, OPEN, STEP, WALL
from monkey_env.forbidden_city.jaxgame.state import MAX_PLAYERS, State
from monkey_env.forbidden_city.jaxgame.tables import ALL_EMPTY, CODE_BITS, EMPTY_CODE, Static, Tables

ROOMS_CLOSED_AT_ONCE = 6      # one tile closes at most its two parts' rooms and four neighbours'
DX = (0, 1, 0, -1)            # STEP as arrays, by direction N, E, S, W
DY = (-1, 0, 1, 0)
assert all(STEP[d] == (DX[d], DY[d]) for d in range(4))


def shift(a: jnp.ndarray, d: int, fill) -> jnp.ndarray:
    """b[y, x] = a at the neighbour of (y, x) in direction d (``fill`` off the table)."""
    dx, dy = STEP[d]
    pad = [(1, 1), (1, 1)] + [(0, 0)] * (a.ndim - 2)
    p = jnp.pad(a, pad, constant_values=fill)
    h, w = a.shape[:2]
    return p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]


def payout(value, advisors):
    """The rulebook's majority payout (scoring.payout) for (4,) advisors: (4,) int32 coins."""
    value = jnp.asarray(value, jnp.int32)
    advisors = jnp.asarray(advisors, jnp.int32)
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
    def facing_keys_of_table(self, state: State) -> jnp.ndarray:
        """(H, W) int32 every cell's facing key from the whole table: equal to State.facing, which
        lay and recentre keep (a check, and the start of the mask's reasoning)."""
        occ = state.tile >= 0
        t = jnp.maximum(state.tile, 0).astype(jnp.int32)
        code = jnp.where(occ[..., None], self.t.side_code[t, state.rotation.astype(jnp.int32)], EMPTY_CODE)
        facing = [shift(code[..., (d + 2) % 4], d, EMPTY_CODE).astype(jnp.int32) for d in range(4)]
        return sum(f << (CODE_BITS * d) for d, f in enumerate(facing))

    def _fitting_turns(self, state: State, key) -> jnp.ndarray:
        """Bits r of the turns the held tile may take against facing key(s) ``key`` (any shape)."""
        kind = jnp.maximum(state.held[state.current], 0).astype(jnp.int32)
        return self.t.fits[kind, key.astype(jnp.int32)].astype(jnp.int32)     # not fits[kind]: a row per game

    def placement_mask(self, state: State) -> jnp.ndarray:
        """(H, W, 4 turns) bool: where the current hand's tile may be laid (next to a tile, and no
        open side against an open side of another colour): one lookup of each cell's facing key."""
        turns = self._fitting_turns(state, state.facing)                              # (H, W)
        fits = ((turns[..., None] >> jnp.arange(4)) & 1).astype(bool)                  # (H, W, 4 r)
        touching = state.facing != ALL_EMPTY
        ok = ((state.tile < 0) & touching)[..., None] & fits
        return ok & (state.held[state.current] >= 0)

    def legal_action_mask(self, state: State) -> jnp.ndarray:
        place = self.placement_mask(state).reshape(-1)
        return jnp.concatenate([place, (~place.any())[None]]) & ~state.terminated

    def _neighbours(self, state: State, x, y):
        """The four neighbours of (x, y), by direction: whether a tile lies there, its table id and
        rotation (0 if none), its column and row (clipped to the table), whether it is on the table."""
        size = self.s.size
        nx, ny = x + jnp.asarray(DX), y + jnp.asarray(DY)
        inside = (nx >= 0) & (nx < size) & (ny >= 0) & (ny < size)
        nxc, nyc = jnp.clip(nx, 0, size - 1), jnp.clip(ny, 0, size - 1)
        ntile = state.tile[nyc, nxc].astype(jnp.int32)
        there = inside & (ntile >= 0)
        return there, jnp.maximum(ntile, 0), state.rotation[nyc, nxc].astype(jnp.int32), (nxc, nyc), inside

    def action_is_legal(self, state: State, action) -> jnp.ndarray:
        """() bool: legal_action_mask(state)[action], looking only at the action's cell (the whole
        table only for setting the tile aside, and then only if a game of the batch does)."""
        size = self.s.size
        aside = action == size * size * 4
        cell, turns = jnp.divmod(jnp.clip(action, 0, size * size * 4 - 1), 4)
        y, x = jnp.divmod(cell, size)
        key = state.facing[y, x]
        fits = ((self._fitting_turns(state, key) >> turns) & 1).astype(bool)
        place = (state.tile[y, x] < 0) & (key != ALL_EMPTY) & fits & (state.held[state.current] >= 0)
        # Setting aside is legal when no placement is: the whole mask, computed in a loop that runs
        # once if any game (of a vmapped batch) sets aside and never otherwise. The mask reads the
        # table through the loop's counter: work that depends on loop invariants only is hoisted
        # out of the loop by XLA and done every step (it was half of a step).
        def whole_mask(carry):
            _, _, i = carry
            table = state._replace(tile=jnp.where(i < 0, jnp.int16(-1), state.tile),
                                   facing=jnp.where(i < 0, jnp.int16(ALL_EMPTY), state.facing))
            return jnp.asarray(False), self.placement_mask(table).any(), i + 1
        _, any_place, _ = jax.lax.while_loop(lambda c: c[0], whole_mask, (aside, jnp.asarray(False), jnp.int32(0)))
        legal = jnp.where(aside, ~any_place, place)
        return legal & (action >= 0) & (action <= size * size * 4) & ~state.terminated

    # ------------------------------------------------------------------ laying a tile
    def lay(self, state: State, x, y, tile, turns, owner) -> State:
        """Put a tile (table id) on (x, y), merge its parts with the rooms they open onto, keep the
        rooms' totals and the door links, and note the rooms it touched (State.last_rooms)."""
        t = self.t
        tile = jnp.asarray(tile, jnp.int32)
        turns = jnp.asarray(turns, jnp.int32)
        owner = jnp.asarray(owner, jnp.int32)
        first = state.parts                                                           # the new parts' numbers
        two = t.parts[tile] == 2
        sides = t.sides[tile, turns].astype(jnp.int32)                              # (4 d,)
        qpart = t.quarter_part[tile, turns].astype(jnp.int32)
        there, ntile, nrot, (nx, ny), inside = self._neighbours(state, x, y)
        opposite = (jnp.arange(4) + 2) % 4
        nside = jnp.where(there, t.sides[ntile, nrot, opposite], WALL).astype(jnp.int32)
        mine = first + qpart                                                          # my part on each side
        theirs = state.part[ny, nx, t.quarter_part[ntile, nrot, opposite].astype(jnp.int32)].astype(jnp.int32)

        parts = jnp.arange(2)
        new = first + parts                                  # the second is dropped where the tile has one part
        new_at = jnp.where(parts < jnp.where(two, 2, 1), new, self.s.part_capacity)
        # The grids change at (x, y) only: written by selects, which fuse with the step's own select
        # of the whole state (a scatter needs a copy of the grid first).
        here = (jnp.arange(self.s.size)[:, None] == y) & (jnp.arange(self.s.size)[None, :] == x)   # (H, W)
        put = lambda grid, value: jnp.where(here.reshape(here.shape + (1,) * (grid.ndim - 2)), value, grid)
        part = put(state.part, jnp.where(parts == 0, first, jnp.where(two, first + 1, -1)).astype(jnp.int16))
        room = state.room.astype(jnp.int32).at[new_at].set(new, mode="drop")
        pair = state.pair.at[first].set(t.two_counting[tile])
        # The new parts' own totals; each neighbour's open side that faced an empty cell now faces a tile.
        front = (sides == OPEN) & ~there
        faced = there & (nside == OPEN)
        value = state.room_value.at[new_at].set(self.part_value(state, tile), mode="drop")
        seat = (jnp.arange(MAX_PLAYERS) == owner).astype(jnp.int16)
        advisors = state.room_advisors.at[new_at].set(state.tile_advisors[tile].astype(jnp.int16)[:, None] * seat,
                                                      mode="drop")
        opened = (front[None, :] & (qpart[None, :] == parts[:, None])).sum(-1).astype(jnp.int16)
        open_ = state.room_open.at[new_at].set(opened, mode="drop")
        open_ = open_.at[jnp.where(faced, room[jnp.maximum(theirs, 0)], self.s.part_capacity)].add(
            jnp.int16(-1), mode="drop")
        join = faced & (sides == OPEN)

        def merge_side(d, rooms):          # a loop, not unrolled: one merge to compile
            room, value, advisors, open_ = rooms
            a = room[mine[d]]
            b = jnp.where(join[d], room[jnp.maximum(theirs[d], 0)], a)
            low, high, merge = jnp.minimum(a, b), jnp.maximum(a, b), a != b
            # a tile whose two parts end in one room counts once there
            after = jnp.concatenate([room[1:], jnp.full((1,), -1, room.dtype)])
            both = (pair & (((room == a) & (after == b)) | ((room == b) & (after == a)))).sum()
            joined = value[a] + value[b] - jnp.where(merge, state.coin_values[0] * both, 0)
            value = value.at[low].set(jnp.where(merge, joined, value[low]).astype(jnp.int16))
            value = value.at[high].set(jnp.where(merge, 0, value[high]).astype(jnp.int16))
            advisors = advisors.at[low].set(jnp.where(merge, advisors[a] + advisors[b], advisors[low]))
            advisors = advisors.at[high].set(jnp.where(merge, 0, advisors[high]))
            open_ = open_.at[low].set(jnp.where(merge, open_[a] + open_[b], open_[low]))
            open_ = open_.at[high].set(jnp.where(merge, 0, open_[high]))
            return jnp.where((room == a) | (room == b), low, room), value, advisors, open_
        room, value, advisors, open_ = jax.lax.fori_loop(0, 4, merge_side, (room, value, advisors, open_))
        # Door links with the neighbours (a door on either side, no plain wall on either).
        link = there & ((sides == DOOR) | (nside == DOOR)) & (sides != WALL) & (nside != WALL)
        row = jnp.where(link, state.doors + jnp.cumsum(link) - 1, self.s.door_capacity)
        door_parts = state.door_parts.at[row].set(jnp.stack([mine, theirs], -1).astype(jnp.int16), mode="drop")
        touched = jnp.concatenate([jnp.where(parts == 0, first, jnp.where(two, first + 1, -1)),
                                   jnp.where(faced, theirs, -1)])
        # Each neighbouring cell now faces this tile's side: its digit for the way back turns from
        # EMPTY_CODE to that side's code (off the table: dropped).
        code = t.side_code[tile, turns].astype(jnp.int32)
        step = (code - EMPTY_CODE) << (CODE_BITS * opposite)
        flat = jnp.where(inside, ny * self.s.size + nx, self.s.size * self.s.size)
        facing = state.facing.reshape(-1).at[flat].add(step.astype(jnp.int16), mode="drop").reshape(state.facing.shape)
        return state._replace(
            facing=facing, tile=put(state.tile, tile.astype(jnp.int16)),
            rotation=put(state.rotation, turns.astype(jnp.int8)),
            owner=put(state.owner, owner.astype(jnp.int8)), part=part, room=room.astype(jnp.int16),
            pair=pair, parts=first + jnp.where(two, 2, 1), room_value=value, room_advisors=advisors,
            room_open=open_, door_parts=door_parts,
            doors=state.doors + link.sum().astype(jnp.int32), last_rooms=touched.astype(jnp.int16))

    # ------------------------------------------------------------------ rooms
    def node_rooms(self, state: State) -> jnp.ndarray:
        """(H, W, 2) int32 the room label of each node (cell, part), -1 where there is none."""
        part = state.part.astype(jnp.int32)
        return jnp.where(part >= 0, state.room[jnp.maximum(part, 0)], -1).astype(jnp.int32)

    def closed_rooms(self, state: State) -> jnp.ndarray:
        """(P,) bool: the rooms (by label) with no open side facing an empty cell or the edge,
        from the whole table (the start tile's set-up; lay and score_new_rooms keep it after)."""
        n = self.s.part_capacity
        occ, sides, qpart, _ = self.faces(state)
        nocc = jnp.stack([shift(occ, d, False) for d in range(4)], -1)
        front = occ[..., None] & (sides == OPEN) & ~nocc                          # (H, W, 4)
        per_part = jnp.stack([(front & (qpart == p)).sum(-1) for p in range(2)], -1)
        lab = self.node_rooms(state).reshape(-1)
        where = jnp.where(lab >= 0, lab, n)
        open_sides = jax.ops.segment_sum(per_part.reshape(-1), where, n + 1)[:n]
        exists = jax.ops.segment_sum((lab >= 0).astype(jnp.int32), where, n + 1)[:n] > 0
        return exists & (open_sides == 0)

    def room_totals_of_labels(self, state: State):
        """The running totals recomputed from the whole table: per label, (P,) coins of its own,
        (P, 4) advisors per seat, (P,) open sides; equal to State.room_* (a check)."""
        n = self.s.part_capacity
        occ, sides, qpart, _ = self.faces(state)
        t = jnp.maximum(state.tile, 0).astype(jnp.int32)
        counts = occ & self.t.counts[t]
        lab = self.node_rooms(state)
        second_room = (lab[..., 1] >= 0) & (lab[..., 1] != lab[..., 0])
        tiles = jnp.stack([counts, counts & second_room], -1).astype(jnp.int32)   # (H, W, 2)
        where = jnp.where(lab >= 0, lab, n).reshape(-1)
        dragons = jnp.where(occ[..., None], state.tile_dragons[t], 0).astype(jnp.int32)
        own = (state.coin_values[0] * jax.ops.segment_sum(tiles.reshape(-1), where, n + 1)
               + state.coin_values[1] * jax.ops.segment_sum(dragons.reshape(-1), where, n + 1))
        adv = jnp.where(occ[..., None], state.tile_advisors[t], 0).astype(jnp.int32)          # (H, W, 2)
        seat = (state.owner[..., None] == jnp.arange(MAX_PLAYERS)).astype(jnp.int32)       # (H, W, 4)
        per_seat = adv[..., :, None] * seat[..., None, :]                                  # (H, W, 2, 4)
        advisors = jax.ops.segment_sum(per_seat.reshape(-1, MAX_PLAYERS), where, n + 1)
        nocc = jnp.stack([shift(occ, d, False) for d in range(4)], -1)
        front = occ[..., None] & (sides == OPEN) & ~nocc
        per_part = jnp.stack([(front & (qpart == p)).sum(-1) for p in range(2)], -1)
        open_sides = jax.ops.segment_sum(per_part.reshape(-1), where, n + 1)
        return own[:n], advisors[:n], open_sides[:n]

    def score_new_rooms(self, state: State, closed_before: jnp.ndarray) -> State:
        """Pay every room the last laid tile closed (closed now, not before; at most
        ROOMS_CLOSED_AT_ONCE): its own coins and those of each room a door links to it."""
        n = self.s.part_capacity
        lab = state.room.astype(jnp.int32)
        parts = state.last_rooms.astype(jnp.int32)
        room = jnp.where(parts >= 0, lab[jnp.maximum(parts, 0)], -1)                  # (6,) labels
        r = jnp.maximum(room, 0)
        closed_now = (room >= 0) & (state.room_open[r] == 0)
        earlier = (room[:, None] == room[None, :]) & (jnp.arange(6)[:, None] > jnp.arange(6)[None, :])
        new = closed_now & ~closed_before[r] & ~earlier.any(-1)
        # Every (room, door-linked other room) pair once: sort the pairs, keep the first of each run.
        in_use = jnp.arange(self.s.door_capacity) < state.doors
        ends = jnp.where(in_use[:, None], lab[jnp.maximum(state.door_parts.astype(jnp.int32), 0)], -1)   # (D, 2)
        a = jnp.concatenate([ends[:, 0], ends[:, 1]])
        b = jnp.concatenate([ends[:, 1], ends[:, 0]])
        none = n * n
        key = jnp.sort(jnp.where((a >= 0) & (a != b), a * n + b, none))
        once = (key < none) & jnp.concatenate([jnp.ones((1,), bool), key[1:] != key[:-1]])
        ka, kb = key // n, key % n
        linked = jnp.where(once[None, :] & (ka[None, :] == room[:, None]),
                           state.room_value[kb].astype(jnp.int32)[None, :], 0).sum(-1)     # (6,)
        value = state.room_value[r].astype(jnp.int32) + linked
        paid = jax.vmap(payout)(value, state.room_advisors[r])                             # (6, 4)
        gained = jnp.where(new[:, None], paid, 0).sum(0)
        closed = closed_before.at[jnp.where(closed_now, r, n)].set(True, mode="drop")
        return state._replace(coins=state.coins + gained, closed=closed)

    # ------------------------------------------------------------------ the table follows the city
    def follow_shift(self, state: State):
        """() int32 dx, dy, each -1, 0 or 1: the reference's City.follow_shift (one cell away from
        the border a tile lies on, if the far border stays free)."""
        size = self.s.size
        occ = state.tile >= 0
        def along(used):                                  # (size,) bool: a tile in that column / row
            lo = jnp.argmax(used)
            hi = size - 1 - jnp.argmax(used[::-1])
            return jnp.where((lo == 0) & (hi <= size - 3), 1, jnp.where((hi == size - 1) & (lo >= 2), -1, 0))
        return along(occ.any(0)).astype(jnp.int32), along(occ.any(1)).astype(jnp.int32)

    def recentre(self, state: State) -> State:
        """Move the whole city by follow_shift (the rules have no table edge). A tile widens the
        city on one axis only, so at most one of dx, dy is not 0 and the move is one flat roll of
        the grids by dy * size + dx cells (rooms are numbered by parts, not cells: nothing else
        moves). Nothing wraps round: the row or column rolled over the border is empty. The
        facing keys move too, but the line that came in faces the city, which its rolled keys
        (all empty) do not know."""
        dx, dy = self.follow_shift(state)
        cells = dy * self.s.size + dx
        grid = lambda a: jnp.roll(a.reshape(-1, *a.shape[2:]), cells, 0).reshape(a.shape)

        # A loop that runs once if the city moves and never otherwise: in a vmapped batch, once if
        # any game's city moves (a tile on the border, a few games in a thousand), where a plain
        # roll would move every game's grids at every step (a third of a step's memory traffic).
        def move(carry):
            state, _ = carry
            moved = state._replace(tile=grid(state.tile), owner=grid(state.owner), rotation=grid(state.rotation),
                                   part=grid(state.part), shift=state.shift + jnp.stack([dx, dy]))
            return moved._replace(facing=self._entering_line_keys(moved, grid(state.facing), dx, dy)), jnp.asarray(True)
        return jax.lax.while_loop(lambda c: (cells != 0) & ~c[1], move, (state, jnp.asarray(False)))[0]

    def _entering_line_keys(self, state: State, facing: jnp.ndarray, dx, dy) -> jnp.ndarray:
        """``facing`` with the keys of the line that came in over the border by a move (dx, dy):
        its cells are empty, and so are their neighbours but the line next to it, towards the
        city, whose tiles' sides now face them (every other digit stays EMPTY_CODE)."""
        size = self.s.size
        def line_keys(tiles, rotations, d):           # (size,) keys of empty cells whose neighbour in d is given
            code = self.t.side_code[jnp.maximum(tiles, 0).astype(jnp.int32), rotations.astype(jnp.int32), (d + 2) % 4]
            code = jnp.where(tiles >= 0, code, EMPTY_CODE).astype(jnp.int32)
            return (ALL_EMPTY - ((EMPTY_CODE - code) << (CODE_BITS * d))).astype(facing.dtype)
        # A move east (dx = 1) brings in column 0, whose neighbour to the east (d = 1) is column 1; west, the last.
        col, nxt = jnp.where(dx > 0, 0, size - 1), jnp.where(dx > 0, 1, size - 2)
        east_west = jnp.where(dx > 0, line_keys(state.tile[:, nxt], state.rotation[:, nxt], 1),
                              line_keys(state.tile[:, nxt], state.rotation[:, nxt], 3))
        cells = jnp.arange(size)            # selects, not scatters: they fuse with the roll and the step's select
        facing = jnp.where((dx != 0) & (cells[None, :] == col), east_west[:, None], facing)
        row, nyt = jnp.where(dy > 0, 0, size - 1), jnp.where(dy > 0, 1, size - 2)
        north_south = jnp.where(dy > 0, line_keys(state.tile[nyt], state.rotation[nyt], 2),
                                line_keys(state.tile[nyt], state.rotation[nyt], 0))
        return jnp.where((dy != 0) & (cells[:, None] == row), north_south[None, :], facing)

    # ------------------------------------------------------------------ a turn
    def part_value(self, state: State, tile) -> jnp.ndarray:
        """(2,) int16 coins of each part of table id ``tile`` on its own: the tile if it counts, its dragons."""
        coin_tile, coin_dragon = state.coin_values[0], state.coin_values[1]
        value = coin_tile * self.t.counts[tile] + coin_dragon * state.tile_dragons[tile].astype(jnp.int32)
        return jnp.where(jnp.arange(2) < self.t.parts[tile], value, 0).astype(jnp.int16)

    def kind_end_coins(self, state: State) -> jnp.ndarray:
        """(K,) int32 coins each kind of a stack is worth if kept at the end (its advisors and dragons)."""
        kinds = slice(self.s.n_start * 2, None)
        return (state.coin_values[2] * state.tile_advisors[kinds].astype(jnp.int32).sum(-1)
                + state.coin_values[3] * state.tile_dragons[kinds].astype(jnp.int32).sum(-1))

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
        kind_end = self.kind_end_coins(state)
        coins_of = kind_end[jnp.maximum(state.stacks, 0).astype(jnp.int32)]
        held = jnp.where(state.held >= 0, kind_end[jnp.maximum(state.held, 0).astype(jnp.int32)], 0)
        end = jnp.where(kept, coins_of, 0).sum(1) + held
        end = jnp.where(done & (state.ending == 0), end, 0).astype(jnp.int32)
        return state._replace(terminated=done, end_coins=end, coins=state.coins + end)

    def apply(self, state: State, action) -> State:
        """One (legal) turn: lay the tile or set it aside, score, recentre, draw, pass, and maybe end."""
        size = self.s.size
        seat = state.current
        aside = action == size * size * 4
        cell, turns = jnp.divmod(jnp.minimum(action, size * size * 4 - 1), 4)
        y, x = jnp.divmod(cell, size)
        held = jnp.maximum(state.held[seat], 0)
        laid = self.lay(state, x, y, self.s.n_start * 2 + held.astype(jnp.int32), turns, seat)
        border = (x == 0) | (x == size - 1) | (y == 0) | (y == size - 1)
        laid = laid._replace(edge_reached=state.edge_reached | border)
        laid = self.recentre(self.score_new_rooms(laid, state.closed))
        pick = lambda a, b: jax.tree_util.tree_map(lambda u, v: jnp.where(aside, u, v), a, b)
        state = pick(state, laid)
        state = self.draw(state, seat)
        state = state._replace(turns=state.turns + 1, current=(seat + 1) % state.players)
        return self.end_of_game(state)


def closing_cells(rules: Rules, state: State) -> jnp.ndarray:
    """(H, W) int32 for each empty cell: 2 where a neighbour's room has all its open sides
    against the cell (laying a tile there may close it), else 1 where some turn of the tile in
    hand has a part holding advisors whose open sides all face a neighbour's wall (that part
    would be a closed room of its own, paying its owner), else 0: laying the tile there closes no
    room that pays anyone (a necessary condition; monkey_env/forbidden_city/agents/greedy.py plays out
    only these cells)."""
    n = rules.s.part_capacity
    occ, sides, qpart, _ = rules.faces(state)
    nocc = jnp.stack([shift(occ, d, False) for d in range(4)], -1)                     # (H, W, 4)
    front = occ[..., None] & (sides == OPEN) & ~nocc
    open_sides = jnp.concatenate([state.room_open.astype(jnp.int32), jnp.zeros((1,), jnp.int32)])   # (N + 1,)
    quarter_label = jnp.take_along_axis(rules.node_rooms(state), jnp.clip(qpart, 0, 1), -1)   # (H, W, 4)
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
    adv = state.tile_advisors[held]
    paying = jnp.stack([adv[0] > 0, (rules.t.parts[held] == 2) & (adv[1] > 0)])
    alone = (alone & paying).any(-1).any(-1)
    frontier = ~occ & nocc.any(-1)
    return jnp.where(frontier & whole.any(-1), 2, jnp.where(frontier & alone, 1, 0)).astype(jnp.int32)
