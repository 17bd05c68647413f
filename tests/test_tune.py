"""Balance tuning (monkey_env/apps/tune): the space file refused when wrong, the objective on
synthetic game tables with known win rates, one compilation for every trial, the traced values
playing as the same numbers do on the reference engine, a killed study resumed, the Ray backend,
and a tiny tune whose configs/ folder loads and plays."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from monkey_env.apps.tune.objective import (
    Bands,
    GameTable,
    ObjectiveConfig,
    SeatGames,
    SkillGames,
    card_lifts,
    evaluate,
)
from monkey_env.core.tuning import SpaceError
from monkey_env.monkey_palace.apps.tune import Space, default_space_path
from monkey_env.monkey_palace.game_data import load_game_data

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def data():
    return load_game_data(1)


def space_of(tmp_path, text: str, data) -> Space:
    f = tmp_path / "space.yaml"
    f.write_text(textwrap.dedent(text))
    return Space.load(f, data)


# ------------------------------------------------------------------ the space file
def test_the_default_space_loads_and_starts_from_the_shipped_data(data):
    space = Space.load(None, data)
    assert space.source == str(default_space_path())
    start = space.start()
    assert start["boards.seat1.starting.bricks"] == 2 and start["tray.bonus.points"] == 4
    assert space.changes(start) == []
    v = space.values(start)
    assert v["board_start"].tolist() == [[3, 2, 0], [3, 3, 0], [3, 4, 0], [3, 5, 0]]
    assert v["card_bananas"].tolist() == [c.bananas for c in data.cards]


@pytest.mark.parametrize("text, message", [
    ("numbers:\n  - {number: tray.bonus.points, low: 2, high: 6, step: 1}\n", "step"),
    ("numbers:\n  - {number: tray.bonus.points, low: 2, high: 6}\ncolour: red\n", "colour"),
    ("numbers:\n  - {number: tray.bonus.points, low: 2.5, high: 6}\n", "low"),
    ("numbers:\n  - {number: tray.bonus.points, low: '2', high: 6}\n", "low"),
    ("numbers:\n  - {number: tray.bonus.points, low: 5, high: 6}\n", "starting data's value 4 is outside [5, 6]"),
    ("numbers:\n  - {number: tray.bonus.points, low: 6, high: 2}\n", "must be below high"),
    ("numbers:\n  - {number: cards.multi-2.bananas_shift, low: -1, high: 1}\n", "outside the range of a bananas number"),
    ("numbers:\n  - {number: boards.seat1.starting.bricks, low: -1, high: 3}\n", "outside the range of a starting number"),
    ("numbers:\n  - {number: tray.trophies.frog, low: -30, high: 0}\n", "outside the range of a trophy number"),
    ("numbers:\n  - {number: cards.gold-5.cost, low: 4, high: 6}\n", "cost is not tunable"),
    ("numbers:\n  - {number: cards.gold-9.cost, low: 4, high: 6}\n", "unknown pile 'gold-9'"),
    ("numbers:\n  - {number: cards.gold-5.9.bananas, low: 0, high: 6}\n", "has cards 1 to 5, not 9"),
    ("numbers:\n  - {number: boards.seat5.starting.bricks, low: 0, high: 6}\n", "not a tunable number"),
    ("numbers:\n  - {number: tray.bonus.points, low: 2, high: 6}\n  - {number: tray.bonus.points, low: 3, high: 5}\n",
     "listed twice"),
    ("numbers:\n  - {number: cards.gold-5.1.bananas, low: 3, high: 6}\n"
     "  - {number: cards.gold-5.bananas_shift, low: -1, high: 1}\n", "also set one by one"),
    ("numbers: []\n", "numbers"),
    ("numbers:\n  - {number: tray.bonus.points, low: 2, high: 6}\nobjective: {weights: {seats: 1}}\n", "unknown terms"),
    ("numbers: [\n", "not valid YAML"),
])
def test_a_bad_space_file_is_refused_with_a_clear_error(tmp_path, data, text, message):
    with pytest.raises(SpaceError, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        space_of(tmp_path, text, data)


def test_a_candidate_becomes_a_configs_folder_of_the_same_numbers(tmp_path, data):
    space = Space.load(None, data)
    cand = space.start() | {"boards.seat1.starting.bricks": 4, "cards.multi-6.bananas_shift": -1,
                            "tray.trophies.monkey": 3}
    folder = space.write_configs(cand, tmp_path / "configs")
    for m in (1, 2, 3, 4):
        tuned = load_game_data(m, config_dir=folder)
        assert tuned.boards.boards[0].starting.bricks == 4 and tuned.tray.trophies.monkey == 3
    multi6 = data.pile_cards[2]
    assert [tuned.cards[c].bananas for c in multi6] == [data.cards[c].bananas - 1 for c in multi6]
    v = space.values(cand)
    assert v["card_bananas"].tolist() == [c.bananas for c in tuned.cards]
    assert [c["number"] for c in space.changes(cand)] == ["boards.seat1.starting.bricks", "tray.trophies.monkey",
                                                           "cards.multi-6.bananas_shift"]


# ------------------------------------------------------------------ the objective
def seat_games(agent, players, wins_per_seat, n, rounds=10.0, owner=None):
    """n games whose seat s wins wins_per_seat[s] * n of them (sole wins)."""
    shares = np.zeros((n, players))
    winners = np.repeat(np.arange(players), np.round(np.asarray(wins_per_seat) * n).astype(int))
    shares[np.arange(n), winners] = 1
    return SeatGames(agent, players, shares, np.full(n, rounds), owner)


def test_the_objective_on_tables_with_known_win_rates():
    cfg = ObjectiveConfig(weights={"seat": 1, "skill": 2, "length": 1, "cards": 0}, skill_margin=0.3,
                          length_tolerance=0.1)
    table = GameTable(
        seat_games=[seat_games("greedy", 2, [0.6, 0.4], 100, rounds=12.0),   # RMS 10 points, spread 20
                    seat_games("greedy", 4, [0.25] * 4, 100, rounds=6.0)],    # fair: 0
        skill_games=[SkillGames("greedy", "random", np.r_[np.ones(70), np.zeros(30)])])  # 70% < 80%: 10 short
    bands = Bands({2: (9.0, 11.0), 4: (5.4, 6.6)})     # 2p mean 12 is 1 round above 11: 10% of 10
    ev = evaluate(table, cfg, bands)
    assert ev.terms["seat"] == pytest.approx(5.0)      # mean of 10 and 0
    assert ev.detail["seat"]["greedy 2p"]["spread_points"] == pytest.approx(20.0)
    assert ev.terms["skill"] == pytest.approx(10.0)
    assert ev.terms["length"] == pytest.approx(5.0)    # mean of 10 % and 0 %
    assert ev.total == pytest.approx(5.0 + 2 * 10.0 + 5.0)
    fair = GameTable([seat_games("greedy", 2, [0.5, 0.5], 100, 10.0)],
                     [SkillGames("greedy", "random", np.ones(10))])
    assert evaluate(fair, cfg, bands).total == 0.0


def test_shared_wins_count_a_share_and_card_lift_is_buyers_minus_non_buyers():
    n = 200
    shares = np.zeros((n, 2))
    shares[:100, 0] = 1                       # seat 1 wins games 0-99
    shares[100:150, 1] = 1                    # seat 2 wins 100-149
    shares[150:] = 0.5                        # 50 ties: half a win each
    owner = np.full((n, 3), -1)
    owner[:100, 0] = 0                        # card 0: bought by seat 1 in the games it wins (lift +1 vs others)
    owner[:, 1] = np.tile([0, 1], n // 2)     # card 1: alternately by each seat
    g = SeatGames("greedy", 2, shares, np.full(n, 10.0), owner)
    ev = evaluate(GameTable([g]), ObjectiveConfig(card_threshold=0.1, card_min_games=30), Bands({2: (9, 11)}))
    rates = ev.detail["seat"]["greedy 2p"]["win_rates"]
    assert rates == pytest.approx([0.625, 0.375])
    lift = card_lifts(g, 30)
    # card 0: its 100 buyers win every game; the 300 other seat-games hold the other 100 wins
    assert lift[0] == pytest.approx(1.0 - 100 / 300)
    assert lift[1] == pytest.approx(0.0)      # bought by both seats alike
    assert np.isnan(lift[2])                  # never bought: not rated
    assert ev.detail["cards"]["greedy 2p"]["most_standing_out"] == 0
    assert ev.terms["cards"] > 0


# ------------------------------------------------------------------ the JAX engine: traced values, one compilation
@pytest.fixture(scope="module")
def evaluator():
    from monkey_env.apps.tune.study import EngineEvaluator, TuneSettings

    settings = TuneSettings(game="monkey_palace", space=None, config_dir=None, players=(2,), maps=(1, 2),
                            agents=("greedy",), games=2, skill_games=1, seed=3)
    return EngineEvaluator(settings, Bands({2: (1.0, 30.0)}))


def _cache_sizes(jg):
    from monkey_env.monkey_palace.agents.greedy import _batch_policy

    return (jg._batch_deal._cache_size(), jg._batch_act._cache_size(), jg._batch_resolve._cache_size(),
            jg.batch_legal_mask._cache_size(), _batch_policy(jg)._cache_size())


def test_one_compilation_serves_every_trial(evaluator):
    space = evaluator.space
    start = space.start()
    first = evaluator.table(start)
    sizes = _cache_sizes(evaluator.jg)
    assert all(s >= 1 for s in sizes)
    richer = start | {"tray.bonus.points": 6, "cards.multi-6.bananas_shift": 1, "boards.seat1.starting.bricks": 5}
    again = evaluator.table(richer)
    third = evaluator.table(start | {"tray.trophies.monkey": 0})
    assert _cache_sizes(evaluator.jg) == sizes            # no new trace, no new compilation
    same = evaluator.table(start)
    assert np.array_equal(same.seat_games[0].win_shares, first.seat_games[0].win_shares)  # deterministic
    assert len(again.seat_games[0].rounds) == len(third.seat_games[0].rounds) == 4


def test_traced_values_play_as_the_same_numbers_on_the_reference_engine(evaluator, tmp_path):
    """The differential test: the reference engine reads the tuned configs/ folder, the JAX engine
    plays the shipped data with the candidate's traced values; every decision agrees."""
    from monkey_env.monkey_palace.jaxgame.parity import differential_batch

    space = evaluator.space
    cand = space.start() | {"tray.bonus.points": 2, "cards.multi-6.bananas_shift": -2, "tray.trophies.monkey": 4,
                            "boards.seat1.starting.bricks": 6, "boards.seat2.starting.arches": 2}
    folder = space.write_configs(cand, tmp_path / "configs")
    out = differential_batch(evaluator.jg, 0, 4, seed=5, config_dir=str(folder), values=space.values(cand))
    assert out["decisions"] > 100


