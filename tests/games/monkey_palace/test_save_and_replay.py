"""Saves (to_dict / save / load) and records (record / replay / load_record), good and bad."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
import yaml

from monkey_env import Game, Phase, SaveFileError, load_game_data
from monkey_env.agents.random_agent import RandomAgent
from monkey_env.monkey_palace.engine import load_record

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def advance(game: Game, agent: RandomAgent, decisions: int) -> None:
    for _ in range(decisions):
        if game.game_over:
            return
        game.apply(agent.act(game, game.legal_mask()))


def finish(game: Game, agent: RandomAgent) -> None:
    advance(game, agent, 10_000)
    assert game.game_over


def assert_clean(err: BaseException) -> None:
    """The error is raised on its own, not chained to a traceback from deep inside."""
    assert err.__cause__ is None
    assert err.__context__ is None or err.__suppress_context__


@pytest.fixture(scope="module")
def finished_game() -> Game:
    g = Game.new(3, 2, seed=11, butterfly=True, frog=True)
    finish(g, RandomAgent(11))
    return g


@pytest.fixture(scope="module")
def mid_game() -> Game:
    g = Game.new(2, 1, seed=3, butterfly=True, frog=True, monkey_move="mandatory")
    advance(g, RandomAgent(3), 37)
    assert not g.game_over
    return g


# ------------------------------------------------------------------ round trips

def test_save_load_mid_game_and_continue(tmp_path, mid_game):
    path = tmp_path / "mid.json"
    mid_game.save(path)
    loaded = Game.load(path)
    assert loaded.to_dict() == mid_game.to_dict()
    assert (loaded.legal_mask() == mid_game.legal_mask()).all()
    # Continuing both with the same agent seed gives identical games.
    a, b = Game.from_dict(mid_game.to_dict()), loaded
    finish(a, RandomAgent(99))
    finish(b, RandomAgent(99))
    assert a.to_dict() == b.to_dict()
    assert a.scores() == b.scores() and a.winners() == b.winners()


def test_save_load_at_the_end(tmp_path, finished_game):
    path = tmp_path / "end.json"
    finished_game.save(path)
    loaded = Game.load(path)
    assert loaded.game_over
    assert loaded.to_dict() == finished_game.to_dict()
    assert loaded.scores() == finished_game.scores()
    assert loaded.winners() == finished_game.winners()
    assert not loaded.legal_mask().any()


def test_save_load_in_every_phase(tmp_path):
    """A save made in any decision phase (mid-turn state included) loads back identically."""
    seen = set()
    for seed in range(3):
        game = Game.new(2, 1 + seed, seed=seed, butterfly=True, frog=True)
        agent = RandomAgent(seed)
        while not game.game_over:
            if game.phase not in seen:
                seen.add(game.phase)
                d = game.to_dict()
                path = tmp_path / f"{game.phase.name}.json"
                game.save(path)
                loaded = Game.load(path)
                assert loaded.to_dict() == d
                assert (loaded.legal_mask() == game.legal_mask()).all()
                # Both take the same next decision to the same state.
                a = agent.act(game, game.legal_mask())
                loaded.apply(a)
                game.apply(a)
                assert loaded.to_dict() == game.to_dict()
                continue
            game.apply(agent.act(game, game.legal_mask()))
    assert {Phase.ANCHOR, Phase.SHAPE, Phase.BUY} <= seen


def test_record_replay_round_trip(finished_game, mid_game):
    for g in (finished_game, mid_game):
        replayed = Game.replay(g.record())
        assert replayed.to_dict() == g.to_dict()


def test_record_is_json_and_load_record(tmp_path, finished_game):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(finished_game.record()), encoding="utf-8")
    replayed = load_record(path)
    assert replayed.to_dict() == finished_game.to_dict()
    assert replayed.game_over and replayed.winners() == finished_game.winners()


def test_save_is_plain_json(tmp_path, mid_game):
    path = tmp_path / "s.json"
    mid_game.save(path)
    d = json.loads(path.read_text(encoding="utf-8"))
    assert d == json.loads(json.dumps(mid_game.to_dict()))


# ------------------------------------------------------------------ fingerprints

def edited_data(tmp_path: Path):
    """Game data from an edited copy of the configs: one card's bananas changed."""
    d = tmp_path / "configs"
    shutil.copytree(CONFIGS, d)
    cards = yaml.safe_load((d / "cards.yaml").read_text(encoding="utf-8"))
    cards["piles"][0]["cards"][0]["bananas"] += 1
    (d / "cards.yaml").write_text(yaml.safe_dump(cards), encoding="utf-8")
    return load_game_data(1, config_dir=d)


