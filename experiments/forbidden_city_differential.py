"""Forbidden City: the JAX engine against the reference engine on many random games, decision
by decision (the shared suite's test at scale; 10,000 games is the full check).

    nice -n 10 .venv/bin/python experiments/forbidden_city_differential.py --games 10000 --out reports/fc_diff.json

Games cycle over 2-4 players, both start-tile sides and both endings (parity.game_settings);
batch b of ``--batch`` games uses seed = its first game's number. Stops at the first
disagreement (exit status 1, the difference printed) or after ``--max-minutes``, writing how
many games and decisions agreed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--first", type=int, default=0, help="the first game's number (to continue a run)")
    ap.add_argument("--max-minutes", type=float, default=None)
    ap.add_argument("--out", default=None, help="JSON summary, rewritten after every batch")
    args = ap.parse_args()

    from monkey_env.forbidden_city.jaxgame.env import jax_game_for
    from monkey_env.forbidden_city.jaxgame.parity import differential_batch

    engine = jax_game_for()
    t0 = time.perf_counter()
    summary = {"first": args.first, "games": 0, "decisions": 0, "disagreements": 0, "seconds": 0.0}
    for first in range(args.first, args.first + args.games, args.batch):
        n = min(args.batch, args.first + args.games - first)
        try:
            r = differential_batch(engine, first, n, seed=first)
        except AssertionError as e:
            summary["disagreements"] = 1
            summary["first_disagreement"] = str(e)
            print(e)
            break
        summary["games"] += r["games"]
        summary["decisions"] += r["decisions"]
        summary["seconds"] = time.perf_counter() - t0
        print(f"{summary['games']} games, {summary['decisions']} decisions agree ({summary['seconds']:.0f} s)", flush=True)
        if args.out:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text(json.dumps(summary, indent=1))
        if args.max_minutes and summary["seconds"] > 60 * args.max_minutes:
            break
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=1))
    return 1 if summary["disagreements"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
