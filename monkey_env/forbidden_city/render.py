"""A picture of the city (matplotlib, imported when used): tiles, walls, doors, each quarter
tinted by its floor colour (closed rooms strong, open rooms pale), advisors in their player's
colour with their number, dragons, the Imperial Palace and the gardens; the coins beneath."""

from __future__ import annotations

import numpy as np

from monkey_env.forbidden_city.geometry import COLOURS, DIRECTIONS, DOOR, OPEN, WALL, E, N, node_id

FLOOR = {"green": ("#5e9c4c", "#b9d8ad"), "pink": ("#d9668c", "#f2c4d3"), "white": ("#bdb5a0", "#f6f3ea"),
         "palace": ("#d4a017", "#d4a017"), "garden": ("#2f5d34", "#2f5d34")}
SEAT = {"red": "#c0392b", "blue": "#2e6fd0", "yellow": "#e8c31a", "purple": "#8e44ad"}
WALL_COLOUR, DOOR_COLOUR = "#4a2c17", "#c0392b"


def _quarter(x: float, y: float, d: int):
    c = (x + 0.5, y + 0.5)
    corners = {N: [(x, y), (x + 1, y)], E: [(x + 1, y), (x + 1, y + 1)],
               2: [(x + 1, y + 1), (x, y + 1)], 3: [(x, y + 1), (x, y)]}[d]
    return [corners[0], corners[1], c]


def draw_city(ax, game) -> None:
    from matplotlib.patches import Circle, Polygon

    size = game.data.size
    rooms = game.rooms()
    room_of = {n: r.id for r in rooms for n in r.nodes}
    closed = game.closed_room_ids()
    colours = game.data.seat_colours(game.players)
    for (x, y), laid in game.city.cells.items():
        f = laid.face
        for d in DIRECTIONS:
            part = f.quarter_part[d]
            name = COLOURS[f.floors[part]]
            strong = room_of[node_id(x, y, part, size)] in closed
            ax.add_patch(Polygon(_quarter(x, y, d), closed=True, facecolor=FLOOR[name][0 if strong else 1],
                                 edgecolor="none"))
        ax.add_patch(Polygon([(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)], closed=True, fill=False,
                             edgecolor="#00000022", linewidth=0.5))
        if f.parts == 2:   # the diagonal wall
            line = [(x, y), (x + 1, y + 1)] if f.quarter_part[N] == f.quarter_part[E] else [(x, y + 1), (x + 1, y)]
            ax.plot(*zip(*line), color=WALL_COLOUR, linewidth=3, solid_capstyle="round")
        for d in DIRECTIONS:
            if f.sides[d] == OPEN:
                continue
            a, b = _quarter(x, y, d)[:2]
            inset = 0.04
            (ax_, ay), (bx, by) = a, b
            cx, cy = x + 0.5, y + 0.5
            a = (ax_ + (cx - ax_) * inset, ay + (cy - ay) * inset)
            b = (bx + (cx - bx) * inset, by + (cy - by) * inset)
            if f.sides[d] == WALL:
                ax.plot(*zip(a, b), color=WALL_COLOUR, linewidth=3, solid_capstyle="butt")
            elif f.sides[d] == DOOR:
                m = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
                gap = 0.18
                for end in (a, b):
                    stop = (m[0] + (end[0] - m[0]) * gap / 0.5, m[1] + (end[1] - m[1]) * gap / 0.5)
                    ax.plot(*zip(end, stop), color=WALL_COLOUR, linewidth=3, solid_capstyle="butt")
                ax.add_patch(Circle(m, 0.07, facecolor=DOOR_COLOUR, edgecolor=WALL_COLOUR, linewidth=0.8))
        for part in range(f.parts):
            quarters = [d for d in DIRECTIONS if f.quarter_part[d] == part]
            pts = np.array([p for d in quarters for p in _quarter(x, y, d)])
            px, py = pts.mean(0) if f.parts == 2 else (x + 0.5, y + 0.5)
            if f.advisors[part]:
                seat = SEAT[colours[laid.owner]]
                ax.add_patch(Circle((px, py), 0.2, facecolor=seat, edgecolor="black", linewidth=0.8))
                ax.text(px, py, str(f.advisors[part]), ha="center", va="center", fontsize=7, weight="bold",
                        color="black" if colours[laid.owner] == "yellow" else "white")
            if f.dragons[part]:
                ax.add_patch(Polygon([(px, py - 0.25), (px + 0.22, py), (px, py + 0.25), (px - 0.22, py)],
                                     closed=True, facecolor="#f1c40f", edgecolor="#8b0000", linewidth=1.2))
                ax.text(px, py, "D", ha="center", va="center", fontsize=7, weight="bold", color="#8b0000")
        if COLOURS[f.floors[0]] == "palace":
            ax.text(x + 0.5, y + 0.5, "Palace", ha="center", va="center", fontsize=6, weight="bold", color="#5a3b00")
        if laid.owner >= 0:
            ax.add_patch(Polygon([(x + 0.78, y + 0.06), (x + 0.94, y + 0.06), (x + 0.94, y + 0.22)], closed=True,
                                 facecolor=SEAT[colours[laid.owner]], edgecolor="none"))
    xs = [x for x, _ in game.city.cells]
    ys = [y for _, y in game.city.cells]
    ax.set_xlim(min(xs) - 0.6, max(xs) + 1.6)
    ax.set_ylim(max(ys) + 1.6, min(ys) - 0.6)
    ax.set_aspect("equal")
    ax.axis("off")


def game_figure(game, title: str | None = None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 7.6), dpi=100)
    draw_city(ax, game)
    colours = game.data.seat_colours(game.players)
    line = "   ".join(f"{colours[s]} {game.purse[s]}" for s in range(game.players))
    state = "game over" if game.game_over else f"turn {game.turns_played + 1}, {colours[game.current]} to play"
    ax.set_title(title or f"Forbidden City: {state}\ncoins: {line}", fontsize=10)
    fig.tight_layout()
    return fig


def game_picture(game) -> np.ndarray:
    """The city as an (H, W, 3) uint8 image (the rgb_array render mode)."""
    fig = game_figure(game)
    fig.canvas.draw()
    image = np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()
    import matplotlib.pyplot as plt
    plt.close(fig)
    return image

