"""The Shadow Theater as text: the three locations, the King, the reserve, each player's hand.

A location is a row of spaces: ``K`` the Monkey King, ``1`` or ``2`` a monkey placed by that
seat (in the order placed), ``.`` a free space. Monkeys are neutral: whoever collects a location
takes them all.
"""

from __future__ import annotations

from monkey_env.shadow_theater.actions import PHASE_NAMES
from monkey_env.shadow_theater.engine import JADE, MONKEYS, PEACHES, Game, describe_scroll
from monkey_env.shadow_theater.game_data import LOCATION_NAMES, LOCATIONS

LEGEND = "\n".join((
    "legend: K = the Monkey King; 1 2 = a monkey placed by seat 1 or seat 2 (monkeys are neutral:",
    "  collecting a location takes them all, whoever placed them); . = a free space;",
    "  * = the seat to play. A turn: play any cards matching the King's location, then place a",
    "  monkey or collect a location. A round ends when a reserve type runs out: the most points",
    "  take a Lantern, and 2 Lanterns win."))


def game_text(game: Game, viewer: int | None = None) -> str:
    """The position as ``viewer`` sees it: the other hand hidden until the round's end reveals it
    (its size and the points that do not depend on it are public); everything when None."""
    g = game
    lines = [f"The Shadow Theater, round {g.round} (seat {g.starter + 1} started); Lanterns: "
             f"seat 1 {g.lanterns[0]}, seat 2 {g.lanterns[1]}"]
    spaces = g.data.game.spaces_per_location
    for loc, name in enumerate(LOCATIONS):
        cells = ["K"] if g.king == loc else []
        placed = [str(seat + 1) for seat in g.placed_by[loc][-g.board[loc]:]] if g.board[loc] else []
        cells += placed + ["?"] * (g.board[loc] - len(placed))     # "?": only in positions set by hand
        cells += ["."] * (spaces - len(cells))
        lines.append(f"  {LOCATION_NAMES[name]:<22} [{' '.join(cells)}]")
    r = g.reserve
    lines.append(f"  reserve: {r[MONKEYS]} monkeys, {r[JADE]} jade, {r[PEACHES]} peaches, {len(g.deck)} weapon cards")
    for seat in (0, 1):
        s = g.supply[seat]
        scroll = g.scroll_of(seat)
        parts = g.round_points(seat)
        if viewer is None or viewer == seat or g.game_over:
            hand = ", ".join(g.data.cards[c].name for c in g.hands[seat]) or "no cards"
            pts = f"{parts['total']} points now"
        else:
            hand = f"{len(g.hands[seat])} hidden card{'s' * (len(g.hands[seat]) != 1)}"
            pts = f"{parts['total'] - parts['cards']} points now and its cards'"
        lines.append(f"  seat {seat + 1}{' *' if g.current == seat and not g.game_over else '  '} "
                     f"{s[MONKEYS]} monkeys, {s[JADE]} jade, {s[PEACHES]} peaches; {hand}; scroll: "
                     f"{scroll.name + ' (' + describe_scroll(scroll) + ')' if scroll else '-'}; {pts}")
    for entry in g.round_log:
        who = "void" if entry["winner"] < 0 else f"seat {entry['winner'] + 1} by {entry['by']}"
        lines.append(f"  round {entry['round']}: points {entry['points'][0]}-{entry['points'][1]}, {who}")
    lines.append(f"  {'game over: ' + g.end_reason if g.game_over else 'to decide: ' + PHASE_NAMES[g.phase]}")
    return "\n".join(lines)
