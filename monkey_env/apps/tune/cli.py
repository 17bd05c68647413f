"""``monkey-palace tune``: search the game's numbers for a fairer game and check the best on fresh deals.

    monkey-palace tune --space configs/tune/default_space.yaml --players 2,4 --maps 1,2,3,4 \\
        --agents greedy,ppo-sample --trials 40 --games 64 --seed 0 --out reports/tune
"""

from __future__ import annotations

import argparse
import sys

from monkey_env.apps.cli import add_game_options, chosen_game, game_options


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(",") if x)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def register(sub) -> None:
    p = sub.add_parser("tune", help="search the game's numbers for a fairer game; validate on fresh deals")
    p.add_argument("--space", default=None, help="the space file (default: the game's default space file)")
    p.add_argument("--players", type=_ints, default=None,
                   help="player counts (default: the game's tune part's, e.g. 2,4; a duel: 2)")
    p.add_argument("--maps", type=_ints, default=None, help="maps, for a game with maps (default: all of them)")
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
    # The game's own options for every game played (rule readings, expansions, a choice of action
    # space); the tune sets the players, maps and seeds itself.
    add_game_options(p, skip=TUNE_SETS)
    p.set_defaults(func=cmd_tune)


TUNE_SETS = ("players", "map", "seed", "reward_mode", "observation_format")


def changed_options(args: argparse.Namespace) -> tuple[tuple[str, object], ...]:
    """The game options given that differ from the game's defaults, validated, as sorted pairs."""
    fields = chosen_game().load("options").model_fields
    # The flags the tune sets itself (its --players is a list) take their defaults here.
    options = game_options(args, **{name: fields[name].default for name in TUNE_SETS if name in fields})
    return tuple(sorted((name, value) for name, value in options.model_dump().items()
                        if name != "config_dir" and value != fields[name].default))


def cmd_tune(args: argparse.Namespace) -> int:
    from monkey_env.apps.tune.run import run_tune
    from monkey_env.apps.tune.study import TuneSettings, tunable_games
    from monkey_env.games import game_spec

    spec = game_spec(args.game)
    if not spec.has("tune"):
        raise ValueError(f"tune: {args.game} has no tune space yet (games with one: "
                         f"{', '.join(tunable_games()) or 'none'})")
    if args.trials < 1:
        raise ValueError("--trials must be at least 1")
    part = spec.load("tune")
    agents = tuple(a for a in args.agents.split(",") if a)
    players = part.default_players if args.players is None else args.players
    bad = [p for p in players if p not in part.player_counts]
    if bad:
        raise ValueError(f"--players: {bad} not in {', '.join(map(str, part.player_counts))} ({spec.title})")
    if part.has_maps:
        maps = part.default_maps if args.maps is None else args.maps
    elif args.maps is not None:
        raise ValueError(f"--maps: {spec.title} has no maps")
    else:
        maps = (0,)                  # the one setting of a game without maps
    settings = TuneSettings(space=args.space, config_dir=args.config_dir, game=args.game, players=players, maps=maps,
                            agents=agents, games=args.games, skill_games=args.skill_games, seed=args.seed,
                            sampler=args.sampler, options=changed_options(args))
    say = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    say("compiling the JAX engine and the agents once for every trial...")
    summary = run_tune(settings, args.out, trials=args.trials, backend=args.backend, workers=args.workers,
                       validate_top=args.validate_top, validation_games=args.validation_games, progress=say)
    print("\n".join(summary["headline"]))
    print(f"report: {args.out}/report.md, tuned data: {summary['configs']} (use --config-dir {summary['configs']})")
    return 0
