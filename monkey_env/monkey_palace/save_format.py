"""The JSON formats of saved games and game records, validated with pydantic on load.

A malformed file becomes one error naming the field and the problem, before anything
of it reaches the engine.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from monkey_env.monkey_palace.actions import N_PILES, N_SLOTS, Phase
from monkey_env.monkey_palace.geometry import BOARD_SIZE

SAVE_VERSION = 1
NonNegative = Field(ge=0)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class OptionsModel(_Strict):
    players: Literal[2, 3, 4]
    map: str
    butterfly: bool
    frog: bool
    seed: int
    monkey_move: Literal["optional", "mandatory"]
    butterfly_rule: Literal["highest_overall", "highest_of_colour"]
    end_trigger: Literal["shortfall", "last_taken"]


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


class PalaceModel(_Strict):
    ground: list[list[int]]
    height: list[list[int]]
    knob: list[list[int]]
    animals: list[int] = Field(min_length=3, max_length=3)
    deco_max: list[int] = Field(min_length=3, max_length=3)
    animal_height: int = NonNegative
    elements: list[dict]

    _grids = field_validator("ground", "height", "knob")(_grid)


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


class SaveModel(_Strict):
    version: Literal[SAVE_VERSION]
    data_fingerprint: str
    options: OptionsModel
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
    end_reason: str
    phase: Literal[tuple(p.name for p in Phase)]  # type: ignore[valid-type]
    turn: TurnModel
    history: list[int]


class RecordModel(_Strict):
    version: Literal[SAVE_VERSION]
    data_fingerprint: str
    options: OptionsModel
    actions: list[int]


def describe(err: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}" for e in err.errors())