# ------------------------------------------------------------------ the study: kill and resume, Ray
FAKE = '''
import time
import numpy as np
from monkey_env.apps.tune.objective import Bands, GameTable, SeatGames, SkillGames, evaluate


class FakeEvaluator:
    """Seat 1 wins 50% + 5 points per brick it starts with above 2: known answers, no games."""

    def __init__(self, space, delay=0.0):
        self.space, self.delay, self.bands = space, delay, None

    def table(self, c):
        time.sleep(self.delay)
        p1 = 0.5 + 0.05 * (c["boards.seat1.starting.bricks"] - 2)
        n = 100
        shares = np.zeros((n, 2))
        k = int(round(p1 * n))
        shares[:k, 0], shares[k:, 1] = 1, 1
        return GameTable([SeatGames("greedy", 2, shares, np.full(n, 10.0))],
                         [SkillGames("greedy", "random", np.ones(10))])

    def __call__(self, c):
        return evaluate(self.table(c), self.space.objective, self.bands)
'''


def _settings(space_file):
    from monkey_env.apps.tune.study import TuneSettings

    return TuneSettings(game="monkey_palace", space=str(space_file), config_dir=None, players=(2,), maps=(1,), agents=("greedy",),
                        games=2, seed=0)


@pytest.fixture
def fake_module(tmp_path, monkeypatch):
    (tmp_path / "fake_tune.py").write_text(FAKE)
    (tmp_path / "space.yaml").write_text("numbers:\n  - {number: boards.seat1.starting.bricks, low: 0, high: 6}\n"
                                         "  - {number: tray.bonus.points, low: 2, high: 6}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    return importlib.import_module("fake_tune")


def test_a_killed_tune_resumes_the_same_study(tmp_path, fake_module):
    import sqlite3
    from contextlib import closing

    import optuna
    from optuna.trial import TrialState

    from monkey_env.apps.tune.study import STUDY_NAME, Tuner

    out = tmp_path / "run"
    script = tmp_path / "run_tune.py"
    script.write_text(textwrap.dedent(f'''
        import sys
        sys.path[:0] = [{str(tmp_path)!r}, {str(REPO)!r}]   # this checkout's package, not an installed one
        from fake_tune import FakeEvaluator
        from monkey_env.apps.tune.study import Tuner, TuneSettings
        s = TuneSettings(game="monkey_palace", space={str(tmp_path / "space.yaml")!r}, config_dir=None, players=(2,), maps=(1,),
                         agents=("greedy",), games=2, seed=0)
        t = Tuner(s, {str(out)!r})
        t._evaluator = FakeEvaluator(t.space, delay=0.4)
        t.run(100_000)   # more than it can finish: only the kill below ends it
    '''))
    proc = subprocess.Popen([sys.executable, str(script)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    storage = f"sqlite:///{out / 'study.sqlite'}"
    deadline = time.time() + 90
    done, last_error = 0, None
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.3)
        # Read the progress with a read-only connection: optuna.load_study here would create the
        # storage's tables too, racing the process that is creating them (on CI that race made it
        # fail with "UNIQUE constraint failed: alembic_version").
        try:
            with closing(sqlite3.connect(f"file:{out / 'study.sqlite'}?mode=ro", uri=True)) as db:
                done = db.execute("SELECT COUNT(*) FROM trials t JOIN studies s ON s.study_id = t.study_id "
                                  "WHERE s.study_name = ? AND t.state = 'COMPLETE'", (STUDY_NAME,)).fetchone()[0]
        except sqlite3.Error as error:   # no database or no tables yet, or it is busy
            last_error = error
            continue
        if done >= 3:
            break
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)        # as a stopped machine would: no clean-up at all
    proc.wait()
    assert done >= 3, (f"the tune process exited with {proc.returncode}; last error reading its study: "
                       f"{last_error!r}\n{proc.stderr.read().decode()[-2000:]}")
    study = optuna.load_study(study_name=STUDY_NAME, storage=storage)
    study_id = study._study_id
    before = study.get_trials()
    numbers_before = {t.number for t in before}
    bands_before = study.user_attrs["bands"]

    tuner = Tuner(_settings(tmp_path / "space.yaml"), out)
    tuner._evaluator = fake_module.FakeEvaluator(tuner.space)
    assert tuner.study._study_id == study_id
    assert not tuner.study.get_trials(states=(TrialState.RUNNING,))    # the interrupted trial is marked failed
    complete_before = len(tuner.finished())
    tuner.run(complete_before + 2)
    trials = tuner.study.get_trials()
    assert len(tuner.finished()) == complete_before + 2
    assert numbers_before < {t.number for t in trials}                   # the same study, continued
    assert trials[0].params == tuner.space.start()
    assert tuner.study.user_attrs["bands"] == bands_before    # calibrated once, by the first run
    # Another setting on the same folder is refused rather than mixed in.
    from dataclasses import replace
    with pytest.raises(ValueError, match="other settings"):
        Tuner(replace(_settings(tmp_path / "space.yaml"), games=3), out)


class FakeRayWorker:
    """Stands in for study._RayWorker on a Ray actor: the fake objective, no engine."""

    def __init__(self, settings, bands):
        from fake_tune import FakeEvaluator

        from monkey_env.apps.tune.objective import Bands

        self.evaluate = FakeEvaluator(settings.load_space())
        self.evaluate.bands = Bands({int(k): tuple(v) for k, v in bands.items()})

    def run(self, candidate):
        return self.evaluate(candidate).to_dict()


def test_the_ray_backend_runs_the_trials_on_ray_actors(tmp_path, fake_module):
    ray = pytest.importorskip("ray")
    from monkey_env.apps.tune.study import Tuner

    path = os.pathsep.join([str(tmp_path), str(REPO), *[p for p in sys.path if p]])
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", runtime_env={"env_vars": {"PYTHONPATH": path}})
    try:
        tuner = Tuner(_settings(tmp_path / "space.yaml"), tmp_path / "ray", backend="ray", workers=2,
                      ray_worker=FakeRayWorker)
        tuner._evaluator = fake_module.FakeEvaluator(tuner.space)
        assert tuner.run(5) == 5
    finally:
        ray.shutdown()
    ranked = tuner.ranked()
    assert len(ranked) == 5
    # The fake's fair point is seat 1 starting with 2 bricks: the best trial is never worse than trial 0.
    assert ranked[0].user_attrs["total"] <= tuner.start_trial().user_attrs["total"]


# ------------------------------------------------------------------ a tiny tune, end to end
def test_a_tiny_tune_writes_a_report_and_a_configs_folder_that_loads_and_plays(tmp_path, evaluator):
    from monkey_env.agents.registry import make_agent
    from monkey_env.apps.cli import main
    from monkey_env.monkey_palace.apps.play_games import play_game
    from monkey_env.monkey_palace.options import GameOptions

    out = tmp_path / "tune"
    # The same games per cell as the evaluator fixture: the compiled engine and agents serve this run too.
    rc = main(["tune", "--players", "2", "--maps", "1,2", "--agents", "greedy", "--trials", "3", "--games", "2",
               "--skill-games", "1", "--validation-games", "2", "--seed", "3", "--out", str(out), "--quiet"])
    assert rc == 0
    for name in ("report.md", "report.html", "summary.json", "study.sqlite", "figures/history.png",
                 "figures/pareto.png", "figures/validation_seats.png", "configs/cards.yaml", "configs/maps/map4.yaml"):
        assert (out / name).exists(), name
    text = (out / "report.md").read_text()
    assert "Numbers changed" in text and "fresh deals" in text
    assert text.startswith("# Monkey Palace balance tune") and "Score: Banana Points; win rule:" in text
    # where it comes from: the command, the commit, the machine (issue 31's provenance)
    prov = json.loads((out / "summary.json").read_text())["provenance"]
    assert "tune --players 2 --maps 1,2" in prov["command"] and prov["machine"]["cores"] >= 1
    assert f"by `{prov['command']}`" in text
    options = GameOptions(players=2, map="2", seed=1, config_dir=str(out / "configs"))
    game, result = play_game(options, [make_agent("random", 1), make_agent("random", 2)])
    assert game.game_over and result["rounds"] >= 2
    assert main(["simulate", "--games", "1", "--config-dir", str(out / "configs"), "--quiet"]) == 0


def test_the_bootstrap_interval_agrees_with_the_t_interval_on_a_mean_and_brackets_a_spread():
    from monkey_env.apps.balance import stats as S
    from monkey_env.apps.tune.validate import bootstrap_spread

    x = np.random.default_rng(0).normal(3.0, 1.0, 400)
    b, t = S.bootstrap(np.mean, x, draws=2000), S.mean_ci(x)
    assert b.value == pytest.approx(t.value)
    assert b.lo == pytest.approx(t.lo, abs=0.03) and b.hi == pytest.approx(t.hi, abs=0.03)
    shares = np.zeros((400, 2))
    shares[:240, 0], shares[240:, 1] = 1, 1                # seats win 60% and 40%: spread 20 points
    e = bootstrap_spread(shares)
    assert e.value == pytest.approx(0.2) and e.lo < 0.2 < e.hi and e.hi - e.lo < 0.25


@pytest.mark.parametrize("sampler", ["cmaes", "nsga2"])
def test_the_other_samplers_run_and_rank_by_the_weighted_total(tmp_path, fake_module, sampler):
    from dataclasses import replace

    from monkey_env.apps.tune.objective import TERMS
    from monkey_env.apps.tune.study import Tuner

    tuner = Tuner(replace(_settings(tmp_path / "space.yaml"), sampler=sampler), tmp_path / f"study_{sampler}")
    tuner._evaluator = fake_module.FakeEvaluator(tuner.space)
    assert tuner.run(6) == 6
    assert len(tuner.study.directions) == (len(TERMS) if sampler == "nsga2" else 1)
    totals = [t.user_attrs["total"] for t in tuner.ranked()]
    assert totals == sorted(totals) and tuner.study.trials[0].params == tuner.space.start()


def test_a_game_without_a_tune_space_is_refused_by_name(tmp_path, capsys):
    from monkey_env.apps.cli import main
    from monkey_env.games import GAMES

    untuned = [name for name, spec in GAMES.items() if not spec.has("tune")]
    tuned = [name for name, spec in GAMES.items() if spec.has("tune")]
    assert "monkey_palace" in tuned
    for name in untuned:
        assert main(["tune", "--game", name, "--trials", "1", "--out", str(tmp_path / name), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"tune: {name} has no tune space yet (games with one: {', '.join(tuned)})" in err, err
        assert not (tmp_path / name).exists()


def test_the_game_options_given_play_every_game_of_the_tune(tmp_path, monkeypatch):
    """``tune --build-action catalogue --butterfly``: the options that differ from the defaults are
    the study's settings (so a resumed study must match them) and reach the engine and its params."""
    import json

    from monkey_env.apps import cli
    from monkey_env.apps.tune import run
    from monkey_env.monkey_palace.jaxgame.rules import OPT_BUTTERFLY

    seen = []

    def fake_run_tune(settings, out, **kw):
        seen.append(settings)
        return {"headline": ["fake"], "configs": str(tmp_path / "configs")}

    monkeypatch.setattr(run, "run_tune", fake_run_tune)
    args = ["tune", "--trials", "1", "--players", "2", "--maps", "1", "--out", str(tmp_path / "out"), "--quiet"]
    assert cli.main(args + ["--build-action", "catalogue", "--butterfly"]) == 0
    assert cli.main(args) == 0
    given, plain = seen
    assert given.options == (("build_action", "catalogue"), ("butterfly", True))
    assert json.loads(given.to_json())["options"] == [["build_action", "catalogue"], ["butterfly", True]]
    assert plain.options == () and "options" not in json.loads(plain.to_json())   # older studies resume
    part = given.tune_part()
    jg = part.jax_game(None, None, dict(given.options))
    assert jg.build_action == "catalogue"
    assert bool(part.params(jg, 2, 1, dict(given.options)).options[OPT_BUTTERFLY])
    assert not bool(part.params(jg, 2, 1).options[OPT_BUTTERFLY])
    assert "played with build_action catalogue, butterfly True" in run._options_words(given.options)
    assert run._options_words(plain.options) == ""        # the report's method names only what was given


def test_a_space_file_of_another_game_is_refused_naming_both(tmp_path, data):
    with pytest.raises(SpaceError, match="game 'shadow_theater': this is the space of monkey_palace"):
        space_of(tmp_path, "game: shadow_theater\nnumbers:\n  - {number: tray.bonus.points, low: 2, high: 6}\n", data)
