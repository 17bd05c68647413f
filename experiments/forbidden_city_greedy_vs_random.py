"""Forbidden City: the greedy agent against random ones on the JAX engine, seats rotated: win
rate with its 95% Wilson interval, mean coins.

    nice -n 10 .venv/bin/python experiments/forbidden_city_greedy_vs_random.py --games 1000 --players 2 4

The games are split into one group per seat; in group s greedy plays seat s and random agents
the others, on the same deals as the other groups. A win shared by k seats counts 1/k
(monkey_env.core.outcome). Goal (issue 18): at least 90% with 2 and with 4 players.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def evaluate(players: int, games: int, seed: int, batch: int, start_side: str = "beginner",
             engine: str = "jax") -> dict:
    from monkey_env.agents.registry import make_agent
    from monkey_env.apps.balance.stats import wilson
    from monkey_env.apps.results_table import play_jax, play_reference
    from monkey_env.forbidden_city.options import ForbiddenCityOptions

    options = ForbiddenCityOptions(players=players, start_side=start_side)
    seeds = seed + np.arange(games)
    share, mine, theirs = 0.0, [], []
    t0 = time.perf_counter()
    for seat, group in enumerate(np.array_split(seeds, players)):
        agents = [make_agent("random", seed + 1 + s, game="forbidden_city") for s in range(players)]
        agents[seat] = make_agent("greedy", seed, game="forbidden_city")
        names = ["random"] * players
        names[seat] = "greedy"
        if engine == "jax":
            res = play_jax(agents, options, group, names=names, batch=min(batch, len(group)),
                           agent_key=lambda chunk: int(chunk[0]))
        else:    # the reference engine, greedy's act: no compilation, one game at a time
            res = play_reference(agents, options, group, names=names)
        share += float(res.win_shares[:, seat].sum())
        print(f"  greedy in seat {seat + 1}: {res.win_shares[:, seat].sum():.1f} wins of {len(group)}", flush=True)
        mine += res.scores[:, seat].tolist()
        theirs += np.delete(res.scores[:, :players], seat, axis=1).mean(1).tolist()
    e = wilson(share, games)
    return {"players": players, "start_side": start_side, "engine": engine, "games": games, "greedy_win_rate": e.value,
            "ci95": [e.lo, e.hi], "greedy_mean_coins": float(np.mean(mine)),
            "random_mean_coins": float(np.mean(theirs)), "seconds": time.perf_counter() - t0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=250)
    ap.add_argument("--engine", choices=("jax", "reference"), default="jax")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from monkey_env.core.jax_cache import enable_compilation_cache
    enable_compilation_cache()
    rows = []
    for p in args.players:
        r = evaluate(p, args.games, args.seed, args.batch, engine=args.engine)
        rows.append(r)
        print(f"{p} players: greedy wins {r['greedy_win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] "
              f"of {r['games']} games; coins {r['greedy_mean_coins']:.1f} vs {r['random_mean_coins']:.1f} "
              f"({r['seconds']:.0f} s)", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
