"""The JSON formats of saved games and game records, validated with pydantic on load.

A malformed file becomes one error naming the field and the problem, before anything
of it reaches the engine.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from monkey_env.core.options import as_recorded
from monkey_env.monkey_palace.actions import N_PILES, N_SLOTS, Phase
from monkey_env.monkey_palace.geometry import BOARD_SIZE, MAP_CHAR_KNOB, NUM_CELLS, Knob
from monkey_env.monkey_palace.options import GameOptions

# The options model itself is the schema; saves and records from before the complete build action
# became the default name no build action and were played on the catalogue (as_recorded).
RecordedOptions = Annotated[GameOptions, BeforeValidator(
    lambda v: as_recorded(GameOptions, v) if isinstance(v, dict) else v)]

SAVE_VERSION = 1
NonNegative = Field(ge=0)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SupplyModel(_Strict):
    arches: int = NonNegative
    bricks: int = NonNegative
    columns: int = NonNegative


class PlayerModel(_Strict):
    board: int = Field(ge=0, le=3)
    supply: SupplyModel
    slots: list[list[int]] = Field(min_length=N_SLOTS, max_length=N_SLOTS)
    bonus_cards: int = NonNegative


def _grid(v: list[list[int]]) -> list[list[int]]:
    if len(v) != BOARD_SIZE or any(len(row) != BOARD_SIZE for row in v):
        raise ValueError(f"must be a {BOARD_SIZE}x{BOARD_SIZE} grid")
    return v


def _cells_in(grid: list[list[int]], allowed: set[int], what: str) -> list[list[int]]:
    for y, row in enumerate(grid):
        for x, value in enumerate(row):
            if value not in allowed:
                raise ValueError(f"cell (x={x}, y={y}) holds {value}, which is not {what}")
    return grid


class PalaceModel(_Strict):
    ground: list[list[int]]
    height: list[list[int]]
    knob: list[list[int]]
    animals: list[int] = Field(min_length=3, max_length=3)
    deco_max: list[int] = Field(min_length=3, max_length=3)
    animal_height: int = NonNegative
    elements: list[dict]

    _grids = field_validator("ground", "height", "knob")(_grid)

    @field_validator("ground")
    @classmethod
    def _ground_kinds(cls, v):
        return _cells_in(v, {int(k) for k in MAP_CHAR_KNOB.values()}, "a ground map's stud kind")

    @field_validator("knob")
    @classmethod
    def _knob_kinds(cls, v):
        return _cells_in(v, {int(k) for k in Knob}, "a knob kind")

    @field_validator("height")
    @classmethod
    def _heights(cls, v):
        return _cells_in(v, set(range(256)), "a height (0-255)")

    @field_validator("animals")
    @classmethod
    def _animal_cells(cls, v):
        if any(not -1 <= a < NUM_CELLS for a in v):
            raise ValueError(f"each animal is on a cell 0..{NUM_CELLS - 1} or -1 (not placed), got {v}")
        return v


class HoldersModel(_Strict):
    monkey: int = Field(ge=-1, le=3)
    butterfly: int = Field(ge=-1, le=3)
    frog: int = Field(ge=-1, le=3)


class TurnModel(_Strict):
    anchor: int
    built: bool
    colour: int = Field(ge=-1, le=2)
    deco_cell: int
    deco_top: int
    arch_ends: list[int]
    max_stack: int
    credits: int = NonNegative
    highest_of_colour: bool
    highest_overall: bool
    bought: list[int]
    instant_queue: list[Literal["arch", "brick", "column", "arch_or_brick"]]
    to_place: list[int]
    # the complete build action's arches so far, (heading, rise): a JSON pair is a list
    steps: list[Annotated[tuple[StrictInt, StrictInt], Strict(False)]] = []


class SaveModel(_Strict):
    version: Literal[SAVE_VERSION]
    data_fingerprint: str
    options: RecordedOptions
    palace: PalaceModel
    tray: SupplyModel
    piles: list[list[int]] = Field(min_length=N_PILES, max_length=N_PILES)
    players: list[PlayerModel] = Field(min_length=2, max_length=4)
    holders: HoldersModel
    bonus_left: int = NonNegative
    current: int = Field(ge=0, le=3)
    round: int = Field(ge=1)
    turns_played: int = NonNegative
    end_triggered: bool
    end_shortage: str = ""
    end_round: int = Field(0, ge=0)
    end_seat: int = Field(-1, ge=-1, le=3)
    phase: Literal[tuple(p.name for p in Phase)]  # type: ignore[valid-type]
    turn: TurnModel
    history: list[int]
    deal: list[list[int]] | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_first_saves(cls, d):
        """Saves written before the end's trigger was stored as data hold it as a sentence."""
        if isinstance(d, dict) and "end_reason" in d:
            d = dict(d)
            m = re.fullmatch(r"(.+) ran out in round (\d+) \(seat (\d+)\)", d.pop("end_reason") or "")
            if m:
                d.update(end_shortage=m.group(1), end_round=int(m.group(2)), end_seat=int(m.group(3)) - 1)
        return d


class RecordModel(_Strict):
    version: Literal[SAVE_VERSION]
    data_fingerprint: str
    options: RecordedOptions
    deal: list[list[int]] | None = None   # pile orders, top card last, when the game was given its deal
    actions: list[int]


def describe(err: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}" for e in err.errors())
