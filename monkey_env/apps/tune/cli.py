"""``monkey-palace tune``: search the game's numbers for a fairer game and check the best on fresh deals.

    monkey-palace tune --space configs/tune/default_space.yaml --players 2,4 --maps 1,2,3,4 \\
        --agents greedy,ppo-sample --trials 40 --games 64 --seed 0 --out reports/tune
"""

from __future__ import annotations

import argparse
import sys


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(",") if x)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def register(sub) -> None:
    p = sub.add_parser("tune", help="search the game's numbers for a fairer game; validate on fresh deals")
    p.add_argument("--space", default=None, help="the space file (default: the game's default space file)")
    p.add_argument("--players", type=_ints, default=(2, 4), help="player counts (default: 2,4)")
    p.add_argument("--maps", type=_ints, default=(1, 2, 3, 4), help="maps (default: 1,2,3,4)")
    p.add_argument("--agents", default="greedy,ppo-sample", help="agents of the seat games (default: %(default)s)")
    p.add_argument("--trials", type=int, default=40, help="finished trials the study should hold (default: %(default)s)")
    p.add_argument("--games", type=int, default=64, help="games per agent, player count and map in a trial")
    p.add_argument("--skill-games", type=int, default=None,
                   help="greedy-vs-random games per map and seat order in a trial (default: games / 4)")
    p.add_argument("--validation-games", type=int, default=None,
                   help="fresh games per agent, player count and map for each validated candidate (default: 4 x games)")
    p.add_argument("--validate-top", type=int, default=1, help="best candidates of the search to validate")
    p.add_argument("--sampler", default="tpe", choices=("tpe", "cmaes", "nsga2"))
    p.add_argument("--backend", default="local", choices=("local", "ray"))
    p.add_argument("--workers", type=int, default=None, help="Ray workers (default: the CPUs)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="folder of the study, the tuned configs/ and the report")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_tune)


def cmd_tune(args: argparse.Namespace) -> int:
    from monkey_env.apps.tune.run import run_tune
    from monkey_env.apps.tune.study import TuneSettings, tunable_games
    from monkey_env.games import game_spec

    if not game_spec(args.game).has("tune"):
        raise ValueError(f"tune: {args.game} has no tune space yet (games with one: "
                         f"{', '.join(tunable_games()) or 'none'})")
    if args.trials < 1:
        raise ValueError("--trials must be at least 1")
    agents = tuple(a for a in args.agents.split(",") if a)
    bad = [p for p in args.players if p not in (2, 3, 4)]
    if bad:
        raise ValueError(f"--players: {bad} not in 2, 3, 4")
    settings = TuneSettings(space=args.space, config_dir=args.config_dir, game=args.game, players=args.players, maps=args.maps,
                            agents=agents, games=args.games, skill_games=args.skill_games, seed=args.seed,
                            sampler=args.sampler)
    say = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    say("compiling the JAX engine and the agents once for every trial...")
    summary = run_tune(settings, args.out, trials=args.trials, backend=args.backend, workers=args.workers,
                       validate_top=args.validate_top, validation_games=args.validation_games, progress=say)
    print("\n".join(summary["headline"]))
    print(f"report: {args.out}/report.md, tuned data: {summary['configs']} (use --config-dir {summary['configs']})")
    return 0
