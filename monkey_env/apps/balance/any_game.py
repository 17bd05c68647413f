"""``monkey-palace balance --game NAME`` for a game without a balance lab of its own (``balance_lab`` part).

The generic report: the same agent in every seat, ``--games`` games on the JAX engine when the
agent has ``act_batch`` (else the reference engine); each seat's win rate (seat 1 plays first)
with Wilson intervals and a test of "no seat advantage"; the game's length (rounds, decisions)
with t intervals; then the game's own sections from its ``balance`` part (monkey_env.games):
a function of the results table returning ``[{"title", "note", "rows": [{"name", "estimate":
Estimate, ...}]}]``. A game's own balance lab (Monkey Palace's maps, cards, boards, options and
what-ifs: monkey_palace/apps/balance/) writes its report instead (apps.balance.cli).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from monkey_env.apps.balance.stats import Estimate, chisq_uniform, mean_ci, wilson
from monkey_env.core.provenance import stamp


def seat_section(table) -> dict:
    """Each seat's share of the wins, with intervals; seat 1 is the first player."""
    rows = [{"name": f"seat {s + 1}" + (" (first player)" if s == 0 else ""),
             "estimate": wilson(float(table.win_shares[:, s].sum()), table.n)} for s in range(table.players)]
    _, p, _ = chisq_uniform(table.win_shares.sum(0))
    return {"title": "Seats: win rate by seat (same agent everywhere)", "rows": rows,
            "note": f"chi-square test of equal seats: p = {p:.3g}"}


def length_section(table) -> dict:
    return {"title": "Length of a game", "note": "",
            "rows": [{"name": "rounds", "estimate": mean_ci(table.rounds)},
                     {"name": "decisions", "estimate": mean_ci(table.decisions)}]}


def build(spec, table, meta: dict) -> dict:
    sections = [seat_section(table), length_section(table)]
    if spec.has("balance"):
        sections += spec.load("balance")(table)
    return {"meta": meta, "sections": sections}


def _json_ready(report: dict) -> dict:
    def row(r):
        return {k: (v.to_dict() if isinstance(v, Estimate) else v) for k, v in r.items()}
    return {"meta": report["meta"], "sections": [{**s, "rows": [row(r) for r in s["rows"]]} for s in report["sections"]]}


def markdown(report: dict) -> str:
    m = report["meta"]
    lines = [f"# Balance report: {m['title']}", "",
             f"{m['games']} games, agent `{m['agent']}` in every seat, {m['engine']} engine, seeds {m['seed']}.."
             f"{m['seed'] + m['games'] - 1}; 95% intervals (Wilson for rates, t for means).", ""]
    if m.get("score_name"):      # reports made before the field say nothing
        lines += [f"Scores count {m['score_name']}; {m['win_rule']}.", ""]
    for s in report["sections"]:
        lines += [f"## {s['title']}", ""]
        if s.get("note"):
            lines += [s["note"], ""]
        extra = [k for k in s["rows"][0] if k not in ("name", "estimate")] if s["rows"] else []
        lines.append("| | estimate [95% CI] n | " + " | ".join(extra) + (" |" if extra else ""))
        lines.append("|---|---|" + "---|" * len(extra))
        for r in s["rows"]:
            e = r["estimate"]
            cells = [str(r[k]) for k in extra]
            lines.append(f"| {r['name']} | {e.fmt(3)} | " + " | ".join(cells) + (" |" if cells else ""))
        lines.append("")
    return "\n".join(lines)


def run(spec, args) -> int:
    """Play the games (per player count of --players) and write report.md and figures.json in --out."""
    t0 = time.perf_counter()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = args.agents.split(",")[0]
    model = spec.load("options")
    # --players 2,3,4: one block of sections per player count, where the game chooses it
    counts = ([int(x) for x in str(getattr(args, "players", "") or "").split(",") if x.strip()]
              if "players" in model.model_fields else []) or [None]
    sections, games, batched = [], 0, False
    for count in counts:
        options = model(seed=args.seed, **({"players": count} if count else {}),
                        **({"config_dir": args.config_dir} if args.config_dir else {}))
        table, batched = _play(spec, options, name, args)
        games += int(table.n)
        part = build(spec, table, {})["sections"]
        if len(counts) > 1:
            part = [{**sec, "title": f"{sec['title']}, {count} players"} for sec in part]
        sections += part
    meta = {"game": spec.name, "title": spec.title, "games": games // len(counts), "agent": name, "seed": args.seed,
            "engine": "jax" if batched else "reference", "seconds": time.perf_counter() - t0,
            "players": [c for c in counts if c], "score_name": spec.score_name,
            "win_rule": f"{spec.win_rule}; a win still shared by k seats counts 1/k to each"}
    report = stamp({"meta": meta, "sections": sections}, [name])
    (out / "figures.json").write_text(json.dumps(_json_ready(report), indent=1))
    page = out / "report.md"
    page.write_text(markdown(report))
    if not args.quiet:
        print(f"balance report: {page} ({games} games, {time.perf_counter() - t0:.0f} s); "
              f"figures: {out / 'figures.json'}")
    return 0


def _play(spec, options, name: str, args):
    """args.games games of one options object, the same agent in every seat: (table, batched)."""
    from monkey_env.agents.base import plays_batched
    from monkey_env.agents.registry import make_agent
    from monkey_env.apps.results_table import play_games

    players = int(options.players)
    agent = make_agent(name, args.seed, game=spec.name)
    batched = plays_batched(agent, options) and spec.has("jax_engine")
    seeds = np.arange(args.seed, args.seed + args.games)
    if batched:
        table = play_games([agent] * players, options, seeds, names=[name] * players, engine="jax",
                           batch=min(args.batch, args.games), agent_key=lambda chunk: int(chunk[0]))
    else:
        table = play_games(lambda i, seed: [make_agent(name, seed * 10 + s, game=spec.name) for s in range(players)],
                           options, seeds, names=[name] * players, engine="reference")
    return table, batched
