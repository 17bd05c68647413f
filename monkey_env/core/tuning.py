"""What every game's balance-tune space shares (the shared layer, so that a game's own space in
its folder and the tune application both read it): the space file's model, one bound, the error.

A space file (YAML):

    game: monkey_palace
    description: ...
    numbers:
      - {number: <a name the game's space knows>, low: 1, high: 5}
    objective: {...}        # targets and weights, ObjectiveConfig

Which names a game knows, and what they change, is the game's (its ``tune`` part,
monkey_env.games.PARTS), and so are the objective's terms: the shared ones (SHARED_TERMS) and,
where the game has one, its own item term (a card or tile whose holders win too often: named
by the game, e.g. ``cards``); ``check_objective`` fills the weights for them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, model_validator

SHARED_TERMS = ("seat", "skill", "length")     # every game's (objective.py)
TERMS = SHARED_TERMS + ("cards",)              # the terms of a game whose item term is "cards"
DEFAULT_WEIGHTS = {"seat": 1.0, "skill": 1.0, "length": 0.5}
ITEM_WEIGHT = 0.25                             # the default weight of a game's own item term


class SpaceError(ValueError):
    """A space file that cannot be used; the message names the file, the number and the problem."""


class ObjectiveConfig(BaseModel):
    """Targets and weights (the ``objective:`` section of a space file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    weights: dict[str, float] | None = Field(
        None, description="term -> weight (None: DEFAULT_WEIGHTS and ITEM_WEIGHT for the game's item term)")
    skill_margin: float = Field(0.3, ge=0, le=0.5, description="greedy must beat random in >= 0.5 + margin")
    length_tolerance: float = Field(0.10, gt=0, le=1, description="band: the starting data's mean rounds ± this fraction")
    card_threshold: float = Field(0.10, ge=0, le=1, description="a lift this far from the median stands out")
    card_min_games: int = Field(30, ge=1)

    def model_post_init(self, _context) -> None:
        if self.weights is not None and any(w < 0 for w in self.weights.values()):
            raise ValueError("objective weights must not be negative")

    def weight(self, term: str) -> float:
        if self.weights is None:
            return DEFAULT_WEIGHTS.get(term, ITEM_WEIGHT)
        return float(self.weights.get(term, 0.0))

    def terms(self) -> tuple[str, ...]:
        """The terms these weights name (the shared ones and "cards" when none are named)."""
        if self.weights is None:
            return TERMS
        return SHARED_TERMS + tuple(t for t in self.weights if t not in SHARED_TERMS)


def check_objective(objective: ObjectiveConfig, terms: tuple[str, ...], source: str) -> ObjectiveConfig:
    """The objective with its weights filled for a game's ``terms`` (the defaults where the file
    names none); SpaceError naming the file when it weighs a term the game does not have."""
    if objective.weights is None:
        weights = {t: DEFAULT_WEIGHTS.get(t, ITEM_WEIGHT) for t in terms}
    else:
        unknown = sorted(set(objective.weights) - set(terms))
        if unknown:
            raise SpaceError(f"{source}: objective weights: unknown terms {unknown}; this game's terms: "
                             f"{', '.join(terms)}")
        weights = {t: float(objective.weights.get(t, 0.0)) for t in terms}
    return objective.model_copy(update={"weights": weights})


class Bound(BaseModel):
    """One number that may change, and its integer bounds (both included)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    number: str = Field(description="which number, one of the game's NUMBER_FORMS")
    low: StrictInt
    high: StrictInt

    @model_validator(mode="after")
    def _ordered(self) -> Bound:
        if self.low >= self.high:
            raise ValueError(f"{self.number}: low ({self.low}) must be below high ({self.high})")
        return self


class SpaceFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    game: str = Field("", description="the game whose numbers these are (its --game name; empty: the game tuned)")
    description: str = ""
    numbers: list[Bound] = Field(min_length=1)
    objective: ObjectiveConfig = ObjectiveConfig()


def read_space_file(path: str | Path) -> SpaceFile:
    """A space file read and validated; SpaceError names the file and the bad entry."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise SpaceError(f"space file not found: {path}") from None
    except yaml.YAMLError as e:
        raise SpaceError(f"{path}: not valid YAML: {e}") from None
    try:
        return SpaceFile.model_validate(raw if raw is not None else {})
    except ValidationError as e:
        raise SpaceError(f"{path}: {short_error(e)}") from None


def short_error(e: Exception) -> str:
    """A validation error in one line: where, what."""
    if isinstance(e, ValidationError):
        return "; ".join(f"{'.'.join(str(x) for x in err['loc']) or 'file'}: {err['msg']}" for err in e.errors())
    return str(e)


def replace_values(params, fields, values: dict):
    """A params NamedTuple with some of its traced value ``fields`` replaced, each with the
    old one's dtype and trailing shape (a leading batch axis may be added): what a balance tune
    tries without recompiling. Unknown names or wrong shapes raise a ValueError."""
    import jax.numpy as jnp

    unknown = set(values) - set(fields)
    if unknown:
        raise ValueError(f"not tunable values: {', '.join(sorted(unknown))}; tunable: {', '.join(fields)}")
    out = {}
    for name, v in values.items():
        old = getattr(params, name)
        v = jnp.asarray(v, old.dtype)
        if v.shape[v.ndim - old.ndim:] != old.shape:
            raise ValueError(f"{name}: shape {v.shape}, expected {old.shape}")
        out[name] = v
    return params._replace(**out)


def slug(name: str) -> str:
    """A name as a space file spells it: lower case, words joined by '-', no apostrophes
    ("Dragon's Favour" -> "dragons-favour")."""
    return "-".join(name.lower().replace("'", "").split())


def checked_bound(bound: Bound, start: int, allowed: tuple[int, int], where: str, kind: str) -> None:
    """SpaceError unless the starting data's value lies within the bound (the search starts from
    the data) and the bound within what a number of this kind may be."""
    if not bound.low <= start <= bound.high:
        raise SpaceError(f"{where}: the starting data's value {start} is outside [{bound.low}, {bound.high}] "
                         "(the search starts from the data)")
    lo, hi = allowed
    if bound.low < lo or bound.high > hi:
        raise SpaceError(f"{where}: bounds [{bound.low}, {bound.high}], outside the range of a {kind} number [{lo}, {hi}]")


def resolve_all(spec: SpaceFile, resolve, source: str) -> list:
    """Each bound of the file resolved by ``resolve(bound)``; SpaceError for a number listed twice."""
    seen, out = set(), []
    for b in spec.numbers:
        if b.number in seen:
            raise SpaceError(f"{source}: {b.number} is listed twice")
        seen.add(b.number)
        out.append(resolve(b))
    return out


def check_extremes(names: list[str], bounds: list[Bound], apply, source: str) -> None:
    """The game data made with every number at its low bound, and at its high bound, must pass
    the data's own validation (``apply(candidate)`` raises a ValueError or ValidationError)."""
    for side in ("low", "high"):
        candidate = {n: getattr(b, side) for n, b in zip(names, bounds)}
        try:
            apply(candidate)
        except (ValidationError, ValueError) as e:
            raise SpaceError(f"{source}: with every number at its {side} bound the game data is invalid: "
                             f"{short_error(e)}") from None


def copy_config_folder(base: str | Path, out: str | Path) -> Path:
    """A fresh copy of a configs/ folder (every game's data; no tune spaces, no Python files)."""
    import shutil

    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(base, out, ignore=shutil.ignore_patterns("__pycache__", "__init__.py", "tune"))
    return out


def write_yaml(path: str | Path, data: dict, header: str = "") -> None:
    """A data file written as YAML, each line of ``header`` a comment above it."""
    note = "".join(f"# {line}\n" for line in header.splitlines())
    body = yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=120, allow_unicode=True)
    Path(path).write_text(note + body)


