"""monkey-palace: Monkey Palace (the LEGO board game) as a rules engine and RL environment."""

from monkey_env.monkey_palace.actions import ActionLayout, Phase
from monkey_env.monkey_palace.config import ConfigError
from monkey_env.monkey_palace.engine import Game, GameOptions, IllegalActionError, SaveFileError
from monkey_env.monkey_palace.game_data import GameData, load_game_data
from monkey_env.monkey_palace.options import GameOptions as GameOptions  # noqa: F811 (the options model)
from monkey_env.games import game_names, game_spec, make

__all__ = ["ActionLayout", "ConfigError", "Game", "GameData", "GameOptions", "IllegalActionError",
           "Phase", "SaveFileError", "game_names", "game_spec", "load_game_data", "make"]
__version__ = "0.1.0"


def __getattr__(name):
    # The PettingZoo environment loads JAX and PettingZoo: only when asked for.
    if name in ("env", "raw_env"):
        from monkey_env.monkey_palace.envs import pettingzoo_env
        return getattr(pettingzoo_env, name)
    raise AttributeError(f"module 'monkey_env' has no attribute {name!r}")
