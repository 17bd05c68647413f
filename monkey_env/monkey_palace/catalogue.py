"""The staircase-template catalogue: every shape a build action can choose.

A shape is a staircase drawn relative to its anchor stud: a stack of ``base`` units on
the anchor, then ``arches`` arches, each starting on the previous arch's far end knob
(after ``rise`` units stacked there), going straight or turning 90 degrees. Because
the anchor is a ground stud (height 0), every arch's level is known from the shape
alone: arch 1 stands at ``base``, arch j+1 at ``level_j + 1 + rise``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from monkey_env.monkey_palace.config import CatalogueConfig
from monkey_env.monkey_palace.geometry import HEADING_NAMES, heading_step, turn

ARCH_SPAN = 3  # a 1x4 arch: its far leg stands 3 studs from its near leg


@dataclass(frozen=True)
class ArchStep:
    """One arch of a shape: near leg at (dx, dy) from the anchor, heading, level of its legs."""

    dx: int
    dy: int
    heading: int
    level: int

    def cells(self) -> list[tuple[int, int]]:
        """The arch's four studs from near leg to far leg, relative to the anchor."""
        sx, sy = heading_step(self.heading)
        return [(self.dx + i * sx, self.dy + i * sy) for i in range(ARCH_SPAN + 1)]

    @property
    def far(self) -> tuple[int, int]:
        return self.cells()[-1]


@dataclass(frozen=True)
class Shape:
    index: int      # position in the catalogue (the action index is SHAPE_BASE + index)
    heading: int    # direction of arch 1 (0 N, 1 E, 2 S, 3 W)
    base: int       # units stacked on the anchor under arch 1
    turns: str      # one of S/L/R after each arch but the last; len == arches - 1
    rise: int       # units stacked on each junction's end knob before the next arch

    @property
    def arches(self) -> int:
        return len(self.turns) + 1

    @cached_property
    def steps(self) -> tuple[ArchStep, ...]:
        steps = []
        dx, dy, heading, level = 0, 0, self.heading, self.base
        for j in range(self.arches):
            step = ArchStep(dx, dy, heading, level)
            steps.append(step)
            dx, dy = step.far
            if j < len(self.turns):
                heading = turn(heading, self.turns[j])
                level += 1 + self.rise
        return tuple(steps)

    @property
    def deco(self) -> tuple[int, int]:
        """Where the decoration goes: the last arch's far end knob."""
        return self.steps[-1].far

    def describe(self) -> str:
        arches = "1 arch" if self.arches == 1 else f"{self.arches} arches"
        turns = "" if self.arches == 1 else (
            " straight" if set(self.turns) == {"S"} else " turns " + "".join(self.turns))
        rise = f", rise {self.rise}" if self.arches > 1 and self.rise else ""
        return f"{arches} heading {HEADING_NAMES[self.heading]}, base {self.base}{rise},{turns}".rstrip(",")


def shape_steps(shape: Shape) -> list[tuple[int, int]]:
    """The shape as the complete build action's arch steps: (heading, rise before the arch),
    the base being arch 1's rise."""
    return [(step.heading, shape.base if j == 0 else shape.rise) for j, step in enumerate(shape.steps)]


def _programmes(kind: str, k: int) -> list[str]:
    n = k - 1
    if kind == "straight":
        return ["S" * n]
    if kind == "single_turn":
        return ["S" * j + x + "S" * (n - j - 1) for j in range(n) for x in "LR"]
    if kind == "zigzag":
        return [("LR" * k)[:n], ("RL" * k)[:n]] if n >= 2 else []
    if kind == "spiral":
        return ["L" * n, "R" * n] if n >= 2 else []
    raise ValueError(kind)


def _self_avoiding(shape: Shape) -> bool:
    """Rule I: the path never comes back to a stud, but for the leg two arches share."""
    seen: set[tuple[int, int]] = set()
    for j, step in enumerate(shape.steps):
        cells = step.cells()
        if j > 0:
            cells = cells[1:]  # the near leg stands on the previous arch's far end knob
        for c in cells:
            if c in seen:
                return False
            seen.add(c)
    return True


def build_catalogue(cfg: CatalogueConfig) -> tuple[Shape, ...]:
    """Every self-avoiding combination of the config's lists, in a fixed order."""
    shapes: list[Shape] = []
    for heading_name in cfg.headings:
        heading = HEADING_NAMES.index(heading_name)
        for base in cfg.bases:
            for k in range(1, cfg.max_arches + 1):
                # A rise only exists between two arches: a single arch takes no rise.
                rises = cfg.rises if k > 1 else cfg.rises[:1]
                for rise in rises:
                    seen: set[str] = set()
                    for kind in cfg.programmes:
                        for turns in _programmes(kind, k):
                            if turns in seen:
                                continue
                            seen.add(turns)
                            shape = Shape(len(shapes), heading, base, turns, rise)
                            if _self_avoiding(shape):
                                shapes.append(shape)
    return tuple(shapes)
