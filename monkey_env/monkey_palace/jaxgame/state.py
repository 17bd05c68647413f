"""The state of one game for the JAX engine: fixed shapes and dtypes, every field with a default."""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
from jax import export

from monkey_env.monkey_palace.actions import N_PILES, N_SLOTS
from monkey_env.monkey_palace.geometry import BOARD_SIZE, NUM_CELLS

MAX_PLAYERS = 4

# Phases follow monkey_env.monkey_palace.actions.Phase; these are internal and never seen by agents.
# PENDING_SETTLE: the batched step stopped this game's automatic steps early (to go on with
# the few games that need many of them in a compact group).
PENDING_NONE, PENDING_TURN_START, PENDING_SHAPE_MASK, PENDING_SETTLE = 0, 1, 2, 3


class State(NamedTuple):
    # --- the palace
    height: jnp.ndarray         # (32, 32) int8 top height of each cell, brick units
    knob: jnp.ndarray           # (32, 32) int8 Knob on top of each cell
    animals: jnp.ndarray        # (3,) int32 flat cell of monkey, butterfly, frog; -1 on its card
    deco_max: jnp.ndarray       # (3,) int32 highest decoration top per colour, 0 if none
    # --- elements and cards
    tray: jnp.ndarray           # (3,) int32 arches, bricks, columns left in the tray
    supply: jnp.ndarray         # (4, 3) int32 each seat's arches, bricks, columns
    card_owner: jnp.ndarray     # (C,) int8 seat owning each card, -1 while in a pile
    slot_top: jnp.ndarray       # (4, 4) int32 card id on top of each seat's slot, -1 empty
    slot_depth: jnp.ndarray     # (4, 4) int8 cards in each slot
    pile_cards: jnp.ndarray     # (12, P) int32 card ids of each pile after shuffling, top at pile_len-1
    pile_len: jnp.ndarray       # (12,) int32 cards left in each pile
    bonus_left: jnp.ndarray     # () int32 bonus cards left
    bonus_cards: jnp.ndarray    # (4,) int32 bonus cards of each seat
    holders: jnp.ndarray        # (3,) int32 seat holding the monkey, butterfly, frog trophy; -1 none
    # --- the game's values (params.VALUE_FIELDS; the game data's unless a tune changes them)
    card_bananas: jnp.ndarray   # (C,) int32 Banana Points of each card
    bonus_points: jnp.ndarray   # () int32 Banana Points of a bonus card
    trophy_points: jnp.ndarray  # (3,) int32 monkey, butterfly, frog trophy
    # --- the game's settings
    players: jnp.ndarray        # () int32 2, 3 or 4
    options: jnp.ndarray        # (5,) bool butterfly, frog, monkey must move, butterfly on highest overall, end when last taken
    # --- progress
    current: jnp.ndarray        # () int32 seat to play
    round: jnp.ndarray          # () int32 1-based
    turns_played: jnp.ndarray   # () int32
    end_triggered: jnp.ndarray  # () bool
    end_kind: jnp.ndarray       # () int32 what ran short first: 0 arches, 1 bricks, 2 columns, 3 arches and bricks; -1
    phase: jnp.ndarray          # () int32 monkey_env.monkey_palace.actions.Phase
    pending: jnp.ndarray        # () int32 expensive work before the next decision: PENDING_*
    stage: jnp.ndarray          # () int32 the turn's next automatic step: rules.STAGE_*
    anchor_mask: jnp.ndarray    # (1024,) bool legal anchors of this turn
    shape_mask: jnp.ndarray     # (S,) bool legal shapes at the chosen anchor; complete build: (4 x R + 1,) arches then finish
    # --- this turn
    anchor: jnp.ndarray         # () int32 flat cell, -1 before the anchor is chosen
    colour: jnp.ndarray         # () int32 decoration colour, -1 before building
    deco_cell: jnp.ndarray      # () int32
    deco_top: jnp.ndarray       # () int32
    arch_ends: jnp.ndarray      # (J,) int32 flat cells of the new staircase's arch end knobs, -1 padding
    # --- the complete build action's staircase in progress (jaxgame/complete_build.py); K = 32, or 0 with the catalogue
    arch_heading: jnp.ndarray   # (J,) int8 each arch's heading, -1 padding
    arch_level: jnp.ndarray     # (J,) int32 each arch's level
    b_cursor: jnp.ndarray       # () int32 flat cell: the anchor, then the last arch's far end
    b_heading: jnp.ndarray      # () int32 the last arch's heading, -1 before arch 1
    b_level: jnp.ndarray        # () int32 the last arch's level, -1 before arch 1
    b_arches: jnp.ndarray       # () int32
    b_units: jnp.ndarray        # () int32 brick units of every stack so far
    b_remainder: jnp.ndarray    # () int32 sum of each stack's units mod 3 (what only bricks can give)
    b_attached: jnp.ndarray     # () bool some leg rests on an element (rule E)
    b_tallest: jnp.ndarray      # () int32 the tallest stack so far, units
    b_covered: jnp.ndarray      # (K, K) bool studs the staircase covers
    over_cap: jnp.ndarray       # () bool a player held more than the complete masks are sized for (not exact past it)
    max_stack: jnp.ndarray      # () int32 tallest stack built this turn, units
    credits: jnp.ndarray        # () int32 Monkey Credits left this turn
    highest_of_colour: jnp.ndarray  # () bool the new decoration is strictly the highest of its colour
    highest_overall: jnp.ndarray    # () bool ... strictly the highest of all
    bought: jnp.ndarray         # (12,) int32 card ids bought this turn in order, -1 padding
    n_bought: jnp.ndarray       # () int32
    queue: jnp.ndarray          # (Q,) int32 instant icons still to take, in order, -1 padding
    q_head: jnp.ndarray         # () int32 next icon to take
    q_len: jnp.ndarray          # () int32
    placed: jnp.ndarray         # () int32 cards of `bought` already on the board
    # --- outcome of the last step
    rewards: jnp.ndarray        # (4,) float32 change of each seat's Banana Points (penalty on illegal action)
    terminated: jnp.ndarray     # () bool
    illegal: jnp.ndarray        # () bool the game ended on an illegal action


