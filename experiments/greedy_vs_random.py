"""Greedy against random on the JAX engine: win rate with its 95% confidence interval, mean
Banana Points, and games per second.

    python -m experiments.greedy_vs_random --games 1000 --players 2 --map 1 --seed 0
    python -m experiments.greedy_vs_random --speed 256,1024        # games per second only

Seats are rotated: the games are split into one group per seat, and in group s the greedy
agent plays seat s (the others are random) on the same deals. Who won is the rulebook's
(monkey_env.core.outcome): the most Banana Points, a tie going to the Monkey trophy's holder; a
win still shared by k seats counts 1/k (the win rate sums win shares; ``ties`` counts the games
greedy shared). The games run in batches of --batch with play_batch (monkey_env/apps/batch_play.py).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from monkey_env.agents.random_agent import RandomAgent
from monkey_env.apps.balance.stats import wilson
from monkey_env.apps.results_table import SHARED_WIN
from monkey_env.core.jax_cache import enable_compilation_cache
from monkey_env.monkey_palace.agents.greedy import GreedyAgent
from monkey_env.monkey_palace.apps.play_games import play_batch
from monkey_env.monkey_palace.jaxgame import JaxGame
from monkey_env.monkey_palace.jaxgame.env import jax_game_for
from monkey_env.monkey_palace.options import GameOptions


def evaluate(jg: JaxGame, games: int, players: int, map: str, seed: int, batch: int) -> dict:
    greedy_pts, other_pts, wins, ties, illegal = [], [], 0, 0, 0
    seeds = seed + np.arange(games)
    groups = np.array_split(seeds, players)  # group s: greedy on seat s
    for seat, group in enumerate(groups):
        agents = [RandomAgent(seed + 1 + s) for s in range(players)]
        agents[seat] = GreedyAgent()
        for start in range(0, len(group), batch):
            r = play_batch(jg, agents, players=players, map=map, seeds=group[start:start + batch],
                           agent_key=seed + seat)
            mine = r.scores[:, seat]
            others = np.delete(r.scores, seat, axis=1)
            shares = r.win_shares()[:, seat]
            wins += float(shares.sum())
            ties += int(((shares > 0) & (shares < 1)).sum())
            illegal += int(r.illegal.sum())
            greedy_pts += mine.tolist()
            other_pts += others.reshape(-1).tolist()
    e = wilson(wins, games)
    return {"games": games, "players": players, "map": map, "seed": seed, "wins": wins, "ties": ties,
            "win_rate": wins / games, "ci95": [e.lo, e.hi], "illegal": illegal, "shared_win": SHARED_WIN,
            "greedy_mean_bananas": float(np.mean(greedy_pts)), "random_mean_bananas": float(np.mean(other_pts))}


def speed(jg: JaxGame, batch: int, players: int, map: str) -> dict:
    """Games per second of greedy (first seat) against random at one batch size, compiled first."""
    agents = [GreedyAgent()] + [RandomAgent(s) for s in range(1, players)]
    t0 = time.perf_counter()
    play_batch(jg, agents, players=players, map=map, seeds=np.arange(batch))  # compiles
    warm_up = time.perf_counter() - t0
    r = play_batch(jg, agents, players=players, map=map, seeds=10_000 + np.arange(batch))
    return {"batch": batch, "games_per_second": batch / r.seconds, "seconds": r.seconds,
            "decisions_per_second": float(r.decisions.sum() / r.seconds), "first_call_seconds": warm_up}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--map", default="1")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch", type=int, default=250, help="games per play_batch call")
    p.add_argument("--speed", default="", help="comma-separated batch sizes: measure games per second only")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    enable_compilation_cache()
    jg = jax_game_for(GameOptions(players=args.players, map=args.map))
    if args.speed:
        rows = []
        for b in args.speed.split(","):  # each size as soon as it is measured
            rows.append(r := speed(jg, int(b), args.players, args.map))
            print(f"batch {r['batch']}: {r['games_per_second']:.1f} games/s "
                  f"({r['decisions_per_second']:.0f} decisions/s; first call with compiling {r['first_call_seconds']:.0f} s)",
                  flush=True)
    else:
        rows = [evaluate(jg, args.games, args.players, args.map, args.seed, args.batch)]
        r = rows[0]
        print(f"greedy vs random, {r['games']} games, {r['players']} players, map {r['map']}, seed {r['seed']}: "
              f"greedy wins {r['wins']:g} ({100 * r['win_rate']:.1f}%, 95% CI {100 * r['ci95'][0]:.1f}-"
              f"{100 * r['ci95'][1]:.1f}%), ties {r['ties']}; mean Banana Points greedy "
              f"{r['greedy_mean_bananas']:.1f}, random {r['random_mean_bananas']:.1f}; illegal actions {r['illegal']}\n"
              f"win: {SHARED_WIN}")
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
