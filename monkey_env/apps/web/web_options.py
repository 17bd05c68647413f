"""What the 2-D games' web modules share: the start form's options from a game's options model,
a browser's options checked against the few it may set, and an uploaded record's options
refused when they name edited game data (a folder path).

Monkey Palace's web module (monkey_env/monkey_palace/apps/web.py) keeps its own versions (maps, catalogues); the
other games' web modules (the registry's "web" parts) use these.
"""

from __future__ import annotations

from typing import Literal, get_args, get_origin

from pydantic import BaseModel, ValidationError

from monkey_env.core.options import describe


class WebInputError(ValueError):
    """A request's options or an uploaded file that the server refuses; the message says why."""


def schema_of(model: type[BaseModel], fields: tuple[str, ...]) -> dict:
    """The options a new game takes, for the start form: type, default, choices, description.
    ``players`` is always a choice (its bounds from the model), so the form draws its seats."""
    out = {}
    for name in fields:
        f = model.model_fields[name]
        entry = {"default": f.default, "description": f.description}
        if name == "players":
            lo = next((m.ge for m in f.metadata if hasattr(m, "ge")), f.default)
            hi = next((m.le for m in f.metadata if hasattr(m, "le")), f.default)
            entry.update(type="choice", choices=list(range(lo, hi + 1)))
        elif f.annotation is bool:
            entry.update(type="bool")
        elif f.annotation is int:
            entry.update(type="int", minimum=0)
        elif get_origin(f.annotation) is Literal:
            entry.update(type="choice", choices=list(get_args(f.annotation)))
        else:
            raise TypeError(f"{model.__name__}.{name}: no form input for {f.annotation}")
        out[name] = entry
    return out


def make_options(model: type[BaseModel], raw, fields: tuple[str, ...]) -> BaseModel:
    """Validated options of a new game from a browser's request: only ``fields``, never a path."""
    if not isinstance(raw, dict):
        raise WebInputError("options must be an object")
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        raise WebInputError(f"unknown or not allowed option(s): {', '.join(unknown)}; allowed: {', '.join(fields)}")
    try:
        return model(**raw)
    except (ValidationError, TypeError) as e:
        raise WebInputError(f"bad options: {describe(e) if isinstance(e, ValidationError) else e}") from None


def check_shipped_data(options) -> None:
    """A record or save to open here must use the shipped game data: no ``config_dir``."""
    if not isinstance(options, dict):
        raise WebInputError("the record is malformed: options: must be an object")
    if options.get("config_dir") is not None:
        raise WebInputError("records made with edited game data (config_dir) cannot be opened here")


def replay_record(game_class, record, *, data: str | None = None):
    """``game_class.replay(record)`` of a record a browser sent: a JSON object made with the shipped
    game data (no ``config_dir``; the fingerprint ``data`` in its "data" field, where given) whose
    every action replays; else a WebInputError naming what is wrong."""
    if not isinstance(record, dict):
        raise WebInputError("a game record is a JSON object")
    check_shipped_data(record.get("options"))
    if data is not None and record.get("data") != data:
        raise WebInputError(f"the record was made with other game data (fingerprint {record.get('data')!r}, "
                            f"the shipped data {data})")
    try:
        return game_class.replay(record)
    except (TypeError, KeyError, IndexError, ValueError) as e:     # core.protocol.SaveFileError is a ValueError
        raise WebInputError(f"the record does not replay: {e}") from None
