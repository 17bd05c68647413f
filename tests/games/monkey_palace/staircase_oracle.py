"""Every legal staircase of a position, enumerated from the rules alone (the tests' oracle).

Written from docs/RULES.md, "Build a staircase", without the engine's search or its rule
statement: a staircase is an anchor and arches in building order, each preceded by a stack
of ``rise`` units where its near leg goes. The enumeration grows staircases arch by arch
and only stops growing one that is over the supply (arches, or bricks after columns: more
arches only ever need more, though a taller stack may need fewer bricks); attachment is
checked on finished staircases only, so every unattached path within the supply is walked,
however far from the palace.
"""

from __future__ import annotations

SPAN = 3
STEP = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
OPEN_KNOBS = {0, 1, 2, 3, 6, 7, 8, 10, 11, 12}   # ground, brick, column, arch end, decorations
COLOURED_GROUND = {0, 1, 2}


def bricks_needed(stacks: list[int], columns: int) -> int:
    """Columns first, in building order, as many as fit in each stack; bricks for the rest."""
    left, bricks = columns, 0
    for units in stacks:
        used = min(left, units // 3)
        left -= used
        bricks += units - 3 * used
    return bricks


def legal_staircases(palace, arches: int, bricks: int, columns: int):
    """{(anchor, ((heading, rise), ...))} of every legal staircase the supply allows."""
    animals = {(cell % 32, cell // 32) for cell in palace.animals if cell >= 0}
    height = lambda x, y: int(palace.height[y][x])
    knob = lambda x, y: int(palace.knob[y][x])
    top = lambda x, y: height(x, y) + (palace.animal_height if (x, y) in animals else 0)
    found = set()

    def grow(anchor, steps, x, y, level, heading, covered, stacks, attached):
        if steps and attached:
            found.add((anchor, tuple(steps)))
        if len(steps) == arches:
            return
        for new_heading in range(4):
            if heading is not None and (new_heading - heading) % 4 == 2:
                continue
            dx, dy = STEP[new_heading]
            cells = [(x + i * dx, y + i * dy) for i in range(1, SPAN + 1)]
            if any(not (0 <= cx < 32 and 0 <= cy < 32) or (cx, cy) in covered for cx, cy in cells):
                continue
            fx, fy = cells[-1]
            if knob(fx, fy) not in OPEN_KNOBS or (fx, fy) in animals:
                continue
            for rise in range(bricks + 3 * columns + 1):
                new_level = level + 1 + rise
                support = new_level - height(fx, fy)
                if support < 0 or any(top(cx, cy) > new_level for cx, cy in cells[:-1]):
                    continue  # too low for the far leg's knob or over the middles
                new_stacks = [*stacks, rise, support]
                if sum(new_stacks) > bricks + 3 * columns:
                    break     # more units than the supply holds, whatever the columns do
                if bricks_needed(new_stacks, columns) > bricks:
                    continue  # a taller stack may fit a column better
                grow(anchor, [*steps, (new_heading, rise)], fx, fy, new_level, new_heading,
                     covered | set(cells), new_stacks, attached or height(fx, fy) > 0)

    for ay in range(32):
        for ax in range(32):
            if knob(ax, ay) in COLOURED_GROUND and (ax, ay) not in animals:
                grow((ax, ay), [], ax, ay, -1, None, {(ax, ay)}, [], False)
    return found
