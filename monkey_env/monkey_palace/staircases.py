"""Every staircase rules A-I allow, built arch by arch: the complete build action's search.

A staircase is an anchor stud and a list of arch steps ``(heading, rise)``: ``rise`` units
are stacked where the arch's near leg goes (on the anchor for arch 1, which is the base, on
the previous arch's far end knob after that), then the 1x4 arch goes ``heading``. Arch 1
stands at level ``rise``; arch j+1 at ``level_j + 1 + rise``. Any base, any rise before each
arch, any sequence of 90-degree turns that never comes back to a stud, any number of arches:
``Palace.check_steps`` is the readable statement of the rules for one such list.

This module answers the questions a step-by-step build asks, exactly:

- which next steps lead to at least one complete legal staircase (no dead ends),
- whether the staircase built so far may finish (it is legal as it stands),
- which anchors have any legal staircase at all (rule E's "very rarely" case otherwise).

Supply, with columns used first (``Palace._allocate_columns``), is two additive budgets: a
stack of ``u`` units takes ``u`` units of the ``bricks + 3 * columns`` the player holds, and
its ``u % 3`` must come from bricks, so a staircase fits when its units fit the first and
the sum of its remainders fits the bricks. Both only grow as arches are added, so a prefix
over budget has no completion. Attachment (rule E) is what can still come later: an
unattached prefix is completable when some extension lands a far leg on an element; the
search for it is a depth-first walk bounded by the budgets and by the arches still needed
to reach an element, exact because every bound only prunes what cannot fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from monkey_env.monkey_palace.build_legality import BUILDABLE_TABLE, GROUND_TABLE
from monkey_env.monkey_palace.catalogue import ARCH_SPAN
from monkey_env.monkey_palace.geometry import BOARD_SIZE, OFF_PLATE, heading_step

Step = tuple[int, int]  # (heading 0 N 1 E 2 S 3 W, rise units before the arch)


@dataclass(frozen=True)
class Prefix:
    """A staircase under construction: where the next arch's near leg goes and what is used."""

    x: int                     # the cursor: the anchor, then the last arch's far end
    y: int
    heading: int               # the last arch's heading (-1 before arch 1)
    level: int                 # the last arch's level (-1 before arch 1: arch 1 stands at its rise)
    arches: int
    units: int                 # brick units of every stack so far (a column is 3)
    remainder: int             # sum of each stack's units % 3: what only bricks can give
    attached: bool
    visited: frozenset         # studs the staircase covers (the cursor included)
    steps: tuple = field(default=(), compare=False)  # how it was built: not part of what it can become
    tallest: int = field(default=0, compare=False)   # the tallest stack so far (the bonus card's test)


