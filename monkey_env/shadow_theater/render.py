"""A picture of a Shadow Theater position: the three locations and their spaces, the Monkey King,
the monkeys, the reserve, each player's supply, hand and scroll, and the Lanterns.
``game_picture(game) -> (H, W, 3) uint8`` (``render_mode="rgb_array"``, ``show --png``)."""

from __future__ import annotations

import numpy as np

from monkey_env.shadow_theater.engine import JADE, MONKEYS, PEACHES, Game
from monkey_env.shadow_theater.game_data import LOCATIONS

LOCATION_COLOURS = {"lair": "#b23a48", "palace": "#d9a441", "garden": "#4f9d69"}
SEAT_COLOURS = ("#2b6cb0", "#805ad5")
TITLES = {"lair": "Dragon's Lair", "palace": "Emperor's Palace", "garden": "Celestial Garden"}


def hand_words(game: Game, seat: int) -> str:
    """The hand as kinds with counts: 'Jade Spear, Pearl of the Dragon x2'."""
    counts: dict[str, int] = {}
    for c in game.hands[seat]:
        counts[game.data.cards[c].name] = counts.get(game.data.cards[c].name, 0) + 1
    return ", ".join(f"{n} x{k}" if k > 1 else n for n, k in counts.items()) or "-"


def game_picture(game: Game, *, size: tuple[int, int] = (900, 620)) -> np.ndarray:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, FancyBboxPatch, Rectangle

    g = game
    fig = plt.figure(figsize=(size[0] / 100, size[1] / 100), dpi=100)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(0, 9)
    ax.set_ylim(0, 6.2)
    ax.axis("off")
    fig.patch.set_facecolor("#1f1a24")          # the theatre's dark stage
    ax.text(4.5, 5.9, f"The Shadow Theater: round {g.round}   Lanterns {g.lanterns[0]} - {g.lanterns[1]}",
            ha="center", va="center", color="white", fontsize=15, weight="bold")
    spaces = g.data.game.spaces_per_location
    for loc, name in enumerate(LOCATIONS):
        x0 = 0.3 + loc * 2.9
        ax.add_patch(FancyBboxPatch((x0, 3.2), 2.6, 2.2, boxstyle="round,pad=0.05", fc=LOCATION_COLOURS[name],
                                    ec="white", lw=3 if g.king == loc else 1, alpha=0.9))
        ax.text(x0 + 1.3, 5.15, TITLES[name], ha="center", color="white",
                fontsize=12, weight="bold")
        for sp in range(spaces):
            cx, cy = x0 + 0.45 + sp * 0.85, 4.1
            ax.add_patch(Circle((cx, cy), 0.34, fc="#00000033", ec="white", lw=1))
            king_here = g.king == loc and sp == 0
            monkey_here = (sp - (1 if g.king == loc else 0)) < g.board[loc] and not king_here
            if king_here:
                ax.add_patch(Circle((cx, cy), 0.3, fc="gold", ec="black", lw=1.5))
                ax.text(cx, cy, "K", ha="center", va="center", fontsize=14, weight="bold")
            elif monkey_here:
                ax.add_patch(Circle((cx, cy), 0.26, fc="#8b5a2b", ec="black"))
                ax.text(cx, cy, "m", ha="center", va="center", color="white", fontsize=11)
        effect = {"lair": "take 1 weapon card", "palace": "take 1 jade + 2 monkeys",
                  "garden": "take 1 peach, move the King"}[name]
        ax.text(x0 + 1.3, 3.4, effect, ha="center", color="white", fontsize=9)
    r = g.reserve
    ax.text(4.5, 2.85, f"Reserve: {r[MONKEYS]} monkeys   {r[JADE]} jade   {r[PEACHES]} peaches   "
                       f"{len(g.deck)} weapon cards   ({len(g.discard)} played)",
            ha="center", color="white", fontsize=11)
    for seat in (0, 1):
        x0 = 0.3 + seat * 4.35
        mine = g.current == seat and not g.game_over
        ax.add_patch(Rectangle((x0, 0.15), 4.1, 2.35, fc=SEAT_COLOURS[seat], ec="white", lw=3 if mine else 1,
                               alpha=0.85))
        s = g.supply[seat]
        scroll = g.scroll_of(seat)
        lines = [f"Seat {seat + 1}{'  (to play)' if mine else ''}    Lanterns: {'●' * g.lanterns[seat] or '-'}",
                 f"{s[MONKEYS]} monkeys   {s[JADE]} jade   {s[PEACHES]} peaches",
                 f"scroll: {scroll.name if scroll else '-'}",
                 "hand: " + hand_words(g, seat),
                 f"points now: {g.round_points(seat)['total']}"]
        for i, line in enumerate(lines):
            ax.text(x0 + 0.15, 2.2 - i * 0.42, line[:64], color="white", fontsize=12 if i == 0 else 9 if i == 3 else 10.5,
                    weight="bold" if i == 0 else "normal", va="center")
    fig.canvas.draw()
    image = np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()
    plt.close(fig)
    return image
