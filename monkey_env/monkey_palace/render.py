"""The palace as a picture: a 3-D isometric drawing made with matplotlib (Agg, no window).

``palace_picture(palace)`` returns an RGB ``uint8`` array ``(H, W, 3)``; ``game_picture(game)``
adds a title with the round and the scores; ``save_png(image, path)`` writes it out.

How it is drawn. The scene is cut into voxels, one stud wide and one brick high: voxel
``(x, y, layer)`` is the cell ``(x, y)`` between heights ``layer`` and ``layer + 1`` (brick
units). Every piece is drawn as shapes that stay inside the voxels it occupies (a brick or
arch leg fills one; a column segment, an arch middle with its cut-out, a decoration, a stud
or half an animal fills part of one). The viewer looks down from the south-east, along a
direction with all three components positive, so a voxel can only hide voxels whose
``x``, ``y`` and ``layer`` are all no larger than its own: drawing in order of
``x + y + layer`` (the painter's algorithm) never draws something over a thing in front of
it. Everything goes into one ``PolyCollection`` in that order, which keeps it fast (well
under a second for a finished game).
"""

from __future__ import annotations

import math

import numpy as np

from monkey_env.core.outcome import seat_label
from monkey_env.monkey_palace.geometry import BOARD_SIZE, HEADING_NAMES, OFF_PLATE, Knob, heading_step

__all__ = ["palace_picture", "game_picture", "save_png", "SEAT_COLOURS"]

# ----------------------------------------------------------------------------- look
BRICK_H = 1.2        # a brick's height in stud pitches (LEGO: 9.6 mm over 8 mm)
STUD_R = 0.3         # stud radius, stud pitches
STUD_H = 0.17        # stud height
PLATE_T = 0.45       # thickness of the base plate drawn under the map
ARCH_OPEN = 0.66     # height of the arch's cut-out, as a fraction of a brick
TILT = 0.56          # screen rise per stud going north/west (0.5 is true isometric)
ZSCALE = 0.95        # screen rise per stud pitch of height
HEADROOM = 3         # layers of height kept in the frame above the plate's back corner
COS30 = math.cos(math.radians(30))

SEAT_COLOURS = ("#d7263d", "#1b6fd1", "#f29e1f", "#8e44ad")   # seats 1-4: red, blue, orange, purple
NEUTRAL = "#6f6a60"                                             # the starting staircase (no owner)
BACKGROUND = "#eef2f5"

GROUND_COLOURS = {
    Knob.GROUND_LIGHT: "#9bd56f",
    Knob.GROUND_DARK: "#3f8e3c",
    Knob.GROUND_GOLD: "#e8bd3f",
    Knob.GROUND_WHITE: "#f6f5ef",
    Knob.BLOCKED: "#5a4a3f",
    Knob.CORNER: "#5d6f78",
}
BRICK = "#e9dcc0"     # bricks: light sandstone
COLUMN = "#c98b5a"    # columns: terracotta, round
ARCH = "#d9c08e"      # arches: warm tan
DECO = {"light": "#8fe05a", "dark": "#2f8a34", "gold": "#e6b422"}
MONKEY = "#8b5a2b"
BUTTERFLY = "#e0309a"
FROG = "#4cbb3c"

# shading of faces: top, south (+y, screen left), east (+x, screen right), under an arch
SHADE_TOP, SHADE_S, SHADE_E, SHADE_IN = 1.0, 0.80, 0.64, 0.5


def _rgb(c) -> np.ndarray:
    from matplotlib.colors import to_rgb
    return np.array(to_rgb(c), float)


def _shade(rgb: np.ndarray, k: float, alpha: float = 1.0) -> tuple:
    c = np.clip(rgb * k, 0, 1)
    return (float(c[0]), float(c[1]), float(c[2]), alpha)


def _mix(a: np.ndarray, b: np.ndarray, t: float) -> np.ndarray:
    return a * (1 - t) + b * t


