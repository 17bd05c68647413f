"""Legality of every (anchor, shape) pair at once, fast enough to compute every turn.

``Palace.check_staircase`` states the rules one staircase at a time; this module
computes exactly the same verdicts for the whole catalogue over all anchors with numpy,
sharing work between shapes with a common prefix: shapes form a tree (heading, base,
rise, then one arch per level of the tree), each tree node holds arrays over anchors,
and a subtree is skipped as soon as no anchor is left alive in it. The four headings
and the bases are lanes of one east-facing subtree over turned copies of the palace.
The differential test in tests/games/monkey_palace/test_build_legality.py holds the two together.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from monkey_env.monkey_palace.catalogue import ARCH_SPAN, ArchStep, Shape
from monkey_env.monkey_palace.geometry import BOARD_SIZE, BUILDABLE, GROUND_OF_COLOUR, OFF_PLATE, Knob, heading_step

BUILDABLE_TABLE = np.array([Knob(k) in BUILDABLE for k in range(len(Knob))])
GROUND_TABLE = np.array([Knob(k) in GROUND_OF_COLOUR for k in range(len(Knob))])
_FAR = 10_000  # the height of everything off the plate: no arch passes there (int16 planes)


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


class LaneTree:
    """The catalogue as one east-facing subtree evaluated in lanes, one lane per (heading, base).

    The catalogue is the same turn programmes and rises for every heading and base, so a
    shape heading h from an anchor on the palace is the east-heading shape on the palace
    turned so that h faces east. Each lane holds one turned palace; a tree node is then one
    numpy operation for all lanes (the JAX engine does the same, see jaxgame/legality.py)."""

    def __init__(self, tree: ShapeTree):
        shapes = tree.shapes
        east = 1
        self.headings = sorted({s.heading for s in shapes})
        self.bases = sorted({s.base for s in shapes})
        if east not in self.headings:
            raise ValueError("the catalogue must include heading E")
        self.lanes = [(h, b) for h in self.headings for b in self.bases]
        by_key = {(s.heading, s.base, s.rise if s.arches > 1 else None, s.turns): s.index for s in shapes}
        self.nodes: list[tuple] = []     # (parent or -1, depth, m1, m2, far, level above base, rise)
        lane_shapes: list[list[int]] = []
        base0 = self.bases[0]

        def add(n: int, parent: int) -> None:
            node = tree.nodes[n]
            sx, sy = heading_step(node.step.heading)
            cell = lambda f: (node.step.dx + f * sx, node.step.dy + f * sy)
            me = len(self.nodes)
            self.nodes.append((parent, node.depth, cell(1), cell(2), cell(ARCH_SPAN),
                               node.step.level - base0, node.rise_below))
            shape = shapes[node.shapes[0]]
            key = lambda h, b: (h, b, shape.rise if shape.arches > 1 else None, shape.turns)
            try:
                lane_shapes.append([by_key[key(h, b)] for h, b in self.lanes])
            except KeyError:
                raise ValueError("the catalogue must hold the same shapes for every heading and base") from None
            for c in node.children:
                add(c, me)

        for r in tree.roots:
            first = shapes[tree.nodes[r].shapes[0]] if tree.nodes[r].shapes else None
            if first is not None and first.heading == east and first.base == base0:
                add(r, -1)
        self.lane_shapes = np.array(lane_shapes)          # (n_nodes, n_lanes) shape index
        self.children = [[i for i, n in enumerate(self.nodes) if n[0] == p] for p in range(-1, len(self.nodes))]
        self.n_shapes = len(shapes)
        self.pad = tree.max_reach + ARCH_SPAN


def legal_build_matrix(palace, lanes: LaneTree, arches: int, bricks: int, columns: int,
                       column_units: int = 3) -> np.ndarray:
    """(n_shapes, 32, 32) bool: shape s built from anchor (x, y) is legal, indexed [s, y, x]."""
    pad = lanes.pad
    animal = np.zeros((BOARD_SIZE, BOARD_SIZE), bool)
    for cell in palace.animals:
        if cell != OFF_PLATE:
            animal.flat[cell] = True
    height = np.pad(palace.height.astype(np.int16), pad, constant_values=_FAR)
    clearance = np.pad((palace.height + animal * palace.animal_height).astype(np.int16), pad, constant_values=_FAR)
    rest_ok = np.pad(BUILDABLE_TABLE[palace.knob] & ~animal, pad, constant_values=False)
    anchor_ok = GROUND_TABLE[palace.knob] & ~animal
    # Quarter turns (counter-clockwise) taking each lane's heading to east, and back.
    turns = [h - 1 for h, _ in lanes.lanes]
    turned = lambda plane: np.stack([np.rot90(plane, k) for k in turns])
    height, clearance, rest_ok, anchor_ok = turned(height), turned(clearance), turned(rest_ok), turned(anchor_ok)
    base = np.array([b for _, b in lanes.lanes], np.int16).reshape(-1, 1, 1)

    def at(grid: np.ndarray, d: tuple[int, int]) -> np.ndarray:
        """grid[anchor + d] for every lane and anchor."""
        return grid[:, pad + d[1]: pad + d[1] + BOARD_SIZE, pad + d[0]: pad + d[0] + BOARD_SIZE]

    found = np.zeros((len(lanes.nodes), len(lanes.lanes), BOARD_SIZE, BOARD_SIZE), bool)
    zeros = np.zeros_like(anchor_ok, dtype=np.int16)
    todo = [(n, anchor_ok, zeros, zeros, np.zeros_like(anchor_ok)) for n in lanes.children[0]]
    while todo:
        n, alive, units, slots, attached = todo.pop()
        _, depth, m1, m2, far, level_offset, rise = lanes.nodes[n]
        if depth > arches:
            continue
        level = base + np.int16(level_offset)
        under = at(height, far)
        alive = alive & (at(clearance, m1) <= level) & (at(clearance, m2) <= level) & (under <= level) & at(rest_ok, far)
        if not alive.any():
            continue
        below_leg = base if depth == 1 else np.int16(rise)
        support = level - under
        units = units + below_leg + support
        slots = slots + below_leg // column_units + support // column_units
        # Columns first (as in Palace._allocate_columns): the bricks still needed only grow
        # along a path, so a node short of bricks prunes its whole subtree.
        alive &= units - column_units * np.minimum(slots, columns) <= bricks
        attached = attached | (under > 0)
        found[n] = alive & attached
        todo.extend((c, alive, units, slots, attached) for c in lanes.children[n + 1])
    legal = np.zeros((lanes.n_shapes, BOARD_SIZE, BOARD_SIZE), bool)
    for lane, k in enumerate(turns):
        legal[lanes.lane_shapes[:, lane]] = np.rot90(found[:, lane], -k, axes=(1, 2))
    return legal
