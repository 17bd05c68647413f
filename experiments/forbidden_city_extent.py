"""Forbidden City: how far the city spreads, on the JAX engine, with random and greedy play.

    nice -n 10 .venv/bin/python experiments/forbidden_city_extent.py --games 10000 \
        --out reports/forbidden_city_extent.json

The rulebook's table has no edge (seed 004: only adjacency and colour limit a placement). The
engines' grid is table_size x table_size; after every laid tile the city moves one cell away
from a border it touches (City.follow_shift), so the edge is met only by a city table_size - 1
cells wide or tall. This measures, for 2, 3 and 4 players, every seat the same agent (random
or greedy), over the final cities (a city only grows, so its final extent is its largest):
the columns and rows spanned, the largest distance of a tile from the start tile's middle
cell in the edgeless plane (cells, along x or y: the grid position minus State.shift), and the
games whose city became table_size - 1 cells wide or tall (where the edge could be met), and
the games flagged edge_reached (a tile laid on the grid's border: where a fixed table of that
size would have ended; the city then moved).
The provable bound: a game lays at most T = players * tiles per stack tiles, each widening
the city by one cell on one axis, so a city spans at most 3 + T cells (start tile 3 x 3).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import UTC, datetime

import numpy as np

from monkey_env.core.provenance import checkout_commit


def play(jg, agent, players: int, seeds: np.ndarray, key: int) -> dict:
    """Whole games of these seeds, every seat ``agent``; the final cities' extents."""
    import jax

    from monkey_env.apps.batch_play import game_keys

    states = jg.batch_init(game_keys(seeds), jg.params(players=players))
    k = jax.random.PRNGKey(key)
    while not bool(np.asarray(states.terminated).all()):
        k, sub = jax.random.split(k)
        masks = jg.batch_legal_mask(states)
        states = jg.batch_step(states, agent.act_batch(jg, states, masks, sub))
    occ = np.asarray(states.tile) >= 0                                       # (B, H, W)
    shift = np.asarray(states.shift)                                         # (B, 2) dx, dy
    cols, rows = occ.any(1), occ.any(2)
    size = occ.shape[-1]
    idx = np.arange(size)
    span = lambda used: np.where(used, idx, -1).max(1) - np.where(used, idx, size).min(1) + 1
    middle = jg.static.origin + jg.static.span // 2                          # the palace's cell at set-up
    ys, xs = np.broadcast_to(idx[:, None], occ.shape[1:]), np.broadcast_to(idx[None, :], occ.shape[1:])
    dx = np.abs(xs[None] - shift[:, 0, None, None] - middle)
    dy = np.abs(ys[None] - shift[:, 1, None, None] - middle)
    far = np.where(occ, np.maximum(dx, dy), 0).max((1, 2))
    return {"cols": span(cols), "rows": span(rows), "distance": far, "illegal": np.asarray(states.illegal),
            "edge_reached": np.asarray(states.edge_reached),
            "laid": occ.sum((1, 2)) - jg.static.n_start}


def summary(parts: list[dict], size: int) -> dict:
    a = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    wide = np.maximum(a["cols"], a["rows"])
    return {"games": int(len(wide)),
            "largest_cols": int(a["cols"].max()), "largest_rows": int(a["rows"].max()),
            "largest_span": int(wide.max()), "mean_span": round(float(wide.mean()), 2),
            "span_percentiles": {str(q): float(np.percentile(wide, q)) for q in (50, 90, 99, 99.9)},
            "largest_distance_from_centre": int(a["distance"].max()),
            "games_spanning_size_minus_1_or_more": int((wide >= size - 1).sum()),
            "games_edge_reached": int(a["edge_reached"].sum()),
            "span_histogram": {str(int(v)): int(c) for v, c in zip(*np.unique(wide, return_counts=True))},
            "largest_tiles_laid": int(a["laid"].max()), "illegal_games": int(a["illegal"].sum())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10000, help="games per player count and agent")
    ap.add_argument("--greedy-games", type=int, default=None, help="games for greedy (default: --games)")
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--agents", nargs="+", default=["random", "greedy"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--config-dir", default=None, help="game data laid out like configs/ (e.g. another table_size)")
    ap.add_argument("--out", default="reports/forbidden_city_extent.json")
    args = ap.parse_args()

    from monkey_env.agents.registry import make_batch_agent
    from monkey_env.forbidden_city.jaxgame.env import JaxGame
    from monkey_env.forbidden_city.options import ForbiddenCityOptions

    options = ForbiddenCityOptions(config_dir=args.config_dir)
    jg = JaxGame(options)
    data = jg.data
    size = data.size
    report = {
        "command": "python " + " ".join(__import__("sys").argv),
        "commit": checkout_commit(),                  # "+dirty" when files differ; None without git
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "load_at_start": os.getloadavg(),
                    "jax_devices": [str(d) for d in __import__("jax").devices()]},
        "table_size": size, "edge_met_at_span": size - 1,
        "bound": {str(p): {"tiles_laid_at_most": p * data.stack_size(p), "span_at_most": 3 + p * data.stack_size(p)}
                  for p in args.players},
        "results": {},
    }
    t0 = time.perf_counter()
    for players in args.players:
        for name in args.agents:
            agent = make_batch_agent(name, args.seed, game="forbidden_city")
            parts = []
            games = args.greedy_games if name == "greedy" and args.greedy_games is not None else args.games
            for start in range(0, games, args.batch):
                seeds = args.seed + np.arange(start, min(start + args.batch, games))
                parts.append(play(jg, agent, players, seeds, key=args.seed + start))
            row = summary(parts, size)
            row["seconds"] = round(time.perf_counter() - t0, 1)
            report["results"][f"{players}p_{name}"] = row
            print(f"{players} players, {name}: largest span {row['largest_span']} (cols {row['largest_cols']}, "
                  f"rows {row['largest_rows']}), farthest {row['largest_distance_from_centre']} from the centre, "
                  f"{row['games_spanning_size_minus_1_or_more']} of {row['games']} games >= {size - 1} wide, "
                  f"{row['games_edge_reached']} flagged edge_reached", flush=True)
            write(report, args.out, t0, complete=False)        # after every row: a stopped run keeps its rows
    write(report, args.out, t0, complete=True)
    return 0


def write(report: dict, out: str, t0: float, complete: bool) -> None:
    report["seconds"] = round(time.perf_counter() - t0, 1)
    report["complete"] = complete
    report["machine"]["load_at_end"] = os.getloadavg()
    report["stays_inside_the_grid_without_meeting_the_edge"] = all(
        r["games_spanning_size_minus_1_or_more"] == 0 for r in report["results"].values())
    report["games_edge_reached"] = sum(r["games_edge_reached"] for r in report["results"].values())
    with open(out, "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    raise SystemExit(main())
