"""What every game's balance-tune space shares (the shared layer, so that a game's own space in
its folder and the tune application both read it): the space file's model, one bound, the error.

A space file (YAML):

    game: monkey_palace
    description: ...
    numbers:
      - {number: <a name the game's space knows>, low: 1, high: 5}
    objective: {...}        # targets and weights, ObjectiveConfig

Which names a game knows, and what they change, is the game's (its ``tune`` part,
monkey_env.games.PARTS).
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, model_validator

TERMS = ("seat", "skill", "length", "cards")


class SpaceError(ValueError):
    """A space file that cannot be used; the message names the file, the number and the problem."""


class ObjectiveConfig(BaseModel):
    """Targets and weights (the ``objective:`` section of a space file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    weights: dict[str, float] = Field(default_factory=lambda: {"seat": 1.0, "skill": 1.0, "length": 0.5, "cards": 0.25})
    skill_margin: float = Field(0.3, ge=0, le=0.5, description="greedy must beat random in >= 0.5 + margin")
    length_tolerance: float = Field(0.10, gt=0, le=1, description="band: the starting data's mean rounds ± this fraction")
    card_threshold: float = Field(0.10, ge=0, le=1, description="a lift this far from the median stands out")
    card_min_games: int = Field(30, ge=1)

    def model_post_init(self, _context) -> None:
        unknown = set(self.weights) - set(TERMS)
        if unknown:
            raise ValueError(f"objective weights: unknown terms {sorted(unknown)}; terms: {', '.join(TERMS)}")
        if any(w < 0 for w in self.weights.values()):
            raise ValueError("objective weights must not be negative")

    def weight(self, term: str) -> float:
        return float(self.weights.get(term, 0.0))


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
