"""The JAX engine's state: one game of The Shadow Theater, every field with its shape and dtype.

R = actions.MAX_ROUNDS (rounds dealt in advance), C = 17 cards, K = weapon kinds, S = 10 scrolls.
A batch adds a leading axis B to every field.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp


class State(NamedTuple):
    deal_cards: jnp.ndarray      # (R, C) int32: each round's card order; the first 9 are its deck, top first
    deal_scrolls: jnp.ndarray    # (R, S) int32: each round's scroll order; starter draws [0:2], the other [2:4]
    deal_king: jnp.ndarray       # (R,) int32: the King's starting location of each round
    round: jnp.ndarray           # () int32: rounds started (1 during the first)
    starter: jnp.ndarray         # () int32: the seat that started this round
    current: jnp.ndarray         # () int32: the seat to decide
    phase: jnp.ndarray           # () int32: actions.DRAFT, TURN, KING_MOVE, OVER
    king_ends_turn: jnp.ndarray  # () bool: the pending King move came from a Garden placement
    reserve: jnp.ndarray         # (3,) int32: monkeys, jade, peaches left in the reserve
    supply: jnp.ndarray          # (2, 3) int32: each seat's monkeys, jade, peaches
    holder: jnp.ndarray          # (C,) int32: the seat holding each card in hand, -1 none
    deck_top: jnp.ndarray        # () int32: cards drawn from this round's deck (empty at 9)
    discarded: jnp.ndarray       # (C,) bool: played this round (face up beside the reserve)
    board: jnp.ndarray           # (3,) int32: monkeys on each location
    king: jnp.ndarray            # () int32: the Monkey King's location
    scroll: jnp.ndarray          # (2,) int32: each seat's kept scroll this round, -1 none yet
    lanterns: jnp.ndarray        # (2,) int32: Lanterns taken
    round_points: jnp.ndarray    # (R, 2) int32: each scored round's points (0 before)
    round_winner: jnp.ndarray    # (R,) int32: each scored round's winner, -1 void, -2 not scored
    kind_played: jnp.ndarray     # (2, K) int32: weapon cards played by kind, whole game
    kind_held: jnp.ndarray       # (2, K) int32: weapon cards in hand at a round's end by kind, whole game
    scroll_rounds: jnp.ndarray   # (2, S) int32: rounds each scroll was kept, whole game
    terminated: jnp.ndarray      # () bool: the game is over (or ended on an illegal action)
    illegal: jnp.ndarray         # () bool: it ended on an illegal action
    rewards: jnp.ndarray         # (2,) float32: this step's reward per seat (Lanterns, zero-sum)
    decisions: jnp.ndarray       # () int32: decisions made
    # --- the game's values (engine.VALUE_FIELDS): the game data's, unless a balance tune traces others
    card_amount: jnp.ndarray     # (C,) int32: each card's amount (gain, steal, recall)
    card_points: jnp.ndarray     # (C,) int32: each card's points in hand at a round's end
    scroll_amount: jnp.ndarray   # (S,) int32: each scroll's amount
    scoring: jnp.ndarray         # (5,) int32: engine.SCORING_FIELDS of game.yaml's scoring
    starting_monkeys: jnp.ndarray  # (2,) int32: monkeys the round's starter and the other take
    lanterns_to_win: jnp.ndarray  # () int32: Lanterns that end the game
