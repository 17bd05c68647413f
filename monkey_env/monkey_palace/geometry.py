"""The plate's grid: cells, headings, and the kinds of knob a cell can show on top.

A cell is one stud of the 32x32 plate, written ``(x, y)`` with x the column (west to
east) and y the row (north to south); its flat index is ``y * 32 + x``. Heights are in
brick units (brick +1, column +3, arch +1, decoration +1).
"""

from __future__ import annotations

from enum import IntEnum

BOARD_SIZE = 32
NUM_CELLS = BOARD_SIZE * BOARD_SIZE
# The four green corner pieces hold the ground map, one stud in from each corner.
CORNER_CELLS = ((1, 1), (30, 1), (1, 30), (30, 30))

HEADING_NAMES = ("N", "E", "S", "W")
_STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))


def heading_step(heading: int) -> tuple[int, int]:
    """The (dx, dy) of one stud in direction ``heading`` (0 N, 1 E, 2 S, 3 W)."""
    return _STEPS[heading]


def turn(heading: int, direction: str) -> int:
    """The heading after a 90-degree turn: 'L' left, 'R' right, 'S' straight on."""
    return (heading + {"S": 0, "R": 1, "L": -1}[direction]) % 4


def cell_xy(index: int) -> tuple[int, int]:
    return index % BOARD_SIZE, index // BOARD_SIZE


def on_plate(x: int, y: int) -> bool:
    return 0 <= x < BOARD_SIZE and 0 <= y < BOARD_SIZE


class Colour(IntEnum):
    LIGHT = 0
    DARK = 1
    GOLD = 2


COLOUR_NAMES = ("light", "dark", "gold")


class Knob(IntEnum):
    """What the top of a cell shows (animals are kept apart, see palace.Palace)."""

    GROUND_LIGHT = 0
    GROUND_DARK = 1
    GROUND_GOLD = 2
    GROUND_WHITE = 3
    BLOCKED = 4
    CORNER = 5
    BRICK = 6
    COLUMN = 7
    ARCH_END = 8
    ARCH_MIDDLE = 9
    DECO_LIGHT = 10
    DECO_DARK = 11
    DECO_GOLD = 12


KNOB_WORDS = {
    Knob.GROUND_LIGHT: "a light-green ground stud",
    Knob.GROUND_DARK: "a dark-green ground stud",
    Knob.GROUND_GOLD: "a gold ground stud",
    Knob.GROUND_WHITE: "a white start-area stud",
    Knob.BLOCKED: "a blocked stud",
    Knob.CORNER: "a corner piece",
    Knob.BRICK: "a brick",
    Knob.COLUMN: "a column",
    Knob.ARCH_END: "an arch's end knob",
    Knob.ARCH_MIDDLE: "an arch's middle knob",
    Knob.DECO_LIGHT: "a light-green decoration",
    Knob.DECO_DARK: "a dark-green decoration",
    Knob.DECO_GOLD: "a gold decoration",
}

GROUND_OF_COLOUR = (Knob.GROUND_LIGHT, Knob.GROUND_DARK, Knob.GROUND_GOLD)
DECO_OF_COLOUR = (Knob.DECO_LIGHT, Knob.DECO_DARK, Knob.DECO_GOLD)
# Rule D: one may build on any open knob, decorations included, but not on an arch's
# middle knobs; blocked studs have no hole and the corner pieces hold the sheet.
BUILDABLE = frozenset(set(Knob) - {Knob.ARCH_MIDDLE, Knob.BLOCKED, Knob.CORNER})
MAP_CHAR_KNOB = {
    "l": Knob.GROUND_LIGHT, "d": Knob.GROUND_DARK, "g": Knob.GROUND_GOLD,
    "w": Knob.GROUND_WHITE, "#": Knob.BLOCKED, "C": Knob.CORNER,
}


class Animal(IntEnum):
    MONKEY = 0
    BUTTERFLY = 1
    FROG = 2


ANIMAL_NAMES = ("monkey", "butterfly", "frog")
OFF_PLATE = -1  # an animal still on its trophy card
