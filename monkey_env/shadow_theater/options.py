"""The Shadow Theater's options: every choice made when a game is created, declared once
(command-line flags, saves, environments and both engines come from this model)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from monkey_env.shadow_theater.game_data import GameData

REWARD_MODES = ("lanterns", "round_points", "terminal")
PER_GAME_FIELDS = frozenset({"players", "seed", "reward_mode", "observation_format"})


class ShadowTheaterOptions(BaseModel):
    """Everything chosen when a game of The Shadow Theater is created."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    players: int = Field(2, ge=2, le=2, description="number of players (the game is a duel: 2)")
    seed: int = Field(0, ge=0, description="seed of the deals (a command playing n games uses seed, seed+1, ...)")
    config_dir: str | None = Field(None, description="a folder of edited game data laid out like configs/")
    # How the environments reward a decision (monkey_env.envs.rewards); the engines ignore it.
    reward_mode: Literal["lanterns", "round_points", "terminal"] = Field(
        "lanterns", description="environments' reward: +-1 per Lantern taken, round point margins too, or win/loss")
    observation_format: Literal["structured", "flat"] = Field(
        "structured", description="environments' observation: Dict(planes, vector), or one flat Box")

    @field_validator("config_dir", mode="before")
    @classmethod
    def _path_as_text(cls, v):
        return None if v is None else str(v)

    def game_data(self) -> GameData:
        from monkey_env.shadow_theater.game_data import load_game_data
        return load_game_data(self.config_dir)

    def with_seed(self, seed: int) -> ShadowTheaterOptions:
        return self.replace(seed=int(seed))

    def replace(self, **changes) -> ShadowTheaterOptions:
        return ShadowTheaterOptions(**{**self.model_dump(), **changes})

    def shared_by_games(self) -> dict:
        return self.model_dump(exclude=PER_GAME_FIELDS)
