"""Regression tests of the house: records that keep their deal, snapshots that stay put, edited
game data reaching both engines, the one options object, and one definition of a win."""

import argparse
import json
import shutil
from pathlib import Path

import jax
import numpy as np
import pytest

import monkey_env
from monkey_env import Game
from monkey_env.core.config_loading import default_config_dir
from monkey_env.core.options import OptionsError, add_option_flags, options_from_args
from monkey_env.core.outcome import places, win_shares, winners
from monkey_env.monkey_palace.jaxgame.env import jax_game_for
from monkey_env.monkey_palace.jaxgame.from_reference import jax_state_from_game
from monkey_env.monkey_palace.options import GameOptions
from monkey_env.monkey_palace.save_format import RecordModel, SaveModel


def random_play(game: Game, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(n):
        game.apply(int(rng.choice(game.legal_actions())))


# ---------------------------------------------------------------- bug 1: a given deal replays

def test_a_record_of_a_given_deal_replays_to_the_same_game():
    orders = [list(reversed(p)) for p in Game.new(seed=4).to_dict()["piles"]]
    g = Game.new(seed=4, pile_orders=orders)
    random_play(g, 8)
    again = Game.replay(g.record())
    assert again.to_dict()["piles"] == g.to_dict()["piles"]
    assert again.to_dict() == g.to_dict()


def test_a_seeded_record_carries_no_deal_and_a_bad_deal_is_refused():
    g = Game.new(seed=4)
    random_play(g, 5)
    assert g.record()["deal"] is None
    assert Game.replay(g.record()).to_dict() == g.to_dict()
    bad = g.record() | {"deal": [[0, 1]] * 12}
    with pytest.raises(monkey_env.SaveFileError, match="deal"):
        Game.replay(bad)


def test_a_save_of_a_given_deal_keeps_it():
    orders = [list(reversed(p)) for p in Game.new(seed=2).to_dict()["piles"]]
    g = Game.new(seed=2, pile_orders=orders)
    random_play(g, 6)
    loaded = Game.from_dict(json.loads(json.dumps(g.to_dict())))
    assert Game.replay(loaded.record()).to_dict() == g.to_dict()


# ---------------------------------------------------------------- bug 2: to_dict is a snapshot

def test_to_dict_is_an_independent_snapshot():
    g = Game.new(players=3, seed=1)
    random_play(g, 10, seed=1)
    snap = g.to_dict()
    frozen = json.dumps(snap, sort_keys=True)
    random_play(g, 30, seed=2)                      # play on: the snapshot must not move
    assert json.dumps(snap, sort_keys=True) == frozen
    before = json.dumps(g.to_dict(), sort_keys=True)
    snap["piles"][0].clear()                         # editing the snapshot must not edit the game
    snap["players"][0]["slots"][0].append(99)
    snap["palace"]["elements"].clear()
    assert json.dumps(g.to_dict(), sort_keys=True) == before
    rec = g.record()
    rec["actions"].clear()
    assert g.history


# ---------------------------------------------------------------- bug 3: edited data reach both engines

@pytest.fixture(scope="module")
def edited_configs(tmp_path_factory) -> Path:
    """A copy of configs/ whose map 1 blocks stud (2, 10) and whose first card is worth 9 bananas."""
    cfg = tmp_path_factory.mktemp("edited") / "configs"
    shutil.copytree(default_config_dir(), cfg, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    map1 = cfg / "maps" / "map1.yaml"
    text = map1.read_text().splitlines()
    grid_start = next(i for i, line in enumerate(text) if line.startswith("grid:")) + 1
    row = text[grid_start + 10]
    col = len(row) - len(row.lstrip()) + 2
    assert row[col] == "l"
    text[grid_start + 10] = row[:col] + "#" + row[col + 1:]
    map1.write_text("\n".join(text) + "\n")
    cards = cfg / "cards.yaml"
    before, after = "- {bananas: 0, instant: [arch_or_brick]", "- {bananas: 9, instant: [arch_or_brick]"
    cards.write_text(cards.read_text().replace(before, after, 1))
    return cfg


def test_an_edited_map_and_card_reach_both_engines(edited_configs):
    options = GameOptions(config_dir=str(edited_configs), seed=3)
    ref = Game.from_options(options)
    shipped = Game.new(seed=3)
    assert ref.palace.knob[10, 2] != shipped.palace.knob[10, 2]        # the blocked stud, (x, y) = (2, 10)
    assert ref.data.cards[0].bananas == 9

    jg = jax_game_for(options)
    assert jg.data.fingerprint_without_map == ref.data.fingerprint_without_map
    state = jg.init(jax.random.PRNGKey(3), jg.params(options))
    assert np.array_equal(np.asarray(state.knob), ref.palace.knob)
    assert np.array_equal(np.asarray(state.height), ref.palace.height)
    assert int(state.card_bananas[0]) == 9          # the edited card reaches the JAX state
    # The same deal on the reference engine sees the same first decision.
    same = Game.from_options(options, pile_orders=jg.pile_orders(state))
    assert np.array_equal(np.asarray(jg.legal_action_mask(state)), same.legal_mask())
    # A JaxGame made from edited data plays its own map, not the shipped one.
    from monkey_env.monkey_palace.jaxgame.env import JaxGame
    own = JaxGame(data=ref.data)
    assert np.array_equal(np.asarray(own.default_params.start_knob), ref.palace.knob)
    with pytest.raises(ValueError, match="config_dir"):
        own.params(GameOptions())                                         # options of other data


def test_make_takes_the_config_dir(edited_configs):
    env = monkey_env.make("monkey_palace_v0", config_dir=str(edited_configs))
    env.reset(seed=0)
    raw = env.unwrapped
    assert raw.options.config_dir == str(edited_configs)
    assert np.array_equal(np.asarray(raw.state.knob), Game.from_options(raw.options).palace.knob)


def test_a_save_of_edited_data_loads_from_its_options(edited_configs, tmp_path):
    g = Game.from_options(GameOptions(config_dir=str(edited_configs), seed=5))
    random_play(g, 7)
    g.save(tmp_path / "g.json")
    assert Game.load(tmp_path / "g.json").to_dict() == g.to_dict()


# ---------------------------------------------------------------- one options object

def test_the_flags_and_the_save_schema_come_from_the_options_model():
    p = argparse.ArgumentParser()
    add_option_flags(p, GameOptions)
    flags = {a.dest for a in p._actions} - {"help"}
    assert flags == set(GameOptions.model_fields)
    args = p.parse_args(["--players", "3", "--map", "2", "--frog", "--monkey-move", "mandatory"])
    o = options_from_args(GameOptions, args)
    assert (o.players, o.map, o.frog, o.monkey_move) == (3, "2", True, "mandatory")
    with pytest.raises(OptionsError, match="--players"):
        options_from_args(GameOptions, p.parse_args(["--players", "5"]))
    assert SaveModel.model_fields["options"].annotation is GameOptions
    assert RecordModel.model_fields["options"].annotation is GameOptions


def test_options_travel_whole_through_saves_records_and_environments(tmp_path):
    o = GameOptions(players=3, map=2, butterfly=True, monkey_move="mandatory", end_trigger="last_taken", seed=9)
    g = Game.from_options(o)
    random_play(g, 4)
    assert Game.replay(g.record()).options == o
    assert Game.from_dict(g.to_dict()).options == o
    env = monkey_env.make("monkey_palace_v0", options=o.replace(reward_mode="zero_sum"))
    assert env.unwrapped.options.monkey_move == "mandatory" and env.unwrapped.reward_mode == "zero_sum"


# ---------------------------------------------------------------- bug 4: one definition of a win

def test_places_follow_the_rulebook_tie_break():
    assert places([10, 10, 7], tie_break_seat=1) == [2, 1, 3]
    assert winners([10, 10, 7], tie_break_seat=1) == [1]
    assert winners([10, 10, 7], tie_break_seat=2) == [0, 1]       # the holder is not among the tied
    assert places([10, 10, 7]) == [1, 1, 3]
    assert win_shares([10, 10, 7]) == [0.5, 0.5, 0.0]
    assert win_shares([3, 9]) == [0.0, 1.0]


def test_both_engines_rank_a_finished_game_alike():
    jg = jax_game_for()
    for seed in range(3):
        g = Game.new(players=2 + seed, seed=seed)
        rng = np.random.default_rng(seed)
        while not g.game_over:
            g.apply(int(rng.choice(g.legal_actions())))
        state = jax_state_from_game(jg, g)
        assert jg.places(state) == g.places()
        assert [s for s, p in enumerate(g.places()) if p == 1] == g.winners()


# ---------------------------------------------------------------- every command takes --config-dir and --game

def test_simulate_plays_the_config_dir_it_is_given(edited_configs, tmp_path, capsys):
    from monkey_env.apps.cli import main

    assert main(["simulate", "--games", "2", "--config-dir", str(edited_configs), "--seed", "3", "--quiet",
                 "--out", str(tmp_path)]) == 0
    saved = Game.load(tmp_path / "game_3.json")
    assert saved.options.config_dir == str(edited_configs)
    assert saved.data.cards[0].bananas == 9
    assert int(saved.palace.ground[10, 2]) != int(Game.new(seed=3).palace.ground[10, 2])


@pytest.mark.parametrize("argv, words", [
    (["simulate", "--players", "5"], ["--players", "5"]),
    (["simulate", "--games", "0"], ["--games", "0"]),
    (["simulate", "--seed", "-5"], ["--seed", "-5"]),
    (["evaluate", "--agents", "random", "--games", "0"], ["--games", "0"]),
    (["evaluate", "--agents", "random", "--seed", "-5"], ["--seed"]),
])
def test_bad_option_values_are_one_line_errors_naming_the_flag(argv, words, capsys):
    from monkey_env.apps.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("monkey-palace: error:") and err.count("\n") == 1, err
    for w in words:
        assert w in err


def test_every_command_takes_game_and_config_dir():
    from monkey_env.apps.cli import main

    for command in ("simulate", "show", "bench", "tournament", "report", "play", "balance", "evaluate", "train"):
        with pytest.raises(SystemExit) as e:
            main([command, "--help"])
        assert e.value.code == 0
    with pytest.raises(SystemExit):
        main(["simulate", "--game", "no_such_game"])


def test_the_text_view_has_a_legend_and_the_staircases_owners():
    from monkey_env.monkey_palace.text_view import game_text

    g = Game.new(players=2, seed=1)
    random_play(g, 30)
    text = game_text(g)
    assert "legend:" in text and "A = arch end knob" in text
    owners = [e["owner"] for e in g.palace.elements if e["kind"] == "decoration" and e["owner"] >= 0]
    assert owners and f"seat {owners[0] + 1} " in text.split("staircases")[1]
    # The list breaks between whole entries and stays within the text view's width.
    listed = text.split("staircases (decoration at x, y, height): ")[1].split("\nround ")[0]
    assert all(len(line) <= 100 for line in listed.splitlines())
    entries = [e.strip() for e in " ".join(listed.split()).split(";")]
    assert len(entries) == len(owners) and all(e.startswith("seat ") and e.count("(") == 1 for e in entries)
