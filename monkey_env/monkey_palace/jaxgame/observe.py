"""What a seat sees of a JAX state: planes over the plate and a vector of public facts.

Every number is scaled to about [0, 1] by the named constants below (typical maxima of the game
data), so that a network's inputs have one scale; the layout is in docs/ENVIRONMENTS.md.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from monkey_env.monkey_palace.actions import N_PILES, N_SLOTS, Phase
from monkey_env.monkey_palace.geometry import BOARD_SIZE, NUM_CELLS
from monkey_env.monkey_palace.jaxgame import complete_build
from monkey_env.monkey_palace.jaxgame.state import MAX_PLAYERS, State

HEIGHT_SCALE = 16.0        # palace height in bricks
SUPPLY_SCALE = 10.0        # elements in a player's supply
TRAY_SCALE = 80.0          # elements of a kind left in the tray
PILE_SCALE = 8.0           # cards in a pile, and a pile top's cost, bananas and recurring supply
SLOT_SCALE = 4.0           # recurring supply of a slot's top card
BONUS_SCALE = 4.0          # bonus cards of a player
CREDIT_SCALE = 6.0         # Monkey Credits this turn
ROUND_SCALE = 16.0         # rounds
BONUS_LEFT_SCALE = 14.0    # bonus cards left
BANANA_SCALE = 40.0        # Banana Points


N_PLANES = 1 + 13 + 3 + 3  # height, knob one-hot, monkey/butterfly/frog, legal anchors/anchor/decoration
# The vector's length, entry group by entry group (in the order observe() concatenates them).
VECTOR_SIZE = (len(Phase) + MAX_PLAYERS + MAX_PLAYERS * 3 + 3 + N_PILES + N_PILES * 5
               + MAX_PLAYERS * N_SLOTS * 3 + MAX_PLAYERS + 3 * 5 + 4 + MAX_PLAYERS)
# The complete build action's staircase in progress, after the catalogue's entries (which keep
# their places, so the catalogue's observation is unchanged): planes of the arches chosen so far
# (each covered stud at the arch's top height / 16) and of the cursor (where the next arch
# starts: the anchor, then the last arch's far end); vector entries of the last arch's heading
# one-hot (4, zero before arch 1), its top height / 16, the arches, brick units and tallest
# stack so far / 10, and whether a leg rests on an element yet (rule E).
COMPLETE_PLANES = 2
COMPLETE_VECTOR = 4 + 1 + 3 + 1


def sizes(complete: bool) -> tuple[int, int]:
    """(planes, vector entries) of an observation, for the catalogue or the complete build action."""
    return (N_PLANES + COMPLETE_PLANES, VECTOR_SIZE + COMPLETE_VECTOR) if complete else (N_PLANES, VECTOR_SIZE)


def observe(tables, rules, state: State, player) -> dict:
    """Public information from `player`'s seat: planes over the plate and a vector.

    planes (20, 32, 32) float32: height / 16, one-hot knob (13), monkey, butterfly, frog,
    legal anchors (when this player is choosing one), the chosen anchor, the new decoration.
    vector float32: phase one-hot (8), seat to play relative to `player` (4), supplies (4×3, rotated
    so `player` is first), tray (3), pile sizes (12), pile top cards' cost/bananas/recurring (12×5),
    top cards of every seat's slots' recurring supply (4×4×3), bonus cards (4), trophy holders
    relative (3×5), credits, round, end triggered, bonus cards left, Banana Points (4).
    With the complete build action (``rules.static.complete``) both go on with the staircase in
    progress (COMPLETE_PLANES, COMPLETE_VECTOR above; zeros outside this turn's build decisions).
    """
    t = tables
    player = jnp.asarray(player, jnp.int32)
    # Seats relative to the observer, counted among the players of this game (so the next
    # player is always second, whatever the observer's seat); empty seats stay last.
    seats = jnp.arange(MAX_PLAYERS)
    rot = jnp.where(seats < state.players, (seats + player) % state.players, seats)
    knob = jax.nn.one_hot(state.knob, 13, axis=0)
    animal = jnp.zeros((3, NUM_CELLS), jnp.float32)
    animal = animal.at[jnp.arange(3), jnp.maximum(state.animals, 0)].set((state.animals >= 0).astype(jnp.float32))
    mine = (state.current == player) & (state.phase == Phase.ANCHOR)
    anchor = jnp.zeros((NUM_CELLS,), jnp.float32).at[jnp.maximum(state.anchor, 0)].set((state.anchor >= 0) * 1.0)
    deco = jnp.zeros((NUM_CELLS,), jnp.float32).at[jnp.maximum(state.deco_cell, 0)].set((state.deco_cell >= 0) * 1.0)
    planes = jnp.concatenate([
        state.height[None].astype(jnp.float32) / HEIGHT_SCALE, knob,
        animal.reshape(3, BOARD_SIZE, BOARD_SIZE),
        (state.anchor_mask & mine).reshape(1, BOARD_SIZE, BOARD_SIZE).astype(jnp.float32),
        anchor.reshape(1, BOARD_SIZE, BOARD_SIZE), deco.reshape(1, BOARD_SIZE, BOARD_SIZE)])
    top = state.pile_cards[jnp.arange(N_PILES), jnp.maximum(state.pile_len - 1, 0)]
    has = (state.pile_len > 0)[:, None]
    pile_top = jnp.where(has, jnp.concatenate([t.card_cost[top][:, None], state.card_bananas[top][:, None],
                                                t.card_recurring[top]], 1), 0)
    slot_rec = jnp.where(state.slot_top[..., None] >= 0, t.card_recurring[jnp.maximum(state.slot_top, 0)], 0)
    holders = jax.nn.one_hot(jnp.where(state.holders >= 0, (state.holders - player) % state.players, 4), 5)
    vector = jnp.concatenate([
        jax.nn.one_hot(state.phase, 8), jax.nn.one_hot((state.current - player) % state.players, 4),
        state.supply[rot].reshape(-1) / SUPPLY_SCALE, state.tray / TRAY_SCALE, state.pile_len / PILE_SCALE,
        pile_top.reshape(-1) / PILE_SCALE, slot_rec[rot].reshape(-1) / SLOT_SCALE, state.bonus_cards[rot] / BONUS_SCALE,
        holders.reshape(-1), jnp.stack([state.credits / CREDIT_SCALE, state.round / ROUND_SCALE,
                                        state.end_triggered * 1.0, state.bonus_left / BONUS_LEFT_SCALE]),
        rules.bananas(state)[rot] / BANANA_SCALE,
    ]).astype(jnp.float32)
    if rules.static.complete:
        extra_planes, extra_vector = _staircase_in_progress(state)
        planes = jnp.concatenate([planes, extra_planes])
        vector = jnp.concatenate([vector, extra_vector])
    return {"planes": planes, "vector": vector}


def _staircase_in_progress(state: State):
    """The complete build's prefix (jaxgame/complete_build.py's fields) as 2 planes and 9 entries;
    public information (every seat sees the builder's choices), zeros outside the build decision."""
    building = state.phase == Phase.SHAPE
    J = state.arch_ends.shape[0]
    where = complete_build.arch_studs(state, building & (jnp.arange(J) < state.b_arches))
    top = jnp.zeros((NUM_CELLS,), jnp.float32).at[where].set(jnp.repeat(state.arch_level + 1, 4) / HEIGHT_SCALE,
                                                             mode="drop")
    cursor = jnp.zeros((NUM_CELLS,), jnp.float32).at[jnp.maximum(state.b_cursor, 0)].set(
        (building & (state.b_cursor >= 0)) * 1.0)
    started = building & (state.b_arches > 0)
    vector = jnp.concatenate([
        jax.nn.one_hot(state.b_heading, 4) * started,
        jnp.stack([jnp.where(started, state.b_level + 1, 0) / HEIGHT_SCALE,
                   jnp.where(building, state.b_arches, 0) / SUPPLY_SCALE,
                   jnp.where(building, state.b_units, 0) / SUPPLY_SCALE,
                   jnp.where(building, state.b_tallest, 0) / SUPPLY_SCALE,
                   (building & state.b_attached) * 1.0])]).astype(jnp.float32)
    return jnp.stack([top, cursor]).reshape(2, BOARD_SIZE, BOARD_SIZE), vector
