"""The complete build action's masks in JAX: which anchors, which next arches, finish.

The same answers as staircases.BuildSearch (its masks are the truth; tests compare them on
positions of real games), computed as docs/ENVIRONMENTS.md ("The complete action in the JAX
engine") derives them:

- A far leg moves 3 studs, so a staircase stays on its anchor's lattice class (x mod 3,
  y mod 3); the plate is held as 9 class grids of 11 x 11 lattice points, and an arch is one
  step on a grid.
- Loop erasure: an unattached prefix is completable exactly when some walk from its cursor
  that avoids the prefix's lattice points (not its own) attaches within the budgets, so the
  search is a table, not a tree: ``V[heading in, level, columns left, point]`` = the fewest
  bricks of an attaching extension, one arch per iteration.
- Budgets as columns left and bricks used: a staircase fits when its stacks, columns used
  first, need at most the bricks held; a column saves 3 bricks wherever it stands, so per
  extension the bricks needed with ``c`` columns left are additive once ``c`` is part of the
  state (the reference's two budgets, units and remainders, say the same).
- Three levels per arch: an arch stands at its least level (above the last, over its middle,
  on its far knob) or one or two above it; higher ones only cost more.
- Sizes are static, from a cap on the units a player holds (``max_units``): a ground landing
  at level l has cost at least 2l - 1 units, so levels stop at (max_units + 1) // 2; columns
  left stop at max_units // 3. A player holding more is past the cap: ``beyond_cap`` says so,
  and the engine must refuse it by name, never guess.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from monkey_env.monkey_palace.geometry import BOARD_SIZE, heading_step

SPAN = 3                      # studs per arch: the lattice step
GRID = -(-BOARD_SIZE // SPAN)  # lattice points per class and axis (11)
_OFF = 100                    # clearance and height off the plate: no arch stands there


@dataclass(frozen=True)
class Caps:
    """Static sizes of the tables, from the most units (bricks + 3 columns) a player holds."""

    max_units: int = 16
    column_units: int = 3
    max_arches: int = 20       # arches a player holds (and so of one staircase: the State's arch slots)
    # Columns a player holds (None: as many as max_units allows). Random play with the Frog held 3
    # in 2 of 120 differential games, at most 1 otherwise (docs/ENVIRONMENTS.md); each column
    # more costs the anchor mask about a sixth of its time.
    max_columns: int | None = 3

    @property
    def top_level(self) -> int:
        """The highest level a ground landing can afford: 2 l - 1 <= max_units."""
        return (self.max_units + 1) // 2

    @property
    def levels(self) -> int:
        """Level axis: index i is level i - 1 (level -1: the anchor, before arch 1)."""
        return self.top_level + 2

    @property
    def columns(self) -> int:
        """Columns axis: 0..the most columns a player may hold (a path only ever has fewer left)."""
        most = self.max_units // self.column_units
        return (most if self.max_columns is None else min(most, self.max_columns)) + 1

    @property
    def big(self) -> int:
        """More bricks than any player holds within the cap (int8: big + big < 128)."""
        return self.max_units + 1

    @property
    def depth(self) -> int:
        """Most arches of an extension within the cap (see arches_affordable)."""
        return int(arches_affordable(self.max_units))


def arches_affordable(units):
    """Most arches an attaching extension can have with ``units`` to spend: k unattached arches
    stand at levels 0, 1, ..., k - 1 at least, on supports of that many units, then one attaches
    (an int, or a traced array: the table stops iterating there for the units actually held)."""
    xp = np if isinstance(units, int) else jnp
    k = xp.floor((1 + xp.sqrt(1 + 8 * xp.asarray(units, xp.float32))) / 2).astype(xp.int32)
    return k + 1


def tiers(caps: Caps) -> tuple[Caps, ...]:
    """The table sizes a game uses, smallest first, ``caps`` last. A player's masks come from the
    smallest that holds their supply (exact there, as ``caps`` is up to its own limits): most turns
    hold at most 10 units and no column, where the anchor mask is about a tenth of its cost at
    16 units and 3 columns (docs/ENVIRONMENTS.md)."""
    small = [Caps(units, caps.column_units, caps.max_arches, columns) for units, columns in ((10, 0), (10, 1))
             if units < caps.max_units and (caps.max_columns is None or columns < caps.max_columns)]
    return (*small, caps)


def tier_of(supply, caps: Caps):
    """() int32: the index in ``tiers(caps)`` of the smallest tables that hold this supply (the
    last, ``caps`` itself, when none does: past it the masks are not exact, see beyond_cap)."""
    sizes = tiers(caps)
    index = jnp.int32(len(sizes) - 1)
    for i in range(len(sizes) - 2, -1, -1):
        index = jnp.where(beyond_cap(supply, sizes[i]), index, i)
    return index


def beyond_cap(supply, caps: Caps):
    """The player holds more units (or arches) than the tables are sized for."""
    return ((supply[1] + caps.column_units * supply[2] > caps.max_units) | (supply[0] > caps.max_arches)
            | (supply[2] > caps.columns - 1))


# ------------------------------------------------------------------ the plate as lattice classes
def to_classes(plane, fill):
    """(32, 32) [y, x] -> (9, 11, 11) [class, j, i]: class (y % 3) * 3 + x % 3, point (x // 3, y // 3)."""
    n = GRID * SPAN
    p = jnp.pad(plane, ((0, n - BOARD_SIZE), (0, n - BOARD_SIZE)), constant_values=fill)
    return p.reshape(GRID, SPAN, GRID, SPAN).transpose(1, 3, 0, 2).reshape(SPAN * SPAN, GRID, GRID)


def from_classes(classes):
    """The inverse of to_classes: (9, 11, 11) -> (32, 32)."""
    n = GRID * SPAN
    p = classes.reshape(SPAN, SPAN, GRID, GRID).transpose(2, 0, 3, 1).reshape(n, n)
    return p[:BOARD_SIZE, :BOARD_SIZE]


def edge_planes(height, clearance, rest_ok):
    """Per heading h, for an arch from every stud: ``need`` (its least level: the middles'
    clearance and the far knob's height), ``under`` (the far knob's height) and ``ok`` (the far
    knob can carry a leg, on the plate), each (4, 32, 32) int16 / bool [h, y, x]."""
    h_p = jnp.pad(height.astype(jnp.int16), SPAN, constant_values=_OFF)
    c_p = jnp.pad(clearance.astype(jnp.int16), SPAN, constant_values=_OFF)
    r_p = jnp.pad(rest_ok, SPAN, constant_values=False)

    def at(plane, h, i):
        sx, sy = heading_step(h)
        return plane[SPAN + i * sy: SPAN + i * sy + BOARD_SIZE, SPAN + i * sx: SPAN + i * sx + BOARD_SIZE]

    under = jnp.stack([at(h_p, h, SPAN) for h in range(4)])
    need = jnp.stack([jnp.maximum(jnp.maximum(at(c_p, h, 1), at(c_p, h, 2)), at(h_p, h, SPAN)) for h in range(4)])
    ok = jnp.stack([at(r_p, h, SPAN) for h in range(4)])
    return need, under, ok


# The tables hold each class grid with a border of one point (PADDED x PADDED), flattened: the
# grid is then the last axis, long and contiguous, which XLA's CPU loops vectorise (a trailing
# 11 x 11 did not: the tables ran 1.3 to 2.3 times slower), and an arch's landing point is one
# offset along it. The border holds no element and no knob (ok is False there), so it stays
# ``big``; an offset from a border point may reach into the next grid, but that value is never
# read (the border's own values are masked).
PADDED = GRID + 2


def to_flat(grids, fill):
    """(n, [classes,] 11, 11) -> (n, P): each class grid with a border of ``fill`` around it, the
    classes after one another (P = classes x 169): (4, 9, 11, 11) -> (4, 1521)."""
    pad = [(0, 0)] * (grids.ndim - 2) + [(1, 1), (1, 1)]
    return jnp.pad(grids, pad, constant_values=fill).reshape(grids.shape[0], -1)


def from_flat(flat, classes: int):
    """The inverse of to_flat on a table's last axis: (..., classes x 169) -> (..., classes, 11, 11)."""
    grids = flat.reshape(flat.shape[:-1] + (classes, PADDED, PADDED))
    return grids[..., 1:-1, 1:-1]


def flat_point(i, j):
    """The flat index of lattice point (i, j) of a one-class table; -1 and 11 are the border."""
    return (j + 1) * PADDED + i + 1


def _landing(table, h):
    """table[..., p + offset] (big past the ends): the value at the point an arch heading h reaches."""
    sx, sy = heading_step(h)
    offset, margin = sy * PADDED + sx, PADDED + 1
    p = jnp.pad(table, [(0, 0)] * (table.ndim - 1) + [(margin, margin)], constant_values=jnp.iinfo(table.dtype).max)
    n = table.shape[-1]
    return p[..., margin + offset: margin + offset + n]


# ------------------------------------------------------------------ the table
def _fits(fewest, bricks, caps: Caps):
    """A table's fewest bricks can be paid with ``bricks``. ``caps.big`` means "none fits", not a
    price: a player past the caps may hold that many bricks (once read as a price, every anchor
    was offered to such a player)."""
    return (fewest < caps.big) & (fewest.astype(jnp.int32) <= bricks)


def _shift_columns(plane, s: int):
    """plane[max(c - s, 0)] for every c: the columns left after stacks that hold s more slots."""
    if s == 0:
        return plane
    C = plane.shape[0]
    s = min(s, C)
    return jnp.concatenate([jnp.broadcast_to(plane[:1], (s,) + plane.shape[1:]), plane[:C - s]])


def attaching_costs(caps: Caps) -> np.ndarray:
    """(levels, columns, K, K) int8, K = need_cap(caps) + 1: the fewest bricks of a rise and one
    arch that lands on an element, by the cursor's level, the columns left, the arch's least level
    ``need`` and the far knob's height ``under`` (``caps.big`` where none fits, and where ``under``
    is 0, the ground, or above ``need``, which edge_planes never gives). The arch stands at its
    least level (above the last, over its middle, on its far knob) or one or two above it: a level
    three higher costs three more units and leaves every stack's remainder as it was. Computed
    once per size of tables, so the masks read it rather than redo its integer work on every
    point (four times as fast on a CPU)."""
    L, C, big, cu = caps.levels, caps.columns, caps.big, caps.column_units
    k = need_cap(caps) + 1
    lev = (np.arange(L) - 1)[:, None, None, None]
    cols = np.arange(C)[None, :, None, None]
    need = np.arange(k)[None, None, :, None]
    under = np.arange(k)[None, None, None, :]
    value = np.full((L, C, k, k), big, np.int64)
    for extra in range(3):
        lv = np.maximum(lev + 1, need) + extra
        rise, support = lv - lev - 1, lv - under
        slots = rise // cu + support // cu
        value = np.minimum(value, rise + support - cu * np.minimum(slots, cols))
    value = np.where((under > 0) & (under <= need), np.minimum(value, big), big)
    assert (value[:, :, -1] == big).all(), "need_cap: an arch that high must not fit"
    return value.astype(np.int8)


def need_cap(caps: Caps) -> int:
    """A least level from which no attaching arch fits: its rise alone is at least need - levels
    + 1 units (the cursor stands at most at level levels - 2), of which columns save at most
    column_units x (columns - 1), so need >= big + levels - 1 + column_units x (columns - 1)
    leaves at least big bricks. attaching_costs' last row is that level (checked there)."""
    return caps.big + caps.levels - 1 + caps.column_units * (caps.columns - 1)


def _attaching_arches(need, under, ok, caps: Caps):
    """(4, levels, columns, *grid) int8: per first heading, attaching_costs read at each point's
    ``need`` and ``under`` ((4, *grid) each; ``ok`` (4, *grid): the far knob can carry a leg)."""
    top = need_cap(caps)
    k = top + 1
    costs = jnp.asarray(attaching_costs(caps).reshape(caps.levels * caps.columns, k * k))
    n = jnp.minimum(need, top).astype(jnp.int32)          # higher: no arch fits (need_cap)
    index = n * k + jnp.clip(under.astype(jnp.int32), 0, n)  # under > need never happens
    value = jnp.moveaxis(costs[:, index].reshape((caps.levels, caps.columns) + need.shape), 2, 0)
    return jnp.where((ok & (under > 0))[:, None, None], value, caps.big).astype(jnp.int8)


def _grounded_arches(arrive, ground_ok, caps: Caps):
    """(4, levels, columns, *grid) int8: per first heading, the fewest bricks of a rise, one arch
    that lands on open ground and the best extension from there. ``arrive`` (4, levels, columns,
    *grid): the landing state's value (by its level and columns left), read at the landing point;
    ``ground_ok`` (4, levels, 1, *grid) bool: an arch at that level may land there on the ground.

    No rise first: the arch stands at the row's level + 1, on a support of that many units. The
    rise is then any stack, decomposed: 0-2 bricks, then slots of 3 units each (a column while
    any is left, 3 bricks after: a column never saves less than the bricks it replaces), so the
    rises are a scan down the level axis rather than a choice per level. Whole-array steps: the
    rows go by blocks of three levels (a support's slots change every three)."""
    L, C, big, cu = caps.levels, caps.columns, caps.big, caps.column_units
    extra = arrive.ndim - 3
    col = np.arange(C)
    shape = lambda a: a.reshape(a.shape + (1,) * extra)
    # Row i (cursor level i - 1): an arch at level i, landing on a support of i units.
    blocks = []
    for lo in range(0, L - 1, cu):
        hi = min(lo + cu, L - 1)
        s = lo // cu
        rows = np.arange(lo, hi)
        cost = np.minimum(rows[:, None] - cu * np.minimum(s, col)[None, :], big).astype(np.int8)
        later = _shift_columns(jnp.moveaxis(arrive[:, lo + 1:hi + 1], 2, 0), s)     # (C, 4, rows, *grid)
        blocks.append(jnp.minimum(jnp.moveaxis(later, 0, 2) + shape(cost), big))
    rows = jnp.concatenate(blocks + [jnp.full((4, 1, C) + arrive.shape[3:], big, jnp.int8)], axis=1)
    rows = jnp.where(ground_ok, rows, big)
    # Rises of whole slots: Y[i] = min(W[i], Y[i + 3] one slot higher), from the top down.
    n = -(-L // cu) * cu
    padded = jnp.concatenate([rows, jnp.full((4, n - L, C) + rows.shape[3:], big, jnp.int8)], axis=1)
    by_block = padded.reshape((4, n // cu, cu) + padded.shape[2:])
    acc = [by_block[:, -1]]
    for b in range(n // cu - 2, -1, -1):
        above = acc[-1]
        step = jnp.concatenate([jnp.minimum(above[:, :, :1] + cu, big), above[:, :, :-1]], axis=2)
        acc.append(jnp.minimum(by_block[:, b], step))
    slot = jnp.stack(acc[::-1], axis=1).reshape(padded.shape)
    # ... after 0, 1 or 2 bricks more.
    tail = jnp.full((4, cu - 1, C) + slot.shape[3:], big, jnp.int8)
    more = jnp.concatenate([slot, tail], axis=1)
    out = slot
    for m in range(1, cu):
        out = jnp.minimum(out, jnp.minimum(more[:, m:m + n] + m, big))
    return out[:, :L]


def extension_table(need, under, ok, arches, caps: Caps, obstacles=None, units=None):
    """V (5, levels, columns, P) int8: the fewest bricks of an attaching extension of at most
    ``arches`` arches from a cursor at each point, reached heading 0-3 (index 4: no heading yet,
    the anchor), at each level with each count of columns left (``caps.big``: none fits); the
    points in to_flat's layout (P = classes x 169: from_flat and flat_point read it).
    ``need``/``under``/``ok``: (4, [classes,] 11, 11) per first heading; ``obstacles`` ([classes,]
    11, 11) bool: points no arch may land on (the prefix's, by loop erasure); ``units``: the most
    units the player can spend (the iterations stop at the arches they afford; entries for more
    are then not exact)."""
    need, under, ok = to_flat(need, _OFF), to_flat(under, _OFF), to_flat(ok, False)
    if obstacles is not None:   # the far leg's point, one step on from the near leg's
        blocked = to_flat(obstacles[None], False)[0].astype(jnp.int8)
        ok = ok & ~jnp.stack([_landing(blocked, h) != 0 for h in range(4)])
    L, C, big = caps.levels, caps.columns, caps.big
    grid = need.shape[1:]
    # The same every arch: landing on an element, and where a ground landing may stand.
    attaching = _attaching_arches(need, under, ok, caps)
    lev = jnp.asarray(np.arange(L), jnp.int16).reshape((1, L, 1) + (1,) * len(grid))
    ground_ok = (ok & (under == 0))[:, None, None] & (need[:, None, None] <= lev) & (lev <= caps.top_level)

    def by_arrival(g):
        """From per-first-heading values to per-arrival heading h: any first heading but h + 2,
        the reversal (rule H). Rotations of the heading axis, not a stack of slices: under vmap a
        stack costs a transpose."""
        turned = jnp.minimum(jnp.concatenate([g[1:], g[:1]]), jnp.concatenate([g[3:], g[:3]]))
        return jnp.concatenate([jnp.minimum(g, turned), g.min(0, keepdims=True)])

    def more(carry):
        i, v, _ = carry
        landing = jnp.stack([_landing(v[h], h) for h in range(4)])
        g = jnp.minimum(attaching, _grounded_arches(landing, ground_ok, caps))
        w = by_arrival(g)
        return i + 1, w, (w != v).any()

    v = jnp.full((5, L, C) + grid, big, jnp.int8)
    # One arch more per iteration; stop when a table is the last one's (no longer extension helps).
    most = caps.depth if units is None else jnp.minimum(arches_affordable(units), caps.depth)
    _, v, _ = jax.lax.while_loop(lambda c: (c[0] < jnp.minimum(arches, most)) & c[2], more,
                                 (jnp.int32(0), v, jnp.asarray(True)))
    return v


# ------------------------------------------------------------------ the masks
def anchor_mask(height, clearance, rest_ok, anchor_ok, supply, caps: Caps):
    """(32, 32) bool: some legal staircase starts at the stud (BuildSearch.legal_anchors)."""
    arches, bricks, columns = supply[0], supply[1], supply[2]
    need, under, ok = edge_planes(height, clearance, rest_ok)
    cls = lambda planes, fill: jax.vmap(lambda p: to_classes(p, fill))(planes)
    v = extension_table(cls(need, _OFF), cls(under, _OFF), cls(ok, False), arches, caps,
                        units=bricks + caps.column_units * columns)
    c = jnp.minimum(columns, caps.columns - 1)
    fewest = from_classes(from_flat(v[4, 0, c], SPAN * SPAN))
    return anchor_ok & _fits(fewest, bricks, caps) & (arches > 0)


def _class_of(planes, k):
    """(n, 32, 32) -> (n, 11, 11): the lattice class k of each plane."""
    return jax.vmap(lambda p: to_classes(p, p.dtype.type(0) if p.dtype != bool else False)[k])(planes)


def next_step_mask(height, clearance, rest_ok, supply, prefix, n_rises: int, caps: Caps, avoid_prefix: bool = True):
    """((4, n_rises) bool, () bool): the arches (heading, rise) after which a legal staircase can
    still be finished, and whether the staircase built so far may finish, as
    BuildSearch.next_steps and can_finish. ``prefix``: a dict of the prefix's ``x``, ``y``,
    ``heading`` (-1 before arch 1), ``level`` (-1 before arch 1), ``arches``, ``units``,
    ``remainder`` (as Prefix), ``attached`` and ``covered`` ((32, 32) bool: studs it covers).
    ``avoid_prefix=False`` forgets the prefix's points in the search (the tests show it matters)."""
    arches, bricks, columns = supply[0], supply[1], supply[2]
    cu = caps.column_units
    most = bricks + cu * columns
    x, y, level, covered = prefix["x"], prefix["y"], prefix["level"], prefix["covered"]
    rises = jnp.arange(n_rises)
    lv = level + 1 + rises                                    # (R,) the arch's level per rise
    need, under, ok = edge_planes(height, clearance, rest_ok)
    # Unattached: the children that land on the ground need an extension avoiding the prefix's
    # points, on the cursor's lattice class only (loop erasure).
    k = (y % SPAN) * SPAN + x % SPAN
    table = extension_table(_class_of(need, k), _class_of(under, k), _class_of(ok, k),
                            arches - prefix["arches"] - 1, caps,
                            obstacles=_class_of(covered[None], k)[0] if avoid_prefix else None, units=most - prefix["units"])
    steps = []
    for h in range(4):
        sx, sy = heading_step(h)
        cells = [(x + t * sx, y + t * sy) for t in (1, 2, 3)]
        on = jnp.all(jnp.asarray([(0 <= cx) & (cx < BOARD_SIZE) & (0 <= cy) & (cy < BOARD_SIZE) for cx, cy in cells]))
        at = lambda plane, c: plane[jnp.clip(c[1], 0, BOARD_SIZE - 1), jnp.clip(c[0], 0, BOARD_SIZE - 1)]
        free = on & ~(at(covered, cells[0]) | at(covered, cells[1]) | at(covered, cells[2]))
        back = (prefix["heading"] >= 0) & ((h - prefix["heading"]) % 4 == 2)
        far_h = at(height, cells[2]).astype(jnp.int32)
        middle = jnp.maximum(at(clearance, cells[0]), at(clearance, cells[1])).astype(jnp.int32)
        legal = free & ~back & (prefix["arches"] < arches) & at(rest_ok, cells[2]) & (middle <= lv) & (far_h <= lv)
        support = lv - far_h
        units = prefix["units"] + rises + support
        remainder = prefix["remainder"] + rises % cu + support % cu
        legal &= (units <= most) & (remainder <= bricks)
        # Budgets left as columns left and bricks left (columns first, see the module's docstring).
        slots = (units - remainder) // cu
        c_left = jnp.maximum(columns - slots, 0)
        b_left = bricks - remainder - cu * jnp.maximum(slots - columns, 0)
        row = jnp.clip(lv + 1, 0, caps.levels - 1)
        later = table[h, row, jnp.clip(c_left, 0, caps.columns - 1), flat_point(x // SPAN + sx, y // SPAN + sy)]
        grounded = (lv <= caps.top_level) & _fits(later, b_left, caps)
        steps.append(legal & (prefix["attached"] | (far_h > 0) | grounded))
    finish = (prefix["arches"] > 0) & prefix["attached"]
    return jnp.stack(steps), finish
