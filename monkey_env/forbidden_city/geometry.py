"""The geometry of tiles on the table: sides, quarters, rotations and the rooms' nodes.

A square tile is cut into four quarters, one against each side (north, east, south, west).
Without a diagonal wall the four quarters are one part of a room; a diagonal wall splits the
tile into two parts of two quarters each. Each side is open floor, a wall, or a wall with a
door. A room is a set of parts joined through open sides; its *nodes* are (cell, part) pairs,
numbered ``(y * size + x) * 2 + part`` (the JAX engine uses the same numbers).

Rows (y) run from north to south, columns (x) from west to east.
"""

from __future__ import annotations

N, E, S, W = 0, 1, 2, 3
DIRECTIONS = (N, E, S, W)
DIRECTION_NAMES = ("north", "east", "south", "west")
STEP = {N: (0, -1), E: (1, 0), S: (0, 1), W: (-1, 0)}   # (dx, dy)


def opposite(d: int) -> int:
    return (d + 2) % 4


# Sides
OPEN, WALL, DOOR = 0, 1, 2
SIDE_LETTERS = {"o": OPEN, "w": WALL, "d": DOOR}
SIDE_NAMES = ("open", "wall", "door")

# Floor colours: the three room colours, then the start tile's special cells.
GREEN, PINK, WHITE, PALACE, GARDEN = 0, 1, 2, 3, 4
COLOURS = ("green", "pink", "white", "palace", "garden")
ROOM_COLOURS = COLOURS[:3]

# Diagonal walls: which part (0 or 1) each quarter N, E, S, W belongs to.
DIAGONALS = {
    "none": (0, 0, 0, 0),
    "nw-se": (0, 0, 1, 1),     # north and east | south and west
    "sw-ne": (0, 1, 1, 0),     # north and west | east and south
}

PARTS = 2                      # parts per cell (nodes per cell)


def rotate(values: tuple, turns: int) -> tuple:
    """Per-side values of a tile turned clockwise ``turns`` quarter turns: what faced north
    faces east after one turn."""
    turns %= 4
    return tuple(values[(d - turns) % 4] for d in DIRECTIONS)


def node_id(x: int, y: int, part: int, size: int) -> int:
    return (y * size + x) * PARTS + part


def node_cell(node: int, size: int) -> tuple[int, int, int]:
    """(x, y, part) of a node number."""
    cell, part = divmod(node, PARTS)
    y, x = divmod(cell, size)
    return x, y, part
