"""Benchmark of the arena: N two-player games of greedy against random (random against random
if greedy is not available), batched on the JAX engine, into a fresh SQLite database.

    .venv/bin/python -m experiments.arena_bench --games 10000

Prints one JSON object: games, wall seconds (start-up and compilation included), games per
second, the workers and chunk used, and the leaderboard's first lines. The goal: 10,000 games in
under 10 minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from monkey_env.agents.registry import known_names
from monkey_env.apps.arena.report import build_report
from monkey_env.apps.arena.results import Results
from monkey_env.apps.arena.runner import plan_tournament, run_tournament
from monkey_env.monkey_palace.options import DEFAULT_BUILD_ACTION

OPTIONS = {"butterfly": False, "frog": False, "monkey_move": "optional", "butterfly_rule": "highest_overall",
           "end_trigger": "shortfall"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--agents", help="two agents, comma-separated (default: greedy,random if greedy is registered)")
    ap.add_argument("--workers", type=int, help="default: every core")
    ap.add_argument("--chunk", type=int, default=500, help="games per JAX batch")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--build-action", choices=("catalogue", "complete"), default=DEFAULT_BUILD_ACTION,
                    help=f"the build action the games use (default: the game's, {DEFAULT_BUILD_ACTION})")
    ap.add_argument("--time-limit", type=float, help="seconds; start no new chunk after (the rate is still measured)")
    ap.add_argument("--db", help="results file (default: a fresh one in a temporary folder)")
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args()

    agents = args.agents.split(",") if args.agents else \
        ["greedy", "random"] if "greedy" in known_names() else ["random", "monkey_env.agents.random_agent:RandomAgent"]
    db_path = Path(args.db) if args.db else Path(tempfile.mkdtemp()) / "bench.sqlite"
    t0 = time.perf_counter()
    options = {**OPTIONS, "build_action": args.build_action}
    plan = plan_tournament(agents, 2, "1", options, args.games, args.seed, "jax", args.chunk)
    db = Results(db_path)
    tour, added = run_tournament(db, plan, workers=args.workers, progress=True, time_limit=args.time_limit)
    seconds = time.perf_counter() - t0
    report = build_report(db, tour.id)
    played = [g["duration"] for g in db.games(tour.id)]
    result = {
        "agents": agents, "build_action": args.build_action,
        "games": added, "games_recorded": report["games_recorded"], "wall_seconds": round(seconds, 1),
        "games_per_second": round(added / seconds, 2),
        "projected_seconds_for_all": round(plan.schedule.total_games * seconds / added, 0) if added else None,
        "play_seconds_in_batches": round(sum(played), 1),
        "workers": args.workers or os.cpu_count(), "chunk": args.chunk, "cpus": os.cpu_count(), "database": str(db_path),
        "leaderboard": [{k: r[k] for k in ("agent", "mu", "sigma", "first_place", "mean_score")}
                        for r in report["leaderboard"]],
        "win_rate": {a: {b: c["win_rate"] for b, c in row.items()} for a, row in report["win_rates"].items()},
        "shared_win": report["shared_win"],
    }
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
