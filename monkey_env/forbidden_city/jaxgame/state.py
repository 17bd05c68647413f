"""The state of one game on the JAX engine: every field with its shape and dtype.

H = W = the table's size; K = tile kinds; D = the door links the table can hold; P = the tile
parts a game can lay (tables.Static.door_capacity, part_capacity).

Rooms are numbered by parts, not by cells: each part laid gets the next number (State.parts), and
a room's label is a number of one of its parts (State.room). The per-room running totals
(State.room_*) are kept up to date as tiles are laid and rooms merge (rules.Rules.lay), so that
closing and scoring a room reads them instead of summing the whole table (rules.room_totals_of_labels
recomputes them from the table: the differential test checks that they agree). Numbering rooms by
parts keeps those rows as many as a game can lay parts (P, about 260) whatever the table's size,
and a move of the whole city (Rules.recentre) moves only the four grids.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

MAX_PLAYERS = 4


class State(NamedTuple):
    tile: jnp.ndarray        # (H, W) int16 table id of the laid tile (tables.py), -1 empty
    owner: jnp.ndarray       # (H, W) int8 seat that laid it, -1 for start cells and empty cells
    rotation: jnp.ndarray    # (H, W) int8 clockwise quarter turns
    part: jnp.ndarray        # (H, W, 2) int16 the number of the part each node (cell, part) belongs to, -1 no node
    facing: jnp.ndarray      # (H, W) int16 each cell's facing key: the side codes of its four neighbours facing it
                             #      (tables.py: 3 bits a direction, EMPTY_CODE where no tile or off the table),
                             #      kept as tiles are laid so that the legal mask is one lookup a cell
    room: jnp.ndarray        # (P,) int16 the room of each part: its label, a part number; -1 not laid
    pair: jnp.ndarray        # (P,) bool part p and p + 1 are one tile's two parts and that tile counts (it counts
                             #      once in a room holding both)
    parts: jnp.ndarray       # () int32 parts laid so far (the next part's number)
    closed: jnp.ndarray      # (P,) bool: the room labelled p is closed (already scored)
    stacks: jnp.ndarray      # (4, K) int16 each seat's tiles in draw order (kind ids), -1 padding
    drawn: jnp.ndarray       # (4,) int32 tiles taken from each stack so far (the next index)
    held: jnp.ndarray        # (4,) int16 kind id of the tile in each hand, -1 none
    coins: jnp.ndarray       # (4,) int32 every seat's coins
    end_coins: jnp.ndarray   # (4,) int32 coins for the tiles kept at the end (ending last_two)
    current: jnp.ndarray     # () int32 seat to play
    players: jnp.ndarray     # () int32 2-4
    stack_size: jnp.ndarray  # () int32 tiles per stack (24, or 30 with 2 players)
    turns: jnp.ndarray       # () int32 turns played
    turns_total: jnp.ndarray  # () int32 turns of the whole game (the ending's)
    ending: jnp.ndarray      # () int32 0 last_two, 1 all_placed
    start_side: jnp.ndarray  # () int32 0 beginner, 1 advanced
    terminated: jnp.ndarray  # () bool
    illegal: jnp.ndarray     # () bool the game ended on an illegal action
    rewards: jnp.ndarray     # (4,) float32 each seat's coin change at the last step
    room_value: jnp.ndarray  # (P,) int16 coins of the room labelled p on its own (tiles once each, dragons); 0 no room
    room_advisors: jnp.ndarray  # (P, 4) int16 advisors of each seat in the room labelled p
    room_open: jnp.ndarray   # (P,) int16 open sides of the room labelled p facing an empty cell or the edge
    door_parts: jnp.ndarray  # (D, 2) int16 the two parts of each door link on the table, in the order laid; -1 none
    doors: jnp.ndarray       # () int32 door links on the table (rows of door_parts in use)
    shift: jnp.ndarray       # (2,) int32 (dx, dy) the city has moved since set-up (Rules.recentre: the table
                             #      follows the city); a cell's place in the rules' edgeless plane is (x, y) - shift
    edge_reached: jnp.ndarray  # () bool a tile was laid on the grid's border (the reference's Game.edge_reached)
    last_rooms: jnp.ndarray  # (6,) int16 a part of each room the last laid tile touched (its parts, and the
                             #      neighbours' whose open side faced it: the only rooms it can close); -1 none
    # --- the game's values (env.VALUE_FIELDS): the game data's, unless a balance tune traces others
    coin_values: jnp.ndarray  # (4,) int32 coins per tile, per dragon, per advisor and per dragon kept at the end
    tile_advisors: jnp.ndarray  # (T, 2) int8 advisors on each part of each table id (tables.py)
    tile_dragons: jnp.ndarray  # (T, 2) int8 dragons on each part of each table id

    @property
    def round(self):
        """Rounds played (every player one turn), () or (B,) int32."""
        return self.turns // self.players


FACING_ALL_EMPTY = (1 << 12) - 1      # the facing key with every neighbour empty (tables.ALL_EMPTY)


def empty_state(size: int, n_kinds: int, door_capacity: int, part_capacity: int, n_table_ids: int = 1) -> State:
    i32 = lambda v: jnp.asarray(v, jnp.int32)
    return State(
        tile=-jnp.ones((size, size), jnp.int16), owner=-jnp.ones((size, size), jnp.int8),
        rotation=jnp.zeros((size, size), jnp.int8), part=-jnp.ones((size, size, 2), jnp.int16),
        facing=jnp.full((size, size), FACING_ALL_EMPTY, jnp.int16),
        room=-jnp.ones((part_capacity,), jnp.int16), pair=jnp.zeros((part_capacity,), bool), parts=i32(0),
        closed=jnp.zeros((part_capacity,), bool), stacks=-jnp.ones((MAX_PLAYERS, n_kinds), jnp.int16),
        drawn=jnp.zeros((MAX_PLAYERS,), jnp.int32), held=-jnp.ones((MAX_PLAYERS,), jnp.int16),
        coins=jnp.zeros((MAX_PLAYERS,), jnp.int32), end_coins=jnp.zeros((MAX_PLAYERS,), jnp.int32),
        current=i32(0), players=i32(2), stack_size=i32(0), turns=i32(0), turns_total=i32(0), ending=i32(0),
        start_side=i32(0), terminated=jnp.asarray(False), illegal=jnp.asarray(False),
        rewards=jnp.zeros((MAX_PLAYERS,), jnp.float32),
        room_value=jnp.zeros((part_capacity,), jnp.int16),
        room_advisors=jnp.zeros((part_capacity, MAX_PLAYERS), jnp.int16),
        room_open=jnp.zeros((part_capacity,), jnp.int16),
        door_parts=-jnp.ones((door_capacity, 2), jnp.int16), doors=i32(0), shift=jnp.zeros((2,), jnp.int32),
        edge_reached=jnp.asarray(False),
        last_rooms=-jnp.ones((6,), jnp.int16), coin_values=jnp.zeros((4,), jnp.int32),
        tile_advisors=jnp.zeros((n_table_ids, 2), jnp.int8), tile_dragons=jnp.zeros((n_table_ids, 2), jnp.int8))
