"""The command line's edges, shared by every command: values checked before any work (each bad
one is one line naming its flag), and the one-line ending of a command stopped with Ctrl-C.

Nothing here imports a command, so every command (and apps.cli's ``main``) can use it.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import threading
from pathlib import Path

MAX_SEED = 2 ** 63 - 1          # seeds are 64-bit integers in the engines and the results tables
MAX_GAMES = 10 ** 8             # a run keeps every game's results in memory
STOPPED = 130                   # the exit status of a command stopped with Ctrl-C (128 + SIGINT)


class BadArgument(ValueError):
    """A command-line value that cannot be used: apps.cli.main prints it as one line naming the flag
    (``monkey-palace: error: argument --seed: ...``) and exits 2, as argparse does."""

    def __init__(self, flag: str, problem: str):
        super().__init__(f"argument {flag}: {problem}")
        self.flag = flag


def _bounds(model, field: str) -> tuple[int | None, int | None]:
    lo = hi = None
    info = model.model_fields.get(field)
    for m in getattr(info, "metadata", ()):
        lo = getattr(m, "ge", lo) if getattr(m, "ge", None) is not None else lo
        hi = getattr(m, "le", hi) if getattr(m, "le", None) is not None else hi
    return lo, hi


def check_values(args: argparse.Namespace, spec=None) -> None:
    """--players, --seed and --games of any command, before it starts (BadArgument names the flag).

    spec: the chosen game's GameSpec; --players must be in its options model's range."""
    players = getattr(args, "players", None)
    if spec is not None and type(players) is int:
        lo, hi = _bounds(spec.load("options"), "players")
        if (lo is not None and players < lo) or (hi is not None and players > hi):
            count = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise BadArgument("--players", f"{spec.title} is played by {count} players, got {players}")
    games = getattr(args, "games", None)
    if type(games) is int and games > MAX_GAMES:      # fewer than 1: each command says so its own way
        raise BadArgument("--games", f"at most {MAX_GAMES:,} (every game's results are kept in memory), "
                                     f"got {games:,}")
    for flag in ("train_iterations", "train_repeats"):
        value = getattr(args, flag, None)
        if type(value) is int and value < 1:
            raise BadArgument("--" + flag.replace("_", "-"), f"must be at least 1, got {value}")
    seed = getattr(args, "seed", None)
    if type(seed) is int:
        if not 0 <= seed <= MAX_SEED:
            raise BadArgument("--seed", f"must be 0 to 2^63 - 1 ({MAX_SEED}), got {seed}")
        if type(games) is int and games >= 1 and seed + games - 1 > MAX_SEED:
            raise BadArgument("--seed", f"the games use seeds {seed} to {seed + games - 1}, past 2^63 - 1 ({MAX_SEED}): "
                                        f"a smaller seed or fewer games")


# Where each game's data live inside a --config-dir folder (its GameSpec's data_folder and
# data_files) is checked by the one shared check, core.data_folder.
def check_config_dir(game: str, config_dir: str | Path | None) -> None:
    """A --config-dir must be a folder holding the game's data (laid out like configs/): an empty
    or missing one is refused, for every game, rather than quietly playing the shipped data."""
    if config_dir is None:
        return
    from monkey_env.core.data_folder import data_folder_problem
    from monkey_env.games import game_spec

    spec = game_spec(game)
    problem = data_folder_problem(config_dir, spec.data_folder, spec.data_files)
    if problem:
        raise BadArgument("--config-dir", problem)


def check_output_file(path: str | Path, flag: str) -> None:
    """A file a command will write (a picture): its folder must exist and it must not be a folder."""
    p = Path(path)
    if p.is_dir():
        raise BadArgument(flag, f"{p} is a folder, not a file name")
    if not p.parent.is_dir():
        raise BadArgument(flag, f"no folder {p.parent} to write {p.name} into (create it first)")


def check_input_file(path: str | Path, flag: str) -> None:
    p = Path(path)
    if not p.is_file():
        raise BadArgument(flag, f"{p}: no such file" if not p.exists() else f"{p} is not a file")


def check_agents(flag: str, names: list[str], game: str, options=None) -> None:
    """Every agent name of a flag can be made for this game, and plays these options when given
    (agents.base.check_plays); BadArgument names the flag."""
    from monkey_env.agents.base import check_plays
    from monkey_env.agents.registry import make_agent

    made = {}
    for n in names:
        try:
            made[n] = make_agent(n, 0, game=game)
        except ValueError as e:
            raise BadArgument(flag, str(e)) from None
    if options is not None:
        try:
            check_plays(made, options)
        except ValueError as e:
            raise BadArgument(flag, str(e)) from None


@contextlib.contextmanager
def ctrl_c_deferred():
    """Ctrl-C held back until the block is done: a finished game's file is written whole and
    counted together, so a stop never leaves a half-written file or a count that disagrees with
    the files. Python runs signal handlers in the main thread, so the handler is swapped there
    (a blocked signal mask would not do: another thread, tqdm's monitor, would take the signal)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt


def stopped(command: str, done: int, total: int, kept: str) -> str:
    """The one line of a command stopped with Ctrl-C: how far it got and what is kept."""
    return f"monkey-palace {command}: stopped (Ctrl-C) after {done} of {total} games; {kept}"
