"""The two build actions compared on whole games of the reference engine (greedy self-play).

    .venv/bin/python -m experiments.build_actions_compared --games 100 --players 2 4 \
        --out reports/build_actions_compared.json

For each build action (the catalogue's anchor + shape; the complete action's anchor, arches
and finish) and player count, the same seeds on map 1, every seat greedy: the decisions a
build takes and how many choices each offers (what a learning agent sees), the time to compute
the masks, and the game itself: turns, scores, bonus cards taken, the seats' wins.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from monkey_env.core.provenance import load_average, provenance
from monkey_env.monkey_palace.actions import Phase
from monkey_env.monkey_palace.engine import Game


def play(build: str, players: int, seed: int) -> dict:
    from monkey_env.monkey_palace.agents.greedy import GreedyAgent

    greedy, game = GreedyAgent(), Game.new(players=players, map=1, seed=seed, build_action=build)
    build_decisions, choices, mask_seconds, builds = 0, [], 0.0, 0
    started = time.perf_counter()
    while not game.game_over:
        t0 = time.perf_counter()
        mask = game.legal_mask()
        if game.phase in (Phase.ANCHOR, Phase.SHAPE):
            mask_seconds += time.perf_counter() - t0
            build_decisions += 1
            choices.append(int(mask.sum()))
            builds += game.phase == Phase.ANCHOR
        game.apply(greedy.act(game, mask))
    scores = game.scores()
    return {"turns": game.turns_played, "scores": scores, "winners": game.winners(),
            "bonus_cards": game.data.tray.bonus.cards - game.bonus_left, "builds_asked": builds,
            "build_decisions": build_decisions, "choices": choices, "mask_seconds": mask_seconds,
            "seconds": time.perf_counter() - started}


def summarise(games: list[dict], players: int) -> dict:
    wins = np.zeros(players)
    for g in games:
        for w in g["winners"]:
            wins[w] += 1 / len(g["winners"])
    choices = [c for g in games for c in g["choices"]]
    return {
        "games": len(games),
        "turns_per_game": round(float(np.mean([g["turns"] for g in games])), 2),
        "mean_score": round(float(np.mean([s for g in games for s in g["scores"]])), 2),
        "winning_score": round(float(np.mean([max(g["scores"]) for g in games])), 2),
        "bonus_cards_per_game": round(float(np.mean([g["bonus_cards"] for g in games])), 2),
        "seat_win_share": [round(float(w / len(games)), 3) for w in wins],
        "build_decisions_per_build": round(sum(g["build_decisions"] for g in games)
                                           / max(1, sum(g["builds_asked"] for g in games)), 2),
        "choices_per_build_decision": {"mean": round(float(np.mean(choices)), 1),
                                       "median": float(np.median(choices)), "max": int(np.max(choices))},
        "mask_ms_per_build_decision": round(1000 * sum(g["mask_seconds"] for g in games) / max(1, len(choices)), 2),
        "seconds_per_game": round(float(np.mean([g["seconds"] for g in games])), 2),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="reports/build_actions_compared.json")
    args = ap.parse_args(argv)
    started, load_before = time.perf_counter(), load_average()
    report = {"results": {}}
    for players in args.players:
        for build in ("catalogue", "complete"):
            games = [play(build, players, args.seed + i) for i in range(args.games)]
            summary = summarise(games, players)
            report["results"][f"{build} {players}p"] = summary
            print(f"{build} {players}p: {json.dumps(summary)}", flush=True)
    report["provenance"] = provenance(started=started, load_before=load_before)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
