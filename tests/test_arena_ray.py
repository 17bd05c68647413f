"""The Ray backend against a local Ray instance: same schedule, same games, same database."""

from __future__ import annotations

import pytest

from monkey_env.apps.arena.results import Results
from monkey_env.apps.arena.runner import plan_tournament, run_tournament

ray = pytest.importorskip("ray")

OPTIONS = {"butterfly": True, "frog": False, "monkey_move": "optional", "butterfly_rule": "highest_overall",
           "end_trigger": "shortfall"}


def _plan():
    return plan_tournament(["random", "monkey_env.agents.random_agent:RandomAgent"], 2, "2", OPTIONS, 6, 11, "reference", 2)


def _key(rows):
    return [(r["game_index"], r["seed"], r["seats"], r["scores"], r["rounds"], r["decisions"]) for r in rows]


def test_ray_backend_plays_the_schedule_into_the_same_database(tmp_path):
    local = Results(tmp_path / "local.sqlite")
    tour, _ = run_tournament(local, _plan(), workers=1, progress=False)
    expected = _key(local.games(tour.id))

    db = Results(tmp_path / "ray.sqlite")
    # Two games already there (a tournament stopped earlier): Ray plays only the rest.
    plan = _plan()
    first = db.tournament(plan.key, {"agents": list(plan.schedule.agents), "versions": plan.versions,
                                     "players": 2, "seed": 11, "chunk": 2, **{k: plan.spec[k] for k in
                                     ("map", "options", "engine", "config_hash")}})
    db.add_games(first.id, [{k: v for k, v in r.items() if k != "finished"} for r in local.games(tour.id)[:2]])
    ray.init(num_cpus=1, include_dashboard=False, logging_level="ERROR")
    try:
        tour2, added = run_tournament(db, plan, backend="ray", progress=False)
    finally:
        ray.shutdown()
    assert tour2.id == first.id and added == 4
    assert _key(db.games(tour2.id)) == expected
