"""Balance tuning of The Shadow Theater and Forbidden City (their tune parts: monkey_env/<game>/apps/tune.py):
a bad space file refused with one clear error naming the file and the number, the default
space starting from the shipped data, one compilation for every trial (the numbers are traced
values of the JAX engine), the traced values playing as the same numbers do on the reference
engine, and a tiny tune whose configs/ folder loads and plays. (Monkey Palace's: test_tune.py.)

The evaluators are built once per game (module fixtures) with the same settings as the tiny
tunes, so the engines and agents they compile serve the whole file."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from monkey_env.apps.tune.objective import Bands
from monkey_env.core.tuning import SpaceError
from monkey_env.games import game_spec

# The tiny tune of each game: its CLI arguments, and the same as TuneSettings for the fixture.
TINY = {
    "shadow_theater": dict(players=(2,), agents=("greedy",), games=3, skill_games=1, seed=3),
    "forbidden_city": dict(players=(2, 3), agents=("random",), games=2, skill_games=0, seed=3),
}


def _evaluator(game):
    from monkey_env.apps.tune.study import EngineEvaluator, TuneSettings

    settings = TuneSettings(game=game, space=None, config_dir=None, maps=(0,), **TINY[game])
    return EngineEvaluator(settings, Bands({2: (1.0, 30.0), 3: (1.0, 30.0)}))


@pytest.fixture(scope="module")
def st():
    return _evaluator("shadow_theater")


@pytest.fixture(scope="module")
def fc():
    return _evaluator("forbidden_city")


def space_of(tmp_path, game, text):
    part = game_spec(game).load("tune")
    f = tmp_path / "space.yaml"
    f.write_text(textwrap.dedent(text))
    return part.load_space(str(f), None)


def _escaped(message: str) -> str:
    return message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(").replace(")", r"\)")


# ------------------------------------------------------------------ the space files
@pytest.mark.parametrize("game", ["shadow_theater", "forbidden_city"])
def test_the_default_space_starts_from_the_shipped_data_as_the_engine_plays_it(game):
    part = game_spec(game).load("tune")
    space = part.load_space(None, None)
    assert space.source == str(part.default_space_path()) and space.source.endswith(f"{game}_space.yaml")
    assert space.changes(space.start()) == []
    values = space.values(space.start())
    jg = part.jax_game(None, space)
    shipped = jg.params() if game == "shadow_theater" else jg.params(players=2)
    for name, v in values.items():
        assert np.array_equal(np.asarray(getattr(shipped, name)), v), name
    assert set(space.objective.weights) == set(space.terms)


@pytest.mark.parametrize("text, message", [
    ("numbers:\n  - {number: game.lanterns_to_win, low: 3, high: 5}\n", "starting data's value 2 is outside [3, 5]"),
    ("numbers:\n  - {number: game.lanterns_to_win, low: 1, high: 6}\n", "outside the range of a lanterns number [1, 5]"),
    ("numbers:\n  - {number: weapons.cloud-staff.amount, low: 0, high: 2}\n", "a move_king card has no amount"),
    ("numbers:\n  - {number: weapons.jade-sword.points, low: 0, high: 2}\n", "unknown weapon kind 'jade-sword'"),
    ("numbers:\n  - {number: scrolls.armoury.points, low: 0, high: 2}\n", "not a tunable number"),
    ("numbers:\n  - {number: game.scoring.points_per_card, low: 0, high: 2}\n", "not read by the engines"),
    ("numbers:\n  - {number: game.scoring.jade_per_set, low: 0, high: 4}\n", "range of a jade per set number [1, 9]"),
    ("numbers:\n  - {number: weapons.war-drum.amount, low: 1, high: 3}\n"
     "  - {number: weapons.war-drum.amount, low: 2, high: 3}\n", "listed twice"),
    ("numbers:\n  - {number: game.lanterns_to_win, low: 2, high: 3}\nobjective: {weights: {cards: 1}}\n",
     "unknown terms ['cards']; this game's terms: seat, skill, length, scrolls"),
    ("game: forbidden_city\nnumbers:\n  - {number: game.lanterns_to_win, low: 2, high: 3}\n",
     "game 'forbidden_city': this is the space of shadow_theater"),
])
def test_a_bad_shadow_theater_space_file_is_refused_with_one_clear_error(tmp_path, text, message):
    with pytest.raises(SpaceError, match=_escaped(message)) as e:
        space_of(tmp_path, "shadow_theater", text)
    assert str(e.value).startswith(str(tmp_path / "space.yaml")) and "\n" not in str(e.value)


@pytest.mark.parametrize("text, message", [
    ("numbers:\n  - {number: coins.dragon, low: 4, high: 6}\n", "starting data's value 3 is outside [4, 6]"),
    ("numbers:\n  - {number: coins.dragon, low: -1, high: 6}\n", "outside the range of a coins number [0, 10]"),
    ("numbers:\n  - {number: tiles.stack.4.advisors, low: 0, high: 4}\n", "outside the range of a advisors number [0, 3]"),
    ("numbers:\n  - {number: tiles.stack.30.dragon, low: 0, high: 1}\n", "stack has tiles 1 to 24, not '30'"),
    ("numbers:\n  - {number: tiles.deck.1.dragon, low: 0, high: 1}\n", "the lists stack, two_player_extras"),
    ("numbers:\n  - {number: tiles.stack.1.sides, low: 0, high: 1}\n", "not a tunable number"),
    ("numbers:\n  - {number: coins.dragon, low: 2, high: 6}\nobjective: {weights: {length: 1}}\n",
     "unknown terms ['length']; this game's terms: seat, skill"),
    ("numbers:\n  - {number: coins.dragon, low: 2.5, high: 6}\n", "low"),
])
def test_a_bad_forbidden_city_space_file_is_refused_with_one_clear_error(tmp_path, text, message):
    with pytest.raises(SpaceError, match=_escaped(message)) as e:
        space_of(tmp_path, "forbidden_city", text)
    assert str(e.value).startswith(str(tmp_path / "space.yaml")) and "\n" not in str(e.value)


# ------------------------------------------------------------------ one compilation, the same numbers
def _st_sizes(ev):
    from monkey_env.shadow_theater.agents.greedy import _batch_policy

    jg = ev.jg
    return (jg._batch_init._cache_size(), jg.batch_step._cache_size(), jg.batch_legal_mask._cache_size(),
            _batch_policy(jg)._cache_size())


def _fc_sizes(ev):
    jg = ev.jg
    return (jg._batch_init._cache_size(), jg.batch_step._cache_size(), jg.batch_legal_mask._cache_size(),
            jg._batch_places._cache_size())


CANDIDATES = {
    "shadow_theater": [{"game.lanterns_to_win": 3, "scrolls.dragons-favour.amount": 2, "game.starting_monkeys.other": 6},
                       {"weapons.pearl-of-the-dragon.points": 5, "game.scoring.jade_majority_points": 1}],
    "forbidden_city": [{"coins.dragon": 5, "tiles.stack.4.advisors": 1, "tiles.stack.1.dragon": 0},
                       {"coins.tile": 2, "coins.end_advisor": 0}],
}


@pytest.mark.parametrize("game", ["shadow_theater", "forbidden_city"])
def test_one_compilation_serves_every_trial(game, request):
    ev = request.getfixturevalue({"shadow_theater": "st", "forbidden_city": "fc"}[game])
    sizes_of = _st_sizes if game == "shadow_theater" else _fc_sizes
    start = ev.space.start()
    first = ev.table(start)
    sizes = sizes_of(ev)
    assert all(s >= 1 for s in sizes)
    others = [ev.table(start | c) for c in CANDIDATES[game]]
    assert sizes_of(ev) == sizes                       # no new trace, no new compilation
    same = ev.table(start)
    assert np.array_equal(same.seat_games[0].win_shares, first.seat_games[0].win_shares)   # deterministic
    assert all(len(t.seat_games[0].rounds) == len(first.seat_games[0].rounds) for t in others)


def test_shadow_theater_traced_values_play_as_the_same_numbers_on_the_reference_engine(st, tmp_path):
    """The reference engine reads the tuned configs/ folder, the JAX engine plays the shipped
    data with the candidate's traced values; every decision agrees."""
    from monkey_env.shadow_theater.jaxgame.parity import differential_batch
    from monkey_env.shadow_theater.options import ShadowTheaterOptions

    space = st.space
    cand = space.start() | CANDIDATES["shadow_theater"][0] | CANDIDATES["shadow_theater"][1]
    folder = space.write_configs(cand, tmp_path / "configs")
    out = differential_batch(st.jg, 0, 6, seed=5, options=ShadowTheaterOptions(config_dir=str(folder)),
                             values=space.values(cand))
    assert out["decisions"] > 100


