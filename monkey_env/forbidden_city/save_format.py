"""Saved games and game records of Forbidden City, as JSON, validated with pydantic on load.

A save holds the options, the deal (each stack's order), the actions, and the position they
lead to; loading replays the actions from the deal and checks the result against the stored
position, so a file that disagrees with itself is refused with the field that differs and
never becomes a game. A record is the options, the deal and the actions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from monkey_env.core.options import describe
from monkey_env.core.protocol import SaveFileError
from monkey_env.forbidden_city.options import ForbiddenCityOptions

if TYPE_CHECKING:
    from monkey_env.forbidden_city.engine import Game

SAVE_VERSION = 2          # 2: the city moves away from the grid's border (engine.Game.recentre), so the
                          # actions of a version-1 file (a table with an edge) may mean other cells
GAME_NAME = "forbidden_city"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class RecordModel(_Strict):
    version: int = Field(SAVE_VERSION, ge=SAVE_VERSION, le=SAVE_VERSION)
    game: str = GAME_NAME
    options: ForbiddenCityOptions
    fingerprint: str
    deal: list[list[int]]
    actions: list[int]


class SaveModel(RecordModel):
    cells: list[list[int]]               # [x, y, owner, tile, rotation] for every tile on the table
    stacks: list[list[int]]
    held: list[int | None]
    current: int = Field(ge=0, le=3)
    turns_played: int = Field(ge=0)
    coins: list[int]
    end_coins: list[int]
    set_aside: list[list[int]]
    game_over: bool


def _position(game: Game) -> dict:
    return {
        "cells": sorted([x, y, laid.owner, laid.tile, laid.rotation] for (x, y), laid in game.city.cells.items()),
        "stacks": [list(s) for s in game.stacks], "held": list(game.held), "current": game.current,
        "turns_played": game.turns_played, "coins": list(game.purse), "end_coins": list(game.end_coins),
        "set_aside": [list(p) for p in game.set_aside_tiles], "game_over": game.game_over,
    }


def game_record(game: Game) -> dict:
    return {"version": SAVE_VERSION, "game": GAME_NAME, "options": game.options.model_dump(),
            "fingerprint": game.data.fingerprint, "deal": [list(s) for s in game.deal],
            "actions": list(game.history)}


def game_to_dict(game: Game) -> dict:
    return {**game_record(game), **_position(game)}


def _validated(model: type[BaseModel], d: dict) -> BaseModel:
    try:
        return model.model_validate(d)
    except ValidationError as e:
        raise SaveFileError(f"not a Forbidden City {'save' if model is SaveModel else 'record'}: {describe(e)}") from None


def replay_record(record: dict, game_class: type[Game]) -> Game:
    """The game of a record, its decisions replayed (``game_class``: engine.Game, which calls this
    module for its saves: passed in, so this module never imports the engine)."""
    if isinstance(record, dict):   # a save is a record too: its position is checked by game_from_dict
        position = set(SaveModel.model_fields) - set(RecordModel.model_fields)
        record = {k: v for k, v in record.items() if k not in position}
    rec = _validated(RecordModel, record)
    if rec.game != GAME_NAME:
        raise SaveFileError(f"a record of {rec.game!r}, not of {GAME_NAME!r}")
    game = game_class(rec.options, deal=rec.deal)
    if game.data.fingerprint != rec.fingerprint:
        raise SaveFileError(f"the record was made with other game data (fingerprint {rec.fingerprint}, "
                         f"these configs {game.data.fingerprint})")
    for i, action in enumerate(rec.actions):
        try:
            game.apply(action)
        except ValueError as e:
            raise SaveFileError(f"action {i} of the record: {e}") from None
    return game


def game_from_dict(d: dict, game_class: type[Game]) -> Game:
    save = _validated(SaveModel, d)
    game = replay_record(save.model_dump(include=set(RecordModel.model_fields)), game_class)
    stored = save.model_dump(include=set(SaveModel.model_fields) - set(RecordModel.model_fields))
    actual = _position(game)
    for key, value in stored.items():
        if actual[key] != value:
            raise SaveFileError(f"the save's {key} does not follow from its deal and actions "
                             f"(stored {value!r}, replayed {actual[key]!r})")
    return game