class BuildSearch:
    """Exact answers about the staircases one player can build on one palace this turn."""

    def __init__(self, palace, arches: int, bricks: int, columns: int, column_units: int = 3):
        self.max_arches = arches
        self.max_remainder = bricks
        self.max_units = bricks + column_units * columns
        self.column_units = column_units
        animal = np.zeros((BOARD_SIZE, BOARD_SIZE), bool)
        for cell in palace.animals:
            if cell != OFF_PLATE:
                animal.flat[cell] = True
        self.height = palace.height.astype(int)
        self.clearance = self.height + animal * palace.animal_height
        self.rest_ok = BUILDABLE_TABLE[palace.knob] & ~animal
        self.anchor_ok = GROUND_TABLE[palace.knob] & ~animal
        self._completable: dict[Prefix, bool] = {}
        self._anchors: np.ndarray | None = None

    # ------------------------------------------------------------------ the steps
    def start(self, anchor: tuple[int, int]) -> Prefix | None:
        x, y = anchor
        if not (0 <= x < BOARD_SIZE and 0 <= y < BOARD_SIZE and self.anchor_ok[y, x]):
            return None
        return Prefix(x, y, -1, -1, 0, 0, 0, False, frozenset({(x, y)}))

    def extend(self, p: Prefix, heading: int, rise: int) -> Prefix | None:
        """The prefix after one more arch, or None when that arch breaks a rule or the supply."""
        if rise < 0 or not 0 <= heading < 4 or p.arches >= self.max_arches:
            return None
        if p.heading >= 0 and (heading - p.heading) % 4 == 2:
            return None  # H: 90-degree turns or straight on, never back
        level = p.level + 1 + rise
        sx, sy = heading_step(heading)
        cells = [(p.x + i * sx, p.y + i * sy) for i in range(1, ARCH_SPAN + 1)]
        for cx, cy in cells:
            if not (0 <= cx < BOARD_SIZE and 0 <= cy < BOARD_SIZE) or (cx, cy) in p.visited:
                return None  # off the plate, or I: the path comes back to a stud
        for cx, cy in cells[:-1]:
            if self.clearance[cy, cx] > level:
                return None  # F: the middle would hit the palace or an animal
        fx, fy = cells[-1]
        under = int(self.height[fy, fx])
        if not self.rest_ok[fy, fx] or under > level:
            return None  # D: the far leg's knob; F: its support only fills a gap up to the level
        support = level - under
        units = p.units + rise + support
        remainder = p.remainder + rise % self.column_units + support % self.column_units
        if units > self.max_units or remainder > self.max_remainder:
            return None
        return Prefix(fx, fy, heading, level, p.arches + 1, units, remainder, p.attached or under > 0,
                      p.visited | frozenset(cells), p.steps + ((heading, rise),), max(p.tallest, rise, support))

    def rises(self, p: Prefix) -> range:
        """Every rise the budget can still pay (the far support may cost more: extend decides)."""
        return range(0, self.max_units - p.units + 1)

    def headings(self, p: Prefix) -> list[int]:
        return [h for h in range(4) if p.heading < 0 or (h - p.heading) % 4 != 2]

    def children(self, p: Prefix):
        for h in self.headings(p):
            for r in self.rises(p):
                q = self.extend(p, h, r)
                if q is not None:
                    yield q

    # ------------------------------------------------------------------ the questions
    @staticmethod
    def can_finish(p: Prefix) -> bool:
        """The staircase as it stands is legal: at least one arch, attached (E), within supply."""
        return p.arches > 0 and p.attached

    def completable(self, p: Prefix) -> bool:
        """Some legal staircase begins with this prefix (it may be the prefix itself)."""
        if p.attached and p.arches > 0:
            return True
        if p not in self._completable:
            self._completable[p] = any(self.completable(q) for q in self._promising(p))
        return self._completable[p]

    def _promising(self, p: Prefix):
        """Children of an unattached prefix that could still reach an element in time.

        Unattached, every far leg so far stood on the ground, so the level grows by at least
        one per arch and each arch landing on the ground needs a support of its level. An
        extension needs at least as many arches as the lattice distance to an element."""
        arches_left = self.max_arches - p.arches
        if arches_left <= 0:
            return
        needed = max(1, int(self._arches_to_element[p.y, p.x]))
        if needed > arches_left:
            return
        # The arches before the one that attaches land on the ground, each at a level above the last.
        level = max(p.level, -1)
        if p.units + sum(level + i for i in range(1, needed)) > self.max_units:
            return
        yield from self.children(p)

    @cached_property
    def _arches_to_element(self) -> np.ndarray:
        """(32, 32) [y, x]: the fewest arches whose last far leg, from a near leg here, can stand
        on an element. A far leg moves 3 studs along x or y per arch, so it only ever reaches
        studs congruent to the cursor modulo 3, and needs |dx| / 3 + |dy| / 3 arches at least."""
        far = 10 ** 6
        out = np.full((BOARD_SIZE, BOARD_SIZE), far, int)
        ey, ex = np.nonzero((self.height > 0) & self.rest_ok)
        if len(ex) == 0:
            return out
        ys, xs = np.mgrid[0:BOARD_SIZE, 0:BOARD_SIZE]
        dx = np.abs(xs[..., None] - ex)
        dy = np.abs(ys[..., None] - ey)
        same_class = (dx % ARCH_SPAN == 0) & (dy % ARCH_SPAN == 0)
        arches = np.where(same_class, (dx + dy) // ARCH_SPAN, far)
        return arches.min(axis=-1)

    def next_steps(self, p: Prefix) -> list[Step]:
        """Every (heading, rise) after which a legal staircase can still be finished."""
        return [q.steps[-1] for q in self.children(p) if self.completable(q)]

    def anchor_has_staircase(self, anchor: tuple[int, int]) -> bool:
        p = self.start(anchor)
        return p is not None and self.completable(p)

    def legal_anchors(self) -> np.ndarray:
        """(32, 32) bool [y, x]: anchors from which some legal staircase can be built (computed
        once: the engine asks at the turn's start, for the mask and to explain a refusal)."""
        if self._anchors is None:
            self._anchors = np.zeros((BOARD_SIZE, BOARD_SIZE), bool)
            for y, x in zip(*np.nonzero(self.anchor_ok)):
                self._anchors[y, x] = self.anchor_has_staircase((int(x), int(y)))
        return self._anchors.copy()

    def staircases(self, anchor: tuple[int, int]):
        """Every legal staircase from ``anchor``, as its finished prefix (depth first)."""
        p = self.start(anchor)
        if p is not None:
            yield from self.staircases_from(p)

    def staircases_from(self, p: Prefix):
        """Every legal staircase that begins with the prefix ``p`` (``p`` itself included)."""
        stack = [p]
        while stack:
            p = stack.pop()
            if self.can_finish(p):
                yield p
            stack.extend(q for q in self.children(p) if self.completable(q))
