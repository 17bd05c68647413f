"""The palace and a game as text, and palaces drawn as text for scenarios.

A cell is written as one token: a letter for the knob on top, then its height.
Ground studs have no height (they are at 0):

    l d g w   light-green, dark-green, gold, white ground stud
    #  C      blocked stud, corner piece
    b c       brick, column (top of a stack)
    A m       arch end knob, arch middle knob
    L D G     light-green, dark-green, gold decoration
    @ Y F     the monkey, butterfly, frog standing there (the knob underneath is hidden)

Example: ``A1 m1 m1 A2 m2 m2 G3`` is the starting staircase seen along its row.

Under it a second grid, cell for cell, says who built the top element of each cell: the seat's
number, ``S`` for the starting staircase, ``.`` where nothing was placed (``owners_text``).
"""

from __future__ import annotations

import numpy as np

from monkey_env.monkey_palace.catalogue import ARCH_SPAN
from monkey_env.monkey_palace.geometry import BOARD_SIZE, HEADING_NAMES, OFF_PLATE, Knob, heading_step

KNOB_LETTER = {
    Knob.GROUND_LIGHT: "l", Knob.GROUND_DARK: "d", Knob.GROUND_GOLD: "g", Knob.GROUND_WHITE: "w",
    Knob.BLOCKED: "#", Knob.CORNER: "C", Knob.BRICK: "b", Knob.COLUMN: "c",
    Knob.ARCH_END: "A", Knob.ARCH_MIDDLE: "m",
    Knob.DECO_LIGHT: "L", Knob.DECO_DARK: "D", Knob.DECO_GOLD: "G",
}
LETTER_KNOB = {v: k for k, v in KNOB_LETTER.items()}
ANIMAL_LETTER = "@YF"  # monkey, butterfly, frog
GROUND_LETTERS = "ldgw#C"


def cell_token(palace, x: int, y: int) -> str:
    flat = y * BOARD_SIZE + x
    if flat in palace.animals:
        letter = ANIMAL_LETTER[palace.animals.index(flat)]
    else:
        letter = KNOB_LETTER[Knob(int(palace.knob[y, x]))]
    h = int(palace.height[y, x])
    return letter if letter in GROUND_LETTERS and h == 0 else f"{letter}{h}"


