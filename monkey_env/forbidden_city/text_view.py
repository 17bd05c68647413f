"""The city as text, for terminals and the ``ansi`` render mode.

Each tile is 5 characters by 4 lines: its sides (``---``/``|`` a wall, ``-d-``/``d`` a door,
blank open floor), its floor (g green, p pink, w white, I the Imperial Palace, ~ a garden; a
diagonal wall as ``\\`` or ``/`` between its two parts' letters, capitals for a closed room),
and what it holds (``11``: two advisors of seat 1, one digit each; ``D``: a dragon). Advisors
go by seat number, not colour, so that no letter means two things (P was closed pink and
purple).

For play (apps/play.py): ``group_choices`` lists each distinct placement once (turns of a
symmetric tile that lay the same face on the same cell are one choice) and ``parse_answer``
reads "x y rotation".
"""

from __future__ import annotations

from monkey_env.forbidden_city.engine import ROTATIONS
from monkey_env.forbidden_city.geometry import COLOURS, DOOR, WALL, E, N, S, W, node_id

LETTER = {"green": "g", "pink": "p", "white": "w", "palace": "I", "garden": "~"}


def _cell_lines(game, x: int, y: int, closed: set[int]) -> list[str]:
    laid = game.city.at(x, y)
    if laid is None:
        return [" " * 5] * 4
    f = laid.face
    size = game.data.size

    def letter(part):
        c = LETTER[COLOURS[f.floors[part]]]
        room = game_room_of(game, node_id(x, y, part, size))
        return c.upper() if room in closed and c in "gpw" else c

    horizontal = lambda s: {WALL: "---", DOOR: "-d-"}.get(s, "   ")
    vertical = lambda s: {WALL: "|", DOOR: "d"}.get(s, " ")
    if f.parts == 1:
        floor = f" {letter(0)} "
    elif f.quarter_part[N] == f.quarter_part[E]:
        floor = f"{letter(1)}\\{letter(0)}"
    else:
        floor = f"{letter(0)}/{letter(1)}"
    bits = ""
    if sum(f.advisors):
        bits += str(laid.owner + 1) * sum(f.advisors)
    if sum(f.dragons):
        bits += "D"
    return ["+" + horizontal(f.sides[N]) + "+",
            vertical(f.sides[W]) + floor + vertical(f.sides[E]),
            vertical(f.sides[W]) + f"{bits:<3}" + vertical(f.sides[E]),
            "+" + horizontal(f.sides[S]) + "+"]


def game_room_of(game, node: int) -> int:
    return game._room_of.get(node, -1)


def city_text(game) -> str:
    cells = game.city.cells
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    x0, x1 = max(min(xs) - 1, 0), min(max(xs) + 1, game.data.size - 1)
    y0, y1 = max(min(ys) - 1, 0), min(max(ys) + 1, game.data.size - 1)
    rooms = game.rooms()
    game._room_of = {n: r.id for r in rooms for n in r.nodes}
    closed = game.closed_room_ids()
    lines = ["   " + "".join(f"{x:^5}" for x in range(x0, x1 + 1))]
    for y in range(y0, y1 + 1):
        block = [_cell_lines(game, x, y, closed) for x in range(x0, x1 + 1)]
        for k in range(4):
            lines.append((f"{y:>2} " if k == 1 else "   ") + "".join(b[k] for b in block))
    return "\n".join(lines)


def game_text(game, viewer: int | None = None) -> str:
    """The city, the purses and the tile in hand of the seat to play, shown to ``viewer`` only
    when it is that seat (a tile in hand is hidden); everything when None."""
    colours = game.data.seat_colours(game.players)
    out = [city_text(game), ""]
    for s in range(game.players):
        mark = "*" if s == game.current and not game.game_over else " "
        extra = f" (+{game.end_coins[s]} for the last tiles)" if game.game_over and game.end_coins[s] else ""
        out.append(f"{mark} seat {s + 1} {colours[s]:<7} {game.purse[s]:>3} coins{extra}, {game.tiles_left(s)} tiles left")
    for scored in game.last_scores:
        out.append(f"  closed a {COLOURS[game.city.floor(scored.room)]} room worth {scored.value} "
                   f"({scored.own} own + {len(scored.linked)} linked): coins {list(scored.coins)}")
    if game.game_over:
        out.append("game over; winner" + ("s" if len(game.winners()) > 1 else "") + ": "
                   + ", ".join(f"seat {w + 1} ({colours[w]})" for w in game.winners()))
    elif game.held[game.current] is not None and viewer in (None, game.current):
        out.append(f"seat {game.current + 1} holds: {game.data.kinds[game.held[game.current]].describe()}")
    return "\n".join(out)


