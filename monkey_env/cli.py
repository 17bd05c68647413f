"""The ``monkey-palace`` command line: simulate games, show a saved game, time the engine."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from monkey_env.config import ConfigError
from monkey_env.engine import Game, GameOptions, SaveFileError, _read_json
from monkey_env.game_data import load_game_data
from monkey_env.simulate import AGENTS, make_agent, play_game


def _add_game_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--map", default="1", help="ground map 1-4, or the path of an edited map file")
    p.add_argument("--butterfly", action="store_true", help="play with the Butterfly micro-expansion")
    p.add_argument("--frog", action="store_true", help="play with the Frog micro-expansion")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game (game i uses seed + i)")
    p.add_argument("--monkey-move", choices=("optional", "mandatory"), default="optional")
    p.add_argument("--butterfly-rule", choices=("highest_overall", "highest_of_colour"), default="highest_overall")
    p.add_argument("--end-trigger", choices=("shortfall", "last_taken"), default="shortfall")


def cmd_simulate(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    names = args.agents.split(",")
    if len(names) == 1:
        names = names * args.players
    if len(names) != args.players:
        raise SystemExit(f"--agents needs 1 or {args.players} names, got {len(names)}")
    for n in names:
        if n not in AGENTS:
            raise SystemExit(f"unknown agent {n!r}; known: {', '.join(AGENTS)}")
    data = load_game_data(args.map)
    readings = dict(monkey_move=args.monkey_move, butterfly_rule=args.butterfly_rule, end_trigger=args.end_trigger)
    out_dir = Path(args.out) if args.out else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for i in tqdm(range(args.games), desc="games", unit="game", file=sys.stderr, disable=args.quiet):
        seed = args.seed + i
        options = GameOptions(players=args.players, map=str(args.map), butterfly=args.butterfly,
                              frog=args.frog, seed=seed, **readings)
        agents = [make_agent(n, seed=seed * 10 + s) for s, n in enumerate(names)]
        game, result = play_game(options, agents, data)
        results.append(result)
        if out_dir:
            game.save(out_dir / f"game_{seed}.json")
        if args.json:
            print(json.dumps(result), flush=True)
    if not args.json:
        print(summarise(results, names))
    return 0


def summarise(results: list[dict], names: list[str]) -> str:
    rounds = [r["rounds"] for r in results]
    lines = [f"{len(results)} games, {results[0]['players']} players, map {results[0]['map']}: "
             f"rounds median {statistics.median(rounds)}, range {min(rounds)}-{max(rounds)}"]
    for seat, name in enumerate(names):
        wins = sum(seat in r["winners"] for r in results)
        mean = statistics.mean(r["scores"][seat] for r in results)
        lines.append(f"  seat {seat + 1} ({name}): wins {wins} ({100 * wins / len(results):.0f}%), "
                     f"mean Banana Points {mean:.1f}")
    triggers: dict[str, int] = {}
    for r in results:
        triggers[r["end_trigger"]] = triggers.get(r["end_trigger"], 0) + 1
    lines.append("  end triggered by: " + ", ".join(f"{k} {v}" for k, v in sorted(triggers.items())))
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace) -> int:
    from monkey_env.text_view import render_game

    raw = _read_json(args.file)
    game = Game.replay(raw) if "actions" in raw else Game.from_dict(raw)
    print(render_game(game))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """Time whole random games of the reference engine (a benchmark, not a test)."""
    from agents.random_agent import RandomAgent

    data = {m: load_game_data(m) for m in (1, 2, 3, 4)}
    rows = []
    for players in (2, 3, 4):
        times, decisions = [], 0
        for i in range(args.games):
            m = 1 + i % 4
            options = GameOptions(players=players, map=str(m), seed=args.seed + i)
            t0 = time.perf_counter()
            _, result = play_game(options, [RandomAgent(args.seed + i)] * players, data[m])
            times.append(time.perf_counter() - t0)
            decisions += result["decisions"]
        rows.append({"players": players, "games": args.games, "mean_game_seconds": statistics.mean(times),
                     "max_game_seconds": max(times), "decisions_per_second": decisions / sum(times)})
    report = {"engine": "reference", "rows": rows}
    if args.json:
        print(json.dumps(report))
    else:
        for r in rows:
            print(f"reference engine, {r['players']} players: {r['mean_game_seconds']:.2f} s per random game "
                  f"(max {r['max_game_seconds']:.2f} s), {r['decisions_per_second']:.0f} decisions/s")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="monkey-palace", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="play N games between agents")
    sim.add_argument("--games", type=int, default=10)
    sim.add_argument("--agents", default="random", help=f"comma-separated, one per seat or one for all ({', '.join(AGENTS)})")
    _add_game_options(sim)
    sim.add_argument("--json", action="store_true", help="one JSON object per game on stdout")
    sim.add_argument("--out", help="folder to save each finished game (for `show`)")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    sim.set_defaults(func=cmd_simulate)

    show = sub.add_parser("show", help="print a saved game (or a game record) as text")
    show.add_argument("file")
    show.set_defaults(func=cmd_show)

    bench = sub.add_parser("bench", help="time the engines on random games")
    bench.add_argument("--games", type=int, default=20)
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--json", action="store_true")
    bench.set_defaults(func=cmd_bench)

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ConfigError, SaveFileError, ValueError) as e:
        print(f"monkey-palace: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
