"""A game's options, declared once as a pydantic model: the command-line flags, the saves'
schema and the environments' keyword arguments are all made from that one model.

Each field's ``description`` is its help text; ``json_schema_extra={"cli": False}`` keeps a
field off the command line (for example a value that only a program sets).
"""

from __future__ import annotations

import argparse
import types
import typing
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator


class OptionsError(ValueError):
    """Options that do not validate; the message names each wrong option and why."""


def describe(err: ValidationError) -> str:
    """A pydantic error as one line: ``field: problem; field: problem``."""
    parts = []
    for e in err.errors():
        where = ".".join(str(p) for p in e["loc"]) or "(top level)"
        got = e.get("input")
        shown = "" if isinstance(got, dict) else f" (got {got!r})"
        parts.append(f"{where}: {e['msg']}{shown}")
    return "; ".join(parts)


def make_options(model: type[BaseModel], **values: Any) -> BaseModel:
    """Build and validate an options object; a bad value raises OptionsError naming it."""
    try:
        return model(**values)
    except ValidationError as e:
        raise OptionsError(f"bad {model.__name__}: {describe(e)}") from None


def as_recorded(model: type[BaseModel], values: dict) -> dict:
    """A record's options as they were played: a field whose default has changed since (the
    model's ``RECORDED_DEFAULTS``) and that an older record leaves out takes the old default."""
    return {**getattr(model, "RECORDED_DEFAULTS", {}), **values}


def for_the_record(options: BaseModel, given: dict) -> dict:
    """The options a record keeps: those given, and every field whose default has changed
    (``RECORDED_DEFAULTS``) at its value, so that the record never depends on a default."""
    return {**{name: getattr(options, name) for name in getattr(type(options), "RECORDED_DEFAULTS", {})}, **given}


def _on_cli(info) -> bool:
    extra = info.json_schema_extra
    return not (isinstance(extra, dict) and extra.get("cli") is False)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def jax_plays(options) -> bool:
    """Whether a game's JAX engine plays these options: an options model may say it does not
    (a ``jax_plays()`` method, e.g. a rule the JAX engine lacks); otherwise it does."""
    method = getattr(options, "jax_plays", None)
    return True if method is None else bool(method())


def add_option_flags(parser: argparse.ArgumentParser, model: type[BaseModel], *,
                     skip: tuple[str, ...] = (), defaults: dict[str, Any] | None = None) -> None:
    """One command-line flag per field of ``model`` (its type, choices, default and help)."""
    defaults = defaults or {}
    group = parser.add_argument_group(f"game options ({model.__name__})")
    for name, info in model.model_fields.items():
        if name in skip or not _on_cli(info):
            continue
        default = defaults.get(name, info.default)
        kind = info.annotation
        help_text = info.description or ""
        if kind is bool:
            group.add_argument(_flag(name), action=argparse.BooleanOptionalAction, default=default, help=help_text)
            continue
        args = typing.get_args(kind)
        if typing.get_origin(kind) is Literal:
            group.add_argument(_flag(name), choices=args, type=type(args[0]), default=default,
                               help=f"{help_text} (default: {default})")
            continue
        if typing.get_origin(kind) in (typing.Union, types.UnionType):   # X | None
            kind = next(a for a in args if a is not type(None))
        group.add_argument(_flag(name), type=kind, default=default, metavar=name.upper(),
                           help=f"{help_text} (default: {default})")


def options_from_args(model: type[BaseModel], args: argparse.Namespace, **overrides: Any) -> BaseModel:
    """The options object of parsed flags (made by add_option_flags); errors name the flag."""
    values = {name: getattr(args, name) for name in model.model_fields if hasattr(args, name)}
    values.update(overrides)
    try:
        return model(**values)
    except ValidationError as e:
        raise OptionsError("; ".join(
            f"{_flag(str(err['loc'][0])) if err['loc'] else '(options)'}: {err['msg']} (got {err.get('input')!r})"
            for err in e.errors())) from None


class GameOptionsModel(BaseModel):
    """What every game's options model shares: frozen, strict, no unknown field; ``config_dir``
    (where a game has one) read as text; ``with_seed``, ``replace`` and ``shared_by_games`` (the
    options without PER_GAME_FIELDS, what a command gives per game)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)
    PER_GAME_FIELDS: ClassVar[frozenset] = frozenset({"players", "seed", "reward_mode", "observation_format"})

    @field_validator("config_dir", mode="before", check_fields=False)
    @classmethod
    def _path_as_text(cls, v):
        return None if v is None else str(v)

    def with_seed(self, seed: int):
        return self.replace(seed=int(seed))

    def replace(self, **changes):
        return type(self)(**{**self.model_dump(), **changes})

    def shared_by_games(self) -> dict:
        return self.model_dump(exclude=self.PER_GAME_FIELDS)