# Exported programs (monkey_env.core.jax_cache.exported_function) take and return States.
export.register_namedtuple_serialization(State, serialized_name="monkey_palace.State")


def empty_state(n_cards: int, n_shapes: int, max_arches: int, max_pile: int, queue_size: int,
                covered_size: int = 0, xp=jnp) -> State:
    """Every field at its default; ``xp=numpy`` builds it on the host (no JAX op runs: a new
    process's blank state costs no small eager compilations), ``jax.numpy`` inside a trace."""
    i32 = lambda v=0: xp.asarray(v, jnp.int32)
    return State(
        height=xp.zeros((BOARD_SIZE, BOARD_SIZE), jnp.int8),
        knob=xp.zeros((BOARD_SIZE, BOARD_SIZE), jnp.int8),
        animals=xp.full((3,), -1, jnp.int32), deco_max=xp.zeros((3,), jnp.int32),
        tray=xp.zeros((3,), jnp.int32), supply=xp.zeros((MAX_PLAYERS, 3), jnp.int32),
        card_owner=xp.full((n_cards,), -1, jnp.int8),
        slot_top=xp.full((MAX_PLAYERS, N_SLOTS), -1, jnp.int32),
        slot_depth=xp.zeros((MAX_PLAYERS, N_SLOTS), jnp.int8),
        pile_cards=xp.full((N_PILES, max_pile), -1, jnp.int32), pile_len=xp.zeros((N_PILES,), jnp.int32),
        bonus_left=i32(), bonus_cards=xp.zeros((MAX_PLAYERS,), jnp.int32),
        holders=xp.full((3,), -1, jnp.int32),
        card_bananas=xp.zeros((n_cards,), jnp.int32), bonus_points=i32(), trophy_points=xp.zeros((3,), jnp.int32),
        players=i32(2), options=xp.zeros((5,), bool),
        current=i32(), round=i32(1), turns_played=i32(), end_triggered=xp.asarray(False), end_kind=i32(-1),
        phase=i32(), pending=i32(), stage=i32(), anchor_mask=xp.zeros((NUM_CELLS,), bool),
        shape_mask=xp.zeros((n_shapes,), bool),
        anchor=i32(-1), colour=i32(-1), deco_cell=i32(-1), deco_top=i32(), arch_ends=xp.full((max_arches,), -1, jnp.int32),
        arch_heading=xp.full((max_arches,), -1, jnp.int8), arch_level=xp.zeros((max_arches,), jnp.int32),
        b_cursor=i32(-1), b_heading=i32(-1), b_level=i32(-1), b_arches=i32(), b_units=i32(), b_remainder=i32(),
        b_attached=xp.asarray(False), b_tallest=i32(), b_covered=xp.zeros((covered_size, covered_size), bool),
        over_cap=xp.asarray(False),
        max_stack=i32(), credits=i32(), highest_of_colour=xp.asarray(False), highest_overall=xp.asarray(False),
        bought=xp.full((N_PILES,), -1, jnp.int32), n_bought=i32(),
        queue=xp.full((queue_size,), -1, jnp.int32), q_head=i32(), q_len=i32(), placed=i32(),
        rewards=xp.zeros((MAX_PLAYERS,), jnp.float32), terminated=xp.asarray(False), illegal=xp.asarray(False),
    )
