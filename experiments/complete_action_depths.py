"""How deep the unattached part of a legal staircase goes, and how many prefixes are unattached.

The JAX engine's exact masks for the complete build action (docs/ENVIRONMENTS.md) need a bound
on the arches a staircase lays before it attaches (rule E). On positions from random games (every turn start, both build
actions, every map, 2-4 players) this walks every completable unattached prefix of every anchor
with the reference BuildSearch and records the deepest such prefix
and how many there are, beside the supply's units (bricks + 3 x columns).

    python -m experiments.complete_action_depths --games 4 --out reports/complete_action_depths.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from monkey_env import Game, Phase
from monkey_env.monkey_palace.geometry import heading_step
from monkey_env.monkey_palace.staircases import BuildSearch


def unattached_walk(search: BuildSearch, anchor) -> tuple[int, int]:
    """(deepest completable unattached prefix, count of completable unattached prefixes)."""
    deepest, count = 0, 0
    stack = [search.start(anchor)]
    while stack:
        p = stack.pop()
        if p is None or p.attached or not search.completable(p):
            continue
        deepest, count = max(deepest, p.arches), count + 1
        stack.extend(search.children(p))
    return deepest, count


def design_anchor_mask(search: BuildSearch) -> np.ndarray:
    """(32, 32) [y, x]: the JAX design's anchor mask (docs/ENVIRONMENTS.md), in plain Python.

    Heading sequences are self-avoiding walks on the anchor's 3-lattice (rule I is a lattice
    point not visited twice); every arch before the last lands on open ground (height 0), the
    last on an element; each arch's level is the least its bounds allow plus 0, 1 or 2 (a level
    3 or more above that is never needed: lowering it by 3 keeps every stack's units mod 3 and
    saves 3 units). The walk's depth is bounded by the supply: n arches to attach need supports
    0 + 1 + ... + (n - 2) under the ones on the ground. Compared with BuildSearch.legal_anchors."""
    units_max, rem_max, arches_max = search.max_units, search.max_remainder, search.max_arches
    depth = 0
    while depth + 1 <= arches_max and depth * (depth - 1) // 2 <= units_max:
        depth += 1
    size = search.height.shape[0]
    out = np.zeros_like(search.anchor_ok)

    def walk(x, y, heading, level, units, rem, seen, n) -> bool:
        for h in range(4):
            if heading >= 0 and (h - heading) % 4 == 2:
                continue
            sx, sy = heading_step(h)
            fx, fy = x + 3 * sx, y + 3 * sy
            if not (0 <= fx < size and 0 <= fy < size) or (fx, fy) in seen or not search.rest_ok[fy, fx]:
                continue
            under = int(search.height[fy, fx])
            low = max(level + 1, under, *(int(search.clearance[y + i * sy, x + i * sx]) for i in (1, 2)))
            for lv in range(low, low + 3):
                r, sup = lv - level - 1, lv - under
                u, m = units + r + sup, rem + r % 3 + sup % 3
                if u > units_max or m > rem_max:
                    continue
                if under > 0:
                    return True
                if n + 1 < depth and walk(fx, fy, h, lv, u, m, seen | {(fx, fy)}, n + 1):
                    return True
        return False

    for y, x in zip(*np.nonzero(search.anchor_ok)):
        out[y, x] = walk(int(x), int(y), -1, -1, 0, 0, frozenset({(int(x), int(y))}), 0)
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--out", default="reports/complete_action_depths.json")
    args = ap.parse_args(argv)
    rows, t0 = [], time.perf_counter()
    setups = [(2, 1, "catalogue"), (4, 2, "complete"), (3, 3, "catalogue"), (2, 4, "complete")]
    for g in range(args.games):
        players, map_id, build = setups[g % len(setups)]
        game = Game.new(players=players, map=map_id, seed=g, build_action=build)
        rng = np.random.default_rng(g)
        turn = 0
        while not game.game_over:
            if game.phase == Phase.ANCHOR:
                turn += 1
                s = game.player.supply
                search = BuildSearch(game.palace, s.arches, s.bricks, s.columns)
                deepest, count, anchors = 0, 0, 0
                for y, x in zip(*np.nonzero(search.anchor_ok)):
                    d, c = unattached_walk(search, (int(x), int(y)))
                    deepest, count, anchors = max(deepest, d), count + c, anchors + (c > 0)
                design = design_anchor_mask(search)
                disagree = int((design != search.legal_anchors()).sum())
                # The same palace with a supply of columns and few bricks: the remainders bind.
                scarce = BuildSearch(game.palace, 8, 2, 3)
                disagree += int((design_anchor_mask(scarce) != scarce.legal_anchors()).sum())
                rows.append({"design_anchor_disagreements": disagree, "game": g, "players": players, "map": map_id, "turn": turn,
                             "supply": [s.arches, s.bricks, s.columns], "max_units": s.bricks + 3 * s.columns,
                             "deepest_unattached": deepest, "unattached_prefixes": count,
                             "anchors_with_any": anchors})
            game.apply(int(rng.choice(game.legal_actions())))
    depths = [r["deepest_unattached"] for r in rows]
    out = {"positions": len(rows), "seconds": round(time.perf_counter() - t0, 1),
           "deepest_unattached": max(depths), "depth_histogram": np.bincount(depths).tolist(),
           "max_units_seen": max(r["max_units"] for r in rows),
           "design_anchor_disagreements": sum(r["design_anchor_disagreements"] for r in rows),
           "anchors_compared": len(rows) * 2 * 1024, "rows": rows}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}))


if __name__ == "__main__":
    main()