# ----------------------------------------------------------------------------- projection
def _proj(pts) -> np.ndarray:
    """World (x east, y south, z up; stud pitches) to screen (right, up)."""
    p = np.asarray(pts, float)
    sx = COS30 * (p[..., 0] - p[..., 1])
    sy = -TILT * (p[..., 0] + p[..., 1]) + ZSCALE * p[..., 2]
    return np.stack([sx, sy], -1)


# the view direction (towards the viewer) in world units: projects to (0, 0)
VIEW = np.array([1.0, 1.0, 2 * TILT / ZSCALE])
ELL_A = STUD_R * COS30 * math.sqrt(2)      # a horizontal circle of radius r projects to an
ELL_B = STUD_R * TILT * math.sqrt(2)       # axis-aligned ellipse with these semi-axes (r = STUD_R)
_PHI = np.linspace(0, 2 * math.pi, 25)[:-1]
_LOWER = np.linspace(math.pi, 2 * math.pi, 9)
_UPPER = np.linspace(0, math.pi, 9)


class _Scene:
    """Collects polygons with their painter's keys, then draws them in order."""

    def __init__(self):
        self.items: list[tuple] = []
        self.seq = 0

    def add(self, key: tuple, verts, face, edge=None, lw: float = 0.0):
        self.items.append((key, self.seq, np.asarray(verts, float), face, edge if edge is not None else face, lw))
        self.seq += 1

    def add3(self, key, pts3, face, edge=None, lw=0.0):
        self.add(key, _proj(pts3), face, edge, lw)

    # round things, in screen space around the projected centre of a horizontal circle
    def ellipse(self, key, centre3, r_scale, face, edge=None, lw=0.0):
        c = _proj(centre3)
        v = np.stack([c[0] + ELL_A * r_scale * np.cos(_PHI), c[1] + ELL_B * r_scale * np.sin(_PHI)], -1)
        self.add(key, v, face, edge, lw)

    def cylinder(self, key, cx, cy, z0, z1, r_scale, side, top, edge=None, lw=0.0, cap=True):
        c0, c1 = _proj((cx, cy, z0)), _proj((cx, cy, z1))
        a, b = ELL_A * r_scale, ELL_B * r_scale
        lower = np.stack([c0[0] + a * np.cos(_LOWER), c0[1] + b * np.sin(_LOWER)], -1)
        upper = np.stack([c1[0] + a * np.cos(_UPPER), c1[1] + b * np.sin(_UPPER)], -1)
        self.add(key, np.concatenate([lower, upper]), side, edge, lw)
        if cap:
            self.ellipse(key, (cx, cy, z1), r_scale, top, edge, lw)

    def stud(self, key, x, y, z, rgb):
        """A stud on the knob of cell (x, y) whose top is at height z (stud pitches)."""
        self.cylinder(key, x + 0.5, y + 0.5, z, z + STUD_H, 1.0, _shade(rgb, 0.78), _shade(rgb, 1.08),
                      _shade(rgb, 0.62), 0.3)


