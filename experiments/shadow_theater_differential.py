"""The Shadow Theater: the JAX engine against the reference engine on many random games,
decision by decision (monkey_env.shadow_theater.jaxgame.parity). The figure of the docs.

    nice -n 10 .venv/bin/python experiments/shadow_theater_differential.py --games 10000 [--time-limit 1800]

Prints one JSON line: games and decisions compared, disagreements (0: every state, legal mask and
point count agreed), seconds. A disagreement stops the batch and is reported with its message.
"""

from __future__ import annotations

import argparse
import json
import time

from monkey_env.shadow_theater.jaxgame.engine import jax_engine_for
from monkey_env.shadow_theater.jaxgame.parity import differential_batch


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=10_000)
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--first", type=int, default=0, help="seed of the first game")
    p.add_argument("--time-limit", type=float, default=None, help="stop starting batches after this many seconds")
    args = p.parse_args()
    engine = jax_engine_for()
    t0 = time.perf_counter()
    games = decisions = 0
    disagreements: list[str] = []
    for first in range(args.first, args.first + args.games, args.batch):
        if args.time_limit and time.perf_counter() - t0 > args.time_limit:
            break
        n = min(args.batch, args.first + args.games - first)
        try:
            r = differential_batch(engine, first, n, seed=first)
            decisions += r["decisions"]
        except AssertionError as e:
            disagreements.append(str(e))
        games += n
    print(json.dumps({"games": games, "decisions": decisions, "disagreements": len(disagreements),
                      "messages": disagreements[:10], "seconds": round(time.perf_counter() - t0, 1)}))


if __name__ == "__main__":
    main()
