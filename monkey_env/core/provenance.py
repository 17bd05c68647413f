"""Where a published figure comes from: the command, the code's commit, the checkpoints read, the
date, the machine and its load, and how long the run took. Every report and benchmark of the
product carries this block (``provenance(...)``), so a figure can be reproduced or found stale.

    record = {**results, "provenance": provenance(started=t0, checkpoints=[path])}
"""

from __future__ import annotations

import hashlib
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

_command: list[str] | None = None
_commit_at_start: str | None = None
_load_at_start: list[float] | None = None


def set_command(argv: list[str], program: str = "monkey-palace") -> None:
    """The command line a report is made by, as the person typed it (the CLI calls this with its
    argv; otherwise this process's argv is taken), and the commit its code was read from: a long
    run's report is written after the checkout may have moved on; and the machine's load then,
    which a report records as its load before when its caller gives none. ``program``: what runs
    ``argv`` (a script passes its own, e.g. ``"python -m experiments.mcts_tournament"``)."""
    global _command, _commit_at_start, _load_at_start
    _command = [*program.split(), *argv]
    _commit_at_start = checkout_commit()
    _load_at_start = load_average()


def checkout_commit() -> str | None:
    """The repository's commit (with ``+dirty`` when files differ from it), or None outside a clone."""
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "")


def file_hash(path: str | Path) -> str:
    """The first 16 hex digits of a file's SHA-256 (what a checkpoint's figures were made with)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def provenance(*, started: float | None = None, checkpoints=(), command: list[str] | None = None,
               load_before: list[float] | None = None) -> dict:
    """The provenance block of a report. ``started``: the run's ``time.perf_counter()`` at its
    start (its seconds are recorded); ``checkpoints``: files whose hashes the figures depend on;
    ``command``: the command line (this process's by default); ``load_before``: the load average
    taken when the run began (by default the command's, set_command; the one now is recorded too)."""
    argv = command or _command or [Path(sys.argv[0]).name] + sys.argv[1:]
    load_before = _load_at_start if load_before is None else load_before
    now = checkout_commit()
    out = {
        "command": shlex.join(argv),
        "commit": _commit_at_start or now,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "load_average_before": load_before, "load_average_after": load_average()},
        "checkpoints": {str(p): file_hash(p) for p in checkpoints if Path(p).is_file()},
    }
    if now != out["commit"]:      # the checkout changed during the run: the report says so
        out["commit_at_end"] = now
    if started is not None:
        out["seconds"] = round(time.perf_counter() - started, 1)
    return out


def shipped_checkpoints(agent_names) -> list[Path]:
    """The shipped checkpoint files a run's figures may depend on: all of them when a learned
    agent (``ppo*``, ``mcts*``, or a checkpoint path) played, else none."""
    if not any(str(a).startswith(("ppo", "mcts")) for a in agent_names):
        return []
    folder = Path(__file__).resolve().parents[2] / "agents" / "checkpoints"
    return sorted(folder.glob("*.msgpack")) + sorted(folder.glob("*.zip"))


def stamp(report: dict, agent_names) -> dict:
    """Put the provenance block in ``report["meta"]`` unless it has one (a report rebuilt from saved
    figures keeps the original's)."""
    report["meta"].setdefault("provenance", provenance(checkpoints=shipped_checkpoints(agent_names)))
    return report
