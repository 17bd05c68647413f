"""``monkey-palace serve``: the browser app under uvicorn, on 127.0.0.1 unless told otherwise."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from monkey_env.apps.web.app import create_app

    reports = args.reports
    if reports is None and Path("reports").is_dir():
        reports = "reports"
    if args.db and not Path(args.db).is_file():
        raise ValueError(f"--db {args.db}: no such file (a database written by `monkey-palace arena`)")
    app = create_app(args.games, db=args.db, reports_dir=reports)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Monkey Palace (and the other games) in the browser: open http://{host}:{args.port}/  (games saved in {args.games}/; "
          f"Ctrl-C stops)", file=sys.stderr, flush=True)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: listening on {args.host}: anyone who can reach this machine can play and upload",
              file=sys.stderr)
    # Keep-alive longer than uvicorn's 5 s: a browser tab (or a client) waiting on a bot between
    # moves keeps its connection instead of racing the server closing it.
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, timeout_keep_alive=75)
    return 0


def register(sub) -> None:
    p = sub.add_parser("serve", help="play against the bots and replay games in the browser (Monkey Palace in 3-D, "
                                          "The Shadow Theater and Forbidden City in 2-D)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s, this machine only)")
    p.add_argument("--db", default=None, metavar="FILE", help="an arena results database for the results and replays")
    p.add_argument("--games", default="web_games", metavar="DIR", help="folder of the games played (default: %(default)s)")
    p.add_argument("--reports", default=None, metavar="DIR",
                   help="folder holding the balance lab's report (balance/); default: ./reports if present")
    p.add_argument("--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug"))
    p.set_defaults(func=cmd_serve)
