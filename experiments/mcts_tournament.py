"""A 4-player tournament of mcts, ppo, greedy and random (issues 15 and 30), played in one batch,
for any registered game with a JAX engine.

    nice -n 10 python -m experiments.mcts_tournament --agents mcts,ppo,greedy,random --deals 8 \\
        --out reports/mcts/tournament_4p.json
    python -m experiments.mcts_tournament --game forbidden_city --deals 4 \\
        --out reports/mcts/forbidden_city_tournament_4p.json

The schedule is the arena's (monkey_env.apps.arena.schedule): every seating of the agents (4
agents in 4 seats: all 24 orders, so every agent sits in every seat equally often), each deal
replayed with every seating. `monkey-palace tournament` plays one seating per JAX batch, so a
search agent there searches a quarter of a small batch at each step; here every (deal, seating)
game is one row of a single batch and a router asks each agent once per step for the rows where
it is to move, so the search fills its compiled chunk. The games and their order (deal-major,
then seating) are the arena's, and the ratings are the arena's functions (arena.ratings):
openskill Plackett-Luce from each game's rulebook places, first places and mean scores (the game's own),
plus each agent's mean place. The report adds each pair's paired mean place difference with a
95% interval, and the ratings of the same games in 50 random orders (openskill rates in order,
so one schedule's ordinals can sit close by chance); ``--rescore REPORT`` adds both to a saved
report from its game records.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


class SeatingRouter:
    """Plays every seat of a batch whose games have different seatings: each row's seat to move
    is asked of the agent seated there (one act_batch call per agent per step)."""

    def __init__(self, agents: list, lineups: np.ndarray):
        self.agents = agents               # agent objects, by index
        self.lineups = lineups             # (B, players) int: the agent index in each seat
        self.name = "router"

    def act_batch(self, jax_game, states, masks, key):
        import jax
        import jax.numpy as jnp

        masks = np.asarray(masks, bool)
        current = np.asarray(states.current)
        who = self.lineups[np.arange(len(current)), np.minimum(current, self.lineups.shape[1] - 1)]
        actions = np.zeros(len(current), np.int32)
        for i, agent in enumerate(self.agents):
            rows = (who == i) & masks.any(1)
            if rows.any():
                chosen = agent.act_batch(jax_game, states, jnp.asarray(masks & rows[:, None]), jax.random.fold_in(key, i))
                actions = np.where(rows, np.asarray(chosen), actions)
        return actions


def place_differences(games: list, names: list) -> dict:
    """For each pair of agents, their mean place difference over the games (a's place minus b's:
    negative where a places better) with a 95% Student t interval over games (paired: both sit
    in every game, one seat each, as in this tournament's schedule)."""
    from scipy import stats

    out: dict = {}
    for a in names:
        for b in names:
            if a == b:
                continue
            diff = np.asarray([g["ranks"][g["seats"].index(a)] - g["ranks"][g["seats"].index(b)] for g in games], float)
            half = stats.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.nan
            mean = float(diff.mean())
            out.setdefault(a, {})[b] = {"mean": mean, "ci95": [mean - half, mean + half]}
    return out


def shuffled_orders(games: list, names: list, orders: int = 50, seed: int = 0) -> dict:
    """openskill rates games in order, so its ordinals depend on the schedule's: the same games
    rated in ``orders`` random orders. For each agent: how often its ordinal is the best, and
    its ordinal's mean, lowest and highest."""
    from monkey_env.apps.arena.ratings import openskill_ratings

    rng = np.random.default_rng(seed)
    ordinals = {n: [] for n in names}
    for _ in range(orders):
        rated = openskill_ratings([games[i] for i in rng.permutation(len(games))], names)
        for n in names:
            ordinals[n].append(rated[n]["ordinal"])
    table = np.asarray([ordinals[n] for n in names])
    best = np.bincount(table.argmax(0), minlength=len(names))
    return {"orders": orders, "seed": seed,
            "agents": {n: {"best_share": float(best[i] / orders), "mean": float(table[i].mean()),
                           "min": float(table[i].min()), "max": float(table[i].max())} for i, n in enumerate(names)}}


def rescore(path: Path) -> dict:
    """Add the paired place differences and the shuffled-order ratings to a saved report."""
    report = json.loads(path.read_text())
    games, names = report["game_records"], report["agents"]
    report["place_difference"] = place_differences(games, names)
    report["shuffled_orders"] = shuffled_orders(games, names)
    path.write_text(json.dumps(report, indent=1) + "\n")
    return report


def main(argv=None) -> int:
    from monkey_env.agents.registry import make_agent, split_agent_names
    from monkey_env.apps.arena.ratings import agent_stats, openskill_ratings, win_matrix
    from monkey_env.apps.arena.schedule import seatings
    from monkey_env.apps.results_table import TimedAgent, play_batch
    from monkey_env.core.options import make_options
    from monkey_env.core.provenance import provenance, set_command, shipped_checkpoints
    from monkey_env.games import DEFAULT_GAME, game_names, game_spec

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default=DEFAULT_GAME, choices=game_names())
    p.add_argument("--agents", default="mcts,ppo,greedy,random")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--map", default="1", help="the map, for a game whose options have one")
    p.add_argument("--deals", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path("reports/mcts/tournament_4p.json"))
    p.add_argument("--rescore", type=Path, default=None,
                   help="play nothing: add the place differences and shuffled-order ratings to this report")
    args = p.parse_args(argv)
    set_command(sys.argv[1:] if argv is None else list(argv), program="python -m experiments.mcts_tournament")
    if args.rescore:
        report = rescore(args.rescore)
        for n, o in report["shuffled_orders"]["agents"].items():
            print(f"{n:24s} best ordinal in {o['best_share']:.0%} of {report['shuffled_orders']['orders']} orders, "
                  f"ordinal {o['mean']:.2f} [{o['min']:.2f}, {o['max']:.2f}]")
        return 0

    spec = game_spec(args.game)
    model = spec.load("options")
    values = {"players": args.players, **({"map": args.map} if "map" in model.model_fields else {})}
    options = make_options(model, **values)
    names = split_agent_names(args.agents)
    agents = [TimedAgent(make_agent(n, args.seed + i, game=args.game)) for i, n in enumerate(names)]
    lineups_named = seatings(names, args.players)
    index = {n: i for i, n in enumerate(names)}
    # rows deal-major, then seating: the arena's game index deal * seatings + seating
    rows = [(d, s) for d in range(args.deals) for s in range(len(lineups_named))]
    lineups = np.asarray([[index[n] for n in lineups_named[s]] for _, s in rows])
    seeds = np.asarray([args.seed + d for d, _ in rows])
    engine = spec.load("jax_engine")(options)
    router = SeatingRouter(agents, lineups)
    t0 = time.perf_counter()
    result = play_batch(engine, [router] * args.players, options, seeds, agent_key=args.seed, share_agents=True)
    wall = time.perf_counter() - t0
    if result["illegal"].any():
        raise RuntimeError("an illegal action was played")
    places, scores = result["places"][:, :args.players], result["scores"][:, :args.players]
    games = [{"seats": list(lineups_named[s]), "ranks": [int(r) for r in places[g]],
              "scores": [int(x) for x in scores[g]]} for g, (_, s) in enumerate(rows)]
    mean_place = {n: float(np.mean([r for g in games for a, r in zip(g["seats"], g["ranks"]) if a == n]))
                  for n in names}
    report = {"game": args.game, "score_name": spec.score_name, "options": options.model_dump(mode="json"),
              "agents": names, "players": args.players, "map": values.get("map", "-"), "deals": args.deals,
              "seatings": len(lineups_named), "games": len(games), "seed": args.seed,
              "openskill": openskill_ratings(games, names), "mean_place": mean_place,
              "place_difference": place_differences(games, names),
              "shuffled_orders": shuffled_orders(games, names),
              "stats": agent_stats(games, names), "win_matrix": win_matrix(games, names),
              "seconds_per_decision": {a.name: a.seconds / max(a.decisions, 1) for a in agents},
              "decisions": {a.name: a.all_decisions for a in agents},
              "versions": {a.name: getattr(a, "version", None) for a in agents}, "wall_seconds": wall,
              "game_records": games,   # every game's seats, places and points: tournaments can be pooled
              "provenance": provenance(started=t0, checkpoints=shipped_checkpoints(names))}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    board = sorted(names, key=lambda n: -report["openskill"][n]["ordinal"])
    for n in board:
        o = report["openskill"][n]
        print(f"{n:24s} ordinal {o['ordinal']:6.2f}  mu {o['mu']:6.2f}  mean place {mean_place[n]:.2f}  "
              f"first {report['stats'][n]['first_place']:.3f}  {spec.score_name} {report['stats'][n]['mean_score']:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