def test_unchanged_copy_has_the_same_fingerprint(tmp_path):
    d = tmp_path / "configs"
    shutil.copytree(CONFIGS, d)
    assert load_game_data(1, config_dir=d).fingerprint == load_game_data(1).fingerprint
    assert load_game_data(1).fingerprint != load_game_data(2).fingerprint


def test_fingerprint_mismatch_save(tmp_path, mid_game):
    data = edited_data(tmp_path)
    assert data.fingerprint != mid_game.data.fingerprint
    with pytest.raises(SaveFileError, match="other game data") as e:
        Game.from_dict(mid_game.to_dict(), data=data)
    assert mid_game.data.fingerprint in str(e.value) and data.fingerprint in str(e.value)
    assert_clean(e.value)

    d = mid_game.to_dict()
    d["data_fingerprint"] = "0" * 16
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(SaveFileError, match="other game data") as e:
        Game.load(path)
    assert_clean(e.value)


def test_fingerprint_mismatch_record(tmp_path, mid_game):
    data = edited_data(tmp_path)
    with pytest.raises(SaveFileError, match="other game data") as e:
        Game.replay(mid_game.record(), data=data)
    assert_clean(e.value)
    rec = mid_game.record()
    rec["data_fingerprint"] = "f" * 16
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    with pytest.raises(SaveFileError, match="other game data") as e:
        load_record(path)
    assert_clean(e.value)


# ------------------------------------------------------------------ malformed files

def write(tmp_path: Path, content, name="file.json") -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


@pytest.mark.parametrize("loader", ["save", "record"])
@pytest.mark.parametrize("text,words", [
    ("{not json", "not valid JSON"),
    ("", "not valid JSON"),
    ("[1, 2, 3]", "expected a JSON object"),
    ('"a string"', "expected a JSON object"),
])
def test_not_json(tmp_path, loader, text, words):
    path = write(tmp_path, text)
    with pytest.raises(SaveFileError) as e:
        (Game.load if loader == "save" else load_record)(path)
    assert words in str(e.value) and str(path) in str(e.value)
    assert_clean(e.value)


@pytest.mark.parametrize("loader", ["save", "record"])
def test_missing_file(tmp_path, loader):
    path = tmp_path / "nowhere.json"
    with pytest.raises(SaveFileError, match="cannot read") as e:
        (Game.load if loader == "save" else load_record)(path)
    assert str(path) in str(e.value)
    assert_clean(e.value)


@pytest.mark.parametrize("version", [0, 2, "1", None])
def test_save_wrong_version(tmp_path, mid_game, version):
    d = mid_game.to_dict()
    d["version"] = version
    with pytest.raises(SaveFileError, match="version") as e:
        Game.load(write(tmp_path, d))
    assert_clean(e.value)


@pytest.mark.parametrize("version", [0, 2, "1", None])
def test_record_wrong_version(tmp_path, mid_game, version):
    rec = mid_game.record()
    rec["version"] = version
    with pytest.raises(SaveFileError, match="version") as e:
        load_record(write(tmp_path, rec))
    assert_clean(e.value)


@pytest.mark.parametrize("field", ["options", "palace", "tray", "piles", "players", "holders", "bonus_left",
                                   "current", "round", "turns_played", "end_triggered", "phase", "turn",
                                   "history", "data_fingerprint"])
def test_save_missing_field(tmp_path, mid_game, field):
    d = mid_game.to_dict()
    del d[field]
    with pytest.raises(SaveFileError) as e:
        Game.load(write(tmp_path, d))
    assert field in str(e.value)
    assert_clean(e.value)


def test_save_missing_nested_field(tmp_path, mid_game):
    d = mid_game.to_dict()
    del d["players"][0]["slots"]
    with pytest.raises(SaveFileError, match="slots") as e:
        Game.load(write(tmp_path, d))
    assert_clean(e.value)


@pytest.mark.parametrize("field", ["options", "actions", "data_fingerprint"])
def test_record_missing_field(tmp_path, mid_game, field):
    rec = mid_game.record()
    del rec[field]
    with pytest.raises(SaveFileError) as e:
        load_record(write(tmp_path, rec))
    assert field in str(e.value)
    assert_clean(e.value)


