"""``monkey-palace tournament`` and ``monkey-palace report``."""

from __future__ import annotations

import argparse
import json
import sys

from monkey_env.agents.registry import split_agent_names
from monkey_env.apps.arena.report import build_report, plot_report, print_report
from monkey_env.apps.arena.results import Results, ResultsError


def register(sub) -> None:
    from monkey_env.apps.cli import add_game_options

    t = sub.add_parser("tournament", help="play a fair tournament between agents, results in SQLite",
                       description="Every agent in every seat equally often, each deal replayed for every "
                                   "seating. Run the same command again to continue a stopped tournament.")
    t.add_argument("--agents", required=True,
                   help="comma-separated agent names: built-in ones or import paths package.module:Class")
    t.add_argument("--games", type=int, default=100, help="games in all (rounded up to whole deals)")
    add_game_options(t)
    t.add_argument("--db", default="tournament.sqlite", help="SQLite results file (created if missing)")
    t.add_argument("--engine", choices=("auto", "jax", "reference"), default="auto",
                   help="auto: batched JAX play when every agent has act_batch, else the reference engine")
    t.add_argument("--chunk", type=int, help="games per work unit (a JAX batch); default 256 on jax, 4 on reference")
    t.add_argument("--workers", type=int, help="worker processes (default: every core) or Ray actors")
    t.add_argument("--backend", choices=("local", "ray"), default="local")
    t.add_argument("--ray-address", help="address of a Ray cluster (default: start a local Ray)")
    t.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="start no new work after this long (run the same command again to continue)")
    t.add_argument("--json", action="store_true", help="print the report as JSON")
    t.add_argument("--plot", help="also draw ratings and win rates to this PNG file")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.set_defaults(func=cmd_tournament)

    r = sub.add_parser("report", help="leaderboard, win rates and plot of a tournament database")
    r.add_argument("--db", default="tournament.sqlite")
    r.add_argument("--tournament", type=int, help="tournament id (default: the latest)")
    r.add_argument("--list", action="store_true", help="list the tournaments in the database")
    r.add_argument("--json", action="store_true")
    r.add_argument("--plot", help="draw ratings and win rates to this PNG file")
    r.set_defaults(func=cmd_report)


def _options(args) -> dict:
    from monkey_env.apps.cli import rule_options

    return rule_options(args)


def cmd_tournament(args: argparse.Namespace) -> int:
    from monkey_env.apps.arena.runner import plan_tournament, run_tournament
    from monkey_env.apps.cli import chosen_game

    try:
        plan = plan_tournament(split_agent_names(args.agents), args.players, getattr(args, "map", "-"), _options(args),
                               args.games, args.seed, args.engine, args.chunk, game=chosen_game().name)
        db = Results(args.db)
    except ResultsError as e:
        raise SystemExit(f"monkey-palace tournament: error: {e}") from None
    except ValueError as e:
        raise SystemExit(f"monkey-palace tournament: error: {e}") from None
    s = plan.schedule
    if not args.json:
        note = f" (rounded up from {s.games})" if s.total_games != s.games else ""
        print(f"{s.total_games} games{note}: {s.deals} deals x {len(s.seatings)} seatings, "
              f"{plan.spec['engine']} engine, results in {args.db}", file=sys.stderr)
        if plan.spec["engine"] == "jax" and not args.quiet:
            from monkey_env.apps.cli import say_compiling
            say_compiling()
    try:
        tour, added = run_tournament(db, plan, workers=args.workers, backend=args.backend,
                                     ray_address=args.ray_address, progress=not args.quiet,
                                     time_limit=args.time_limit)
    except KeyboardInterrupt:
        print(f"\nstopped; the finished games are saved in {args.db}: run the same command to continue",
              file=sys.stderr)
        return 130
    return _show(db, tour.id, args)


def cmd_report(args: argparse.Namespace) -> int:
    try:
        db = Results(args.db, create=False)
        if args.list:
            for tour, n in db.tournaments():
                c = tour.config
                print(f"{tour.id}: {n} games, {', '.join(c['agents'])}; {c['players']} players, map {c['map']}, "
                      f"{c['engine']}, seed {c['seed']}, created {tour.created}")
            return 0
        return _show(db, args.tournament, args)
    except ResultsError as e:
        raise SystemExit(f"monkey-palace report: error: {e}") from None


def _show(db: Results, tournament_id: int | None, args) -> int:
    report = build_report(db, tournament_id)
    if args.plot:
        plot_report(report, args.plot)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_report(report)
        if args.plot:
            print(f"plot: {args.plot}")
    return 0
