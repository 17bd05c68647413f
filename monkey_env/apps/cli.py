"""The ``monkey-palace`` command line: simulate, show and benchmark games; train, evaluate and rate
agents; play; balance reports."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import time
from pathlib import Path

from monkey_env.agents.registry import known_names, make_agent, split_agent_names
from monkey_env.apps.cli_edges import (
    STOPPED,
    BadArgument,
    check_config_dir,
    check_output_file,
    check_values,
    ctrl_c_deferred,
)
from monkey_env.core.config_loading import ConfigError
from monkey_env.core.jax_cache import enable_compilation_cache
from monkey_env.core.options import OptionsError, add_option_flags, options_from_args
from monkey_env.core.protocol import SaveFileError
from monkey_env.core.provenance import load_average, provenance, set_command, shipped_checkpoints
from monkey_env.games import DEFAULT_GAME, game_names, game_spec

# Further subcommands, each in its own module with a register(subparsers) function.
COMMAND_MODULES: list[str] = ["monkey_env.apps.arena.cli", "monkey_env.apps.play", "monkey_env.apps.balance.cli",
                               "monkey_env.apps.evaluate", "monkey_env.apps.train", "monkey_env.apps.tune.cli",
                               "monkey_env.apps.web.cli"]


def add_game_options(p: argparse.ArgumentParser, *, skip: tuple[str, ...] = ("reward_mode",)) -> None:
    """The chosen game's option flags, generated from its options model (one declaration)."""
    add_option_flags(p, chosen_game().load("options"), skip=skip + ("config_dir",))


_CHOSEN = {"game": DEFAULT_GAME, "given": False}


def chosen_game():
    """The spec of the game named by --game (read before the subcommands' flags are built)."""
    return game_spec(_CHOSEN["game"])


def game_given() -> bool:
    """Whether this command line names its game (--game): a command whose game comes from a file
    (train's config) refuses a contradiction only then."""
    return _CHOSEN["given"]


def common_flags() -> argparse.ArgumentParser:
    """Flags every command takes: which game, and where its game data come from."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--game", default=DEFAULT_GAME, choices=game_names(), help="which game (default: %(default)s)")
    common.add_argument("--config-dir", default=None, metavar="DIR",
                        help="a folder of edited game data laid out like configs/ (default: the shipped data)")
    return common


def game_options(args: argparse.Namespace, **overrides):
    """The options object of a command's parsed flags (game options, --config-dir)."""
    return options_from_args(chosen_game().load("options"), args, **overrides)


def rule_options(args: argparse.Namespace) -> dict:
    """The options that are the same for every game of a command, validated, as keywords."""
    return game_options(args).shared_by_games()


def say_compiling(quiet: bool = False) -> None:
    """The first batched game of a process compiles the JAX engine: say so before the silence."""
    if not quiet:
        print("compiling the JAX engine (about a minute the first time, seconds once cached)...",
              file=sys.stderr, flush=True)


