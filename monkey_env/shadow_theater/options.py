"""The Shadow Theater's options: every choice made when a game is created, declared once
(command-line flags, saves, environments and both engines come from this model)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from monkey_env.core.options import GameOptionsModel

if TYPE_CHECKING:
    from monkey_env.shadow_theater.game_data import GameData

REWARD_MODES = ("lanterns", "round_points", "terminal")


class ShadowTheaterOptions(GameOptionsModel):
    """Everything chosen when a game of The Shadow Theater is created."""

    players: int = Field(2, ge=2, le=2, description="number of players (the game is a duel: 2)")
    seed: int = Field(0, ge=0, description="seed of the deals (a command playing n games uses seed, seed+1, ...)")
    config_dir: str | None = Field(None, description="a folder of edited game data laid out like configs/")
    # How the environments reward a decision (monkey_env.envs.rewards); the engines ignore it.
    reward_mode: Literal["lanterns", "round_points", "terminal"] = Field(
        "lanterns", description="environments' reward: +-1 per Lantern taken, round point margins too, or win/loss")
    observation_format: Literal["structured", "flat"] = Field(
        "structured", description="environments' observation: Dict(planes, vector), or one flat Box")

    def game_data(self) -> GameData:
        from monkey_env.shadow_theater.game_data import load_game_data
        return load_game_data(self.config_dir)

