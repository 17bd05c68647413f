"""Game lengths in rounds over many random games, per player count, all four maps in turn.

    python -m experiments.game_lengths --games 1000 [--json]

The data were designed so that games last 8-14 rounds with 2 players and 5-9 with 4
(docs/DATA.md); this is the measurement.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

from tqdm import tqdm

from monkey_env.agents.random_agent import RandomAgent
from monkey_env.monkey_palace.apps.play_games import play_game
from monkey_env.monkey_palace.game_data import load_game_data
from monkey_env.monkey_palace.options import GameOptions


def measure(players: int, games: int, seed: int) -> dict:
    data = {m: load_game_data(m) for m in (1, 2, 3, 4)}
    rounds, triggers = [], {}
    for i in tqdm(range(games), desc=f"{players} players", file=sys.stderr):
        m = 1 + i % 4
        options = GameOptions(players=players, map=str(m), seed=seed + i)
        _, r = play_game(options, [RandomAgent(seed + i + 1000 * s) for s in range(players)], data[m])
        rounds.append(r["rounds"])
        triggers[r["end_trigger"]] = triggers.get(r["end_trigger"], 0) + 1
    return {"players": players, "games": games, "median": statistics.median(rounds),
            "min": min(rounds), "max": max(rounds), "mean": statistics.mean(rounds), "end_triggers": triggers}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", default="2,3,4")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    rows = [measure(int(n), args.games, args.seed) for n in args.players.split(",")]
    if args.json:
        print(json.dumps(rows))
    for r in rows:
        print(f"{r['players']} players, {r['games']} games: rounds median {r['median']}, "
              f"range {r['min']}-{r['max']}, mean {r['mean']:.2f}; end by {r['end_triggers']}", file=sys.stderr)


if __name__ == "__main__":
    main()
