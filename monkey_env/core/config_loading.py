"""Reading every game's human-edited data files: one error type, one YAML loader.

Each file is parsed into a pydantic model. Any problem, an unreadable file, a YAML syntax error,
a missing or mistyped field, a rule of the data broken, becomes one :class:`ConfigError` naming
the file, the field and the problem, never a traceback from deep inside. Every game reads its
``configs/<game>/`` files through :func:`load_yaml_model`, so a broken file reads the same in each.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError


class ConfigError(ValueError):
    """A game-data or configuration file is missing or malformed; the message names file, field and problem."""


class StrictModel(BaseModel):
    """A data file's model: unknown fields are errors (a typo is never silently ignored), values frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def default_config_dir() -> Path:
    """The configs shipped with the package (the repository's configs/ folder)."""
    return Path(str(resources.files("monkey_env.configs")))


def describe(err: ValidationError) -> str:
    """A pydantic error as 'field.path: problem; ...'."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}" for e in err.errors())


def parse_yaml(text: str):
    """YAML text as Python data, read by libyaml's C parser when PyYAML has it (ten times faster:
    a quarter of a second of every start-up); a text it refuses is parsed again by the Python
    parser, whose error quotes the offending line under a caret."""
    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return yaml.safe_load(text)


def read_yaml_model(path: Path, model: type[BaseModel]) -> tuple[BaseModel, str]:
    """Parse one YAML file into ``model``, returning it with the file's text (for fingerprints);
    every failure is a ConfigError naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the file ({e.strerror})") from None
    try:
        raw = parse_yaml(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of fields at the top level, got {type(raw).__name__}")
    try:
        return model.model_validate(raw), text
    except ValidationError as e:
        raise ConfigError(f"{path}: {describe(e)}") from None


def load_yaml_model(path: Path, model: type[BaseModel]) -> BaseModel:
    """Parse one YAML file into ``model``; every failure is a ConfigError naming the file."""
    return read_yaml_model(path, model)[0]