def _bounds(palace, crop: bool, margin: int) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1): what is built and ``margin`` around it, or the whole plate."""
    built = np.argwhere(palace.height > 0)
    if not (crop and len(built)):
        return 0, 0, BOARD_SIZE - 1, BOARD_SIZE - 1
    (y0, x0), (y1, x1) = built.min(0), built.max(0)
    return (max(0, x0 - margin), max(0, y0 - margin),
            min(BOARD_SIZE - 1, x1 + margin), min(BOARD_SIZE - 1, y1 + margin))


def _grid(bounds: tuple[int, int, int, int], token, width: int = 3) -> str:
    x0, y0, x1, y1 = bounds
    lines = ["y\\x " + " ".join(f"{x:<{width}}" for x in range(x0, x1 + 1))]
    for y in range(y0, y1 + 1):
        lines.append(f"{y:>3} " + " ".join(f"{token(x, y):<{width}}" for x in range(x0, x1 + 1)))
    return "\n".join(line.rstrip() for line in lines)


def palace_text(palace, crop: bool = True, margin: int = 1) -> str:
    """The palace as a grid of tokens with x and y rulers; cropped to what is built."""
    return _grid(_bounds(palace, crop, margin), lambda x, y: cell_token(palace, x, y))


def owners(palace) -> np.ndarray:
    """(32, 32) [y, x]: the seat that placed each cell's top element, -1 for the starting
    staircase, -2 where no element was placed. Elements are listed in building order, so a later
    one covering a cell is on top."""
    owner = np.full((BOARD_SIZE, BOARD_SIZE), -2, np.int8)
    for e in palace.elements:
        x, y = int(e["x"]), int(e["y"])
        cells = [(x, y)]
        if e["kind"] == "arch":
            sx, sy = heading_step(HEADING_NAMES.index(e["heading"]))
            cells = [(x + i * sx, y + i * sy) for i in range(ARCH_SPAN + 1)]
        for cx, cy in cells:
            owner[cy, cx] = int(e.get("owner", -1))
    return owner


def owners_text(palace, crop: bool = True, margin: int = 1) -> str:
    """Who built each cell, on the cells of palace_text: 1-4 a seat, S the starting staircase.
    A mark is one character, so its cells are narrower than the palace's: the whole plate fits
    in 100 columns."""
    owner = owners(palace)
    mark = lambda x, y: {-2: ".", -1: "S"}.get(int(owner[y, x]), str(int(owner[y, x]) + 1))
    return _grid(_bounds(palace, crop, margin), mark, width=2)


def palace_with_owners(palace) -> str:
    """The palace grid, then the grid of who built each cell (the same cells)."""
    return f"{palace_text(palace)}\nwho built each cell (seat number; S the start; . nothing placed):\n{owners_text(palace)}"


def draw_palace(palace, rows: list[str] | str, origin: tuple[int, int] = (0, 0)) -> None:
    """Overlay a drawing (rows of tokens, as above) onto ``palace`` with its first token at ``origin``.

    Used by scenarios: the palace is set directly, as it would stand after earlier turns.
    """
    if isinstance(rows, str):
        rows = [r for r in rows.strip("\n").split("\n") if r.strip()]
    ox, oy = origin
    for dy, row in enumerate(rows):
        for dx, token in enumerate(row.split()):
            x, y = ox + dx, oy + dy
            if not (0 <= x < BOARD_SIZE and 0 <= y < BOARD_SIZE):
                raise ValueError(f"token {token!r} at ({x}, {y}) is off the plate")
            letter, digits = token[0], token[1:]
            if digits and not digits.isdigit():
                raise ValueError(f"bad token {token!r} at ({x}, {y}): a letter then a height")
            height = int(digits) if digits else 0
            if letter in ANIMAL_LETTER:
                palace.animals[ANIMAL_LETTER.index(letter)] = y * BOARD_SIZE + x
                palace.height[y, x] = height
                if height == 0:
                    palace.knob[y, x] = palace.ground[y, x]
                elif not Knob(int(palace.knob[y, x])) >= Knob.BRICK:
                    palace.knob[y, x] = Knob.ARCH_END  # an animal stands on an end knob unless told otherwise
                continue
            if letter not in LETTER_KNOB:
                raise ValueError(f"bad token {token!r} at ({x}, {y}): unknown letter {letter!r}")
            knob = LETTER_KNOB[letter]
            if letter in GROUND_LETTERS:
                if height:
                    raise ValueError(f"bad token {token!r} at ({x}, {y}): ground studs have no height")
                palace.ground[y, x] = knob
            elif height == 0:
                raise ValueError(f"bad token {token!r} at ({x}, {y}): an element needs a height of 1 or more")
            palace.knob[y, x] = knob
            palace.height[y, x] = height
            if letter in "LDG":
                colour = "LDG".index(letter)
                palace.deco_max[colour] = max(palace.deco_max[colour], height)
    return None


LINE_WIDTH = 100       # game_text's lists break between entries to stay within this
LEGEND = "\n".join((
    "legend: a cell of the palace grid is the knob on top and its height (ground studs have none)",
    "  l d g w = light-green, dark-green, gold, white ground stud; # = blocked stud; C = corner piece",
    "  b = brick; c = column; A = arch end knob; m = arch middle knob (nothing rests on it)",
    "  L D G = light-green, dark-green, gold decoration; @ Y F = the monkey, butterfly, frog",
    "  who built each cell: 1 2 3 4 = that seat; S = the starting staircase; . = nothing placed"))

# What a turn is, in the rulebook's order (docs/RULES.md): play's help.
TURN = "\n".join((
    "A turn, in order:",
    "  1 build: a staircase from a ground stud of a colour (its anchor), arch after arch, stacks of",
    "    bricks or columns under the legs; it must rest on something already built",
    "  2 decorate: a decoration of the anchor's colour goes on its last arch's far end",
    "  3 credits: 1 per arch, +1 if the decoration is the highest of its colour",
    "  4 buy: cards with the credits, one per pile: the multicolour piles, and the piles of the",
    "    decoration's colour; unused credits are lost",
    "  5 instant supply: each card bought gives at once what its lightning shows (arch, brick, column)",
    "  6 cards go on the board's 4 slots (on a full board one covers a slot's top card); then",
    "    the board and every top card give their recurring supply",
    "  7 bonus card (+4 Banana Points): a stack of 5 brick units or more built this turn in one cell",
    "  8 trophies: a gold decoration takes the Monkey (+2; the monkey may move onto an arch end knob);",
    "    with the Butterfly, the highest decoration takes it (+2); with the Frog, it may be taken (-3,",
    "    a column). The game ends when the tray runs short: most Banana Points wins."))


def game_text(game, viewer: int | None = None) -> str:
    """The palace plus every player's supply, board, bonus cards, trophies and Banana Points
    (all public: every ``viewer`` sees the same)."""
    del viewer
    from monkey_env.core.outcome import seat_label
    from monkey_env.monkey_palace.config import PILE_IDS

    out = [palace_with_owners(game.palace), LEGEND, ""]
    # Who built what: each staircase is known by its decoration (seats counted from 1, as on screens).
    decorations = [e for e in game.palace.elements if e["kind"] == "decoration" and e.get("owner", -1) >= 0]
    if decorations:
        entries = [f"{seat_label(e['owner'])} {e['colour']} at ({e['x']}, {e['y']}) h{e['top']}" for e in decorations]
        line = "staircases (decoration at x, y, height):"
        for entry in entries:           # whole entries per line, as wide as the grid's usual crop
            if len(line) + len(entry) + 2 > LINE_WIDTH:
                out.append(line + ";")
                line = "  " + entry
            else:
                line += (" " if line.endswith(":") else "; ") + entry
        out.append(line)
    status = (f"game over, won by {game.winners_text()}" if game.game_over
              else f"round {game.round}, {seat_label(game.current)} to play")
    out.append(f"{status}; tray: {game.tray.arches} arches, {game.tray.bricks} bricks, "
               f"{game.tray.columns} columns; bonus cards left: {game.bonus_left}")
    if game.end_triggered:
        out.append(f"end triggered: {game.end_reason}")
    piles = "  ".join(f"{pid}:{len(p)}" for pid, p in zip(PILE_IDS, game.piles))
    out.append(f"piles (cards left): {piles}")
    animals = ", ".join(f"{name} at {(cell % BOARD_SIZE, cell // BOARD_SIZE) if cell != OFF_PLATE else 'its card'}"
                        for name, cell in zip(("monkey", "butterfly", "frog"), game.palace.animals))
    out.append(f"animals: {animals}")
    winners = set(game.winners()) if game.game_over else set()
    for seat, p in enumerate(game.players):
        b = game.bananas(seat)
        trophies = [name for name, h in game.holders.items() if h == seat]
        tops = []
        for slot in p.slots:
            if slot:
                c = game.data.cards[slot[-1]]
                tops.append(f"{PILE_IDS[c.pile]}(+{c.recurring[0]}a {c.recurring[1]}b {c.recurring[2]}c, {len(slot)} deep)")
            else:
                tops.append("empty")
        mark = "  WINNER" if seat in winners else ""
        out.append(f"{seat_label(seat)}: {b['total']} Banana Points (cards {b['cards']}, bonus {b['bonus']}, "
                   f"trophies {b['trophies']}: {', '.join(trophies) or 'none'}){mark}")
        out.append(f"  supply: {p.supply.arches} arches, {p.supply.bricks} bricks, {p.supply.columns} columns; "
                   f"bonus cards: {p.bonus_cards}")
        out.append(f"  board slots: {' | '.join(tops)}")
    return "\n".join(out)
