"""A long differential test run in chunks: resumable, with progress and a JSON summary.

Both games' scripts (experiments/shadow_theater_differential.py, forbidden_city_differential.py)
play batches of random games on the JAX and reference engines through their parity module's
``differential_batch(engine, first, batch, seed=first)``; this module runs those batches in
order, rewrites the summary after every batch (so a stopped run loses at most one batch) and,
given the same ``--out`` again, continues after the last batch it finished.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

from monkey_env.core.provenance import checkout_commit


def arguments(doc: str, default_out: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10_000, help="games of the whole run (from --first)")
    ap.add_argument("--batch", type=int, default=100, help="games per batch (one JAX batch, one chunk)")
    ap.add_argument("--first", type=int, default=0, help="the first game's number (its seed)")
    ap.add_argument("--max-minutes", type=float, default=None,
                    help="stop starting batches after this many minutes (of this invocation)")
    ap.add_argument("--out", default=default_out, help="the JSON summary, rewritten after every batch")
    ap.add_argument("--fresh", action="store_true", help="start again even if --out holds a run")
    return ap


def _write(path: Path, summary: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(summary, indent=1) + "\n")
    os.replace(tmp, path)                          # never a half-written summary


def _resumed(path: Path, args, game: str) -> dict | None:
    if args.fresh or not path.exists():
        return None
    old = json.loads(path.read_text())
    same = old.get("game") == game and old.get("first") == args.first and old.get("batch") == args.batch
    if not same or args.games < old["games"]:
        raise SystemExit(f"{path} holds another run ({old.get('game')}, first {old.get('first')}, batch "
                         f"{old.get('batch')}, {old.get('games')} games played): pass --fresh or another --out")
    old["target_games"] = args.games              # a run may be extended
    old["complete"] = old["next_game"] >= args.first + args.games
    return old


def run(game: str, engine, differential_batch: Callable, args) -> int:
    """Play the run's remaining batches; exit status 0 when every game so far agreed, 1 if not."""
    out = Path(args.out)
    summary = _resumed(out, args, game) or {
        "game": game, "first": args.first, "batch": args.batch, "target_games": args.games,
        "games": 0, "decisions": 0, "disagreements": 0, "messages": [], "seconds": 0.0,
        "next_game": args.first, "complete": False, "invocations": []}
    summary["invocations"].append({
        "command": " ".join(shlex.quote(a) for a in [Path(sys.executable).name, *sys.argv]),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_at_start": [round(x, 2) for x in os.getloadavg()],
        "nice": os.nice(0), "commit": checkout_commit()})
    end = args.first + args.games
    t0 = time.perf_counter()
    before = summary["seconds"]
    while summary["next_game"] < end:
        if args.max_minutes is not None and time.perf_counter() - t0 > 60 * args.max_minutes:
            print(f"stopped after {args.max_minutes} minutes; the same command continues", flush=True)
            break
        first = summary["next_game"]
        n = min(args.batch, end - first)
        tb = time.perf_counter()
        try:
            r = differential_batch(engine, first, n, seed=first)
            summary["decisions"] += r["decisions"]
            # Monkey Palace's complete build: games past the JAX masks' caps, compared up to that turn
            if "over_cap" in r:
                summary.setdefault("over_cap", []).extend(int(g) for g in r["over_cap"])
        except AssertionError as e:
            # The batch stops at its first difference: its games count as played, one disagreement.
            summary["disagreements"] += 1
            summary["messages"].append(str(e)[:4000])
            print(e, flush=True)
        summary["games"] += n
        summary["next_game"] = first + n
        summary["seconds"] = round(before + time.perf_counter() - t0, 1)
        summary["complete"] = summary["next_game"] >= end
        summary["updated"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        _write(out, summary)
        print(f"{game}: games {first}-{first + n - 1} in {time.perf_counter() - tb:.0f} s; total {summary['games']}"
              f"/{args.games} games, {summary['decisions']} decisions, {summary['disagreements']} disagreements, "
              f"{summary['seconds']:.0f} s", flush=True)
    summary["invocations"][-1]["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
    _write(out, summary)
    print(json.dumps({k: summary[k] for k in ("game", "games", "decisions", "disagreements", "seconds",
                                              "complete")}), flush=True)
    return 1 if summary["disagreements"] else 0
