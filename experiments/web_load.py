"""Load check of the browser app: many simulated players making moves through the API at once.

    nice -n 10 python -m experiments.web_load [--players 50] [--seconds 60]
                                              [--games monkey_palace,shadow_theater,forbidden_city]

Starts ``monkey-palace serve`` (one uvicorn process) on a free port of 127.0.0.1 with a fresh games
folder, then runs ``--players`` simulated players concurrently for ``--seconds``: each starts a
2-player game against ``random`` (player i plays the i-th of ``--games``, in turn; default Monkey
Palace only), makes its seat's decisions (a random legal choice among those the page offers: stud,
shape, pile or button; card, space, scroll; cell and rotation; sent with the number of decisions
it has seen), asks the bot for its moves, and starts a new game when one ends. Every loop is
bounded (a deadline and a maximum of requests).

At the end every game is read back from the server and from its file: the number of decisions
each holds must equal the number of moves its player saw accepted ("no lost move"). Prints the
requests made, errors, and the median and 99th-percentile response times (moves, bot moves, all).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

MAX_REQUESTS_PER_PLAYER = 20_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _choice(state: dict, rng: random.Random) -> int:
    """A random legal choice among every group of the decision (each game groups its own)."""
    d = state["decision"]
    options = [c for group in d.values() if isinstance(group, list) for c in group
               if isinstance(c, dict) and "action" in c]
    options += [p for p in state.get("piles", []) if p["legal"]]          # Monkey Palace's piles
    return rng.choice(options)["action"]


async def player(index: int, client: httpx.AsyncClient, deadline: float, stats: dict, game: str) -> None:
    rng = random.Random(index)

    async def call(kind: str, method: str, url: str, body=None) -> dict | None:
        t0 = time.perf_counter()
        try:
            r = await client.request(method, url, json=body)
        except httpx.HTTPError as e:
            stats["errors"].append(f"player {index} {kind} {url}: {type(e).__name__} {e}")
            return None
        stats["times"].setdefault(kind, []).append(time.perf_counter() - t0)
        if r.status_code != 200:
            stats["errors"].append(f"player {index} {kind} {url}: HTTP {r.status_code} {r.text[:200]}")
            return None
        return r.json()

    requests = 0
    while time.monotonic() < deadline and requests < MAX_REQUESTS_PER_PLAYER:
        g = await call("new", "POST", "/api/games", {"game": game, "options": {"players": 2, "seed": rng.randrange(10 ** 6)},
                                                      "seats": [{"kind": "human"}, {"kind": "bot", "agent": "random"}]})
        requests += 1
        if g is None:
            return
        gid, accepted = g["id"], 0
        stats["games"][gid] = 0
        while not g["state"]["game_over"] and time.monotonic() < deadline and requests < MAX_REQUESTS_PER_PLAYER:
            seen = g["state"]["decisions"]
            if g["to_move"] == "bot":
                nxt = await call("bot", "POST", f"/api/games/{gid}/bot", {"expect": seen})
            else:
                nxt = await call("move", "POST", f"/api/games/{gid}/move",
                                 {"action": _choice(g["state"], rng), "expect": seen})
            requests += 1
            if nxt is None:
                return
            if nxt["state"]["decisions"] != seen + 1:
                stats["errors"].append(f"game {gid}: {seen} decisions before a move, {nxt['state']['decisions']} after")
            g = nxt
            accepted += 1
            stats["games"][gid] = accepted
            stats["moves"] += 1
        stats["finished"] += int(g["state"]["game_over"])


async def run(base: str, players: int, seconds: float, games: list[str]) -> dict:
    stats = {"times": {}, "errors": [], "games": {}, "moves": 0, "finished": 0}
    limits = httpx.Limits(max_connections=players + 5, max_keepalive_connections=players + 5)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        deadline = time.monotonic() + seconds
        await asyncio.gather(*(player(i, client, deadline, stats, games[i % len(games)]) for i in range(players)))
        # No lost move: the server and the file hold exactly the decisions each player saw accepted.
        for gid, accepted in stats["games"].items():
            r = await client.get(f"/api/games/{gid}")
            held = r.json()["state"]["decisions"] if r.status_code == 200 else None
            if held != accepted:
                stats["errors"].append(f"game {gid}: {accepted} moves accepted, the server holds {held}")
    return stats


def percentile(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--games", default="monkey_palace", help="comma-separated games the players play, in turn")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    games_dir = Path(tempfile.mkdtemp(prefix="web_load_"))
    port = _free_port()
    exe = Path(sys.executable).with_name("monkey-palace")
    cmd = [str(exe), "serve", "--port", str(port), "--games", str(games_dir)]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):                                 # up to a minute to start
            try:
                if httpx.get(f"{base}/api/meta", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None:
                raise SystemExit(f"the server stopped: {server.stderr.read().decode()[-2000:]}")
            time.sleep(0.1)
        t0 = time.monotonic()
        stats = asyncio.run(run(base, args.players, args.seconds, args.games.split(",")))
        wall = time.monotonic() - t0
    finally:
        server.terminate()
        server.wait(timeout=30)
    # The files agree with what the server said (read after it stopped).
    for gid, accepted in stats["games"].items():
        saved = json.loads((games_dir / f"{gid}.json").read_text())
        if len(saved["record"]["actions"]) != accepted:
            stats["errors"].append(f"game {gid}: the file holds {len(saved['record']['actions'])} decisions, {accepted} accepted")
    every = [t for ts in stats["times"].values() for t in ts]
    report = {
        "players": args.players, "games_played": args.games, "seconds": round(wall, 1), "requests": len(every),
        "moves": stats["moves"],
        "games": len(stats["games"]), "games_finished": stats["finished"], "errors": len(stats["errors"]),
        "requests_per_second": round(len(every) / wall, 1), "cpu_count": os.cpu_count(),
        "ms": {kind: {"n": len(ts), "median": round(1000 * statistics.median(ts), 1),
                      "p99": round(1000 * percentile(ts, 0.99), 1)}
               for kind, ts in [*stats["times"].items(), ("all", every)] if ts},
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{report['players']} players for {report['seconds']} s: {report['requests']} requests "
              f"({report['requests_per_second']}/s), {report['moves']} moves in {report['games']} games "
              f"({report['games_finished']} finished), {report['errors']} errors")
        for kind, m in report["ms"].items():
            print(f"  {kind:>5}: n={m['n']:>6}  median {m['median']:>7.1f} ms  p99 {m['p99']:>7.1f} ms")
    for e in stats["errors"][:10]:
        print("error:", e, file=sys.stderr)
    return 1 if stats["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