def test_forbidden_city_traced_values_play_as_the_same_numbers_on_the_reference_engine(fc, tmp_path):
    from monkey_env.forbidden_city.game_data import load_game_data
    from monkey_env.forbidden_city.jaxgame.parity import differential_batch

    space = fc.space
    cand = space.start() | CANDIDATES["forbidden_city"][0] | {"coins.end_advisor": 2, "tiles.stack.7.advisors": 2}
    folder = space.write_configs(cand, tmp_path / "configs")
    data = load_game_data(folder)
    assert data.table.coins.dragon == 5 and data.tiles.stack[3].advisors == 1
    out = differential_batch(fc.jg, 0, 3, seed=5, values=space.values(cand), data=data)
    assert out["decisions"] > 50


# ------------------------------------------------------------------ a tiny tune, end to end
def _tiny_args(game, out):
    t = TINY[game]
    return ["tune", "--game", game, "--players", ",".join(map(str, t["players"])), "--agents", ",".join(t["agents"]),
            "--trials", "3", "--games", str(t["games"]), "--skill-games", str(t["skill_games"]),
            "--validation-games", str(t["games"]), "--seed", str(t["seed"]), "--out", str(out), "--quiet"]


@pytest.mark.parametrize("game", ["shadow_theater", "forbidden_city"])
def test_a_tiny_tune_writes_a_report_and_a_configs_folder_that_loads_and_plays(game, tmp_path, request):
    from monkey_env.apps.cli import main

    ev = request.getfixturevalue({"shadow_theater": "st", "forbidden_city": "fc"}[game])
    sizes_of = _st_sizes if game == "shadow_theater" else _fc_sizes
    ev.table(ev.space.start())
    sizes = sizes_of(ev)
    spec = game_spec(game)
    out = tmp_path / "tune"
    assert main(_tiny_args(game, out)) == 0
    assert sizes_of(ev) == sizes           # the tune's trials and validation compiled nothing new
    for name in ("report.md", "report.html", "summary.json", "study.sqlite", "figures/history.png",
                 "figures/pareto.png", "figures/validation_seats.png", f"configs/{game}"):
        assert (out / name).exists(), name
    text = (out / "report.md").read_text()
    assert text.startswith(f"# {spec.title} balance tune")
    assert f"Score: {spec.score_name}; win rule: {spec.win_rule}" in text
    assert "Numbers changed" in text and "fresh deals" in text
    terms = list(game_spec(game).load("tune").Space.load(None, game_spec(game).load("tune").load_data(None)).terms)
    assert "| data | total | " + " | ".join(terms) + " |" in text
    # The folder loads and plays, on both engines, through --config-dir.
    assert main(["simulate", "--game", game, "--games", "1", "--config-dir", str(out / "configs"), "--quiet"]) == 0
    from monkey_env.agents.registry import make_batch_agent
    from monkey_env.apps.results_table import play_jax

    options = spec.load("options")(config_dir=str(out / "configs"))
    agents = [make_batch_agent("random", seed=s, game=game) for s in range(options.players)]
    results = play_jax(agents, options, seeds=[0, 1], names=[f"random{s}" for s in range(options.players)])
    assert len(results.seed) == 2 and not any(results.end_trigger == "illegal action")


def test_the_shadow_theater_tuned_numbers_reach_the_written_folder(st, tmp_path):
    from monkey_env.shadow_theater.apps.tune import TUNE
    from monkey_env.shadow_theater.game_data import load_game_data

    space = st.space
    cand = space.start() | CANDIDATES["shadow_theater"][0]
    folder = space.write_configs(cand, tmp_path / "configs", header="a test")
    data = load_game_data(folder)
    assert data.game.lanterns_to_win == 3 and data.game.starting_monkeys == {"starter": 3, "other": 6}
    assert next(s for s in data.scrolls if s.name == "Dragon's Favour").amount == 2
    assert (folder / "shadow_theater" / "game.yaml").read_text().startswith("# a test\n")
    assert [c["where"] for c in TUNE.data_changes(space.data, data)] == [
        "Dragon's Favour amount", "lanterns_to_win", "starting_monkeys other"]
    # The engine's start-scroll loop is long enough for the space's largest draw.
    assert st.jg.max_start_cards == space.most_start_cards() == 2
