"""The palace on the plate, and the rules A-I for building one staircase on it.

The palace is a 2.5-D surface (nothing slides under an arch): per cell the top height
and the kind of knob on top, plus where the three animals stand. ``check_staircase``
is the readable statement of the building rules; ``build_staircase`` places a legal one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from monkey_env.monkey_palace.catalogue import ARCH_SPAN, Shape, shape_steps
from monkey_env.monkey_palace.config import MapConfig
from monkey_env.monkey_palace.geometry import (
    ANIMAL_NAMES,
    BOARD_SIZE,
    BUILDABLE,
    COLOUR_NAMES,
    DECO_OF_COLOUR,
    GROUND_OF_COLOUR,
    HEADING_NAMES,
    KNOB_WORDS,
    MAP_CHAR_KNOB,
    OFF_PLATE,
    Animal,
    Colour,
    Knob,
    heading_step,
    on_plate,
)


@dataclass
class Supply:
    """Building elements held by a player (or the tray)."""

    arches: int = 0
    bricks: int = 0
    columns: int = 0

    def as_tuple(self) -> tuple[int, int, int]:
        return self.arches, self.bricks, self.columns

    def total(self) -> int:
        return self.arches + self.bricks + self.columns


@dataclass
class Stack:
    """Bricks and columns stacked this turn in one cell, from ``bottom`` up."""

    x: int
    y: int
    bottom: int
    units: int
    columns: int = 0  # how many of the units' threes are columns (at the bottom)

    @property
    def bricks(self) -> int:
        return self.units - 3 * self.columns


@dataclass
class StaircasePlan:
    """The verdict of rules A-I on one staircase, and what building it takes."""

    legal: bool
    reason: str = ""                      # the verdict in a player's words, made from `rule`
    rule: str = ""                        # which rule fails: "plate", "A", "D", "E", "F", "supply"
    colour: int = -1                      # the anchor's ground colour (the decoration's)
    arches: list[tuple[int, int, int, int]] = field(default_factory=list)  # near x, y, heading, level
    stacks: list[Stack] = field(default_factory=list)
    attached: bool = False
    bricks: int = 0
    columns: int = 0
    deco: tuple[int, int] = (-1, -1)
    deco_top: int = 0                     # top height of the decoration once placed

    @property
    def units(self) -> int:
        return sum(s.units for s in self.stacks)


def _illegal(rule: str, reason: str) -> StaircasePlan:
    """A failed staircase: the rule it breaks (data) and the sentence that says so."""
    return StaircasePlan(legal=False, reason=reason, rule=rule)


class Palace:
    """Heights and knobs of every cell, the animals, and the list of placed elements."""

    def __init__(self, ground: np.ndarray, animal_height: int):
        self.ground = ground.astype(np.int8)                       # (32, 32) [y, x] the map's knob kinds
        self.height = np.zeros((BOARD_SIZE, BOARD_SIZE), np.int16)  # (32, 32) [y, x] top height, brick units
        self.knob = self.ground.copy()                             # (32, 32) [y, x] Knob on top
        self.animals = [OFF_PLATE, OFF_PLATE, OFF_PLATE]           # flat cell of monkey, butterfly, frog
        self.deco_max = [0, 0, 0]                                  # highest decoration top per colour (0: none)
        self.animal_height = animal_height
        self.elements: list[dict] = []                             # every element placed, for pictures and replays

    @classmethod
    def from_map(cls, cfg: MapConfig, animal_height: int) -> Palace:
        ground = np.array([[MAP_CHAR_KNOB[c] for c in row] for row in cfg.rows()], np.int8)
        return cls(ground, animal_height)

    # ----------------------------------------------------------------- queries
    def animal_at(self, x: int, y: int) -> int | None:
        flat = y * BOARD_SIZE + x
        for a, cell in enumerate(self.animals):
            if cell == flat:
                return a
        return None

    def what_is_at(self, x: int, y: int) -> str:
        a = self.animal_at(x, y)
        if a is not None:
            return f"the {ANIMAL_NAMES[a]}"
        return KNOB_WORDS[Knob(int(self.knob[y, x]))]

    def clearance(self, x: int, y: int) -> int:
        """How high an arch's middle must pass over this cell: its top, plus a standing animal."""
        extra = self.animal_height if self.animal_at(x, y) is not None else 0
        return int(self.height[y, x]) + extra

    def can_rest_on(self, x: int, y: int) -> bool:
        """Rule D: an open knob, not an arch middle, blocked stud, corner piece or animal."""
        return Knob(int(self.knob[y, x])) in BUILDABLE and self.animal_at(x, y) is None

    def is_open_arch_end(self, x: int, y: int) -> bool:
        return int(self.knob[y, x]) == Knob.ARCH_END and self.animal_at(x, y) is None

    def open_arch_ends(self) -> list[tuple[int, int]]:
        ys, xs = np.nonzero(self.knob == Knob.ARCH_END)
        return [(int(x), int(y)) for y, x in zip(ys, xs) if self.animal_at(int(x), int(y)) is None]

    # ----------------------------------------------------------------- rules A-I
    def check_staircase(self, anchor: tuple[int, int], shape: Shape, supply: Supply,
                        column_units: int = 3) -> StaircasePlan:
        """Rules A-I for a catalogue shape built from ``anchor`` (see ``check_steps``)."""
        return self.check_steps(anchor, shape_steps(shape), supply, column_units)

    def check_steps(self, anchor: tuple[int, int], steps, supply: Supply,
                    column_units: int = 3, unfinished: bool = False) -> StaircasePlan:
        """Apply rules A-I and the supply to the staircase ``steps`` built from ``anchor``.

        ``steps`` lists the arches in building order as ``(heading, rise)``: ``rise`` units
        are stacked where the arch's near leg goes (the base on the anchor for arch 1, on the
        previous arch's far end knob after that), then the arch goes ``heading``. Returns a
        plan that says what the staircase uses, or why it is illegal, in the words a player
        would use. G (no arch on an arch) holds because each arch's near leg stands on the
        anchor's stack or on the previous arch of the same staircase. ``unfinished``: a staircase
        still being built, which need not attach yet (rule E is the finished staircase's).
        """
        ax, ay = anchor
        if not on_plate(ax, ay):
            return _illegal("plate", f"the anchor ({ax}, {ay}) is off the plate")
        # A: start from an open knob of the ground map, of a colour (it picks the decoration).
        knob = Knob(int(self.knob[ay, ax]))
        if knob not in GROUND_OF_COLOUR or self.animal_at(ax, ay) is not None:
            what = "a white start-area stud, which has no colour" if knob == Knob.GROUND_WHITE else self.what_is_at(ax, ay)
            return _illegal("A", f"the anchor ({ax}, {ay}) must be an open coloured ground stud, but it is {what} (rule A)")
        # C: a staircase ends with an arch, so it has one at least.
        if not steps:
            return _illegal("C", "a staircase needs at least one arch, the last element that takes the decoration (rule C)")
        plan = StaircasePlan(legal=True, colour=GROUND_OF_COLOUR.index(knob))
        # B: a staircase may start with any element: a stack on the anchor, or arch 1 on the ground.
        covered = {(ax, ay)}
        x, y, level, previous = ax, ay, -1, None
        for j, (heading, rise) in enumerate(steps, start=1):
            if not 0 <= heading < 4 or rise < 0:
                return _illegal("plate", f"arch {j}: heading {heading} and rise {rise} are not a direction and a height")
            if previous is not None and (heading - previous) % 4 == 2:
                return _illegal("H", f"arch {j} would turn back on arch {j - 1}: turns are 90 degrees (rule H)")
            # I: each arch starts where the previous one ends, higher, after the rise stacked there.
            plan.stacks.append(Stack(x, y, level + 1, rise))
            level += 1 + rise
            sx, sy = heading_step(heading)
            cells = [(x + i * sx, y + i * sy) for i in range(ARCH_SPAN + 1)]
            for cx, cy in cells[1:]:
                if not on_plate(cx, cy):
                    return _illegal("plate", f"arch {j} would leave the plate at ({cx}, {cy})")
                if (cx, cy) in covered:
                    return _illegal("I", f"arch {j} would come back to ({cx}, {cy}), a stud the staircase already "
                                    "covers: arches go on as direct steps, never in a loop (rule I)")
                covered.add((cx, cy))
            for cx, cy in cells[1:ARCH_SPAN]:
                if self.clearance(cx, cy) > level:
                    return _illegal(
                        "F", f"arch {j}'s middle at level {level} would hit {self.what_is_at(cx, cy)} at ({cx}, {cy}), "
                        f"which reaches height {self.clearance(cx, cy)} (rule F)")
            fx, fy = cells[-1]
            # D: the far leg (or its support) rests on an open knob.
            if not self.can_rest_on(fx, fy):
                return _illegal("D", f"arch {j}'s far leg would stand on {self.what_is_at(fx, fy)} at ({fx}, {fy}) (rule D)")
            below = int(self.height[fy, fx])
            # F: both legs at one level: the far leg needs a support stack up to the arch's level.
            if below > level:
                return _illegal(
                    "F", f"arch {j}'s far leg at ({fx}, {fy}) would be at level {level}, "
                    f"but the palace there is already {below} high (rule F)")
            plan.stacks.append(Stack(fx, fy, below, level - below))
            # E: attached when a leg or its support rests on an element that stood there before.
            plan.attached |= below > 0
            plan.arches.append((x, y, heading, level))
            x, y, previous = fx, fy, heading
        if not plan.attached and not unfinished:
            return _illegal("E", "the staircase does not attach to the palace: no leg or support "
                            "rests on an element that was already built (rule E)")
        if len(steps) > supply.arches:
            return _illegal("supply", f"the staircase needs {len(steps)} arches but you have {supply.arches}")
        self._allocate_columns(plan, supply, column_units)
        if plan.bricks > supply.bricks:
            used = f" after using {plan.columns} column(s)" if plan.columns else ""
            return _illegal("supply", f"the staircase needs {plan.bricks} bricks{used} but you have {supply.bricks}")
        plan.stacks = [s for s in plan.stacks if s.units > 0]
        plan.deco = (x, y)
        plan.deco_top = level + 2  # the arch (1) and the decoration (1) on its level
        return plan

    @staticmethod
    def _allocate_columns(plan: StaircasePlan, supply: Supply, column_units: int) -> None:
        """Columns first: a column replaces three bricks in any stack of three or more units,
        in building order while the player has columns; bricks fill the rest. Using the most
        columns needs the fewest bricks, so no staircase is refused that another choice allows."""
        left = supply.columns
        for s in plan.stacks:
            s.columns = min(left, s.units // column_units)
            left -= s.columns
        plan.columns = supply.columns - left
        plan.bricks = plan.units - column_units * plan.columns

    # ----------------------------------------------------------------- placing
    def build_staircase(self, plan: StaircasePlan, owner: int, turn: int, column_units: int = 3) -> None:
        """Place a legal plan: stacks, arches and the decoration, in building order."""
        assert plan.legal, plan.reason
        stacks = list(plan.stacks)
        for near_x, near_y, heading, level in plan.arches:
            sx, sy = heading_step(heading)
            # Stacks below this arch (its near leg's and far leg's supports) go first.
            fx, fy = near_x + ARCH_SPAN * sx, near_y + ARCH_SPAN * sy
            for s in [s for s in stacks if (s.x, s.y) in ((near_x, near_y), (fx, fy)) and s.bottom + s.units <= level]:
                self._place_stack(s, owner, turn, column_units)
                stacks.remove(s)
            for i in range(ARCH_SPAN + 1):
                x, y = near_x + i * sx, near_y + i * sy
                self.height[y, x] = level + 1
                self.knob[y, x] = Knob.ARCH_END if i in (0, ARCH_SPAN) else Knob.ARCH_MIDDLE
            self.elements.append({"kind": "arch", "x": near_x, "y": near_y, "heading": HEADING_NAMES[heading],
                                  "level": level, "owner": owner, "turn": turn})
        assert not stacks, "every stack stands under an arch"
        dx, dy = plan.deco
        self.place_decoration(dx, dy, plan.colour, owner, turn)

    def _place_stack(self, s: Stack, owner: int, turn: int, column_units: int) -> None:
        assert int(self.height[s.y, s.x]) == s.bottom
        self.height[s.y, s.x] = s.bottom + s.units
        self.knob[s.y, s.x] = Knob.BRICK if s.bricks else Knob.COLUMN
        self.elements.append({"kind": "stack", "x": s.x, "y": s.y, "bottom": s.bottom, "units": s.units,
                              "columns": s.columns, "owner": owner, "turn": turn})

    def place_decoration(self, x: int, y: int, colour: int, owner: int, turn: int) -> None:
        top = int(self.height[y, x]) + 1
        self.height[y, x] = top
        self.knob[y, x] = DECO_OF_COLOUR[colour]
        # Covered decorations still count: the texts compare with every decoration on the palace.
        self.deco_max[colour] = max(self.deco_max[colour], top)
        self.elements.append({"kind": "decoration", "x": x, "y": y, "colour": COLOUR_NAMES[colour],
                              "top": top, "owner": owner, "turn": turn})

    def place_start_staircase(self, anchor: tuple[int, int], heading: int) -> None:
        """Set-up: arch 1 on the ground, a brick under arch 2's far leg, a gold decoration on top."""
        ax, ay = anchor
        sx, sy = heading_step(heading)
        brick = Stack(ax + 2 * ARCH_SPAN * sx, ay + 2 * ARCH_SPAN * sy, 0, 1)
        plan = StaircasePlan(
            legal=True, colour=Colour.GOLD,
            arches=[(ax, ay, heading, 0), (ax + ARCH_SPAN * sx, ay + ARCH_SPAN * sy, heading, 1)],
            stacks=[brick], bricks=1, deco=(brick.x, brick.y))
        self.build_staircase(plan, owner=-1, turn=0)

    def move_animal(self, animal: Animal, x: int, y: int) -> None:
        self.animals[animal] = y * BOARD_SIZE + x

    # ----------------------------------------------------------------- saving
    def to_dict(self) -> dict:
        return {"ground": self.ground.tolist(), "height": self.height.tolist(), "knob": self.knob.tolist(),
                "animals": list(self.animals), "deco_max": list(self.deco_max),
                "animal_height": self.animal_height, "elements": self.elements}

    @classmethod
    def from_dict(cls, d: dict) -> Palace:
        p = cls(np.array(d["ground"], np.int8), int(d["animal_height"]))
        p.height = np.array(d["height"], np.int16)
        p.knob = np.array(d["knob"], np.int8)
        if p.height.shape != (BOARD_SIZE, BOARD_SIZE) or p.knob.shape != (BOARD_SIZE, BOARD_SIZE):
            raise ValueError("palace grids must be 32x32")
        p.animals = [int(a) for a in d["animals"]]
        p.deco_max = [int(v) for v in d["deco_max"]]
        p.elements = list(d["elements"])
        return p
