"""The PPO value's calibration for the search agent (``mcts:value=fitted``).

The search needs, at every node, the searching seat's future zero-sum Banana Points u. The
network gives v, the value of the seat *to move*. ``raw`` reads u = v where the searching seat
moves and u = -(players - 1) x v where another seat does (exact with 2 players if v were
exact). ``fitted`` reads E[u | v] = slope x v + intercept, the least-squares lines measured on
games by ``experiments/value_calibration.py`` (one line for the searching seat's own nodes, one
for the other seats', per player count), stored beside the checkpoint they measure:
``agents/checkpoints/ppo_jax.calibration.json``. With 4 players another seat's value says almost
nothing about the searching seat's future (correlation -0.05 over 384 games), so its fitted line is nearly flat
where the raw reading multiplies that value, and its errors, by 3.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

MAX_PLAYERS = 4


class _Line(BaseModel):
    model_config = ConfigDict(extra="ignore")   # the file also keeps the fit's statistics
    slope: float
    intercept: float


class _Fit(BaseModel):
    model_config = ConfigDict(extra="ignore")
    own: _Line
    other: _Line


class _File(BaseModel):
    model_config = ConfigDict(extra="ignore")
    checkpoint: str
    players: dict[int, _Fit]


class CalibrationError(ValueError):
    """A calibration file that is missing, unreadable, or not the checkpoint's (the message says which)."""


@dataclass(frozen=True)
class ValueCalibration:
    """E[u | v] = slope x v + intercept, indexed by player count (0 and 1 unused)."""

    own_slope: tuple = (1.0,) * (MAX_PLAYERS + 1)
    own_intercept: tuple = (0.0,) * (MAX_PLAYERS + 1)
    other_slope: tuple = tuple(-(max(p, 2) - 1.0) for p in range(MAX_PLAYERS + 1))   # raw: -(players - 1)
    other_intercept: tuple = (0.0,) * (MAX_PLAYERS + 1)

    def own(self, value, players):
        """u where the searching seat moves, from its own value (arrays of the batch)."""
        import jax.numpy as jnp
        return jnp.asarray(self.own_slope, jnp.float32)[players] * value + jnp.asarray(self.own_intercept, jnp.float32)[players]

    def other(self, value, players):
        """u of the searching seat where another seat moves, from the mover's value."""
        import jax.numpy as jnp
        return (jnp.asarray(self.other_slope, jnp.float32)[players] * value
                + jnp.asarray(self.other_intercept, jnp.float32)[players])

    @classmethod
    def load(cls, path, checkpoint_hash: str | None = None) -> ValueCalibration:
        """The fitted lines of a calibration file; refused, naming the problem, if the file is
        missing or malformed, lacks a player count, or measured another checkpoint."""
        path = Path(path)
        if not path.exists():
            raise CalibrationError(f"value calibration not found: {path} "
                                   f"(write it with `python -m experiments.value_calibration --out {path}`)")
        try:
            data = _File.model_validate(json.loads(path.read_text()))
        except (json.JSONDecodeError, ValidationError) as e:
            raise CalibrationError(f"value calibration {path} is malformed: {e}") from None
        if checkpoint_hash is not None and data.checkpoint != checkpoint_hash:
            raise CalibrationError(f"value calibration {path} measured checkpoint {data.checkpoint}, not {checkpoint_hash} "
                                   "(rerun experiments/value_calibration.py for the new checkpoint, or use value=raw)")
        missing = [p for p in range(2, MAX_PLAYERS + 1) if p not in data.players]
        if missing:
            raise CalibrationError(f"value calibration {path} has no fit for {missing} players")
        raw = cls()
        column = lambda get, default: tuple(get(data.players[p]) if p in data.players else default[p]
                                            for p in range(MAX_PLAYERS + 1))
        return cls(own_slope=column(lambda f: f.own.slope, raw.own_slope),
                   own_intercept=column(lambda f: f.own.intercept, raw.own_intercept),
                   other_slope=column(lambda f: f.other.slope, raw.other_slope),
                   other_intercept=column(lambda f: f.other.intercept, raw.other_intercept))


RAW = ValueCalibration()


def calibration_path(checkpoint) -> Path:
    """The calibration file of a checkpoint: beside it, ``<name>.calibration.json``."""
    checkpoint = Path(checkpoint)
    return checkpoint.with_name(checkpoint.stem + ".calibration.json")
