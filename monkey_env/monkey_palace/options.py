"""Monkey Palace's options: every choice made when a game is created, declared once.

The command line's game flags (``add_option_flags``), the saves' and records' ``options``
schema, the environments' keyword arguments and both engines' settings all come from this
model; docs/RULES.md explains each rule reading.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from monkey_env.monkey_palace.game_data import GameData

REWARD_MODES = ("banana", "zero_sum", "terminal")
# What a command of many games gives apart from the other options: seats, ground, seeds, and how
# the environments reward and observe.
PER_GAME_FIELDS = frozenset({"players", "map", "seed", "reward_mode", "observation_format"})


class GameOptions(BaseModel):
    """Everything chosen when a game of Monkey Palace is created."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    # Fields whose default has changed: a save, record or results database written before the
    # change names no value and was played with this one (the catalogue was the build action
    # until the complete one became the default), so every record now names them.
    RECORDED_DEFAULTS: ClassVar[dict] = {"build_action": "catalogue"}

    players: int = Field(2, ge=2, le=4, description="number of players, 2-4")
    map: str = Field("1", description="ground map 1-4, or the path of an edited map file")
    butterfly: bool = Field(False, description="play with the Butterfly micro-expansion")
    frog: bool = Field(False, description="play with the Frog micro-expansion")
    seed: int = Field(0, ge=0, description="seed of the deal (a command playing n games uses seed, seed+1, ...)")
    # Readings where the texts disagree (docs/RULES.md):
    monkey_move: Literal["optional", "mandatory"] = Field(
        "optional", description="whether a gold decoration's builder may leave the monkey where it is")
    butterfly_rule: Literal["highest_overall", "highest_of_colour"] = Field(
        "highest_overall", description="which decoration wins the Butterfly")
    end_trigger: Literal["shortfall", "last_taken"] = Field(
        "shortfall", description="whether the end comes when the tray cannot pay, or when it empties")
    # The build action (docs/RULES.md, "Build a staircase"; docs/ENVIRONMENTS.md compares the two):
    build_action: Literal["catalogue", "complete"] = Field(
        "complete", description="build arch by arch, any staircase the rules allow (anchor, then (heading, "
        "rise) per arch, then finish), or from the template catalogue (anchor + shape)")
    # Where the game data come from (docs/DATA.md):
    config_dir: str | None = Field(None, description="a folder of edited game data laid out like configs/")
    catalogue: str | None = Field(None, description="the path of an edited staircase template catalogue")
    # How the environments reward a decision (monkey_env.envs.rewards); the engines ignore it.
    reward_mode: Literal["banana", "zero_sum", "terminal"] = Field(
        "banana", description="environments' reward: Banana Point changes, zero-sum changes, or win/loss")
    # How the environments shape an observation (monkey_env.monkey_palace.envs.observation).
    observation_format: Literal["structured", "flat"] = Field(
        "structured", description="environments' observation: Dict(planes, vector), or one flat Box (planes then vector)")

    @field_validator("map", mode="before")
    @classmethod
    def _map_as_text(cls, v):
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("config_dir", "catalogue", mode="before")
    @classmethod
    def _path_as_text(cls, v):
        return None if v is None else str(v)

    def game_data(self) -> GameData:
        """The validated game data these options play with (loaded once per process)."""
        return _load(self.map, self.config_dir, self.catalogue)

    def jax_plays(self) -> bool:
        """Whether the JAX engine plays these options: every option, both build actions (an agent
        without batched decisions for one says so: agents.base.plays_batched)."""
        return True

    def with_seed(self, seed: int) -> GameOptions:
        return GameOptions(**{**self.model_dump(), "seed": int(seed)})

    def replace(self, **changes) -> GameOptions:
        """A validated copy with some options changed."""
        return GameOptions(**{**self.model_dump(), **changes})

    def shared_by_games(self) -> dict:
        """The options every game of a series shares (rules, expansions, game data), as keywords:
        without what a command gives per game (PER_GAME_FIELDS)."""
        return self.model_dump(exclude=PER_GAME_FIELDS)


@lru_cache(maxsize=64)
def _load(map_id: str, config_dir: str | None, catalogue: str | None) -> GameData:
    from monkey_env.monkey_palace.game_data import load_game_data
    return load_game_data(map_id, config_dir=config_dir, catalogue=catalogue)


DEFAULT_BUILD_ACTION = GameOptions.model_fields["build_action"].default
