"""The game data as fixed-shape arrays for the JAX engine, built from the same GameData
(and so the same configs/ files) as the reference engine: no number is written twice.

The numbers a balance tune may change (cards' Banana Points, boards' starting supply, bonus
card and trophy points) are not here: they are per game, traced (params.Params, VALUE_FIELDS,
copied into the State), so one compiled engine plays every candidate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from monkey_env.core.jax_cache import on_device
from monkey_env.monkey_palace.catalogue import ARCH_SPAN
from monkey_env.monkey_palace.game_data import GameData
from monkey_env.monkey_palace.geometry import heading_step

INSTANT_CODES = {"arch": 0, "brick": 1, "column": 2, "arch_or_brick": 3}
COLOUR_CODES = {"light": 0, "dark": 1, "gold": 2, "multi": 3}


class Tables(NamedTuple):
    """Arrays of the game data. C cards, P max pile size, S shapes, J max arches."""

    card_cost: jnp.ndarray       # (C,) int32
    card_colour: jnp.ndarray     # (C,) int32 0 light, 1 dark, 2 gold, 3 multi
    card_pile: jnp.ndarray       # (C,) int32
    card_instant: jnp.ndarray    # (C, I) int32 INSTANT_CODES, -1 padding
    card_recurring: jnp.ndarray  # (C, 3) int32 arches, bricks, columns
    pile_cards: jnp.ndarray      # (12, P) int32 card ids in config order, -1 padding
    pile_size: jnp.ndarray       # (12,) int32
    board_recurring: jnp.ndarray  # (4, 3) int32
    tray_total: jnp.ndarray      # (3,) int32
    shape_k: jnp.ndarray         # (S,) int32 number of arches
    shape_base: jnp.ndarray      # (S,) int32
    shape_rise: jnp.ndarray      # (S,) int32
    arch_near: jnp.ndarray       # (S, J, 2) int32 dx, dy of each arch's near leg from the anchor
    arch_m1: jnp.ndarray         # (S, J, 2) int32 first middle cell
    arch_m2: jnp.ndarray         # (S, J, 2) int32 second middle cell
    arch_far: jnp.ndarray        # (S, J, 2) int32 far leg cell
    arch_level: jnp.ndarray      # (S, J) int32 level of the legs
    arch_valid: jnp.ndarray      # (S, J) bool j < k


@dataclass(frozen=True)
class Static:
    """Sizes and scalars fixed at trace time."""

    n_cards: int
    n_shapes: int
    max_arches: int
    max_icons: int
    max_pile: int
    pad: int                 # padding of the plate for shifted reads (> reach of any shape)
    column_units: int
    animal_height: int
    bonus_cards: int
    bonus_min_stack: int
    headings: tuple[int, ...]     # the catalogue's headings and bases (it is the same shape set for each)
    bases: tuple[int, ...]        # lanes are (heading, base) pairs in this order, bases fastest
    east_tree: tuple              # the shape tree of one east-heading base, nested tuples:
                                  # (depth, m1, m2, far, level above the base, rise, children)
    shape_lane_node: tuple[int, ...]  # (S,) each shape's lane * n_nodes + tree node (preorder)
    # The complete build action (JaxGame with build_action "complete"; see jaxgame/complete_build.py).
    complete: bool = False
    n_rises: int = 0              # rises 0..n_rises-1 per arch (the tray's units + 1)
    caps: object = None           # complete_masks.Caps: the tables' static sizes


def build_tables(data: GameData) -> tuple[Tables, Static]:
    shapes = data.shapes
    J = max(s.arches for s in shapes)
    S = len(shapes)
    near = np.zeros((S, J, 2), np.int32)
    m1, m2, far = near.copy(), near.copy(), near.copy()
    level = np.zeros((S, J), np.int32)
    valid = np.zeros((S, J), bool)
    for s in shapes:
        for j, st in enumerate(s.steps):
            sx, sy = heading_step(st.heading)
            near[s.index, j] = (st.dx, st.dy)
            m1[s.index, j] = (st.dx + sx, st.dy + sy)
            m2[s.index, j] = (st.dx + 2 * sx, st.dy + 2 * sy)
            far[s.index, j] = (st.dx + ARCH_SPAN * sx, st.dy + ARCH_SPAN * sy)
            level[s.index, j] = st.level
            valid[s.index, j] = True
    cards = data.cards
    I = max(1, max(len(c.instant) for c in cards))  # noqa: E741  (I, P, S, J: the shape letters of the comments above)
    P = max(len(p) for p in data.pile_cards)
    instant = np.full((len(cards), I), -1, np.int32)
    for c in cards:
        instant[c.id, :len(c.instant)] = [INSTANT_CODES[i] for i in c.instant]
    pile_cards = np.full((12, P), -1, np.int32)
    for p, ids in enumerate(data.pile_cards):
        pile_cards[p, :len(ids)] = ids
    boards = data.boards.boards
    el = lambda e: (e.arches, e.bricks, e.columns)
    tray = data.tray
    tables = Tables(
        card_cost=on_device([c.cost for c in cards], np.int32),
        card_colour=on_device([COLOUR_CODES[c.colour] for c in cards], np.int32),
        card_pile=on_device([c.pile for c in cards], np.int32),
        card_instant=on_device(instant),
        card_recurring=on_device([c.recurring for c in cards], np.int32),
        pile_cards=on_device(pile_cards),
        pile_size=on_device([len(p) for p in data.pile_cards], np.int32),
        board_recurring=on_device([el(b.recurring) for b in boards], np.int32),
        tray_total=on_device(el(tray.elements), np.int32),
        shape_k=on_device([s.arches for s in shapes], np.int32),
        shape_base=on_device([s.base for s in shapes], np.int32),
        shape_rise=on_device([s.rise for s in shapes], np.int32),
        arch_near=on_device(near), arch_m1=on_device(m1), arch_m2=on_device(m2), arch_far=on_device(far),
        arch_level=on_device(level), arch_valid=on_device(valid),
    )
    # The anchor mask works on int8 planes: every height, level and unit count must fit.
    most_units = max(s.base + (s.arches - 1) * s.rise + sum(st.level for st in s.steps) for s in shapes)
    if most_units > 120 or level.max() + 2 > 120:
        raise ValueError(f"catalogue {data.catalogue_config}: staircases up to {most_units} units and level "
                         f"{level.max()} are too tall for the JAX engine (at most 120); use smaller bases/rises")
    lanes = data.lane_tree
    static = Static(
        n_cards=len(cards), n_shapes=S, max_arches=J, max_icons=I, max_pile=P,
        pad=data.shape_tree.max_reach + ARCH_SPAN + 1, column_units=tray.column_units, animal_height=tray.animal_height,
        bonus_cards=tray.bonus.cards, bonus_min_stack=tray.bonus.min_stack,
        headings=tuple(lanes.headings), bases=tuple(lanes.bases), east_tree=_east_tree(data),
        shape_lane_node=_shape_lane_node(lanes),
    )
    return tables, static


def _shape_lane_node(lanes) -> tuple[int, ...]:
    """Where each shape sits among the lanes' tree nodes: lane * n_nodes + node."""
    n_nodes, n_lanes = lanes.lane_shapes.shape
    where = np.full(lanes.n_shapes, -1)
    for node in range(n_nodes):
        for lane in range(n_lanes):
            where[lanes.lane_shapes[node, lane]] = lane * n_nodes + node
    if (where < 0).any():
        raise ValueError("the catalogue must hold the same shapes for every heading and base")
    return tuple(int(w) for w in where)


def _east_tree(data: GameData) -> tuple:
    """The east-heading subtree on the first base (build_legality.LaneTree) as nested tuples:
    (depth, m1, m2, far, level above the base, rise, children)."""
    lanes = data.lane_tree

    def node(n: int) -> tuple:
        _, depth, m1, m2, far, level, rise = lanes.nodes[n]
        return (depth, m1, m2, far, level, rise, tuple(node(c) for c in lanes.children[n + 1]))

    return tuple(node(r) for r in lanes.children[0])