def cmd_simulate(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    spec = chosen_game()
    options = game_options(args)          # every game option flag and --config-dir; game i uses seed + i
    players = int(options.players)
    names = split_agent_names(args.agents)
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise BadArgument("--agents", f"{players} players need 1 or {players} names, got {len(names)}: {args.agents}")
    from monkey_env.apps.cli_edges import check_agents, stopped
    check_agents("--agents", list(dict.fromkeys(names)), spec.name, options)
    from monkey_env.apps.results_table import play_games

    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    data = options.game_data() if hasattr(options, "game_data") else None   # loaded once for every game
    out_dir = Path(args.out) if args.out else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    finished = [0]

    def each(game, result) -> None:
        with ctrl_c_deferred():
            if out_dir:
                path = out_dir / f"game_{result['seed']}.json"
                if hasattr(game, "save"):
                    game.save(path)
                else:                   # save(path) is optional: the protocol's to_dict, named by its game
                    path.write_text(json.dumps({"game": spec.name, **game.to_dict()}), encoding="utf-8")
            if args.json:
                print(json.dumps(result), flush=True)
            finished[0] += 1

    bar = tqdm(total=args.games, desc="games", unit="game", file=sys.stderr, disable=args.quiet)
    # Fresh agents per game, seeded from the game's seed: the same command plays the same games.
    try:
        table = play_games(lambda i, seed: [make_agent(n, seed=seed * 10 + s, game=spec.name) for s, n in enumerate(names)],
                           options, range(options.seed, options.seed + args.games), names=names, engine="reference",
                           data=data, on_game=each, progress=bar.update)
    except KeyboardInterrupt:         # as tournament: the finished games kept, one line, exit 130
        bar.close()
        kept = (f"the finished games are saved in {out_dir}" if out_dir else
                "their results are printed above" if args.json else
                "nothing is kept (--out FOLDER saves each finished game, --json prints it)")
        print("\n" + stopped("simulate", finished[0], args.games, kept), file=sys.stderr)
        return STOPPED
    bar.close()
    if not args.json:
        where = f"map {options.map}" if hasattr(options, "map") else spec.title
        print(summarise(table, names, where, spec.score_name, game=spec.name))
    return 0


def summarise(table, names: list[str], where: str = "", score_name: str | None = None, game: str = DEFAULT_GAME) -> str:
    """The summary of a simulate run from its results_table.GameResults (win counts are win shares)."""
    from monkey_env.apps.results_table import shared_win_rule
    from monkey_env.core.outcome import seat_label

    score_name = score_name or game_spec(game).score_name
    rounds = table.rounds.tolist()
    lines = [f"{table.n} games, {table.players} players{', ' + where if where else ''}: "
             f"rounds median {statistics.median(rounds)}, range {min(rounds)}-{max(rounds)}"]
    for seat, name in enumerate(names):
        wins = float(table.win_shares[:, seat].sum())
        mean = float(table.scores[:, seat].mean())
        lines.append(f"  {seat_label(seat)} ({name}): wins {wins:g} ({100 * wins / table.n:.0f}%), "
                     f"mean {score_name} {mean:.1f}")
    triggers: dict[str, int] = {}
    for t in table.end_trigger.tolist():
        triggers[t] = triggers.get(t, 0) + 1
    lines.append("  end triggered by: " + ", ".join(f"{k} {v}" for k, v in sorted(triggers.items())))
    lines.append(f"  win: {shared_win_rule(game)}")
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace) -> int:
    """Any save or record (play's, an engine's, a browser games-folder file): the game is read
    from the file, its decisions replayed and a save's position checked against them."""
    from monkey_env.apps.saves import load_game, open_file

    if args.png:
        check_output_file(args.png, "--png")
    opened = open_file(args.file)
    check_config_dir(opened.spec.name, args.config_dir)
    game = load_game(opened, config_dir=args.config_dir)
    spec = opened.spec
    print(spec.load("text")(game))
    if args.png:
        if not spec.has("picture"):
            raise ValueError(f"{spec.title} has no picture")
        try:
            save_image(spec.load("picture")(game), args.png)
        except OSError as e:
            raise ValueError(f"--png: cannot write {args.png} ({e.strerror})") from None
        print(f"picture of the position: {args.png}")
    return 0


def save_image(image, path) -> None:
    """An (H, W, 3) uint8 picture as a PNG file."""
    import matplotlib.image

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    matplotlib.image.imsave(str(path), image)


LOAD_AT_START: list[float] = []        # the machine's load when the command began (reports record it)


def with_provenance(report: dict, started: float, agents=()) -> dict:
    """A JSON report with its provenance block (core.provenance): command, commit, machine, load,
    run time and the checkpoints the agents read."""
    return {**report, "provenance": provenance(started=started, checkpoints=shipped_checkpoints(agents),
                                               load_before=LOAD_AT_START)}


def cmd_bench(args: argparse.Namespace) -> int:
    """Decisions per second of a game's engines on random games, one run (or the game's own bench part)."""
    spec = chosen_game()
    if spec.has("bench"):
        return spec.load("bench").run_command(args)
    started = time.perf_counter()
    from monkey_env.apps.bench import run_any_game

    batches = () if args.reference_only else tuple(int(b) for b in args.batches.split(","))
    report = run_any_game(spec, game_options(args), batches=batches, reference_games=args.games, seed=args.seed,
                          max_seconds=args.max_seconds)
    if args.json:
        print(json.dumps(with_provenance(report, started)))
        return 0
    r = report["reference"]
    print(f"{spec.title}, reference engine: {r['decisions_per_second']:.0f} decisions/s, "
          f"{r['mean_game_seconds']:.3f} s per game (max {r['max_game_seconds']:.3f} s)")
    for row in report["jax"]:
        print(f"JAX engine, batch {row['batch']:>5}: {row['decisions_per_second']:.0f} decisions/s "
              f"({row['decisions']} decisions in {row['seconds']:.3f} s; compile and first step "
              f"{row['compile_and_first_step_seconds']:.1f} s)")
        if "step_loop" in row:
            print(f"                  one call per step: {row['step_loop']['decisions_per_second']:.0f} decisions/s")
    if report.get("speedup_vs_reference_at_1024") is not None:
        print(f"speed-up over the reference at 1024: {report['speedup_vs_reference_at_1024']:.1f}x")
    return 0


