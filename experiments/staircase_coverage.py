"""How much of the rules' staircases each build action can express, on positions of real games.

    .venv/bin/python experiments/staircase_coverage.py --positions 160 --verify \
        --out reports/staircase_coverage.json

Positions are turn starts of reference games of the catalogue game (greedy and random play,
2 and 4 players, all four maps, early, middle and late turns). At each, every legal staircase
(rules A-I within the player's supply) is listed by the complete build action's search
(``staircases.BuildSearch``); with ``--verify`` the tests' independent enumerator
(tests/games/monkey_palace/staircase_oracle.py, written from the rules) lists them again and must agree exactly.
Against that list the catalogue (anchor + one of its shapes) is measured: staircases it can
express, positions whose best staircase it offers (by credits plus the bonus card, counted as
its Banana Points), positions where only staircases outside it earn the bonus, and positions
where it offers nothing while the rules allow a staircase (the engine then skips the turn).
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np

from monkey_env.core.provenance import load_average, provenance
from monkey_env.monkey_palace.actions import Phase
from monkey_env.monkey_palace.catalogue import shape_steps
from monkey_env.monkey_palace.engine import Game
from monkey_env.monkey_palace.palace import Supply
from monkey_env.monkey_palace.staircases import BuildSearch

REPO = Path(__file__).resolve().parents[1]


def sample_positions(count: int, seed: int) -> list[dict]:
    """``count`` turn starts from games of 2 and 4 players on every map, greedy or random play,
    taken early (turns 1-6), middle (7-14) and late (15 on) in equal shares where games allow."""
    from monkey_env.monkey_palace.agents.greedy import GreedyAgent

    rng = np.random.default_rng(seed)
    found: list[dict] = []
    game_index = 0
    while len(found) < count:
        players, map_id = (2, 4)[game_index % 2], 1 + (game_index // 2) % 4
        greedy = GreedyAgent() if (game_index // 8) % 2 else None
        game = Game.new(players=players, map=map_id, seed=seed + game_index)
        taken = 0
        while not game.game_over and taken < 6 and len(found) < count:
            if game.phase == Phase.ANCHOR and rng.random() < 0.25:
                turn = game.turns_played + 1
                stage = "early" if turn <= 6 else "middle" if turn <= 14 else "late"
                s = game.player.supply
                found.append({"palace": copy.deepcopy(game.palace),
                              "supply": (s.arches, s.bricks, s.columns), "players": players, "map": map_id,
                              "play": "greedy" if greedy else "random", "stage": stage, "turn": turn})
                taken += 1
            mask = game.legal_mask()
            game.apply(greedy.act(game, mask) if greedy else int(rng.choice(np.flatnonzero(mask))))
        game_index += 1
    return found


def oracle():
    path = REPO / "tests" / "games" / "monkey_palace" / "staircase_oracle.py"
    spec = importlib.util.spec_from_file_location("staircase_oracle", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.legal_staircases


def measure(position: dict, catalogue: set, bonus_points: int, bonus_stack: int, verify) -> dict:
    palace, (arches, bricks, columns) = position["palace"], position["supply"]
    search = BuildSearch(palace, arches, bricks, columns)
    started = time.perf_counter()
    anchors = search.legal_anchors()
    mask_seconds = time.perf_counter() - started
    legal = {}
    for y, x in zip(*np.nonzero(anchors)):
        for done in search.staircases((int(x), int(y))):
            legal[((int(x), int(y)), done.steps)] = done
    listed = None
    if verify is not None:
        listed = verify(palace, arches, bricks, columns)
        if not set(legal) <= listed:
            raise SystemExit(f"the complete action offers staircases the enumerator calls illegal at {position['players']}p "
                             f"map {position['map']} turn {position['turn']}: {sorted(set(legal) - listed)[:3]}")
    deco_max = palace.deco_max

    def worth(anchor, done) -> tuple[int, bool]:
        colour = palace.ground[anchor[1], anchor[0]]
        credits = done.arches + (done.level + 2 > deco_max[colour])
        bonus = done.tallest >= bonus_stack
        return credits + bonus_points * bonus, bonus

    values = {key: worth(key[0], done) for key, done in legal.items()}
    in_catalogue = {key for key in legal if key[1] in catalogue}
    best_all = max((v for v, _ in values.values()), default=None)
    best_catalogue = max((values[k][0] for k in in_catalogue), default=None)
    # Against the independent enumerator: the share of the rules' staircases the complete action
    # reaches, and whether its best is among them (None without --verify).
    reached = None if listed is None else len(listed & set(legal))
    best_reached = None
    if listed is not None:
        missed = [worth_of_plan(palace.check_steps(anchor, steps, Supply(arches, bricks, columns)), deco_max,
                                bonus_points, bonus_stack) for anchor, steps in listed - set(legal)]
        best_reached = best_all is None or max(missed, default=-1) <= best_all
    return {
        "enumerator_legal": None if listed is None else len(listed), "complete_reaches": reached,
        "complete_best_offered": best_reached,
        "players": position["players"], "map": position["map"], "play": position["play"],
        "stage": position["stage"], "supply": list(position["supply"]),
        "legal": len(legal), "in_catalogue": len(in_catalogue),
        "best": best_all, "best_in_catalogue": best_catalogue,
        "bonus_staircases": sum(b for _, b in values.values()),
        "bonus_in_catalogue": sum(values[k][1] for k in in_catalogue),
        "anchors_with_staircase": int(anchors.sum()),
        "anchors_in_catalogue": len({k[0] for k in in_catalogue}),
        "mask_seconds": round(mask_seconds, 4),
        "needs": dict(Counter(kind for key in legal if key[1] not in catalogue for kind in needs(key[1]))),
    }


def worth_of_plan(plan, deco_max, bonus_points: int, bonus_stack: int) -> int:
    """Credits plus the bonus card of a legal plan (as measure's worth, from the rule statement)."""
    credits = len(plan.arches) + (plan.deco_top > deco_max[plan.colour])
    return credits + bonus_points * (max((s.units for s in plan.stacks), default=0) >= bonus_stack)


def needs(steps) -> list[str]:
    """What a staircase outside the catalogue uses that the default catalogue does not."""
    rises = [r for _, r in steps[1:]]
    turns = ["S" if b == a else "T" for (a, _), (b, _) in zip(steps, steps[1:])]
    out = []
    if steps[0][1] > 3:
        out.append("base above 3")
    if any(r > 1 for r in rises):
        out.append("rise above 1")
    if len(set(rises)) > 1:
        out.append("uneven rises")
    if turns.count("T") > 1 and not all(t == "T" for t in turns):
        out.append("other turn pattern")
    if len(steps) > 6:
        out.append("more than 6 arches")
    return out


def summarise(rows: list[dict]) -> dict:
    def share(part, whole):
        return round(part / whole, 4) if whole else None

    with_any = [r for r in rows if r["legal"]]
    verified = all(r["enumerator_legal"] is not None for r in rows)
    out = {
        "positions": len(rows),
        "legal_staircases": sum(r["legal"] for r in rows),
        "complete_action_expresses": share(sum(r["complete_reaches"] for r in rows),
                                           sum(r["enumerator_legal"] for r in rows)) if verified else None,
        "catalogue_expresses": share(sum(r["in_catalogue"] for r in rows), sum(r["legal"] for r in rows)),
        "best_offered_complete": share(sum(r["complete_best_offered"] for r in with_any), len(with_any))
        if verified else None,
        "best_offered_catalogue": share(sum(r["best"] == r["best_in_catalogue"] for r in with_any), len(with_any)),
        "positions_with_bonus_staircase": sum(r["bonus_staircases"] > 0 for r in rows),
        "bonus_only_outside_catalogue": sum(r["bonus_staircases"] > 0 and r["bonus_in_catalogue"] == 0 for r in rows),
        "catalogue_offers_nothing_rules_allow_some": sum(r["legal"] > 0 and r["in_catalogue"] == 0 for r in rows),
        "mean_mask_seconds_all_anchors": round(float(np.mean([r["mask_seconds"] for r in rows])), 4),
        "by_stage": {},
    }
    for stage in ("early", "middle", "late"):
        part = [r for r in with_any if r["stage"] == stage]
        out["by_stage"][stage] = {"positions": len(part), "best_offered_catalogue": share(
            sum(r["best"] == r["best_in_catalogue"] for r in part), len(part))}
    needs_total = Counter()
    for r in rows:
        needs_total.update(r["needs"])
    outside = sum(r["legal"] - r["in_catalogue"] for r in rows)
    out["outside_catalogue_needs"] = {k: share(v, outside) for k, v in needs_total.most_common()}
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=160)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verify", action="store_true", help="list every position's staircases again with the "
                    "tests' independent enumerator and stop on any difference")
    ap.add_argument("--out", default="reports/staircase_coverage.json")
    args = ap.parse_args(argv)
    started, load_before = time.perf_counter(), load_average()
    game = Game.new()
    catalogue = {tuple(shape_steps(s)) for s in game.data.shapes}
    bonus = game.data.tray.bonus
    verify = oracle() if args.verify else None
    rows = [measure(p, catalogue, bonus.points, bonus.min_stack, verify)
            for p in sample_positions(args.positions, args.seed)]
    summary = summarise(rows)
    report = {"summary": summary, "positions": rows, "verified_by_enumerator": bool(args.verify),
              "provenance": provenance(started=started, load_before=load_before)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
