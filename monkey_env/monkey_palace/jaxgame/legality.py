"""Legality of staircases in JAX: the anchor mask of a turn and the shape mask at an anchor.

Both compute exactly what ``Palace.check_staircase`` decides (tests/games/monkey_palace/test_jax_engine.py).
The anchor mask evaluates the catalogue's tree as in build_legality.legal_build_matrix:
one east-facing subtree, unrolled with static slices of padded int8 planes, under vmap
over the (heading, base) lanes of turned palaces. The shape mask at one chosen anchor walks
the same tree on a small window of the palace around that anchor. It also holds what both
build actions share once a staircase is chosen: each stud's last write (``last_writes``) and
the staircase put on the palace with its credits (``place_staircase``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from monkey_env.core.jax_cache import on_device
from monkey_env.monkey_palace.actions import Phase
from monkey_env.monkey_palace.geometry import BOARD_SIZE, BUILDABLE, GROUND_OF_COLOUR, NUM_CELLS, Knob, heading_step
from monkey_env.monkey_palace.jaxgame.state import State
from monkey_env.monkey_palace.jaxgame.tables import Static, Tables

_BUILDABLE = on_device([Knob(k) in BUILDABLE for k in range(len(Knob))])
_GROUND = on_device([Knob(k) in GROUND_OF_COLOUR for k in range(len(Knob))])
HEADING_STEPS = on_device([heading_step(h) for h in range(4)], np.int32)   # (4, 2) dx, dy per heading
_FAR = 127  # height of everything off the plate: no arch passes there


def animal_plane(state: State) -> jnp.ndarray:
    """(32, 32) bool: an animal stands on the cell."""
    flat = jnp.zeros((BOARD_SIZE * BOARD_SIZE + 1,), bool).at[jnp.where(state.animals >= 0, state.animals, -1)].set(True)
    return flat[:-1].reshape(BOARD_SIZE, BOARD_SIZE)


def padded_planes(state: State, static: Static):
    """Height, clearance (height + a standing animal) and can-rest-on, padded by `static.pad`."""
    animal = animal_plane(state)
    height = state.height  # int8: small planes vectorise best
    pad = static.pad
    height_p = jnp.pad(height, pad, constant_values=_FAR)
    clear_p = jnp.pad(height + (animal * static.animal_height).astype(jnp.int8), pad, constant_values=_FAR)
    rest_p = jnp.pad(_BUILDABLE[state.knob] & ~animal, pad, constant_values=False)
    return height_p, clear_p, rest_p, _GROUND[state.knob] & ~animal


def div_small(x, divisor: int):
    """x // divisor for int8 planes with 0 <= x <= 127, by a multiply and a shift (integer
    division does not vectorise); negative x (only on cells already ruled out) may be off."""
    for shift in range(8, 16):
        m = -(-(1 << shift) // divisor)
        if 127 * m < (1 << 15) and all((v * m) >> shift == v // divisor for v in range(128)):
            return ((x.astype(jnp.int16) * m) >> shift).astype(x.dtype)
    return x // divisor


def bricks_needed(units, slots, columns, column_units: int):
    """Columns first: each column replaces column_units bricks in a stack tall enough."""
    return units - column_units * jnp.minimum(slots, columns)


def anchor_mask(state: State, tables: Tables, static: Static) -> jnp.ndarray:
    """(1024,) bool: some catalogue shape is legal from this anchor for the current player.

    The catalogue is the same for every heading, turned: so the palace is turned instead
    (heading h onto east), and one east-facing subtree per base is evaluated for all
    (heading, base) pairs at once with vmap, then turned back."""
    found = lane_walk(state, static, lambda acc, extra, node: acc | node["legal"], jnp.zeros((BOARD_SIZE, BOARD_SIZE), bool))
    return found.any(0).reshape(-1)


def _lanes(static: Static) -> list[tuple[int, int]]:
    """(quarter turns taking the lane's heading to east, base) of every lane, in lane order."""
    return [(h - 1, b) for h in static.headings for b in static.bases]


def lane_walk(state: State, static: Static, on_node, init, extra=None):
    """Walk the east subtree in every (heading, base) lane of the turned palace, all anchors
    at once: ``acc = on_node(acc, extra, node)`` at every tree node (one shape per lane), where
    ``node`` holds the node's ``depth`` (arches), its last arch's ``level`` (brick units), the
    (32, 32) planes ``legal`` (the shape is legal from that anchor) and ``tallest`` (its
    tallest stack, units), all in the lane's turned frame. ``extra`` (a (32, 32) plane or
    None) is turned with the lane. Returns the lanes' final ``acc`` planes turned back,
    stacked: (n_lanes, 32, 32)."""
    height_p, clear_p, rest_p, anchor_ok = padded_planes(state, static)
    supply = state.supply[state.current].astype(jnp.int8)
    lanes = _lanes(static)
    stack = lambda plane: jnp.stack([jnp.rot90(plane, k) for k, _ in lanes])
    extras = None if extra is None else stack(extra)
    found = jax.vmap(lambda h, c, r, a, base, e: _east_subtree(h, c, r, a, base, supply, static, BOARD_SIZE,
                                                               on_node, init, e))(
        stack(height_p), stack(clear_p), stack(rest_p), stack(anchor_ok),
        jnp.asarray([b for _, b in lanes], jnp.int8), extras)
    return jnp.stack([jnp.rot90(found[i], -k) for i, (k, _) in enumerate(lanes)])


def walk_at_anchor(state: State, static: Static, anchor) -> dict:
    """Every shape from one anchor: the same tree walk as ``lane_walk``, read at the cells of
    one anchor only. Returns ``legal`` (S,) bool and ``tallest`` (S,) int8 (its tallest stack,
    units), by shape index.

    With one anchor there is nothing to vectorise over but the tree, so the nodes are one
    axis: each (lane, node) reads its three cells with one gather per plane, and the sums,
    maxima and conjunctions along a node's path are taken by following parents (depth
    times) instead of unrolling the tree node by node; a program about a fifth the size,
    and about that much faster to compile (docs/JAX_ENGINE.md). Same int8 arithmetic as
    the walk node by node (sums along a path are the same modulo 256 in any order)."""
    height_p, clear_p, rest_p, anchor_ok = padded_planes(state, static)
    tree = _tree_arrays(static)
    lanes = _lanes(static)
    cu = static.column_units
    arches, bricks, columns = state.supply[state.current].astype(jnp.int8)
    width = height_p.shape[1]
    ax, ay = anchor % BOARD_SIZE, anchor // BOARD_SIZE
    corner = ay * width + ax   # padded cell (ay, ax) is the top-left of the anchor's window

    def cells(plane, which):   # (lanes, nodes): the plane at each node's cell, in every lane's frame
        return plane.reshape(-1)[corner + tree[which]]

    base = jnp.asarray([b for _, b in lanes], jnp.int8)[:, None]
    level = base + tree["level"]
    below_leg = jnp.where(tree["depth"] == 1, base, tree["rise"])
    under = cells(height_p, "far")
    fits = (cells(clear_p, "m1") <= level) & (cells(clear_p, "m2") <= level) & (under <= level) & cells(rest_p, "far")
    support = level - under
    units = _along_path(below_leg + support, tree["parent"], jnp.add, jnp.int8(0))
    slots = _along_path(below_leg // cu + div_small(support, cu), tree["parent"], jnp.add, jnp.int8(0))
    alive = _along_path(fits & (bricks_needed(units, slots, columns, cu) <= bricks), tree["parent"], jnp.logical_and,
                        anchor_ok[ay, ax])
    attached = _along_path(under > 0, tree["parent"], jnp.logical_or, False)
    tallest = _along_path(jnp.maximum(below_leg, support), tree["parent"], jnp.maximum, jnp.int8(0))
    legal = alive & attached & (tree["depth"] <= arches)
    where = jnp.asarray(static.shape_lane_node)   # lane * nodes + node
    return {"legal": legal.reshape(-1)[where], "tallest": tallest.reshape(-1)[where]}


def _along_path(value, parent: np.ndarray, combine, at_root):
    """``combine`` of ``value`` (lanes, nodes) over each node's path from the root, node
    included; ``at_root`` is what a root's missing parent contributes."""
    is_root = parent < 0
    total = combine(value, at_root)
    for _ in range(int(_depth_of(parent)) - 1):
        total = combine(value, jnp.where(is_root, at_root, total[:, np.maximum(parent, 0)]))
    return total.astype(value.dtype)


def _depth_of(parent: np.ndarray) -> int:
    depth = np.ones(len(parent), int)
    for n, p in enumerate(parent):   # preorder: a parent comes before its children
        if p >= 0:
            depth[n] = depth[p] + 1
    return depth.max()


_TREES: dict[int, tuple] = {}


def _tree_arrays(static: Static) -> dict:
    """The east tree's nodes in preorder (the walk's order, as ``static.shape_lane_node``) as
    arrays: ``depth``, ``level`` (above the base) and ``rise`` (int8), ``parent`` (-1 at a
    root), and per lane the padded-plane offsets of the nodes' ``m1``, ``m2`` and ``far``
    cells from the anchor window's corner, turned into the lane's frame, (lanes, nodes)."""
    cached = _TREES.get(id(static))
    if cached is not None and cached[0] is static:
        return cached[1]
    rows = []

    def add(node, parent):
        depth, m1, m2, far, level, rise, children = node
        rows.append((depth, m1, m2, far, level, rise, parent))
        here = len(rows) - 1
        for child in children:
            add(child, here)

    for root in static.east_tree:
        add(root, -1)
    pad = static.pad
    width = BOARD_SIZE + 2 * pad             # the padded plane's side
    window = np.arange(2 * pad + 1)
    window = window[:, None] * width + window[None, :]   # window cell -> offset from its corner
    tree = {"depth": np.asarray([r[0] for r in rows]), "level": np.asarray([r[4] for r in rows], np.int8),
            "rise": np.asarray([r[5] for r in rows], np.int8), "parent": np.asarray([r[6] for r in rows])}
    for name, column in (("m1", 1), ("m2", 2), ("far", 3)):
        # rot90(window, k)[pad + dy, pad + dx]: the lane's turned frame, as lane_walk turns the palace
        tree[name] = np.stack([np.asarray([np.rot90(window, k)[pad + r[column][1], pad + r[column][0]] for r in rows])
                               for k, _ in _lanes(static)])
    _TREES[id(static)] = (static, tree)
    return tree


def _east_subtree(height_p, clear_p, rest_p, anchor_ok, base, supply, static: Static, size: int,
                  on_node, acc, extra):
    """The tree unrolled for one lane (east-heading shapes with this base), see lane_walk:
    the planes are padded by ``static.pad`` around ``size`` x ``size`` anchors."""
    pad, cu = static.pad, static.column_units
    arches, bricks, columns = supply

    def at(plane, d):
        return plane[pad + d[1]: pad + d[1] + size, pad + d[0]: pad + d[0] + size]

    def visit(node, alive, units, slots, attached, tallest):
        nonlocal acc
        depth, m1, m2, far, level_offset, rise, children = node
        level = (base + level_offset).astype(jnp.int8)
        below_leg = base if depth == 1 else jnp.int8(rise)
        under = at(height_p, far)
        alive = alive & (at(clear_p, m1) <= level) & (at(clear_p, m2) <= level) & (under <= level) & at(rest_p, far)
        support = level - under
        units = units + below_leg + support
        slots = slots + below_leg // cu + div_small(support, cu)
        alive = alive & (bricks_needed(units, slots, columns, cu) <= bricks)
        attached = attached | (under > 0)
        # The stacks of a path: the base, then per arch its far support and the rise under the
        # next arch (the last arch has none). Unused by the anchor mask, so compiled away there.
        tallest = jnp.maximum(tallest, jnp.maximum(below_leg, support))
        acc = on_node(acc, extra, dict(depth=depth, level=level, legal=alive & attached & (depth <= arches),
                                       tallest=tallest))
        for child in children:
            visit(child, alive, units, slots, attached, tallest)

    zero = jnp.zeros((size, size), jnp.int8)
    for root in static.east_tree:
        visit(root, anchor_ok, zero, zero, jnp.zeros((size, size), bool), zero)
    return acc


def staircase_stacks(units_parts, column_units: int, columns):
    """Columns per stack in building order (as Palace._allocate_columns): base, support 1,
    rise 1, support 2, ... Returns (columns per stack, total columns, total bricks)."""
    slots = units_parts // column_units
    before = jnp.cumsum(slots, axis=-1) - slots
    cols = jnp.clip(columns - before, 0, slots)
    used = cols.sum(-1)
    return cols, used, units_parts.sum(-1) - column_units * used


def last_writes(where, written) -> jnp.ndarray:
    """``where`` ((4J,) flat studs in writing order) with NUM_CELLS for each stud not ``written``
    ((J,) bool, one per arch) or written again later: a stud takes its last write, so each plane
    is then one scatter with mode="drop" (a chain of 4J dependent scatters compiled slowly).
    The last write per stud is a scatter-max of write numbers: comparing every pair of writes
    instead cost the complete build's finish 10 ms at batch 1,024 (XLA recomputed ``where``
    inside the pairwise loop), this 0.6 ms."""
    written = jnp.repeat(written, 4)
    order = jnp.arange(where.shape[0], dtype=jnp.int32)
    target = jnp.where(written, where, NUM_CELLS)
    last = jnp.full((NUM_CELLS + 1,), -1, jnp.int32).at[target].max(order)
    return jnp.where(written & (last[target] == order), where, NUM_CELLS)


_ARCH_KNOBS = np.asarray([Knob.ARCH_END, Knob.ARCH_MIDDLE, Knob.ARCH_MIDDLE, Knob.ARCH_END], np.int8)


def place_staircase(s: State, where, levels, deco_cell, deco_top, paid, max_stack) -> State:
    """Steps 1-3 of a turn, for either build action: a staircase's arches on the palace
    (``where``: last_writes' studs; ``levels``: (J,) each arch's level), its decoration of the
    anchor's colour on ``deco_cell`` at ``deco_top``, the supply ``paid`` ((3,) arches, bricks,
    columns), and the credits: one per arch, one more when the decoration is strictly the
    highest of its colour."""
    J = levels.shape[0]
    colour = s.knob.reshape(-1)[s.anchor].astype(jnp.int32)   # the anchor's ground colour (0..2)
    dx, dy = deco_cell % BOARD_SIZE, deco_cell // BOARD_SIZE
    height = s.height.reshape(-1).at[where].set(jnp.repeat(levels + 1, 4).astype(jnp.int8),
                                                mode="drop").reshape(BOARD_SIZE, BOARD_SIZE)
    knob = s.knob.reshape(-1).at[where].set(jnp.tile(jnp.asarray(_ARCH_KNOBS), J),
                                            mode="drop").reshape(BOARD_SIZE, BOARD_SIZE)
    height = height.at[dy, dx].set(deco_top.astype(jnp.int8))
    knob = knob.at[dy, dx].set((Knob.DECO_LIGHT + colour).astype(jnp.int8))
    highest_of_colour = deco_top > s.deco_max[colour]
    return s._replace(
        height=height, knob=knob, supply=s.supply.at[s.current].add(-paid),
        deco_max=s.deco_max.at[colour].max(deco_top), colour=colour, deco_cell=deco_cell, deco_top=deco_top,
        max_stack=max_stack, highest_of_colour=highest_of_colour, highest_overall=deco_top > s.deco_max.max(),
        credits=paid[0] + highest_of_colour.astype(jnp.int32), phase=jnp.int32(Phase.BUY))


def build_parts(state: State, tables: Tables, anchor, shape) -> jnp.ndarray:
    """(1 + 2J,) units of each stack of a legal `shape` at `anchor`, in building order, read
    straight off the palace (a legal staircase stays on the plate: no padding needed)."""
    ax, ay = anchor % BOARD_SIZE, anchor // BOARD_SIZE
    far = tables.arch_far[shape]
    valid, level, k = tables.arch_valid[shape], tables.arch_level[shape], tables.shape_k[shape]
    x = jnp.clip(ax + far[:, 0], 0, BOARD_SIZE - 1)
    y = jnp.clip(ay + far[:, 1], 0, BOARD_SIZE - 1)
    support = jnp.where(valid, level - state.height[y, x].astype(jnp.int32), 0)
    return _building_order(tables.shape_base[shape], support, tables.shape_rise[shape], k)


def _building_order(base, support, rise, k):
    """Units of every stack in building order: the base, then for each arch its far support
    and the rise on its end knob (none after the last arch). `support` is (..., J)."""
    J = support.shape[-1]
    rises = jnp.where(jnp.arange(J) < k[..., None] - 1, rise[..., None], 0)
    pairs = jnp.stack([support, rises], -1).reshape(support.shape[:-1] + (2 * J,))
    return jnp.concatenate([base[..., None], pairs], -1)


def shape_mask(state: State, tables: Tables, static: Static, anchor) -> jnp.ndarray:
    """(S,) bool: which shapes are legal from `anchor` for the current player."""
    return walk_at_anchor(state, static, anchor)["legal"]