class _SubcommandsWithCommonFlags:
    """add_subparsers' object, giving every command the common flags (--game, --config-dir)."""

    def __init__(self, subparsers, common: argparse.ArgumentParser):
        self._subparsers, self._common = subparsers, common

    def add_parser(self, name: str, **kwargs) -> argparse.ArgumentParser:
        return self._subparsers.add_parser(name, parents=[self._common, *kwargs.pop("parents", [])], **kwargs)


def main(argv: list[str] | None = None) -> int:
    enable_compilation_cache()
    set_command(list(sys.argv[1:] if argv is None else argv))      # what reports name as their command
    LOAD_AT_START[:] = load_average() or []
    # --game decides which options the commands take: read it before building their flags.
    known, _ = common_flags().parse_known_args(argv)
    given = argparse.ArgumentParser(add_help=False)
    given.add_argument("--game")
    _CHOSEN.update(game=known.game, given=given.parse_known_args(argv)[0].game is not None)
    parser = argparse.ArgumentParser(prog="monkey-palace", description=__doc__)
    sub = _SubcommandsWithCommonFlags(parser.add_subparsers(dest="command", required=True), common_flags())

    sim = sub.add_parser("simulate", help="play N games between agents")
    sim.add_argument("--games", type=int, default=10)
    sim.add_argument("--agents", default="random", help=f"comma-separated, one per seat or one for all "
                                                        f"({', '.join(known_names(chosen_game().name))})")
    add_game_options(sim)
    sim.add_argument("--json", action="store_true", help="one JSON object per game on stdout")
    sim.add_argument("--out", help="folder to save each finished game (for `show`)")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    sim.set_defaults(func=cmd_simulate)

    show = sub.add_parser("show", help="print a saved game (or a game record) as text")
    show.add_argument("file")
    show.add_argument("--png", help="also draw the position to this PNG file (Monkey Palace: the palace in 3-D)")
    show.set_defaults(func=cmd_show)

    bench = sub.add_parser("bench", help="decisions per second of the engines on random games")
    bench.add_argument("--games", type=int, default=20, help="reference-engine games")
    spec = chosen_game()
    if spec.has("bench"):                      # the game's own bench and its flags
        spec.load("bench").add_flags(bench)
    else:
        add_game_options(bench, skip=("reward_mode", "seed"))
    bench.add_argument("--batches", default="1,64,256,1024", help="JAX batch sizes")
    bench.add_argument("--max-seconds", type=float, default=120.0, help="time limit per JAX batch size")
    bench.add_argument("--reference-only", action="store_true")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--json", action="store_true")
    bench.set_defaults(func=cmd_bench)

    for module in COMMAND_MODULES:
        importlib.import_module(module).register(sub)

    args = parser.parse_args(argv)
    try:
        check_values(args, chosen_game())
        if args.command != "show":        # show checks it against the file's game
            check_config_dir(chosen_game().name, getattr(args, "config_dir", None))
        return args.func(args)
    except (ConfigError, SaveFileError, OptionsError, ValueError) as e:
        print(f"monkey-palace: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:             # a command with work to keep says what it kept itself
        print(f"\nmonkey-palace {args.command}: stopped (Ctrl-C)", file=sys.stderr)
        return STOPPED
    except BrokenPipeError:               # the reader of the output stopped (| head): no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except MemoryError:
        print(f"monkey-palace {args.command}: error: out of memory (fewer --games, or a smaller --batch)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    # Run as ``python -m monkey_env.apps.cli`` this file is the module __main__, and the
    # subcommands' modules import a second copy, monkey_env.apps.cli, whose chosen game would
    # stay the default: run that copy's main so there is one chosen game.
    from monkey_env.apps.cli import main as package_main

    sys.exit(package_main())
