"""Forbidden City's options: every choice made when a game is created, declared once.

The command line's flags, the saves' and records' ``options`` schema, the environments'
keyword arguments and both engines' settings come from this model (as Monkey Palace's
GameOptions; docs/ARCHITECTURE.md). docs/games/forbidden_city.md explains each reading.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from monkey_env.core.options import GameOptionsModel

if TYPE_CHECKING:
    from monkey_env.forbidden_city.game_data import GameData

REWARD_MODES = ("coins", "zero_sum", "terminal")


class ForbiddenCityOptions(GameOptionsModel):
    """Everything chosen when a game of Forbidden City is created."""

    players: int = Field(2, ge=2, le=4, description="number of players, 2-4")
    start_side: Literal["beginner", "advanced"] = Field(
        "beginner", description="the start tile's side: gardens in the corners, or larger rooms")
    seed: int = Field(0, ge=0, description="seed of the deal (a command playing n games uses seed, seed+1, ...)")
    # The ending is not in the seed's text; the sources disagree (docs/games/forbidden_city.md).
    ending: Literal["last_two", "all_placed"] = Field(
        "last_two", description="end when every player has two tiles left (scored for advisors and dragons), "
                                "or when every tile is placed")
    config_dir: str | None = Field(None, description="a folder of edited game data laid out like configs/")
    reward_mode: Literal["coins", "zero_sum", "terminal"] = Field(
        "coins", description="environments' reward: coin changes, zero-sum changes, or win/loss")
    observation_format: Literal["structured", "flat"] = Field(
        "structured", description="environments' observation: Dict(planes, vector), or one flat Box")

    def game_data(self) -> GameData:
        return _load(self.config_dir)



@lru_cache(maxsize=16)
def _load(config_dir: str | None) -> GameData:
    from monkey_env.forbidden_city.game_data import load_game_data
    return load_game_data(config_dir)
