"""The city as text, for terminals and the ``ansi`` render mode.

Each tile is 5 characters by 4 lines: its sides (``---``/``|`` a wall, ``-d-``/``d`` a door,
blank open floor), its floor (g green, p pink, w white, I the Imperial Palace, ~ a garden; a
diagonal wall as ``\\`` or ``/`` between its two parts' letters, capitals for a closed room),
and what it holds (``2R``: two advisors of red; ``D``: a dragon).
"""

from __future__ import annotations

from monkey_env.forbidden_city.geometry import COLOURS, DOOR, WALL, E, N, S, W, node_id

LETTER = {"green": "g", "pink": "p", "white": "w", "palace": "I", "garden": "~"}


def _cell_lines(game, x: int, y: int, closed: set[int], colours: list[str]) -> list[str]:
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
        bits += f"{sum(f.advisors)}{colours[laid.owner][0].upper()}"
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
    colours = game.data.seat_colours(game.players)
    lines = ["   " + "".join(f"{x:^5}" for x in range(x0, x1 + 1))]
    for y in range(y0, y1 + 1):
        block = [_cell_lines(game, x, y, closed, colours) for x in range(x0, x1 + 1)]
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
