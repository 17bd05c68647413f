"""The complete build action is the default; what was played on the catalogue before still loads,
replays and reads as the catalogue, and an agent bound to the catalogue says so by name."""

from __future__ import annotations

import json

import pytest

from monkey_env import Game, GameOptions
from monkey_env.agents.random_agent import RandomAgent
from monkey_env.monkey_palace.engine import load_record


def _played(options: GameOptions, decisions: int) -> Game:
    game = Game.from_options(options)
    agent = RandomAgent(options.seed)
    for _ in range(decisions):
        if game.game_over:
            break
        game.apply(agent.act(game, game.legal_mask()))
    return game


def _without_build_action(doc: dict) -> dict:
    """A save or record as written before the option existed: its options name no build action."""
    doc = json.loads(json.dumps(doc))
    del doc["options"]["build_action"]
    return doc


def test_new_games_build_arch_by_arch():
    game = Game.from_options(GameOptions(players=2, map="1", seed=1))
    assert game.options.build_action == "complete"
    assert game.layout.n_shapes == 0 and game.layout.size == 1563
    assert Game.new(2, 1, seed=1).options.build_action == "complete"
    assert GameOptions(build_action="catalogue").model_dump()["build_action"] == "catalogue"


def test_a_record_that_names_no_build_action_replays_on_the_catalogue(tmp_path):
    game = _played(GameOptions(players=3, map="2", seed=5, build_action="catalogue"), 60)
    old = _without_build_action(game.record())
    again = Game.replay(old)
    assert again.options.build_action == "catalogue"
    assert again.to_dict() == game.to_dict()
    path = tmp_path / "old_record.json"
    path.write_text(json.dumps(old))
    assert load_record(path).to_dict() == game.to_dict()


def test_a_save_that_names_no_build_action_loads_on_the_catalogue():
    game = _played(GameOptions(players=2, map="4", seed=9, build_action="catalogue"), 45)
    loaded = Game.from_dict(_without_build_action(game.to_dict()))
    assert loaded.options.build_action == "catalogue"
    assert loaded.to_dict() == game.to_dict()


def test_records_name_their_build_action_and_replay_on_it():
    game = _played(GameOptions(players=2, map="1", seed=2), 40)
    record = game.record()
    assert record["options"]["build_action"] == "complete"
    assert Game.replay(record).to_dict() == game.to_dict()
    # the same actions read as the catalogue's are other actions: the record must not be misread
    with pytest.raises(ValueError):
        Game.replay({**record, "options": {**record["options"], "build_action": "catalogue"}})


def test_the_sb3_checkpoint_is_refused_by_name_on_the_complete_action():
    from monkey_env.apps.evaluate import evaluate

    with pytest.raises(ValueError, match=r"ppo-sb3: its checkpoint was trained for 2438 actions and "
                                         r"build_action 'complete' has 1563.*--build-action catalogue"):
        evaluate(["ppo-sb3", "random"], players=2, map=1, games=2, seed=0, progress=False)


def test_tournaments_record_the_build_action_and_old_ones_read_as_the_catalogue(tmp_path):
    from monkey_env.apps.arena.runner import plan_tournament
    from monkey_env.monkey_palace.apps.balance.arena_db import build_action_of

    plan = plan_tournament(["random", "greedy"], 2, "1", {}, games=2, seed=0, engine="reference")
    assert plan.spec["options"] == {"build_action": "complete"}
    catalogue = plan_tournament(["random", "greedy"], 2, "1", {"build_action": "catalogue"}, games=2, seed=0,
                                engine="reference")
    assert catalogue.key != plan.key
    # a database row written before the option was recorded names no build action
    assert build_action_of({"options": {}}) == "catalogue"
    assert build_action_of({"options": {"butterfly": True}}) == "catalogue"
    assert build_action_of({"options": plan.spec["options"]}) == "complete"
    with pytest.raises(ValueError, match="ppo-sb3: its checkpoint was trained for 2438 actions"):
        plan_tournament(["ppo-sb3", "greedy"], 2, "1", {}, games=2, seed=0)


@pytest.mark.parametrize("command", [
    ["simulate", "--agents", "ppo-sb3,random", "--games", "1"],
    ["evaluate", "--agents", "ppo-sb3,random", "--games", "2"],
    ["play", "--yes", "--opponents", "ppo-sb3", "--png", ""]])
def test_every_command_refuses_the_sb3_checkpoint_on_the_complete_action_in_one_line(command, capsys):
    from monkey_env.apps.cli import main

    try:
        rc = main(command)
    except SystemExit as e:                  # argparse-style refusals exit 2
        rc = e.code
    assert rc == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ppo-sb3: its checkpoint was trained for 2438 actions" in err[0], err
    assert "--build-action catalogue" in err[0]
