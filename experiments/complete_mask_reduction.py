"""The JAX complete-build design's reduced search against BuildSearch, on mask-guided prefixes.

tests/games/monkey_palace/test_complete_mask_reduction.py states the reduced search (docs/ENVIRONMENTS.md, "Loop
erasure" and "A dynamic programme"); this walks more random prefixes of the same 12 positions
with one supply for every position and counts the children compared, the unattached ones,
the disagreements, and the verdicts that change when the prefix's own studs are forgotten.

    python -m experiments.complete_mask_reduction --supply 6 4 3 --walks 15
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

# The tests' positions and helpers, imported once their folder is on the path (hence E402 below).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "games" / "monkey_palace"))

from test_complete_mask_reduction import reduced_completable  # noqa: E402
from test_complete_staircases import POSITIONS  # noqa: E402

from monkey_env.monkey_palace.staircases import BuildSearch, Prefix  # noqa: E402


def compare(supply, walks: int, seed: int) -> dict:
    tot = dict(children=0, unattached=0, unattached_completable=0, disagreements=0, prefix_studs_decide=0)
    for index, (palace, held, _) in enumerate(POSITIONS):
        search = BuildSearch(palace, *(supply or held))
        rng = np.random.default_rng(seed + index)
        anchors = [(int(x), int(y)) for y, x in zip(*np.nonzero(search.legal_anchors()))]
        for _ in range(walks if anchors else 0):
            p = search.start(anchors[rng.integers(len(anchors))])
            while True:
                children = list(search.children(p))
                for q in children:
                    full = search.completable(q)
                    tot["children"] += 1
                    tot["disagreements"] += full != reduced_completable(search, q)
                    if not q.attached:
                        tot["unattached"] += 1
                        tot["unattached_completable"] += full
                        blind = Prefix(q.x, q.y, q.heading, q.level, q.arches, q.units, q.remainder, False, frozenset())
                        tot["prefix_studs_decide"] += reduced_completable(search, blind) != full
                offered = [q for q in children if search.completable(q)]
                if not offered or (search.can_finish(p) and rng.random() < 0.3):
                    break
                p = offered[rng.integers(len(offered))]
    return tot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--supply", type=int, nargs=3, default=None, metavar=("ARCHES", "BRICKS", "COLUMNS"),
                        help="one supply for every position (default: each position's own)")
    parser.add_argument("--walks", type=int, default=15, help="random mask-guided prefixes per position")
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args()
    print(json.dumps({"supply": args.supply, "walks": args.walks, **compare(args.supply, args.walks, args.seed)}))


if __name__ == "__main__":
    main()
