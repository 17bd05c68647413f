"""The game data as arrays (from the one GameData both engines read).

Table ids: the start tile's cells first (side 0's cells, then side 1's, row by row), then every
tile kind of a stack (GameData.kinds). Each id's faces are precomputed for the four rotations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from monkey_env.core.jax_cache import on_device
from monkey_env.forbidden_city.game_data import START_SIDES, GameData
from monkey_env.forbidden_city.geometry import DOOR, OPEN
from monkey_env.forbidden_city.jaxgame.state import FACING_ALL_EMPTY, MAX_PLAYERS

COIN_FIELDS = ("tile", "dragon", "end_advisor", "end_dragon")    # table.yaml's coins, in State.coin_values order


class Tables(NamedTuple):
    sides: jnp.ndarray        # (T, 4 turns, 4 directions) int8: OPEN, WALL, DOOR
    quarter_part: jnp.ndarray  # (T, 4 turns, 4 directions) int8: part of the quarter against each side
    floors: jnp.ndarray       # (T, 2) int8 colour per part (-1: no such part)
    parts: jnp.ndarray        # (T,) int8 1 or 2
    advisors: jnp.ndarray     # (T, 2) int8 per part: the data's (the engine reads State.tile_advisors)
    dragons: jnp.ndarray      # (T, 2) int8 per part: the data's (the engine reads State.tile_dragons)
    counts: jnp.ndarray       # (T,) bool, False for gardens
    start_ids: jnp.ndarray    # (2 sides, span * span) int16 table id of each start cell
    side_code: jnp.ndarray    # (T, 4 turns, 4 directions) int8: BLOCKED (wall or door) or OPEN_CODE + floor colour
    two_counting: jnp.ndarray  # (T,) bool: two parts and the tile counts (it may count twice in one room)
    fits: jnp.ndarray         # (K, FACING_KEYS) uint8: for a stack kind and a cell's facing key, bit r set when the
                              #   kind turned r quarter turns may lie against those four facing codes


BLOCKED = 0       # side_code of a wall or a door: it joins nothing and clashes with nothing
OPEN_CODE = 1     # side_code of open floor of colour k: OPEN_CODE + k
EMPTY_CODE = 7    # the code placement_mask gives a side facing an empty cell or the table's edge
# A cell's facing key (State.facing) packs the four codes facing it, direction d in bits 3d..3d+2.
CODE_BITS = 3
FACING_KEYS = 1 << (4 * CODE_BITS)
ALL_EMPTY = FACING_KEYS - 1      # every neighbour empty (or off the table): EMPTY_CODE in every digit
assert EMPTY_CODE == (1 << CODE_BITS) - 1 and ALL_EMPTY == FACING_ALL_EMPTY


def allowed_codes(code: np.ndarray) -> np.ndarray:
    """Bit sets of the facing codes each side accepts, for side codes ``code`` (any shape): all
    but an open floor of another colour where the side itself is open floor."""
    everything = (1 << (EMPTY_CODE + 1)) - 1
    other_floors = (((1 << EMPTY_CODE) - 1) & ~((1 << OPEN_CODE) - 1)) & ~(1 << code.astype(np.int64))
    return np.where(code >= OPEN_CODE, everything & ~other_floors, everything)


def fits_table(side_code: np.ndarray) -> np.ndarray:
    """(T, FACING_KEYS) uint8 from (T, 4 turns, 4 d) side codes: bit r of [t, key] is set when table
    id t turned r accepts on every side d the code in digit d of ``key`` (placement's colour rule)."""
    allowed = allowed_codes(side_code)                                             # (T, 4 r, 4 d)
    keys = np.arange(FACING_KEYS)
    digits = (keys[:, None] >> (CODE_BITS * np.arange(4))[None, :]) & EMPTY_CODE     # (keys, 4 d)
    ok = ((allowed[:, None, :, :] >> digits[None, :, None, :]) & 1).all(-1)        # (T, keys, 4 r)
    return (ok * (1 << np.arange(4))).sum(-1).astype(np.uint8)


@dataclass(frozen=True)
class Static:
    size: int                 # table side
    span: int                 # start tile side
    origin: int               # start tile's north-west cell (x = y)
    n_start: int              # start cells per side
    n_kinds: int              # K: tiles a stack may hold (base + extras)
    base_size: int            # stack size with 3-4 players
    coins: tuple              # the data's coins: tile, dragon, end_advisor, end_dragon (COIN_FIELDS; traced in State)
    door_capacity: int        # D: door links the table can ever hold (one door side each, at most)
    part_capacity: int        # P: tile parts a game can ever lay (the start tile's and every stack's)


def build_tables(data: GameData) -> tuple[Tables, Static]:
    faces = []
    for side in START_SIDES:
        faces += [f for row in data.start_cells(side) for f in row]
    n_start = len(faces) // 2
    faces += [k.face for k in data.kinds]
    T = len(faces)
    sides = np.zeros((T, 4, 4), np.int8)
    qpart = np.zeros((T, 4, 4), np.int8)
    floors = -np.ones((T, 2), np.int8)
    advisors = np.zeros((T, 2), np.int8)
    dragons = np.zeros((T, 2), np.int8)
    for t, f in enumerate(faces):
        for turns in range(4):
            g = f.turned(turns)
            sides[t, turns] = g.sides
            qpart[t, turns] = g.quarter_part
        floors[t, :f.parts] = f.floors
        advisors[t, :f.parts] = f.advisors
        dragons[t, :f.parts] = f.dragons
    coins = data.table.coins
    code = np.where(sides == OPEN, OPEN_CODE + floors[np.arange(T)[:, None, None], qpart], BLOCKED)
    assert code.max() < EMPTY_CODE
    # A door link needs a door side on at least one of its two tiles, so the links never
    # outnumber the door sides that can lie on the table: the start tile's and every stack's.
    kind_doors = [k.face.sides.count(DOOR) for k in data.kinds]
    start_doors = max(sum(f.sides.count(DOOR) for row in data.start_cells(side) for f in row) for side in START_SIDES)
    door_capacity = start_doors + max(2 * sum(kind_doors), MAX_PLAYERS * sum(kind_doors[:data.base_size]))
    # Rooms are numbered by the parts laid (State.part), so their totals take as many rows as a
    # game can lay parts, whatever the table's size: the start tile's and every stack's.
    kind_parts = [k.face.parts for k in data.kinds]
    start_parts = max(sum(f.parts for row in data.start_cells(side) for f in row) for side in START_SIDES)
    part_capacity = start_parts + max(2 * sum(kind_parts), MAX_PLAYERS * sum(kind_parts[:data.base_size]))
    tables = Tables(
        sides=on_device(sides), quarter_part=on_device(qpart), floors=on_device(floors),
        parts=on_device(np.array([f.parts for f in faces], np.int8)),
        advisors=on_device(advisors), dragons=on_device(dragons),
        counts=on_device(np.array([f.counts for f in faces], bool)),
        start_ids=on_device(np.arange(2 * n_start, dtype=np.int16).reshape(2, n_start)),
        side_code=on_device(code.astype(np.int8)),
        two_counting=on_device(np.array([f.parts == 2 and f.counts for f in faces], bool)),
        fits=on_device(fits_table(code[2 * n_start:])))
    static = Static(size=data.size, span=data.start_span, origin=data.start_origin("beginner"), n_start=n_start,
                    n_kinds=len(data.kinds), base_size=data.base_size,
                    coins=tuple(getattr(coins, f) for f in COIN_FIELDS), door_capacity=max(1, door_capacity),
                    part_capacity=part_capacity)
    return tables, static
