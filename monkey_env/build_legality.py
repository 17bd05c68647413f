"""Legality of every (anchor, shape) pair at once, fast enough to compute every turn.

``Palace.check_staircase`` states the rules one staircase at a time; this module
computes exactly the same verdicts for the whole catalogue over all anchors with numpy,
sharing work between shapes with a common prefix: shapes form a tree (heading, base,
rise, then one arch per level of the tree), each tree node holds a 32x32 array over
anchors, and a subtree is skipped as soon as no anchor is left alive in it.
The differential test in tests/test_build_legality.py holds the two together.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from monkey_env.catalogue import ARCH_SPAN, ArchStep, Shape
from monkey_env.geometry import BOARD_SIZE, BUILDABLE, GROUND_OF_COLOUR, OFF_PLATE, Knob, heading_step

_BUILDABLE_TABLE = np.array([Knob(k) in BUILDABLE for k in range(len(Knob))])
_GROUND_TABLE = np.array([Knob(k) in GROUND_OF_COLOUR for k in range(len(Knob))])
_FAR = 10_000  # the height of everything off the plate: no arch passes there


@dataclass
class _Node:
    step: ArchStep
    rise_below: int            # units stacked under this arch's near leg (base for arch 1, rise after)
    depth: int                 # number of arches so far
    children: list[int] = field(default_factory=list)
    shapes: list[int] = field(default_factory=list)  # catalogue shapes that end at this node


class ShapeTree:
    """The catalogue as a prefix tree of arches (built once per catalogue)."""

    def __init__(self, shapes: tuple[Shape, ...]):
        self.shapes = shapes
        self.nodes: list[_Node] = []
        self.roots: list[int] = []
        index: dict[tuple, int] = {}
        for shape in shapes:
            parent = None
            for j, step in enumerate(shape.steps):
                # The path so far is fixed by heading, base, the turns so far and, from arch 2, the rise.
                key = (shape.heading, shape.base, shape.rise if j else None, shape.turns[:j])
                if key not in index:
                    index[key] = len(self.nodes)
                    self.nodes.append(_Node(step, shape.base if j == 0 else shape.rise, j + 1))
                    (self.roots if parent is None else self.nodes[parent].children).append(index[key])
                parent = index[key]
            self.nodes[parent].shapes.append(shape.index)
        self.max_reach = max((abs(c) for s in shapes for st in s.steps for c in st.far), default=0) + 1


def legal_build_matrix(palace, tree: ShapeTree, arches: int, bricks: int, columns: int,
                       column_units: int = 3) -> np.ndarray:
    """(n_shapes, 32, 32) bool: shape s built from anchor (x, y) is legal, indexed [s, y, x]."""
    pad = tree.max_reach + ARCH_SPAN
    size = BOARD_SIZE + 2 * pad
    height = np.full((size, size), _FAR, np.int32)
    height[pad:-pad, pad:-pad] = palace.height
    animal = np.zeros((BOARD_SIZE, BOARD_SIZE), bool)
    for cell in palace.animals:
        if cell != OFF_PLATE:
            animal.flat[cell] = True
    clearance = height.copy()
    clearance[pad:-pad, pad:-pad] += animal * palace.animal_height
    rest_ok = np.zeros((size, size), bool)
    rest_ok[pad:-pad, pad:-pad] = _BUILDABLE_TABLE[palace.knob] & ~animal

    def at(grid: np.ndarray, dx: int, dy: int) -> np.ndarray:
        """grid[anchor + (dx, dy)] for every anchor, as a 32x32 view."""
        return grid[pad + dy: pad + dy + BOARD_SIZE, pad + dx: pad + dx + BOARD_SIZE]

    # A: the anchor is an open coloured ground stud.
    anchor_ok = _GROUND_TABLE[palace.knob] & ~animal
    legal = np.zeros((len(tree.shapes), BOARD_SIZE, BOARD_SIZE), bool)
    zeros = np.zeros((BOARD_SIZE, BOARD_SIZE), np.int32)
    stack = [(r, anchor_ok, zeros, zeros, np.zeros_like(anchor_ok)) for r in tree.roots]
    while stack:
        node_id, alive, units, column_slots, attached = stack.pop()
        node = tree.nodes[node_id]
        if node.depth > arches:
            continue
        st = node.step
        sx, sy = heading_step(st.heading)
        m1 = at(clearance, st.dx + sx, st.dy + sy)
        m2 = at(clearance, st.dx + 2 * sx, st.dy + 2 * sy)
        far_dx, far_dy = st.dx + ARCH_SPAN * sx, st.dy + ARCH_SPAN * sy
        below = at(height, far_dx, far_dy)
        alive = alive & (m1 <= st.level) & (m2 <= st.level) & (below <= st.level) & at(rest_ok, far_dx, far_dy)
        if not alive.any():
            continue
        support = st.level - below
        units = units + node.rise_below + support
        column_slots = column_slots + node.rise_below // column_units + support // column_units
        # Columns first (as in Palace._allocate_columns): the bricks still needed only grow
        # along a path, so a node short of bricks prunes its whole subtree.
        need_bricks = units - column_units * np.minimum(column_slots, columns)
        alive &= need_bricks <= bricks
        attached = attached | (below > 0)
        for s in node.shapes:
            legal[s] = alive & attached
        for child in node.children:
            stack.append((child, alive, units, column_slots, attached))
    return legal
