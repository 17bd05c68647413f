"""The search agent against greedy: win rate and seconds per decision against simulations.

    nice -n 10 python -m experiments.mcts_strength --sims 16,32 --games 120 --batch 128
    nice -n 10 python -m experiments.mcts_strength --sims 8,16,32,64,128,256 --timing 32
    python -m experiments.mcts_strength --add-json reports/mcts/vs_greedy_1000.json   # a finished match

Each point is ``monkey-palace evaluate --agents mcts:sims=N,greedy --players 2 --map 1`` (seats
alternated on the same deals, JAX engine, batches of ``--batch`` games): the search's win rate
with its Wilson 95% interval, and its wall seconds per decision, batched as played, after the
first call (which compiles). ``--games`` may give one count per point (``256,128,...``). Rows
are appended to the CSV as they finish, so a long run can be stopped; ``--plot-only`` draws
the PNG from the CSV.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

FIELDS = ("sims", "games", "win_rate", "ci_lo", "ci_hi", "mean_bananas", "greedy_bananas", "seconds_per_decision",
          "first_call_seconds", "wall_seconds", "extra")


def measure(sims: int, games: int, batch: int, seed: int, extra: str) -> dict:
    from monkey_env.apps.evaluate import evaluate

    name = f"mcts:sims={sims}" + (f",{extra}" if extra else "")
    t0 = time.perf_counter()
    r = evaluate([name, "greedy"], players=2, map=1, games=games, seed=seed, batch=batch, progress=False)
    return row_of(r, name, sims, extra, time.perf_counter() - t0)


def row_of(r: dict, name: str, sims: int, extra: str = "", wall: float | None = None) -> dict:
    """A CSV row from an evaluate (or experiments.mcts_match) report of `name` against greedy."""
    return {"sims": sims, "games": r["games"], "win_rate": r["win_rate"][name], "ci_lo": r["ci95"][name][0],
            "ci_hi": r["ci95"][name][1], "mean_bananas": r["mean_score"][name],
            "greedy_bananas": r["mean_score"]["greedy"], "seconds_per_decision": r["seconds_per_decision"][name],
            "first_call_seconds": r.get("first_call_seconds", {}).get(name, ""), "wall_seconds": wall or "",
            "extra": extra}


def append(path: Path, rows: list[dict]) -> None:
    new = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        w.writerows(rows)


def timing(sims_list: list[int], positions: int, extra: str, seed: int = 0, repeats: int = 2) -> list[dict]:
    """Seconds per decision of full batches: ``positions`` games (one compiled chunk of that size)
    played by greedy for 0..min(positions, 80) - 1 decisions each (a mix of every kind of decision), then searched
    together ``repeats`` times at each simulation count after one warm-up call (compiling)."""
    import jax
    import numpy as np

    from monkey_env.agents.registry import make_agent
    from monkey_env.apps.batch_play import game_keys
    from monkey_env.monkey_palace.agents.greedy import GreedyAgent
    from monkey_env.monkey_palace.jaxgame.env import jax_game_for
    from monkey_env.monkey_palace.options import GameOptions

    jg = jax_game_for(GameOptions(players=2, map=1))
    states = jg.batch_init(game_keys(np.arange(seed, seed + positions)), jg.params(players=2, map=1))
    greedy, steps = GreedyAgent(), np.arange(positions) % 80
    for t in range(int(steps.max())):
        masks = jg.batch_legal_mask(states)
        keep = jax.numpy.asarray((steps <= t) | np.asarray(states.terminated))
        moved = jg.batch_step(states, greedy.act_batch(jg, states, masks, None))
        states = jax.tree_util.tree_map(lambda a, b, keep=keep: jax.numpy.where(
            keep.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), states, moved)
    masks = np.asarray(jg.batch_legal_mask(states))
    live = int(masks.any(1).sum())
    rows = []
    for sims in sims_list:
        agent = make_agent(f"mcts:sims={sims},chunk={positions}" + (f",{extra}" if extra else ""), seed)
        t0 = time.perf_counter()
        agent.act_batch(jg, states, masks, jax.random.PRNGKey(0))
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        for r in range(repeats):
            agent.act_batch(jg, states, masks, jax.random.PRNGKey(r + 1))
        spd = (time.perf_counter() - t0) / (repeats * live)
        rows.append({"sims": sims, "positions": live, "seconds_per_decision": spd, "first_call_seconds": first})
        print(rows[-1], flush=True)
    return rows


def plot(rows: list[dict], png: Path, timed: list[dict] | None = None, title: str = "",
         reference: float | None = None) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(rows, key=lambda r: int(r["sims"]))
    sims = [int(r["sims"]) for r in rows]
    win = [float(r["win_rate"]) for r in rows]
    lo = [float(r["win_rate"]) - float(r["ci_lo"]) for r in rows]
    hi = [float(r["ci_hi"]) - float(r["win_rate"]) for r in rows]
    spd = [float(r["seconds_per_decision"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.errorbar(sims, win, yerr=[lo, hi], marker="o", capsize=3, color="tab:blue", label="mcts win rate vs greedy")
    ax.axhline(0.75, color="tab:blue", ls=":", lw=1, label="goal 75%")
    ax.axhline(0.5, color="grey", ls="--", lw=0.8)
    if reference is not None:
        ax.axhline(reference, color="tab:green", ls="-.", lw=1, label=f"ppo alone against greedy ({reference:.2f})")
    ax.set_xscale("log", base=2)
    ticks = sorted(set(sims) | {int(r["sims"]) for r in timed or []})
    ax.set_xticks(ticks, [str(s) for s in ticks])
    ax.set_xlabel("simulations per decision")
    ax.set_ylabel("win rate against greedy (95% CI)")
    ax.set_ylim(0, 1)
    for s, w, r in zip(sims, win, rows):
        ax.annotate(f"{int(r['games'])} g", (s, w), textcoords="offset points", xytext=(6, -12), fontsize=7)
    ax2 = ax.twinx()
    ax2.plot(sims, spd, marker="s", color="tab:red", label="seconds per decision (in these games)")
    if timed:
        timed = sorted(timed, key=lambda r: int(r["sims"]))
        ax2.plot([int(r["sims"]) for r in timed], [float(r["seconds_per_decision"]) for r in timed], marker="^",
                 ls="--", color="tab:orange", label=f"seconds per decision (full batch of {timed[0]['positions']})")
    ax2.axhline(1.0, color="tab:red", ls=":", lw=1, label="1 s per decision (the budget)")
    ax2.set_yscale("log")
    ax2.set_ylabel("seconds per decision (batched, 2-core CPU)", color="tab:red")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="lower right", fontsize=8)
    ax.set_title(title or "Gumbel MCTS (PPO prior and value) against greedy, 2 players, map 1")
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=120)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sims", default="8,16,32,64,128,256")
    p.add_argument("--games", default="64", help="games per point, one count or one per point")
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--extra", default="", help="more mcts settings, e.g. det=2")
    p.add_argument("--out", type=Path, default=Path("docs/mcts_vs_greedy.csv"))
    p.add_argument("--png", type=Path, default=Path("docs/images/mcts_vs_greedy.png"))
    p.add_argument("--plot-only", action="store_true")
    p.add_argument("--reference", type=float, default=0.86,
                   help="the shipped ppo's own win rate against greedy, drawn for comparison (docs/AGENTS.md)")
    p.add_argument("--timing", type=int, default=0, metavar="N",
                   help="only time full batches of N positions at each --sims (written to --timing-out)")
    p.add_argument("--timing-out", type=Path, default=Path("docs/mcts_timing.csv"))
    p.add_argument("--add-json", type=Path, help="append the row of a finished match (evaluate --json or "
                   "experiments.mcts_match) of the agent `mcts` (whose sims is the default's) against greedy")
    args = p.parse_args(argv)
    if args.add_json:
        import json

        from monkey_env.agents.mcts import MCTSSettings
        report = json.loads(args.add_json.read_text())
        name = next(n for n in report["agents"] if n.startswith("mcts"))
        sims = MCTSSettings.parse(name.partition(":")[2]).sims
        append(args.out, [row_of(report, name, sims, name.partition(":")[2])])
        args.plot_only = True
    if args.timing:
        rows = timing([int(s) for s in args.sims.split(",")], args.timing, args.extra, args.seed)
        with args.timing_out.open("w", newline="") as f:
            w = csv.DictWriter(f, list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        return 0
    if not args.plot_only:
        sims = [int(s) for s in args.sims.split(",")]
        games = [int(g) for g in args.games.split(",")]
        games = games * len(sims) if len(games) == 1 else games
        for s, g in zip(sims, games):
            row = measure(s, g, args.batch, args.seed, args.extra)
            print(row, flush=True)
            append(args.out, [row])
    with args.out.open() as f:
        rows = list(csv.DictReader(f))
    timed = None
    if args.timing_out.exists():
        with args.timing_out.open() as f:
            timed = list(csv.DictReader(f))
    if rows:
        plot(rows, args.png, timed, reference=args.reference)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
