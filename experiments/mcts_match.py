"""Combine the parts of a long `monkey-palace evaluate` match into one result (issue 15's goals).

A 1,000-game match of two agents is ``evaluate --games 1000 --seed 0``: deals 0..499, each
played in both seatings. On this machine it is run in parts that each fit a sitting:

    nice -n 10 monkey-palace evaluate --agents mcts,greedy --players 2 --map 1 --games 500 --batch 128 \\
        --seed 0 --json > reports/mcts/vs_greedy_seed0_500.json
    nice -n 10 monkey-palace evaluate --agents mcts,greedy --players 2 --map 1 --games 500 --batch 128 \\
        --seed 250 --json > reports/mcts/vs_greedy_seed250_500.json
    python -m experiments.mcts_match reports/mcts/vs_greedy_seed0_500.json reports/mcts/vs_greedy_seed250_500.json \\
        --out reports/mcts/vs_greedy_1000.json

(deals 0..249 and 250..499, both seatings each: the same games as the single command). The
parts must have the same agents, players, map and options (the rules played, e.g. the build
action) and deals that do not overlap. Wins are summed (a shared win counts its share), the
win rate's 95% interval is Wilson's over all seat games, and seconds per decision are the parts'
decisions-weighted mean (each part's figure is wall seconds per decision, batched as played,
after its first call).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def combine(parts: list[dict]) -> dict:
    from monkey_env.apps.balance.stats import wilson

    first = parts[0]
    for p in parts[1:]:
        for key in ("agents", "players", "map", "options"):    # options: absent from older reports
            if p.get(key) != first.get(key):
                raise ValueError(f"parts differ in {key}: {first.get(key)!r} and {p.get(key)!r}")
    deals = [(p["seed"], p["seed"] + p["games"] // len(p["agents"])) for p in parts]
    for i, (a0, a1) in enumerate(deals):
        for b0, b1 in deals[i + 1:]:
            if a0 < b1 and b0 < a1:
                raise ValueError(f"parts overlap in deals: {a0}..{a1 - 1} and {b0}..{b1 - 1}")
    out: dict = {"agents": first["agents"], "players": first["players"], "map": first["map"],
                 **({"options": first["options"]} if "options" in first else {}),
                 "games": sum(p["games"] for p in parts), "parts": [{"seed": p["seed"], "games": p["games"]} for p in parts],
                 "versions": first.get("versions"), "win_rate": {}, "ci95": {}, "mean_score": {},
                 "seat_games": {}, "seconds_per_decision": {}, "decisions": {}}
    for name in first["agents"]:
        n = sum(p["seat_games"][name] for p in parts)
        wins = sum(p["win_rate"][name] * p["seat_games"][name] for p in parts)
        est = wilson(wins, n)
        decisions = sum(p["decisions"][name] for p in parts)
        out["seat_games"][name] = n
        out["win_rate"][name] = wins / n
        out["ci95"][name] = [est.lo, est.hi]
        out["mean_score"][name] = sum(p["mean_score"][name] * p["seat_games"][name] for p in parts) / n
        out["decisions"][name] = decisions
        out["seconds_per_decision"][name] = sum(p["seconds_per_decision"][name] * p["decisions"][name]
                                                for p in parts) / max(decisions, 1)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("parts", nargs="+", type=Path, help="evaluate --json outputs")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    result = combine([json.loads(path.read_text()) for path in args.parts])
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