def _box_faces(x0, y0, z0, x1, y1, z1):
    top = [(x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    south = [(x0, y1, z0), (x1, y1, z0), (x1, y1, z1), (x0, y1, z1)]
    east = [(x1, y0, z0), (x1, y1, z0), (x1, y1, z1), (x1, y0, z1)]
    return top, south, east


# ----------------------------------------------------------------------------- voxels
class _Vox:
    __slots__ = ("kind", "rgb", "edge", "elem", "extra")

    def __init__(self, kind, rgb, edge, elem, extra=None):
        self.kind = kind      # "brick", "column", "arch_leg", "arch_mid", "deco"
        self.rgb = rgb
        self.edge = edge
        self.elem = elem      # index of the element (faces between voxels of one arch are inside it)
        self.extra = extra


SOLID = ("brick", "arch_leg")


def _owner_colours(owner: int, base: str):
    seat = _rgb(SEAT_COLOURS[owner % len(SEAT_COLOURS)]) if owner >= 0 else _rgb(NEUTRAL)
    rgb = _mix(_rgb(base), seat, 0.28 if owner >= 0 else 0.05)
    edge = _shade(_mix(seat, np.zeros(3), 0.15), 1.0)
    return rgb, edge


def _voxels(palace) -> dict:
    vox: dict[tuple[int, int, int], _Vox] = {}
    for i, e in enumerate(palace.elements):
        owner = int(e.get("owner", -1))
        x, y = int(e["x"]), int(e["y"])
        if e["kind"] == "stack":
            bottom, units, cols = int(e["bottom"]), int(e["units"]), int(e.get("columns", 0))
            col_units = 3 * cols
            for k in range(units):
                is_col = k < col_units
                rgb, edge = _owner_colours(owner, COLUMN if is_col else BRICK)
                # a column is one round piece three units tall: mark its segments
                seg = (k % 3, k // 3) if is_col else None
                vox[(x, y, bottom + k)] = _Vox("column" if is_col else "brick", rgb, edge, i, seg)
        elif e["kind"] == "arch":
            h = HEADING_NAMES.index(e["heading"]) if isinstance(e["heading"], str) else int(e["heading"])
            sx, sy = heading_step(h)
            level = int(e["level"])
            rgb, edge = _owner_colours(owner, ARCH)
            cells = [(x + j * sx, y + j * sy) for j in range(4)]
            # the cut-out spans the two middle cells; store its centre line and axis
            along_x = sx != 0
            lo = min(cells[1][0], cells[2][0]) if along_x else min(cells[1][1], cells[2][1])
            for j, (cx, cy) in enumerate(cells):
                kind = "arch_mid" if j in (1, 2) else "arch_leg"
                vox[(cx, cy, level)] = _Vox(kind, rgb, edge, i, (along_x, lo + 1.0))
        elif e["kind"] == "decoration":
            top = int(e["top"])
            rgb, edge = _owner_colours(owner, DECO[e["colour"]])
            vox[(x, y, top - 1)] = _Vox("deco", _rgb(DECO[e["colour"]]), edge, i, e["colour"])
    # Palaces set up without an element list (drawn scenarios): fill what the height map says.
    covered = np.zeros((BOARD_SIZE, BOARD_SIZE), int)
    for (x, y, z) in vox:
        covered[y, x] = max(covered[y, x], z + 1)
    for y, x in zip(*np.nonzero(palace.height > covered)):
        knob = int(palace.knob[y, x])
        for z in range(int(covered[y, x]), int(palace.height[y, x])):
            last = z == int(palace.height[y, x]) - 1
            if last and knob in (Knob.DECO_LIGHT, Knob.DECO_DARK, Knob.DECO_GOLD):
                name = ("light", "dark", "gold")[knob - Knob.DECO_LIGHT]
                vox[(int(x), int(y), z)] = _Vox("deco", _rgb(DECO[name]), _shade(_rgb(NEUTRAL), 1), -1, name)
            else:
                base = ARCH if knob in (Knob.ARCH_END, Knob.ARCH_MIDDLE) else BRICK
                rgb, edge = _owner_colours(-1, base)
                vox[(int(x), int(y), z)] = _Vox("brick", rgb, edge, -1 - int(y * BOARD_SIZE + x))
    return vox


def _key(x, y, layer, sub=0):
    # painter's order: x + y + layer; ties never overlap, except a two-voxel animal (see _animal)
    return (x + y + layer, -layer, sub)


def _draw_plate(scene: _Scene, palace, vox):
    n = BOARD_SIZE
    base = _rgb("#4b5a3a")
    # the plate's edges (south and east), drawn first of all
    _, south, east = _box_faces(0, 0, -PLATE_T, n, n, 0)
    scene.add3((-10, 0, 0), south, _shade(base, 0.8), _shade(base, 0.5), 0.6)
    scene.add3((-10, 0, 1), east, _shade(base, 0.62), _shade(base, 0.45), 0.6)
    ground = np.asarray(palace.ground)
    for y in range(n):
        for x in range(n):
            knob = int(ground[y, x])
            rgb = _rgb(GROUND_COLOURS.get(Knob(knob), "#999999"))
            top, south, east = _box_faces(x, y, 0, x + 1, y + 1, 0)
            scene.add3((-5, 0, 0), top, _shade(rgb, 1.0), _shade(rgb, 0.86), 0.35)
    for y in range(n):
        for x in range(n):
            knob = int(ground[y, x])
            rgb = _rgb(GROUND_COLOURS.get(Knob(knob), "#999999"))
            if (x, y, 0) in vox and vox[(x, y, 0)].kind in SOLID:
                continue  # hidden under a brick or arch leg
            if knob == Knob.BLOCKED:
                # no hole in the sheet: a flat rubble tile, a little darker at its centre
                c = (x + 0.5, y + 0.5, 0.0)
                scene.ellipse(_key(x, y, 0, -2), c, 1.05, _shade(rgb, 0.86), _shade(rgb, 0.86), 0.0)
            elif knob == Knob.CORNER:
                scene.cylinder(_key(x, y, 0, -2), x + 0.5, y + 0.5, 0, 0.55, 1.55, _shade(rgb, 0.75),
                               _shade(rgb, 1.15), _shade(rgb, 0.5), 0.5)
                scene.stud(_key(x, y, 0, -1), x, y, 0.55, rgb)
            else:
                scene.stud(_key(x, y, 0, -2), x, y, 0.0, rgb)


def _draw_voxel(scene: _Scene, pos, v: _Vox, vox):
    x, y, layer = pos
    z0, z1 = layer * BRICK_H, (layer + 1) * BRICK_H
    key = _key(x, y, layer)
    above = vox.get((x, y, layer + 1))
    covered = above is not None and (above.kind in SOLID or above.kind == "column")

    def hidden(dx, dy, dz):
        n = vox.get((x + dx, y + dy, layer + dz))
        if n is None:
            return False
        return n.kind in SOLID or (n.elem == v.elem and v.kind.startswith("arch") and dz == 0)

    if v.kind in SOLID:
        top, south, east = _box_faces(x, y, z0, x + 1, y + 1, z1)
        arch = v.kind == "arch_leg"
        if not hidden(0, 1, 0):
            scene.add3(key, south, _shade(v.rgb, SHADE_S), _shade(v.rgb, SHADE_S * (1 if arch else 0.85)), 0.4)
        if not hidden(1, 0, 0):
            scene.add3(key, east, _shade(v.rgb, SHADE_E), _shade(v.rgb, SHADE_E * (1 if arch else 0.85)), 0.4)
        if not hidden(0, 0, 1):
            scene.add3(key, top, _shade(v.rgb, SHADE_TOP), v.edge, 0.9)
            if not covered:
                scene.stud(key[:2] + (1,), x, y, z1, v.rgb)
    elif v.kind == "arch_mid":
        _draw_arch_middle(scene, pos, v, key, hidden, covered)
    elif v.kind == "column":
        seg, _ = v.extra
        r = 1.38
        top_seg = seg == 2 or not (above is not None and above.kind == "column" and above.elem == v.elem)
        scene.cylinder(key, x + 0.5, y + 0.5, z0, z1, r, _shade(v.rgb, 0.74), _shade(v.rgb, 1.0),
                       v.edge if top_seg else _shade(v.rgb, 0.74), 0.5 if top_seg else 0.0, cap=top_seg)
        # a highlight down the column's sunny side
        c0, c1 = _proj((x + 0.5, y + 0.5, z0)), _proj((x + 0.5, y + 0.5, z1))
        a = ELL_A * r
        hl = [(c0[0] - 0.55 * a, c0[1] - ELL_B * r * 0.83), (c0[0] - 0.3 * a, c0[1] - ELL_B * r * 0.95),
              (c1[0] - 0.3 * a, c1[1] - ELL_B * r * 0.95), (c1[0] - 0.55 * a, c1[1] - ELL_B * r * 0.83)]
        scene.add(key[:2] + (1,), hl, _shade(v.rgb, 1.12), _shade(v.rgb, 1.12), 0.0)
        if top_seg and not covered:
            scene.stud(key[:2] + (2,), x, y, z1, v.rgb)
    elif v.kind == "deco":
        _draw_decoration(scene, pos, v, key, z0, z1)


def _draw_arch_middle(scene, pos, v, key, hidden, covered):
    x, y, layer = pos
    z0, z1 = layer * BRICK_H, (layer + 1) * BRICK_H
    along_x, mid = v.extra
    rise = ARCH_OPEN * BRICK_H
    # along the arch, this cell covers t in [a, a + 1]; the cut-out is an ellipse centred on `mid`
    a = x if along_x else y
    t = np.linspace(a, a + 1, 11)
    u = z0 + rise * np.sqrt(np.clip(1 - (t - mid) ** 2, 0, 1))

    def pt(tt, across, zz):
        return (tt, across, zz) if along_x else (across, tt, zz)

    lo = y if along_x else x          # the arch's thickness runs across [lo, lo + 1]
    # the underside of the arch, where it faces the viewer (seen through the cut-out)
    shade_in = _shade(v.rgb, SHADE_IN)
    for k in range(len(t) - 1):
        dt, du = t[k + 1] - t[k], u[k + 1] - u[k]
        n = (du, 0.0, -dt) if along_x else (0.0, du, -dt)   # into the opening: down, towards the middle
        if np.dot(n, VIEW) <= 0:
            continue
        quad = [pt(t[k], lo, u[k]), pt(t[k + 1], lo, u[k + 1]), pt(t[k + 1], lo + 1, u[k + 1]), pt(t[k], lo + 1, u[k])]
        scene.add3(key, quad, shade_in, shade_in, 0.3)
    # the visible side, with the cut-out
    side = lo + 1
    k_side = SHADE_S if along_x else SHADE_E
    face = [pt(a, side, z1), pt(a + 1, side, z1)] + [pt(tt, side, uu) for tt, uu in zip(t[::-1], u[::-1])]
    col = _shade(v.rgb, k_side)
    scene.add3(key, face, col, col, 0.4)
    # outline of the cut-out, so it reads as an arch
    curve = _proj([pt(tt, side, uu) for tt, uu in zip(t, u)])
    scene.add(key, np.concatenate([curve, curve[::-1]]), col, _shade(v.rgb, 0.45), 0.6)
    if not hidden(0, 0, 1):
        top, _, _ = _box_faces(x, y, z0, x + 1, y + 1, z1)
        scene.add3(key, top, _shade(v.rgb, SHADE_TOP), v.edge, 0.9)
        if not covered:
            scene.stud(key[:2] + (1,), x, y, z1, v.rgb)


def _draw_decoration(scene, pos, v, key, z0, z1):
    x, y, layer = pos
    cx, cy = x + 0.5, y + 0.5
    rgb = v.rgb
    if v.extra == "gold":
        # a gold round brick with a stud: pearly sides and a bright top
        scene.cylinder(key, cx, cy, z0, z1, 1.45, _shade(rgb, 0.78), _shade(rgb, 1.15), v.edge, 0.8)
        c0, c1 = _proj((cx, cy, z0)), _proj((cx, cy, z1))
        a, b = ELL_A * 1.45, ELL_B * 1.45
        hl = [(c0[0] - 0.6 * a, c0[1] - 0.8 * b), (c0[0] - 0.25 * a, c0[1] - 0.97 * b),
              (c1[0] - 0.25 * a, c1[1] - 0.97 * b), (c1[0] - 0.6 * a, c1[1] - 0.8 * b)]
        scene.add(key[:2] + (1,), hl, (1.0, 0.95, 0.7, 1.0), (1.0, 0.95, 0.7, 1.0), 0.0)
        scene.cylinder(key[:2] + (2,), cx, cy, z1, z1 + STUD_H, 1.0, _shade(rgb, 0.85), _shade(rgb, 1.2),
                       _shade(rgb, 0.6), 0.3)
        return
    # bamboo leaves: a small round plate and a fan of pointed leaves
    scene.cylinder(key, cx, cy, z0, z0 + 0.2, 1.2, _shade(rgb, 0.6), _shade(rgb, 0.8), _shade(rgb, 0.4), 0.4)
    dark = _shade(rgb, 0.45)
    leaves = []
    for ang, lean, length in ((200, 0.42, 1.0), (290, 0.42, 0.95), (20, 0.42, 0.95), (110, 0.42, 1.0),
                              (245, 0.18, 1.1), (65, 0.18, 1.1), (155, 0.2, 1.05), (335, 0.2, 1.05)):
        th = math.radians(ang)
        dx, dy = math.cos(th), math.sin(th)
        tip = (cx + lean * dx, cy + lean * dy, z0 + 0.2 + (z1 - z0 - 0.2) * length * 0.98)
        mid = (cx + lean * 0.6 * dx, cy + lean * 0.6 * dy, z0 + 0.2 + (z1 - z0) * 0.45)
        w = 0.14
        px, py = -dy * w, dx * w
        poly = [(cx, cy, z0 + 0.2), (mid[0] + px, mid[1] + py, mid[2]), tip, (mid[0] - px, mid[1] - py, mid[2])]
        depth = float(np.dot([dx, dy, 0], VIEW))
        leaves.append((depth, poly, 0.8 + 0.25 * (depth + 1.5) / 3))
    for _, poly, k in sorted(leaves, key=lambda p: p[0]):
        scene.add3(key[:2] + (1,), poly, _shade(rgb, k), dark, 0.5)


def _draw_animal(scene: _Scene, which: int, x: int, y: int, h: int, tall: int):
    """A figure on the knob of (x, y) at height h, standing ``tall`` bricks high, as a flat billboard."""
    z = h * BRICK_H + STUD_H
    foot = _proj((x + 0.5, y + 0.5, z))
    top_layer = h + max(tall, 1) - 1
    key = (x + y + top_layer, -top_layer, 5)   # the upper voxel, drawn before same-sum ones lower down
    H = max(tall, 1) * BRICK_H * ZSCALE * 1.15   # screen height of the figure (a little larger than life)
    s = H / 2.2

    def circ(cx, cy, rx, ry, n=24):
        ph = np.linspace(0, 2 * math.pi, n + 1)[:-1]
        return np.stack([foot[0] + s * (cx + rx * np.cos(ph)), foot[1] + s * (cy + ry * np.sin(ph))], -1)

    ink = (0.12, 0.09, 0.07, 1.0)
    scene.add(key, circ(0, 0, 0.62, 0.22), (0, 0, 0, 0.28), (0, 0, 0, 0.0), 0.0)   # shadow
    if which == 0:  # monkey: body, tail, head with a pale face and ears
        fur, face = _rgb(MONKEY), _rgb("#e8c39a")
        tail = np.array([(0.35, 0.35), (0.75, 0.55), (0.85, 1.0), (0.65, 1.25), (0.6, 1.15), (0.72, 0.98),
                         (0.62, 0.65), (0.3, 0.5)])
        scene.add(key, np.stack([foot[0] + s * tail[:, 0], foot[1] + s * tail[:, 1]], -1), _shade(fur, 0.8), ink, 0.6)
        scene.add(key, circ(0, 0.62, 0.42, 0.55), _shade(fur, 1.0), ink, 0.8)
        scene.add(key, circ(0, 0.55, 0.24, 0.3), _shade(face, 1.0), _shade(face, 1.0), 0.0)
        for ex in (-0.42, 0.42):
            scene.add(key, circ(ex, 1.55, 0.17, 0.17), _shade(fur, 1.0), ink, 0.7)
            scene.add(key, circ(ex, 1.55, 0.09, 0.09), _shade(face, 1.0), _shade(face, 1.0), 0.0)
        scene.add(key, circ(0, 1.5, 0.4, 0.4), _shade(fur, 1.05), ink, 0.8)
        scene.add(key, circ(0, 1.4, 0.28, 0.24), _shade(face, 1.0), _shade(face, 0.8), 0.3)
        for ex in (-0.12, 0.12):
            scene.add(key, circ(ex, 1.5, 0.05, 0.06, 10), ink, ink, 0.0)
        scene.add(key, circ(0, 1.3, 0.1, 0.04, 10), _shade(fur, 0.6), _shade(fur, 0.6), 0.0)
    elif which == 1:  # butterfly: on a thin stalk, four wings and a dark body
        wing, wing2 = _rgb(BUTTERFLY), _rgb("#ff8fcf")
        scene.add(key, [(foot[0] - s * 0.04, foot[1]), (foot[0] + s * 0.04, foot[1]),
                        (foot[0] + s * 0.04, foot[1] + s * 1.0), (foot[0] - s * 0.04, foot[1] + s * 1.0)],
                  (0.3, 0.3, 0.3, 1), (0.3, 0.3, 0.3, 1), 0.0)
        for sgn in (-1, 1):
            scene.add(key, circ(sgn * 0.38, 1.2, 0.3, 0.24), _shade(wing2, 1.0), ink, 0.7)
            scene.add(key, circ(sgn * 0.48, 1.62, 0.44, 0.36), _shade(wing, 1.0), ink, 0.8)
            scene.add(key, circ(sgn * 0.55, 1.7, 0.12, 0.1), (1, 1, 1, 1), (1, 1, 1, 1), 0.0)
            scene.add(key, [(foot[0] + s * sgn * 0.03, foot[1] + s * 1.9), (foot[0] + s * sgn * 0.25, foot[1] + s * 2.2),
                            (foot[0] + s * sgn * 0.27, foot[1] + s * 2.19), (foot[0] + s * sgn * 0.05, foot[1] + s * 1.88)],
                      ink, ink, 0.5)
        scene.add(key, circ(0, 1.45, 0.08, 0.45), ink, ink, 0.0)
    else:  # frog: a fat green body with a dark outline, bulging eyes
        skin = _rgb(FROG)
        for sgn in (-1, 1):
            scene.add(key, circ(sgn * 0.5, 0.2, 0.28, 0.14), _shade(skin, 0.75), ink, 0.7)
        scene.add(key, circ(0, 0.62, 0.62, 0.55), _shade(skin, 1.0), ink, 1.0)
        scene.add(key, circ(0, 0.5, 0.38, 0.3), _shade(_rgb("#d8f0a0"), 1.0), _shade(skin, 0.8), 0.3)
        for sgn in (-1, 1):
            scene.add(key, circ(sgn * 0.3, 1.15, 0.22, 0.22), _shade(skin, 1.05), ink, 0.9)
            scene.add(key, circ(sgn * 0.3, 1.17, 0.13, 0.13), (1, 1, 1, 1), ink, 0.4)
            scene.add(key, circ(sgn * 0.3, 1.15, 0.06, 0.08, 10), ink, ink, 0.0)
        scene.add(key, [(foot[0] - s * 0.25, foot[1] + s * 0.82), (foot[0], foot[1] + s * 0.74),
                        (foot[0] + s * 0.25, foot[1] + s * 0.82), (foot[0], foot[1] + s * 0.77)], ink, ink, 0.6)


# ----------------------------------------------------------------------------- public
def palace_picture(palace, *, size: tuple[int, int] = (800, 640), title: str | None = None,
                  legend: list[str] | None = None) -> np.ndarray:
    """Draw ``palace`` in 3-D; returns an RGB uint8 image of shape ``(size[1], size[0], 3)``.

    ``size`` is (width, height) in pixels; ``title`` a line on top; ``legend`` one label per
    seat, shown in the seats' colours (the tint of their pieces). Deterministic: the same
    palace gives the same pixels.
    """
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import PolyCollection
    from matplotlib.figure import Figure

    width, height = int(size[0]), int(size[1])
    if width < 16 or height < 16:
        raise ValueError(f"size {size} is too small to draw a palace")
    scene = _Scene()
    vox = _voxels(palace)
    _draw_plate(scene, palace, vox)
    for pos in sorted(vox):
        _draw_voxel(scene, pos, vox[pos], vox)
    tall = int(getattr(palace, "animal_height", 2))
    for which, cell in enumerate(palace.animals):
        if cell == OFF_PLATE or cell is None or cell < 0:
            continue
        x, y = cell % BOARD_SIZE, cell // BOARD_SIZE
        _draw_animal(scene, which, x, y, int(palace.height[y, x]), tall)

    scene.items.sort(key=lambda it: (it[0], it[1]))
    verts = [it[2] for it in scene.items]
    faces = [it[3] for it in scene.items]
    edges = [it[4] for it in scene.items]
    lws = [it[5] for it in scene.items]

    with matplotlib.rc_context({"path.simplify": False, "svg.hashsalt": "monkey"}):
        dpi = 100
        fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi, facecolor=BACKGROUND)
        canvas = FigureCanvasAgg(fig)
        top_frac = 0.93 if title else 1.0
        ax = fig.add_axes((0, 0, 1, top_frac))
        ax.set_axis_off()
        ax.set_facecolor(BACKGROUND)
        coll = PolyCollection(verts, facecolors=faces, edgecolors=edges, linewidths=lws, joinstyle="round")
        ax.add_collection(coll)
        # frame the plate with some headroom, widened only for what sticks out of that, so
        # that most palaces share one view (and can be compared pixel for pixel)
        n = BOARD_SIZE
        frame = _proj([(0, 0, HEADROOM * BRICK_H), (n, 0, 0), (0, n, 0), (n, n, -PLATE_T)])
        allv = np.concatenate(verts)
        lo, hi = np.minimum(frame.min(0), allv.min(0)), np.maximum(frame.max(0), allv.max(0))
        pad = 0.02 * (hi - lo).max()
        lo, hi = lo - pad, hi + pad
        # keep the aspect: widen whichever range is short for the axes' box
        box_w, box_h = width, height * top_frac
        span = hi - lo
        scale = max(span[0] / box_w, span[1] / box_h)
        cx, cy = (lo + hi) / 2
        ax.set_xlim(cx - scale * box_w / 2, cx + scale * box_w / 2)
        ax.set_ylim(cy - scale * box_h / 2, cy + scale * box_h / 2)
        if title:
            fig.text(0.5, 0.965, title, ha="center", va="center", fontsize=max(8, min(16, height / 42)),
                     color="#2b2b2b", fontweight="bold")
        if legend:
            fs = max(7, min(12, height / 58))
            for i, label in enumerate(legend):
                fig.text(0.015, 0.03 + 0.045 * (len(legend) - 1 - i) * fs / 12, f"\u25A0 {label}",
                         ha="left", va="bottom", fontsize=fs, color=SEAT_COLOURS[i % len(SEAT_COLOURS)],
                         fontweight="bold")
        canvas.draw()
        img = np.asarray(canvas.buffer_rgba())[..., :3].copy()
    # guard against a pixel of rounding in the canvas size
    out = np.empty((height, width, 3), np.uint8)
    out[...] = np.array([int(255 * c) for c in _rgb(BACKGROUND)], np.uint8)
    h, w = min(height, img.shape[0]), min(width, img.shape[1])
    out[:h, :w] = img[:h, :w]
    return out


def game_picture(game, **kw) -> np.ndarray:
    """``palace_picture`` of the game's palace, titled with the round and every seat's score."""
    scores = game.scores()
    status = "game over" if getattr(game, "game_over", False) else f"Round {game.round}"
    if getattr(game, "game_over", False):
        status = f"Game over after round {game.round}"
    title = f"{status} \u2014 scores " + " / ".join(str(s) for s in scores)
    kw.setdefault("title", title)
    kw.setdefault("legend", [f"{seat_label(i)}: {s}" for i, s in enumerate(scores)])
    return palace_picture(game.palace, **kw)


def save_png(image: np.ndarray, path) -> None:
    """Write an RGB (or RGBA) uint8 image as a PNG file."""
    import matplotlib.image as mpimg

    img = np.asarray(image)
    if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] not in (3, 4):
        raise ValueError(f"expected an (H, W, 3) uint8 image, got {img.dtype} {img.shape}")
    mpimg.imsave(str(path), img, format="png")
