"""A JAX State holding what a reference Game shows at a decision: for agents that read the
JAX observation (a trained policy) but play a game of the reference engine.

Everything the observation and the legal mask read is filled in; the pile order is the
reference game's own (the observation shows only the tops). Checked against the JAX engine
decision by decision in tests/games/monkey_palace/test_ppo_agent.py.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from monkey_env.monkey_palace.actions import N_PILES, N_SLOTS, Phase
from monkey_env.monkey_palace.engine import Game
from monkey_env.monkey_palace.geometry import NUM_CELLS
from monkey_env.monkey_palace.jaxgame import complete_build
from monkey_env.monkey_palace.jaxgame.parity import END_KINDS
from monkey_env.monkey_palace.jaxgame.state import MAX_PLAYERS, PENDING_NONE, State


def jax_state_from_game(jax_game, game: Game) -> State:
    st = jax_game.static
    o = game.options
    n = o.players
    supply = np.zeros((MAX_PLAYERS, 3), np.int32)
    slot_top = np.full((MAX_PLAYERS, N_SLOTS), -1, np.int32)
    slot_depth = np.zeros((MAX_PLAYERS, N_SLOTS), np.int8)
    bonus = np.zeros(MAX_PLAYERS, np.int32)
    owner = np.full(st.n_cards, -1, np.int8)
    for seat, p in enumerate(game.players):
        supply[seat] = p.supply.as_tuple()
        bonus[seat] = p.bonus_cards
        for i, slot in enumerate(p.slots):
            slot_top[seat, i] = slot[-1] if slot else -1
            slot_depth[seat, i] = len(slot)
        for c in game.owned_cards(seat):
            owner[c] = seat
    pile_cards = np.full((N_PILES, st.max_pile), -1, np.int32)
    for i, pile in enumerate(game.piles):
        pile_cards[i, :len(pile)] = pile
    t = game.turn
    s = jax_game.blank_state()
    anchor_mask = np.zeros(NUM_CELLS, bool)
    shape_mask = np.zeros(s.shape_mask.shape, bool)
    if game.phase == Phase.ANCHOR:
        anchor_mask = game.anchor_cells()
    elif game.phase == Phase.SHAPE and not st.complete:
        shape_mask = game.build_matrix()[:, t.anchor]
    arch_ends = np.full(s.arch_ends.shape[0], -1, np.int32)
    arch_ends[:len(t.arch_ends)] = t.arch_ends
    bought = np.full(N_PILES, -1, np.int32)
    bought[:len(t.bought)] = t.bought
    params = jax_game.params(o)
    s = s._replace(
        height=jnp.asarray(game.palace.height, jnp.int8), knob=jnp.asarray(game.palace.knob, jnp.int8),
        animals=jnp.asarray(game.palace.animals, jnp.int32), deco_max=jnp.asarray(game.palace.deco_max, jnp.int32),
        tray=jnp.asarray(game.tray.as_tuple(), jnp.int32), supply=jnp.asarray(supply),
        card_owner=jnp.asarray(owner), slot_top=jnp.asarray(slot_top), slot_depth=jnp.asarray(slot_depth),
        pile_cards=jnp.asarray(pile_cards), pile_len=jnp.asarray([len(p) for p in game.piles], jnp.int32),
        bonus_left=jnp.int32(game.bonus_left), bonus_cards=jnp.asarray(bonus),
        holders=jnp.asarray([game.holders[k] for k in ("monkey", "butterfly", "frog")], jnp.int32),
        players=jnp.int32(n), options=params.options, card_bananas=params.card_bananas,
        bonus_points=params.bonus_points, trophy_points=params.trophy_points, current=jnp.int32(game.current),
        round=jnp.int32(game.round),
        turns_played=jnp.int32(game.turns_played), end_triggered=jnp.asarray(game.end_triggered),
        end_kind=jnp.int32(END_KINDS.get(game.end_shortage, -1)), phase=jnp.int32(int(game.phase)),
        anchor_mask=jnp.asarray(anchor_mask), shape_mask=jnp.asarray(shape_mask),
        anchor=jnp.int32(t.anchor), colour=jnp.int32(t.colour), deco_cell=jnp.int32(t.deco_cell),
        deco_top=jnp.int32(t.deco_top), arch_ends=jnp.asarray(arch_ends), max_stack=jnp.int32(t.max_stack),
        credits=jnp.int32(t.credits), highest_of_colour=jnp.asarray(t.highest_of_colour),
        highest_overall=jnp.asarray(t.highest_overall), bought=jnp.asarray(bought), n_bought=jnp.int32(len(t.bought)),
        terminated=jnp.asarray(game.game_over))
    if st.complete:
        s = _staircase_in_progress(jax_game, game, s)
    return s


def _staircase_in_progress(jax_game, game: Game, s: State) -> State:
    """The complete build action's prefix, made by the JAX engine's own steps (the anchor, then
    each arch), and the build decision's mask, the reference game's own."""
    if game.phase == Phase.SHAPE:
        s = complete_build.begin(s, jnp.int32(game.turn.anchor))
        for heading, rise in game.turn.steps:
            s = complete_build.add_arch(s, jnp.int32(heading), jnp.int32(rise), jax_game.static)
        L = game.layout
        s = s._replace(shape_mask=jnp.asarray(game.legal_mask()[L.arch:L.finish + 1]), pending=jnp.int32(PENDING_NONE))
    return s._replace(over_cap=complete_build.over_cap(s, jax_game.static))