# (edit of the save, the field that must be named in the message)
SAVE_WRONG_TYPES = [
    (lambda d: d.__setitem__("players", 3), "players"),
    (lambda d: d.__setitem__("tray", "lots"), "tray"),
    (lambda d: d.__setitem__("tray", {"arches": "many", "bricks": 1, "columns": 1}), "tray"),
    (lambda d: d.__setitem__("round", "three"), "round"),
    (lambda d: d.__setitem__("current", [0]), "current"),
    (lambda d: d.__setitem__("end_triggered", "false"), "end_triggered"),
    (lambda d: d.__setitem__("phase", "NAP"), "phase"),
    (lambda d: d.__setitem__("piles", [[1, 2]] * 3), "piles"),
    (lambda d: d.__setitem__("options", {"players": 9}), "players"),
    (lambda d: d.__setitem__("options", "2 players"), "options"),
    (lambda d: d["palace"].__setitem__("height", [[0] * 3] * 3), "palace"),
    (lambda d: d["players"][0].__setitem__("bonus_cards", "none"), "bonus_cards"),
    (lambda d: d["turn"].__setitem__("surprise", 1), "turn"),
]


@pytest.mark.parametrize("edit,field", SAVE_WRONG_TYPES, ids=[f"{i}-{f}" for i, (_, f) in enumerate(SAVE_WRONG_TYPES)])
def test_save_wrong_types(tmp_path, mid_game, edit, field):
    d = copy.deepcopy(mid_game.to_dict())
    edit(d)
    with pytest.raises(SaveFileError) as e:
        Game.load(write(tmp_path, d))
    assert field in str(e.value), str(e.value)
    assert_clean(e.value)


RECORD_WRONG_TYPES = [
    (lambda r: r.__setitem__("actions", "abc"), "actions"),
    (lambda r: r.__setitem__("actions", 5), "actions"),
    (lambda r: r.__setitem__("actions", [None]), "actions"),
    (lambda r: r.__setitem__("options", {"players": 7}), "players"),
    (lambda r: r.__setitem__("options", {"players": 2, "colour": "red"}), "colour"),
    (lambda r: r.__setitem__("options", [2]), "options"),
    (lambda r: r["options"].__setitem__("map", "9"), "map"),
]


@pytest.mark.parametrize("edit,field", RECORD_WRONG_TYPES,
                         ids=[f"{i}-{f}" for i, (_, f) in enumerate(RECORD_WRONG_TYPES)])
def test_record_wrong_types(tmp_path, mid_game, edit, field):
    rec = copy.deepcopy(mid_game.record())
    edit(rec)
    with pytest.raises(SaveFileError) as e:
        load_record(write(tmp_path, rec))
    assert field in str(e.value), str(e.value)
    assert_clean(e.value)


def test_save_with_unknown_map(tmp_path, mid_game):
    d = mid_game.to_dict()
    d["options"]["map"] = "9"
    with pytest.raises(SaveFileError, match="map 9") as e:
        Game.load(write(tmp_path, d))
    assert_clean(e.value)


def test_record_with_illegal_action(tmp_path, mid_game):
    rec = mid_game.record()
    # Replace action #3 by one that is legal in no phase at that point: buy_end during the anchor choice,
    # or an anchor during a purchase. Find one the engine rejects at that step.
    g = Game.replay({**rec, "actions": rec["actions"][:3]})
    bad = next(a for a in range(g.layout.size) if g.explain(a) != "legal")
    rec["actions"] = rec["actions"][:3] + [bad] + rec["actions"][4:]
    with pytest.raises(SaveFileError) as e:
        load_record(write(tmp_path, rec))
    msg = str(e.value)
    assert "#3" in msg and "does not replay" in msg and g.phase.name.lower() in msg
    assert_clean(e.value)


@pytest.mark.parametrize("bad", [-1, 10**6])
def test_record_with_out_of_range_action(tmp_path, mid_game, bad):
    rec = mid_game.record()
    rec["actions"] = rec["actions"][:2] + [bad] + rec["actions"][3:]
    with pytest.raises(SaveFileError) as e:
        load_record(write(tmp_path, rec))
    msg = str(e.value)
    assert "#2" in msg and "out of range" in msg
    assert_clean(e.value)


def test_record_with_actions_after_the_end(tmp_path, finished_game):
    rec = finished_game.record()
    rec["actions"] = rec["actions"] + [rec["actions"][-1]]
    with pytest.raises(SaveFileError, match="game is over") as e:
        load_record(write(tmp_path, rec))
    assert f"#{len(rec['actions']) - 1}" in str(e.value)
    assert_clean(e.value)
