"""The game's constants and its action space, shared by both engines."""

from __future__ import annotations

NAME = "pebble_piles"
PILES = 6                  # piles in the row
MIN_PEBBLES = 10           # a dealt pile holds MIN_PEBBLES .. MAX_PEBBLES pebbles
MAX_PEBBLES = 30
MAX_TAKE = 3               # a turn takes 1 .. MAX_TAKE pebbles from one pile
MAX_SEATS = 4
NUM_ACTIONS = PILES * MAX_TAKE  # action = pile * MAX_TAKE + (pebbles - 1)


def decode(action: int) -> tuple[int, int]:
    """(pile, pebbles) of an action index."""
    return action // MAX_TAKE, action % MAX_TAKE + 1


def action_name(action: int) -> str:
    pile, pebbles = decode(action)
    return f"take {pebbles} from pile {pile + 1}"