# ------------------------------------------------------------------ a game's space and tune part
@dataclasses.dataclass(frozen=True)
class Number:
    """A number of a space file resolved by its game: its bound, what kind it is, where it lives
    in the game's data (the game's own index: a card, a seat and an element, ...) and the
    starting data's value."""

    bound: Bound
    kind: str
    index: object
    start: int

    @property
    def name(self) -> str:
        return self.bound.number


class TuneSpace:
    """What every game's space does alike; a game's ``Space`` subclass names its game, terms and
    files (GAME, TERMS, FOLDER, SPACE_FILE) and gives ``_resolve(bound) -> Number``, ``values``,
    ``apply`` (the candidate's game data, validated by the data's own models) and ``_files`` (the
    data files of a candidate as dicts, written by ``write_configs``).

    Built from a space file over one starting data set (the shipped configs/ or --config-dir): the
    file's game must be the game's, the objective's weights its terms, each number listed once and
    resolved, and the data made with every number at its low and at its high bound valid."""

    GAME = ""                        # the game's --game name
    TERMS: tuple[str, ...] = SHARED_TERMS
    FOLDER = ""                      # the game's data folder in configs/ ("" its top)
    SPACE_FILE = ""                  # the default space file in configs/tune/

    def __init__(self, spec: SpaceFile, data, source: str = "<space>"):
        if spec.game and spec.game != self.GAME:
            raise SpaceError(f"{source}: game {spec.game!r}: this is the space of {self.GAME}")
        self.spec, self.data, self.source = spec, data, source
        self.terms = self.TERMS
        self.objective = check_objective(spec.objective, self.TERMS, source)
        self.numbers: tuple[Number, ...] = tuple(resolve_all(spec, self._resolve, source))
        self._check_numbers()
        check_extremes(self.names, [n.bound for n in self.numbers], self.apply, source)

    @classmethod
    def default_space_path(cls) -> Path:
        from monkey_env.core.config_loading import default_config_dir

        return default_config_dir() / "tune" / cls.SPACE_FILE

    @classmethod
    def load(cls, path: str | Path | None, data):
        """The space of a YAML file (None: the game's default space file, configs/tune/SPACE_FILE)."""
        path = Path(path) if path else cls.default_space_path()
        return cls(read_space_file(path), data, str(path))

    def _resolve(self, bound: Bound) -> Number:
        raise NotImplementedError(f"{type(self).__name__} resolves no number")

    def _check_numbers(self) -> None:
        """A game's checks of the resolved numbers together (none by default)."""

    @property
    def names(self) -> list[str]:
        return [n.name for n in self.numbers]

    def start(self) -> dict[str, int]:
        """The starting data as a candidate."""
        return {n.name: n.start for n in self.numbers}

    def _checked_candidate(self, candidate: Mapping[str, int]) -> dict[str, int]:
        out = self.start()
        unknown = set(candidate) - set(out)
        if unknown:
            raise SpaceError(f"not numbers of this space: {', '.join(sorted(unknown))}")
        out.update({k: int(v) for k, v in candidate.items()})
        return out

    def changes(self, candidate: Mapping[str, int]) -> list[dict]:
        """The numbers a candidate changes: name, from, to, by."""
        c = self._checked_candidate(candidate)
        return [dict(number=n.name, start=n.start, tuned=c[n.name], change=c[n.name] - n.start)
                for n in self.numbers if c[n.name] != n.start]

    def write_configs(self, candidate: Mapping[str, int], out: str | Path, header: str = "") -> Path:
        """A complete configs/ folder: the starting folder's files, with the candidate's data files
        written over them in FOLDER (loadable with --config-dir)."""
        from monkey_env.core.config_loading import default_config_dir

        self.apply(candidate)                              # valid, or raise before writing
        base = Path(self.data.config_dir) if self.data.config_dir else default_config_dir()
        out = copy_config_folder(base, out)
        (out / self.FOLDER).mkdir(exist_ok=True)
        for name, body in self._files(candidate).items():
            write_yaml(out / self.FOLDER / name, body, header)
        return out