LEGEND = "\n".join((
    "legend: a tile is 5 characters by 4 lines: its sides around its floor and what it holds",
    "  + = a tile's corner; g p w = green, pink, white floor; G P W = that floor, its room closed;",
    "  I = the Imperial Palace; ~ = a garden; --- | = a wall; -d- d = a door in a wall;",
    "  \\ / = a diagonal wall between two floors (a side left blank is open floor);",
    "  1 2 3 4 = an advisor of that seat (11: two of seat 1); D = a dragon; * = the seat to play"))
ANSWER_HINT = "x y rotation, e.g. 12 11 90 (just x y where one rotation fits)"


def _same_face_key(face) -> tuple:
    """The face as the rules see it, whichever of its two parts is numbered 0: parts numbered in
    the order their first quarter comes (N, E, S, W)."""
    order = list(dict.fromkeys(face.quarter_part))
    number = {part: i for i, part in enumerate(order)}
    return (face.sides, tuple(number[q] for q in face.quarter_part), tuple(face.floors[p] for p in order),
            tuple(face.advisors[p] for p in order), tuple(face.dragons[p] for p in order), face.counts)


def placement_groups(game, legal: list[int]) -> list[list[int]]:
    """The legal actions in groups that lead to the same position, each group in action order:
    two turns of the tile at one cell that give the same face (a symmetric tile)."""
    groups: dict[tuple, list[int]] = {}
    for a in sorted(legal):
        if a == game.layout.set_aside:
            groups[("aside",)] = [a]
            continue
        x, y, turns = game.layout.decode(a)
        groups.setdefault((x, y, _same_face_key(game.held_face().turned(turns))), []).append(a)
    return list(groups.values())


def _turns_words(group: list[int], layout) -> str:
    degrees = [f"{layout.decode(a)[2] * 90}°" for a in group]
    return degrees[0] if len(degrees) == 1 else f"{', '.join(degrees[:-1])} or {degrees[-1]}"


def group_choices(game, legal: list[int]) -> list[tuple[int, str]]:
    """Each distinct placement once, played by the lowest action of its group."""
    out = []
    for group in placement_groups(game, legal):
        a = group[0]
        if a == game.layout.set_aside:
            out.append((a, game.action_name(a)))
            continue
        x, y, turns = game.layout.decode(a)
        same = " (the same placement)" if len(group) > 1 else ""
        out.append((a, f"lay at ({x}, {y}) turned {_turns_words(group, game.layout)}{same}: "
                       f"{game.held_face().turned(turns).words()}"))
    return out


def parse_answer(game, answer: str, actions: list[int]) -> int | None:
    """ "x y rotation" (degrees), or "x y" where one placement is left at (x, y): that placement's
    action among ``actions``; None when the answer is not two or three whole numbers."""
    words = answer.replace(",", " ").replace("(", " ").replace(")", " ").replace("°", " ").split()
    if not 2 <= len(words) <= 3 or not all(w.lstrip("-").isdigit() for w in words):
        return None
    x, y = int(words[0]), int(words[1])
    size = game.data.size
    if not (0 <= x < size and 0 <= y < size):
        raise ValueError(f"({x}, {y}) is off the table: x and y go from 0 to {size - 1}")
    L = game.layout
    legal = [int(a) for a in game.legal_mask().nonzero()[0]]
    here = [g for g in placement_groups(game, legal) if g[0] != L.set_aside and L.decode(g[0])[:2] == (x, y)]
    if not here:
        reasons = {game.explain(L.encode(x, y, t)) for t in range(ROTATIONS)}
        raise ValueError(f"the tile cannot go at ({x}, {y}): " + (reasons.pop() if len(reasons) == 1 else
                                                                  "it fits there in no rotation"))
    fits = "; ".join(f"turned {_turns_words(g, L)}" for g in here)
    if len(words) == 2:
        if len(here) > 1:
            raise ValueError(f"at ({x}, {y}) the tile fits {len(here)} ways ({fits}): add the rotation, "
                             f"e.g. {x} {y} {L.decode(here[1][0])[2] * 90}")
        group = here[0]
    else:
        degrees = int(words[2])
        if degrees % 90 or not 0 <= degrees < 360:
            raise ValueError(f"{degrees} is not a rotation: 0, 90, 180 or 270 (degrees clockwise)")
        group = next((g for g in here if L.encode(x, y, degrees // 90) in g), None)
        if group is None:
            why = game.explain(L.encode(x, y, degrees // 90))
            raise ValueError(f"turned {degrees}° the tile cannot go at ({x}, {y}) ({why}); it fits there {fits}")
    if group[0] not in actions:
        raise ValueError(f"({x}, {y}) turned {_turns_words(group, L)} is not among the choices")
    return group[0]

