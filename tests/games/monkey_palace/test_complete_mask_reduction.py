"""The state reduction the JAX engine's complete build masks rest on, checked against BuildSearch.

docs/ENVIRONMENTS.md ("Exact masks in JAX") states two lemmas that turn the completability of
an unattached prefix into a search over a small fixed state, with no set of visited studs:

1. Loop erasure: the completion need only avoid the *prefix's* studs, not its own (with rule H
   kept); a completion that comes back to one of its own studs can be shortened into one that
   does not, using no more units, remainders or arches.
2. Three levels: each arch of a completion need only stand at its lowest possible level or one
   or two above it (three more cost units and change no remainder).

``reduced_completable`` below is that search, written independently of BuildSearch's
depth-first walk: a forward search over (cursor, heading, level, remainder) keeping the fewest
units per state. The tests compare it with BuildSearch.completable on every anchor and on
every child of random mask-guided prefixes of positions from real games.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_complete_staircases import POSITIONS

from monkey_env.monkey_palace.catalogue import ARCH_SPAN
from monkey_env.monkey_palace.geometry import BOARD_SIZE, heading_step
from monkey_env.monkey_palace.staircases import BuildSearch, Prefix


def reduced_completable(search: BuildSearch, p: Prefix, three_levels: bool = True) -> bool:
    """Some legal staircase begins with ``p``, by the reduced search (lemmas 1 and 2)."""
    if p.arches > 0 and p.attached:
        return True
    obstacles = p.visited
    best: dict[tuple, int] = {}
    frontier = {(p.x, p.y, p.heading, p.level, p.remainder): p.units}
    for _ in range(search.max_arches - p.arches):
        grown: dict[tuple, int] = {}
        for (x, y, heading, level, rem), units in frontier.items():
            for h in range(4):
                if heading >= 0 and (h - heading) % 4 == 2:
                    continue
                sx, sy = heading_step(h)
                cells = [(x + i * sx, y + i * sy) for i in range(1, ARCH_SPAN + 1)]
                if any(not (0 <= cx < BOARD_SIZE and 0 <= cy < BOARD_SIZE) or (cx, cy) in obstacles
                       for cx, cy in cells):
                    continue
                fx, fy = cells[-1]
                if not search.rest_ok[fy, fx]:
                    continue
                under = int(search.height[fy, fx])
                need = max([int(search.clearance[cy, cx]) for cx, cy in cells[:-1]] + [under])
                low = max(level + 1, need)
                high = low + 2 if three_levels else low + search.max_units
                for lv in range(low, high + 1):
                    rise, support = lv - level - 1, lv - under
                    u = units + rise + support
                    if u > search.max_units:
                        break
                    r = rem + rise % search.column_units + support % search.column_units
                    if r > search.max_remainder:
                        continue
                    if under > 0:
                        return True
                    key = (fx, fy, h, lv, r)
                    if best.get(key, search.max_units + 1) <= u:
                        continue
                    best[key] = grown[key] = u
        frontier = grown
        if not frontier:
            break
    return False


# Real games' supplies rarely hold columns, so the remainder budget (bricks only) seldom binds
# there: the same palaces are searched with supplies heavy in columns too.
SUPPLIES = [None, (6, 4, 3), (8, 2, 6)]
CASES = [(i, s) for i in range(len(POSITIONS)) for s in SUPPLIES]
# Every anchor of a whole plate costs seconds in plain Python: the column-heavy supplies on
# one position of each map only (the next-step test takes every case).
ANCHOR_CASES = [(i, s) for i, s in CASES if s is None or i in (1, 3, 8, 10)]


def _ids(cases):
    return [f"{POSITIONS[i][2]} supply {s or 'of the game'}" for i, s in cases]


def _supply_search(index: int, supply=None) -> BuildSearch:
    palace, held, _ = POSITIONS[index]
    return BuildSearch(palace, *(supply or held))


@pytest.mark.parametrize(("index", "supply"), ANCHOR_CASES, ids=_ids(ANCHOR_CASES))
def test_the_reduced_search_finds_the_same_anchors(index, supply):
    search = _supply_search(index, supply)
    anchors = search.legal_anchors()
    reduced = np.zeros_like(anchors)
    for y, x in zip(*np.nonzero(search.anchor_ok)):
        reduced[y, x] = reduced_completable(search, search.start((int(x), int(y))))
    assert (reduced == anchors).all(), f"anchors differ at {np.argwhere(reduced != anchors)[:5].tolist()}"


@pytest.mark.parametrize(("index", "supply"), CASES, ids=_ids(CASES))
def test_the_reduced_search_offers_the_same_next_steps(index, supply):
    """Every child of random prefixes the masks lead to, unattached ones above all."""
    search = _supply_search(index, supply)
    rng = np.random.default_rng(index)
    anchors = [(int(x), int(y)) for y, x in zip(*np.nonzero(search.legal_anchors()))]
    compared = 0
    for _ in range(12 if anchors else 0):
        p = search.start(anchors[rng.integers(len(anchors))])
        while True:
            children = [q for q in search.children(p)]
            for q in children:
                full, reduced = search.completable(q), reduced_completable(search, q)
                assert full == reduced, f"after {q.steps} from {(p.x, p.y)}: BuildSearch {full}, reduced {reduced}"
                compared += 1
            offered = [q for q in children if search.completable(q)]
            if not offered or (search.can_finish(p) and rng.random() < 0.3):
                break
            p = offered[rng.integers(len(offered))]
    assert compared > 0 or not anchors


@pytest.mark.parametrize(("index", "supply"), [(5, None), (9, (8, 2, 6))])
def test_three_levels_per_arch_decide_as_every_level(index, supply):
    search = _supply_search(index, supply)
    for y, x in zip(*np.nonzero(search.anchor_ok)):
        p = search.start((int(x), int(y)))
        assert reduced_completable(search, p, True) == reduced_completable(search, p, False), (x, y)


def test_the_prefix_studs_matter():
    """The obstacle set is needed: dropping the prefix's studs from the reduced search changes
    some verdict among the prefixes the masks lead to (so the tests above can tell)."""
    for index in range(len(POSITIONS)):
        search = _supply_search(index, (6, 4, 3))
        rng = np.random.default_rng(index)
        anchors = [(int(x), int(y)) for y, x in zip(*np.nonzero(search.legal_anchors()))]
        for _ in range(15 if anchors else 0):
            p = search.start(anchors[rng.integers(len(anchors))])
            while True:
                offered = [q for q in search.children(p) if search.completable(q)]
                for q in search.children(p):
                    if q.attached:
                        continue
                    blind = Prefix(q.x, q.y, q.heading, q.level, q.arches, q.units, q.remainder, False, frozenset())
                    if reduced_completable(search, blind) != search.completable(q):
                        return
                if not offered:
                    break
                p = offered[rng.integers(len(offered))]
    pytest.fail("no prefix found whose own studs decide its completability")


def table_anchor_mask(search: BuildSearch) -> np.ndarray:
    """(32, 32) bool: the anchor mask by the design's table F[heading, level, ρ, y, x] (fewest
    units of an attaching extension), iterated one arch at a time on whole shifted planes, as
    the JAX engine is to compute it (numpy here: the form, not the speed)."""
    big = 10 ** 6
    n, span = BOARD_SIZE, ARCH_SPAN
    top = int(search.clearance.max())
    levels = search.max_units + top + 2          # every level an extension can afford fits (index = level + 1)
    rhos = search.max_remainder + 1
    pad = lambda plane, value: np.pad(plane, span, constant_values=value)
    clear_p, height_p = pad(search.clearance, big), pad(search.height, big)
    rest_p = pad(search.rest_ok, False)

    def shifted(plane_p, h, i):
        sx, sy = heading_step(h)
        return plane_p[span + i * sy: span + i * sy + n, span + i * sx: span + i * sx + n]

    table = np.full((5, levels + 1, rhos, n, n), big)   # heading 4: none yet (the anchor)
    for _ in range(search.max_arches):
        new = np.full_like(table, big)
        for h2 in range(4):
            under = shifted(height_p, h2, span)
            ok = shifted(rest_p, h2, span) & (under < big)
            need = np.maximum(np.maximum(shifted(clear_p, h2, 1), shifted(clear_p, h2, 2)), under)
            sx, sy = heading_step(h2)
            rows, cols = np.mgrid[0:n, 0:n]
            fy, fx = np.clip(rows + span * sy, 0, n - 1), np.clip(cols + span * sx, 0, n - 1)
            for level in range(-1, levels):
                low = np.maximum(level + 1, need)
                for extra in range(3):
                    lv = low + extra
                    rise, support = lv - level - 1, lv - under
                    cost = rise + support
                    rem = rise % 3 + support % 3
                    fits = ok & (lv < levels)
                    for rho in range(rhos):
                        after = rho - rem
                        good = fits & (after >= 0)
                        if not good.any():
                            continue
                        later = table[h2, np.clip(lv + 1, 0, levels), np.clip(after, 0, rhos - 1), fy, fx]
                        value = np.where(under > 0, cost, cost + later)
                        value = np.where(good, value, big)
                        for h in range(5):
                            if h < 4 and (h2 - h) % 4 == 2:
                                continue
                            np.minimum(new[h, level + 1, rho], value, out=new[h, level + 1, rho])
        if (new == table).all():
            break
        table = new
    return search.anchor_ok & (table[4, 0, rhos - 1] <= search.max_units)


@pytest.mark.parametrize(("index", "supply"), CASES, ids=_ids(CASES))
def test_the_table_form_finds_the_same_anchors(index, supply):
    search = _supply_search(index, supply)
    anchors, table = search.legal_anchors(), table_anchor_mask(search)
    assert (anchors == table).all(), f"anchors differ at {np.argwhere(anchors != table)[:5].tolist()}"
