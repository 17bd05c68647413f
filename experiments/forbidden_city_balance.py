"""Forbidden City's balance report on the stand-in tiles: seat win rates with 2, 3 and 4 players,
each tile kind's lift, and the start tile's two sides, with 95% intervals.

    nice -n 10 .venv/bin/python experiments/forbidden_city_balance.py --games 1000 --agent random \
        --out reports/forbidden_city_balance

For each player count and start side, --games games with the same agent in every seat on the
JAX engine (seeds 0..games-1, the same deals for both sides). The sections: seats (Wilson
intervals, chi-square test of equal seats), tile kinds held among the first six tiles (the
``balance`` part, monkey_env.forbidden_city.apps.balance), and the sides compared (difference of
means, Welch; difference of the first seat's win rates, Newcombe). Writes report.md and figures.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--agent", default="random")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--batch", type=int, default=250)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    from monkey_env.agents.registry import make_agent
    from monkey_env.apps.balance.any_game import _json_ready, markdown, seat_section
    from monkey_env.apps.balance.stats import diff_means, diff_proportions
    from monkey_env.apps.results_table import play_jax
    from monkey_env.forbidden_city.apps.balance import sections as fc_sections
    from monkey_env.forbidden_city.options import ForbiddenCityOptions

    t0 = time.perf_counter()
    sections, tables = [], {}
    for players in args.players:
        for side in ("beginner", "advanced"):
            agents = [make_agent(args.agent, s, game="forbidden_city") for s in range(players)]
            table = play_jax(agents, ForbiddenCityOptions(players=players, start_side=side), np.arange(args.games),
                             names=[args.agent] * players, batch=min(args.batch, args.games),
                             agent_key=lambda chunk: int(chunk[0]))
            tables[players, side] = table
            for sec in [seat_section(table)] + fc_sections(table):
                sections.append({**sec, "title": f"{sec['title']}, {players} players, {side} side"})
            print(f"{players} players, {side}: {time.perf_counter() - t0:.0f} s", flush=True)
        b, a = tables[players, "beginner"], tables[players, "advanced"]
        rows = [{"name": "winner's coins, advanced minus beginner",
                 "estimate": diff_means(a.scores[:, :players].max(1), b.scores[:, :players].max(1))},
                {"name": "all seats' coins, advanced minus beginner",
                 "estimate": diff_means(a.scores[:, :players].mean(1), b.scores[:, :players].mean(1))},
                {"name": "rooms scored, advanced minus beginner",
                 "estimate": diff_means(np.asarray(a.stats["rooms_scored"]), np.asarray(b.stats["rooms_scored"]))},
                {"name": "first seat's win rate, advanced minus beginner",
                 "estimate": diff_proportions(float(a.win_shares[:, 0].sum()), a.n, float(b.win_shares[:, 0].sum()), b.n)}]
        sections.append({"title": f"Start tile: advanced side against beginner side, {players} players", "rows": rows,
                         "note": "the same deals on both sides"})
    meta = {"game": "forbidden_city", "title": "Forbidden City (stand-in tiles)", "games": args.games,
            "agent": args.agent, "seed": 0, "engine": "jax", "seconds": time.perf_counter() - t0}
    report = {"meta": meta, "sections": sections}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "figures.json").write_text(json.dumps(_json_ready(report), indent=1))
    (out / "report.md").write_text(markdown(report))
    print(f"report: {out / 'report.md'} ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
