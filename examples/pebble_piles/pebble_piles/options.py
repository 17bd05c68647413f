"""Pebble Piles' options: every choice made when a game is created (flags, saves, environments)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

REWARD_MODES = ("pebbles", "zero_sum", "terminal")
PER_GAME_FIELDS = frozenset({"players", "seed", "reward_mode", "observation_format"})


class PebblePilesOptions(BaseModel):
    """Everything chosen when a game of Pebble Piles is created."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    players: int = Field(2, ge=2, le=4, description="number of players (2-4)")
    seed: int = Field(0, ge=0, description="seed of the deal (a command playing n games uses seed, seed+1, ...)")
    reward_mode: Literal["pebbles", "zero_sum", "terminal"] = Field(
        "pebbles", description="environments' reward: +1 per pebble taken, zero-sum, or win/loss at the end")
    observation_format: Literal["structured", "flat"] = Field(
        "structured", description="environments' observation: Dict(planes, vector), or one flat Box")

    def with_seed(self, seed: int) -> PebblePilesOptions:
        return self.replace(seed=int(seed))

    def replace(self, **changes) -> PebblePilesOptions:
        return PebblePilesOptions(**{**self.model_dump(), **changes})

    def shared_by_games(self) -> dict:
        return self.model_dump(exclude=PER_GAME_FIELDS)
