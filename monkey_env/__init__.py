"""monkey-palace: Monkey Palace (the LEGO board game) as a rules engine and RL environment."""

from monkey_env.actions import ActionLayout, Phase
from monkey_env.config import ConfigError
from monkey_env.engine import Game, GameOptions, IllegalActionError, SaveFileError
from monkey_env.game_data import GameData, load_game_data

__all__ = ["ActionLayout", "ConfigError", "Game", "GameData", "GameOptions", "IllegalActionError",
           "Phase", "SaveFileError", "load_game_data"]
__version__ = "0.1.0"
