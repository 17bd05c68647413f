"""Pebble Piles in words: the position for the terminal (show, play) and render_mode "ansi"."""

from __future__ import annotations

from pebble_piles.engine import Game

LEGEND = "\n".join((
    "legend: o = a pebble; N = the pebbles a pile holds; * = a pile at an end of the row (one may take from it);",
    "  > = the seat to play; points = pebbles taken, one point each.",
    "  A turn takes 1 to 3 pebbles from a pile marked *. When the piles are empty the most points win,",
    "  a tie going to the seat that took the last pebble."))


def game_text(game: Game, viewer: int | None = None) -> str:
    """The piles and every seat's points (nothing is hidden, so ``viewer`` changes nothing)."""
    del viewer
    lines = [f"Pebble Piles, round {game.round}"]
    ends = game.row_ends()
    lines += [f"{'*' if p in ends else ' '} pile {p + 1}: {'o' * n:<30} {n:2d}" for p, n in enumerate(game.piles)]
    for seat, points in enumerate(game.points):
        mark = ">" if seat == game.current and not game.game_over else " "
        lines.append(f"{mark} seat {seat + 1}: {points} points")
    if game.game_over:
        lines.append(f"Game over ({game.end_reason}): won by seat(s) {', '.join(str(w + 1) for w in game.winners())}")
    return "\n".join(lines)


def game_picture(game: Game):
    """(H, W, 3) uint8: each pile as a column of grey pebbles (render_mode "rgb_array")."""
    import numpy as np

    from pebble_piles.rules import MAX_PEBBLES, PILES

    cell = 6
    image = np.full(((MAX_PEBBLES + 2) * cell, (PILES * 2 + 1) * cell, 3), 240, np.uint8)
    for p, n in enumerate(game.piles):
        x = (2 * p + 1) * cell
        for k in range(n):
            y = (MAX_PEBBLES - k) * cell
            image[y + 1:y + cell - 1, x + 1:x + cell - 1] = 110
    return image
