"""The shipped PPO's figures: 2 players on map 1 against greedy, random and the SB3 checkpoint,
then every map with 2, 3 and 4 players against random and greedy opponents.

    python -m experiments.ppo_evaluation --games 1000 --setting-games 200 --seed 1 --out reports/ppo_jax_complete
    python -m experiments.ppo_evaluation --build-action catalogue --sb3-games 500 --out reports/ppo_jax

Each line is ``monkey_env.apps.evaluate.evaluate`` (what ``monkey-palace evaluate`` runs: seats
rotated over the same deals, Wilson intervals, a shared win counted 1/k), in one process so that
the compiled agents serve every setting. With 3 or 4 players PPO sits against 2 or 3 copies of the
opponent (distinct copies, so every agent sits every seat), and the chance level is 1/players. The results go to
``OUT/evaluation.json`` and a Markdown table to ``OUT/evaluation.md``. The SB3 checkpoint plays
the catalogue build action only, so its match is played there only.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main(argv=None) -> int:
    from monkey_env.apps.evaluate import evaluate
    from monkey_env.monkey_palace.options import DEFAULT_BUILD_ACTION

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agent", default="ppo")
    p.add_argument("--games", type=int, default=1000, help="games of each 2-player map-1 match")
    p.add_argument("--setting-games", type=int, default=200, help="games of each (players, map, opponent)")
    p.add_argument("--sb3-games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--build-action", choices=("catalogue", "complete"), default=DEFAULT_BUILD_ACTION)
    p.add_argument("--out", default="reports/ppo_jax")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []

    def match(opponent: str, players: int, map_id: int, games: int):
        t0 = time.perf_counter()
        from monkey_env.agents.registry import make_agent

        # Copies of the opponent under distinct names (evaluate rotates distinct agents over the seats).
        copies = [opponent] + [f"{opponent}#{i}" for i in range(2, players)]
        names = [args.agent] + copies
        agents = {c: make_agent(opponent, args.seed + 100 + i) for i, c in enumerate(copies[1:])}
        report = evaluate(names, players=players, map=map_id, games=games, seed=args.seed, progress=False,
                          agents=agents, options={"build_action": args.build_action})
        lo, hi = report["ci95"][args.agent]
        row = {"agent": args.agent, "build_action": args.build_action, "opponent": opponent, "players": players,
               "map": map_id, "games": games,
               "win_rate": report["win_rate"][args.agent], "ci95": [lo, hi],
               "mean_bananas": report["mean_score"][args.agent],
               "mean_bananas_opponent": sum(report["mean_score"][c] for c in copies) / len(copies),
               "seconds_per_decision": report.get("seconds_per_decision", {}).get(args.agent),
               "seconds": time.perf_counter() - t0}
        rows.append(row)
        print(json.dumps(row), flush=True)
        (out / "evaluation.json").write_text(json.dumps(rows, indent=1))

    match("greedy", 2, 1, args.games)
    match("random", 2, 1, args.games)
    if args.sb3_games and args.build_action == "catalogue":
        match("ppo-sb3", 2, 1, args.sb3_games)
    for players in (2, 3, 4):
        for map_id in (1, 2, 3, 4):
            for opponent in ("random", "greedy"):
                if players == 2 and map_id == 1:
                    continue
                match(opponent, players, map_id, args.setting_games)
    lines = ["| opponent | players | map | games | PPO win rate [95% CI] | chance | mean Banana Points (PPO vs opponent) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['opponent']} | {r['players']} | {r['map']} | {r['games']} | {r['win_rate']:.3f} "
                     f"[{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] | {1 / r['players']:.2f} | "
                     f"{r['mean_bananas']:.1f} vs {r['mean_bananas_opponent']:.1f} |")
    (out / "evaluation.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
