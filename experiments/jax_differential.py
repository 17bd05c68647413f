"""The JAX engine against the reference engine on many random games (the full check).

    python -m experiments.jax_differential --games 10000 [--first 0] [--batch 100] [--build-action complete]

Every decision of every game is compared (state, legal mask, scores); the games cycle
through all maps, 2-4 players and the options (monkey_env.monkey_palace.jaxgame.parity.game_settings).
Stops at the first disagreement with the differences; prints a JSON summary at the end. With
``--build-action complete`` both engines build arch by arch; games whose player held more than
the JAX masks' caps are compared up to that turn and listed (``over_cap``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from tqdm import tqdm

from monkey_env.monkey_palace.jaxgame import JaxGame
from monkey_env.monkey_palace.jaxgame.parity import differential_batch
from monkey_env.monkey_palace.options import DEFAULT_BUILD_ACTION, GameOptions


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=10_000)
    p.add_argument("--first", type=int, default=0, help="index of the first game (to split a run)")
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--build-action", choices=("catalogue", "complete"), default=DEFAULT_BUILD_ACTION)
    args = p.parse_args()
    jg = JaxGame(GameOptions(build_action=args.build_action))
    t0, decisions, games, over_cap = time.time(), 0, 0, []
    with tqdm(total=args.games, desc="games", unit="game", file=sys.stderr) as bar:
        for first in range(args.first, args.first + args.games, args.batch):
            n = min(args.batch, args.first + args.games - first)
            result = differential_batch(jg, first, n, seed=first)
            decisions += result["decisions"]
            over_cap += result["over_cap"]
            games += n
            bar.update(n)
    print(json.dumps({"games": games, "first": args.first, "build_action": args.build_action,
                      "decisions_compared": decisions, "disagreements": 0, "over_cap": over_cap,
                      "seconds": round(time.time() - t0, 1)}))


if __name__ == "__main__":
    main()
