"""The search: an optuna study over a Space, stored in SQLite (``DIR/study.sqlite``) so that a
stopped tune resumes where it was (run the same command again: ``--trials`` is the number of
finished trials the study should hold).

* Samplers: ``tpe`` (default), ``cmaes`` (single objective, the weighted total) and ``nsga2``
  (multi-objective: the game's terms, ``Space.terms``, minimised together).
* Trial 0 is the starting data: its games calibrate the game-length bands (stored in the study),
  so every later trial is measured against the same bands, and the history starts from it.
* Every trial plays the same deals (TrialPlan: common random numbers), so two candidates differ
  by their numbers, not by their luck; the validation replays the best on fresh deals.
* Backends: ``local`` (this process) or ``ray`` (one actor per worker keeps its own compiled
  engine; trials are asked from the study in rounds of ``workers``, played on Ray, told back).
* A trial left RUNNING by a killed process is marked FAIL when the study is opened again.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from monkey_env.apps.tune.objective import Bands, Evaluation, GameTable, evaluate
from monkey_env.core.tuning import SpaceError

SAMPLERS = ("tpe", "cmaes", "nsga2")
STUDY_NAME = "tune"


@dataclass(frozen=True)
class TuneSettings:
    """What defines a tune's games and numbers (a resumed study must have the same)."""

    space: str | None            # the space file (None: the game's default space file)
    config_dir: str | None       # the starting game data (None: the shipped configs/)
    game: str = ""               # the --game name; its ``tune`` part (monkey_env.games) has the space
    players: tuple[int, ...] = (2, 4)
    maps: tuple[int, ...] = (1, 2, 3, 4)
    agents: tuple[str, ...] = ("greedy", "ppo-sample")
    games: int = 64              # per (agent, players, map) in a trial
    skill_games: int | None = None
    seed: int = 0
    sampler: str = "tpe"
    # The game's options of every game played that differ from its defaults, as (name, value)
    # pairs (a rule reading, an expansion, a choice of action space): the game's tune part applies them.
    options: tuple[tuple[str, object], ...] = ()

    def to_json(self) -> str:
        fields = asdict(self)
        if not self.options:
            del fields["options"]     # a study from before options were recorded resumes unchanged
        return json.dumps(fields, sort_keys=True)

    def tune_part(self):
        """The game's ``tune`` part (monkey_env.games.PARTS); SpaceError when it has none."""
        from monkey_env.games import game_spec

        spec = game_spec(self.game)
        if not spec.has("tune"):
            tunable = ", ".join(tunable_games()) or "none"
            raise SpaceError(f"tune: {self.game} has no tune space (games with one: {tunable})")
        return spec.load("tune")

    def load_space(self):
        return self.tune_part().load_space(self.space, self.config_dir)

    def plan(self):
        from monkey_env.apps.tune.play import TrialPlan

        return TrialPlan.make(self.agents, self.players, self.maps, self.games, self.seed, self.skill_games,
                              max_players=self.tune_part().max_players())


def tunable_games() -> list[str]:
    """The registered games with a ``tune`` part."""
    from monkey_env.games import GAMES

    return [name for name, spec in GAMES.items() if spec.has("tune")]


class EngineEvaluator:
    """Plays a candidate's trial games on the JAX engine (one compiled engine for all)."""

    def __init__(self, settings: TuneSettings, bands: Bands | None = None):
        from monkey_env.apps.tune.play import TrialRunner

        self.settings = settings
        self.space = settings.load_space()
        options = dict(settings.options)
        self.jg = settings.tune_part().jax_game(settings.config_dir, self.space, options)
        self.runner = TrialRunner(self.jg, settings.plan(), settings.tune_part(), settings.game, options=options)
        self.bands = bands

    def table(self, candidate: dict, plan=None) -> GameTable:
        from monkey_env.apps.tune.play import game_table

        return game_table(self.runner.play(self.space.values(candidate), plan))

    def __call__(self, candidate: dict) -> Evaluation:
        if self.bands is None:
            raise RuntimeError("the game-length bands are not calibrated yet")
        return evaluate(self.table(candidate), self.space.objective, self.bands, self.space.terms)