class GameTune:
    """The skeleton of a game's ``tune`` part (monkey_env.games.PARTS; what monkey_env/apps/tune
    asks of a game): a subclass sets ``Space``, ``data_changes`` (a staticmethod), the player
    counts, the item words and maps, its data ``loader`` (or ``load_data`` for a game of maps),
    ``jax_game``, ``max_players``, ``params`` and ``held_items``."""

    Space: type[TuneSpace]
    has_maps = False                 # True: the seat games are played on every map of --maps
    default_maps: tuple = ()
    loader: Callable[[str | None], Any]   # staticmethod: config_dir (None: the shipped data) -> the game data

    def load_data(self, config_dir: str | None, map_id: int = 0):
        """The game data of ``config_dir``; a game of maps overrides this to load ``map_id``'s."""
        del map_id
        return self.loader(config_dir)

    def default_space_path(self) -> Path:
        return self.Space.default_space_path()

    def load_space(self, path: str | None, config_dir: str | None) -> TuneSpace:
        return self.Space.load(path, self.load_data(config_dir))

    def check_folder(self, folder, maps) -> None:
        """A written configs/ folder loads as game data (every map asked, for a game of maps); raises when not."""
        if not self.has_maps:
            self.load_data(str(folder))
        for m in maps if self.has_maps else ():
            self.load_data(str(folder), m)
