"""Evaluation: N games between agents with seats rotated; win rates with 95% intervals.

    monkey-palace evaluate --agents ppo,greedy --players 2 --map 1 --games 1000 --seed 0 [--json]

Seats rotate: with k agents for n seats, game g gives seat s to agent (s + g) mod k, so in
2-player games each agent plays first in half of them; the same seeds (deals) are used for
every rotation. The winner is the game's rulebook's (monkey_env.core.outcome): the highest score,
a tie broken by the game's own rule; a win still shared by k seats gives each 1/k of a
win. The win rate's 95% interval is Wilson's; the scores have a t interval (both from
monkey_env.apps.balance.stats). The games are played by results_table.play_games: in JAX
batches when every agent has ``act_batch``, otherwise on the reference engine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from monkey_env.agents.base import check_plays, plays_batched
from monkey_env.agents.registry import make_agent, split_agent_names
from monkey_env.apps.balance.stats import mean_ci, wilson
from monkey_env.apps.results_table import GameResults, TimedAgent, play_games, shared_win_rule
from monkey_env.core.options import jax_plays
from monkey_env.games import DEFAULT_GAME, game_spec, spec_for_options


def seat_agents(names: list[str], players: int, rotation: int) -> list[str]:
    return [names[(s + rotation) % len(names)] for s in range(players)]


def evaluate(names: list[str], players: int = 2, map: int | str = 1, games: int = 100, seed: int = 0,
             batch: int = 256, options: dict | None = None, agents: dict | None = None, progress: bool = True,
             game_options=None) -> dict:
    """Play `games` games; `agents` may give ready agent objects by name (else made by name).

    game_options: another game's options object (its own model, monkey_env.games); players, map
    and options are then read from it (its seed is replaced by `seed`)."""
    from monkey_env.apps.results_table import new_options, players_of, with_seed

    if game_options is None:
        game_options = new_options(DEFAULT_GAME, players=players, map=map, seed=seed, **(options or {}))
    game = spec_for_options(game_options).name
    game_options = with_seed(game_options, seed)
    players, map = players_of(game_options), getattr(game_options, "map", "-")
    if not 1 <= len(names) <= players:
        raise ValueError(f"--agents needs 1 to {players} names for {players} players, got {len(names)}")
    if len(set(names)) != len(names):
        raise ValueError(f"agent names must differ (got {names}); the same agent twice is one agent")
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    agents = dict(agents or {})
    for i, n in enumerate(names):
        if n not in agents:
            agents[n] = make_agent(n, seed + i, game=game)
    check_plays(agents, game_options)
    agents = {n: TimedAgent(a) for n, a in agents.items()}   # seconds per decision, for the report
    rotations = len(names)
    batched = (all(plays_batched(a, game_options) for a in agents.values()) and game_spec(game).has("jax_engine")
               and jax_plays(game_options))
    from tqdm import tqdm

    bar = tqdm(total=games, desc="games", unit="game", file=sys.stderr, disable=not progress)
    parts = []
    try:
        for rotation in range(rotations):
            count = games // rotations + (1 if rotation < games % rotations else 0)
            if count == 0:
                continue
            order = seat_agents(names, players, rotation)
            parts.append(play_games([agents[n] for n in order], game_options, np.arange(seed, seed + count),
                                    names=order, engine="jax" if batched else "reference", batch=batch,
                                    agent_key=lambda chunk: int(chunk[0]), progress=bar.update))
    except KeyboardInterrupt:
        bar.close()
        done = sum(p.n for p in parts)
        raise Stopped(done, games, _report(parts, names, players, map, done, seed, agents, batched, game, game_options)
                      if parts else None) from None
    bar.close()
    return _report(parts, names, players, map, games, seed, agents, batched, game, game_options)


class Stopped(KeyboardInterrupt):
    """Ctrl-C during evaluate: the games finished (whole seat rotations) and their report, if any."""

    def __init__(self, done: int, total: int, report: dict | None):
        super().__init__(f"stopped after {done} of {total} games")
        self.done, self.total, self.report = done, total, report


def _report(parts, names, players, map, games, seed, agents, batched, game, game_options) -> dict:
    table = GameResults.concat(parts)
    per_agent = table.by_agent()
    none = {"wins": 0.0, "seat_games": 0, "scores": []}          # an agent no game seated (games < agents)
    wins = {n: per_agent.get(n, none)["wins"] for n in names}
    seats_played = {n: per_agent.get(n, none)["seat_games"] for n in names}
    bananas = {n: per_agent.get(n, none)["scores"] for n in names}
    # Each agent's games: every game it sat in (with several seats of one agent, each seat counts).
    win_rate = {n: wilson(wins[n], seats_played[n]) for n in names}
    mean = {n: mean_ci(bananas[n]) for n in names}
    return {
        "agents": names, "players": players, "map": str(map), "games": games, "seed": seed,
        "win_rate": {n: win_rate[n].value for n in names},
        "ci95": {n: [win_rate[n].lo, win_rate[n].hi] for n in names},
        "mean_score": {n: mean[n].value for n in names},
        "mean_score_ci95": {n: [mean[n].lo, mean[n].hi] for n in names},
        "seat_games": seats_played, "engine": "jax" if batched else "reference", "shared_win": shared_win_rule(game),
        "versions": {n: getattr(agents[n], "version", None) for n in names},
        "game": game, "score_name": game_spec(game).score_name,
        # the rules played (e.g. Monkey Palace's build action), without the deals' seed
        "options": (game_options.model_dump(mode="json", exclude={"seed"})
                    if hasattr(game_options, "model_dump") else None),
        # wall seconds per decision of each agent, batched as played, after its first call
        # (which compiles a JAX agent; first_call_seconds gives it)
        "seconds_per_decision": {n: agents[n].seconds_per_decision for n in names},
        "first_call_seconds": {n: agents[n].first_call_seconds for n in names},
        "decisions": {n: agents[n].all_decisions for n in names},
    }


def format_table(report: dict) -> str:
    where = f"map {report['map']}" if report.get("map", "-") != "-" else game_spec(report["game"]).title
    score = "mean " + report.get("score_name", "score")
    lines = [f"{report['games']} games, {report['players']} players, {where}, seats rotated "
             f"({report['engine']} engine)",
             f"{'agent':<16} {'win rate':>9} {'95% CI':>17} {score:>20}"]
    for n in report["agents"]:
        lo, hi = report["ci95"][n]
        mlo, mhi = report["mean_score_ci95"][n]
        lines.append(f"{n:<16} {report['win_rate'][n]:>9.3f}   [{lo:.3f}, {hi:.3f}]   "
                     f"{report['mean_score'][n]:>6.2f} [{mlo:.2f}, {mhi:.2f}]")
    timing = ", ".join(f"{n} {t:.4f}" for n, t in report["seconds_per_decision"].items() if t is not None)
    if timing:
        lines.append(f"seconds per decision: {timing}")
    lines.append(f"win: {report['shared_win']}")
    return "\n".join(lines)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from monkey_env.apps.cli import chosen_game, game_options, say_compiling, with_provenance
    from monkey_env.apps.cli_edges import STOPPED, check_agents, stopped

    started = time.perf_counter()
    names = split_agent_names(args.agents)
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    spec = chosen_game()
    options = game_options(args)   # validates --players, --map and --seed with the rest
    check_agents("--agents", names, spec.name, options)
    try:
        if spec.has("jax_engine") and jax_plays(options) and all(
                plays_batched(make_agent(n, 0, game=spec.name), options) for n in names):
            say_compiling(args.quiet or args.json)
        report = evaluate(names, games=args.games, seed=options.seed, batch=args.batch, progress=not args.quiet,
                          game_options=options)
    except Stopped as e:            # as tournament: the finished games kept (reported), one line, exit 130
        if e.report is not None:
            print(json.dumps({**e.report, "stopped": True}) if args.json else format_table(e.report))
        kept = ("the report above is of them (whole seat rotations)" if e.report is not None else
                "no seat rotation finished, so there is nothing to report")
        print("\n" + stopped("evaluate", e.done, e.total, kept), file=sys.stderr)
        return STOPPED
    report = with_provenance(report, started, names)
    print(json.dumps(report) if args.json else format_table(report))
    return 0


def register(sub) -> None:
    from monkey_env.apps.cli import add_game_options

    p = sub.add_parser("evaluate", help="win rates (95%% CI) and mean scores of agents, seats rotated")
    p.add_argument("--agents", required=True, help="comma-separated agent names or package.module:Class")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--batch", type=int, default=256, help="games per JAX batch")
    add_game_options(p)
    p.add_argument("--json", action="store_true", help="one JSON object: win_rate, ci95, mean_score per agent")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_evaluate)