class _RayWorker:
    """A Ray actor around an EngineEvaluator (undecorated so that importing needs no Ray)."""

    def __init__(self, settings: TuneSettings, bands: dict):
        self.evaluate = EngineEvaluator(settings, Bands({int(k): tuple(v) for k, v in bands.items()}))

    def run(self, candidate: dict) -> dict:
        t0 = time.perf_counter()
        out = self.evaluate(candidate).to_dict()
        out["seconds"] = time.perf_counter() - t0
        return out


def make_sampler(name: str, seed: int, space, n_startup: int = 8):
    import optuna

    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=n_startup, multivariate=True)
    if name == "cmaes":
        # Its mean starts at the space's centre (optuna deprecated x0); trial 0 is the starting data.
        return optuna.samplers.CmaEsSampler(seed=seed, n_startup_trials=1, warn_independent_sampling=False)
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=max(4, min(16, 2 * len(space.numbers))))
    raise ValueError(f"unknown sampler {name!r}; samplers: {', '.join(SAMPLERS)}")


class Tuner:
    """One tune's study: open (or resume) it, run trials until it holds ``n_trials`` finished ones."""

    def __init__(self, settings: TuneSettings, out: str | Path, *, backend: str = "local", workers: int | None = None,
                 evaluator: Callable | None = None, progress: Callable[[str], None] | None = None,
                 ray_worker: type | None = None):
        import optuna

        if settings.sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {settings.sampler!r}; samplers: {', '.join(SAMPLERS)}")
        if backend not in ("local", "ray"):
            raise ValueError(f"unknown backend {backend!r}: local or ray")
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
        self.settings, self.backend, self.workers = settings, backend, workers
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.space = settings.load_space()
        self._evaluator = evaluator
        self.ray_worker = ray_worker or _RayWorker   # a class (settings, bands) with run(candidate) -> dict
        self.progress = progress or (lambda line: None)
        self.storage = f"sqlite:///{self.out / 'study.sqlite'}"
        self.multi = settings.sampler == "nsga2"
        self.study = self._open()

    # ------------------------------------------------------------ the study
    def _open(self):
        import optuna
        from optuna.trial import TrialState

        directions = ["minimize"] * (len(self.space.terms) if self.multi else 1)
        probe = optuna.create_study(study_name=STUDY_NAME, storage=self.storage, load_if_exists=True,
                                    directions=directions)
        done = len(probe.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
        sampler = make_sampler(self.settings.sampler, self.settings.seed + done, self.space)
        study = optuna.load_study(study_name=STUDY_NAME, storage=self.storage, sampler=sampler)
        stored = study.user_attrs.get("settings")
        if stored is None:
            study.set_user_attr("settings", json.loads(self.settings.to_json()))
            study.set_user_attr("numbers", self.space.names)
        elif stored != json.loads(self.settings.to_json()):
            raise ValueError(f"{self.out}: its study was made with other settings ({stored}); "
                             "use another --out or the same settings")
        stale = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        for t in stale:   # left by a killed process: its games are lost, the trial failed
            study._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
        if stale:
            self.progress(f"resumed: {len(stale)} unfinished trial(s) of a stopped run marked failed")
        return study

    def finished(self) -> list:
        from optuna.trial import TrialState

        return self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))

    @property
    def bands(self) -> Bands | None:
        b = self.study.user_attrs.get("bands")
        return None if b is None else Bands({int(k): tuple(v) for k, v in b.items()})

    def evaluator(self):
        if self._evaluator is None:
            self._evaluator = EngineEvaluator(self.settings, self.bands)
        if getattr(self._evaluator, "bands", None) is None:   # a resumed study: its stored bands
            self._evaluator.bands = self.bands
        return self._evaluator

    # ------------------------------------------------------------ trials
    def _suggest(self, trial) -> dict:
        return {n.name: trial.suggest_int(n.name, n.bound.low, n.bound.high) for n in self.space.numbers}

    def _tell(self, trial, ev: dict, seconds: float) -> None:
        trial.set_user_attr("terms", ev["terms"])
        trial.set_user_attr("total", ev["total"])
        trial.set_user_attr("seconds", seconds)
        trial.set_user_attr("spreads", {k: v["spread_points"] for k, v in ev["detail"]["seat"].items()})
        trial.set_user_attr("detail", ev["detail"])
        values = [ev["terms"][t] for t in self.space.terms] if self.multi else ev["total"]
        self.study.tell(trial, values)
        self.progress(f"trial {trial.number}: total {ev['total']:.2f} "
                      + " ".join(f"{t} {ev['terms'][t]:.2f}" for t in self.space.terms) + f" ({seconds:.0f} s)")

    def _start_trial(self) -> None:
        """Trial 0: the starting data, which calibrates the game-length bands."""
        ev_fn = self.evaluator()
        self.study.enqueue_trial(self.space.start(), skip_if_exists=False)
        trial = self.study.ask()
        t0 = time.perf_counter()
        try:
            if self.bands is None:
                table = ev_fn.table(self._suggest(trial))
                bands = Bands.calibrate(table, self.space.objective.length_tolerance)
                self.study.set_user_attr("bands", {str(k): list(v) for k, v in bands.rounds.items()})
                ev_fn.bands = bands
                ev = evaluate(table, self.space.objective, bands, self.space.terms)
            else:
                ev = ev_fn(self._suggest(trial))
        except BaseException:
            self.study.tell(trial, state=_failed())
            raise
        self._tell(trial, ev.to_dict(), time.perf_counter() - t0)

    def run(self, n_trials: int) -> int:
        """Play trials until the study holds n_trials finished ones; returns how many ran now."""
        ran = 0
        if not any(t.params == self.space.start() for t in self.finished()):
            if len(self.finished()) < n_trials:
                self._start_trial()
                ran += 1
        if self.backend == "ray":
            return ran + self._run_ray(n_trials)
        while len(self.finished()) < n_trials:
            trial = self.study.ask()
            t0 = time.perf_counter()
            try:
                ev = self.evaluator()(self._suggest(trial))
            except BaseException:
                self.study.tell(trial, state=_failed())
                raise
            self._tell(trial, ev.to_dict(), time.perf_counter() - t0)
            ran += 1
        return ran

    def _run_ray(self, n_trials: int) -> int:
        import ray

        started = False
        if not ray.is_initialized():
            ray.init(num_cpus=self.workers, include_dashboard=False, logging_level="ERROR")
            started = True
        ran = 0
        try:
            n = self.workers or int(ray.cluster_resources().get("CPU", 1))
            bands = self.study.user_attrs["bands"]
            worker = ray.remote(num_cpus=1)(self.ray_worker)
            actors = [worker.remote(self.settings, bands) for _ in range(max(1, n))]
            while len(self.finished()) < n_trials:
                k = min(len(actors), n_trials - len(self.finished()))
                trials = [self.study.ask() for _ in range(k)]
                futures = [a.run.remote(self._suggest(t)) for a, t in zip(actors, trials)]
                for t, f in zip(trials, futures):
                    try:
                        out = ray.get(f)
                    except BaseException:
                        self.study.tell(t, state=_failed())
                        raise
                    self._tell(t, out, out.get("seconds", 0.0))
                    ran += 1
            for a in actors:
                ray.kill(a)
        finally:
            if started:
                ray.shutdown()
        return ran

    # ------------------------------------------------------------ results
    def ranked(self) -> list:
        """Finished trials, best (lowest weighted total) first."""
        return sorted(self.finished(), key=lambda t: (t.user_attrs["total"], t.number))

    def start_trial(self):
        start = self.space.start()
        return next(t for t in self.finished() if t.params == start)


def _failed():
    from optuna.trial import TrialState

    return TrialState.FAIL
