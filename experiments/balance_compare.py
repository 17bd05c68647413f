"""Two balance reports side by side, per (players, map): mean score, rounds, staircases a game,
bonus cards a game (all seats) and the first-minus-last seat's win rate with its interval (the
second report's), as a Markdown table.

    python -m experiments.balance_compare reports/balance_catalogue/figures.json reports/balance/figures.json
"""

from __future__ import annotations

import argparse
import json


def cells(figures: dict) -> dict:
    seats = {(c["players"], c["map"]): c for c in figures["seats"]["cells"]}
    out = {}
    for c in figures["maps"]["cells"]:
        key = (c["players"], c["map"])
        first_last = seats[key]["first_minus_last_win"]
        out[key] = {"n": c["n"], "score": c["score"]["value"], "rounds": c["rounds"]["value"],
                    "staircases": c["staircases_per_game"]["value"],
                    "bonus": sum(s["bonus_cards"]["value"] for s in seats[key]["seats"]),
                    "first_last": first_last["value"], "lo": first_last["lo"], "hi": first_last["hi"]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", help="figures.json of the first report")
    ap.add_argument("after", help="figures.json of the second report")
    args = ap.parse_args()
    a, b = (cells(json.load(open(p))) for p in (args.before, args.after))
    print("| players, map | games | mean score | rounds | staircases a game | bonus cards a game "
          "| first minus last seat win [95%] |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(set(a) & set(b)):
        x, y = a[key], b[key]
        print(f"| {key[0]}p, map {key[1]} | {x['n']} → {y['n']} | {x['score']:.1f} → {y['score']:.1f} "
              f"| {x['rounds']:.2f} → {y['rounds']:.2f} | {x['staircases']:.1f} → {y['staircases']:.1f} "
              f"| {x['bonus']:.2f} → {y['bonus']:.2f} | {x['first_last']:+.3f} → {y['first_last']:+.3f} "
              f"[{y['lo']:+.3f}, {y['hi']:+.3f}] |")


if __name__ == "__main__":
    main()
