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


def _register_gymnasium_ids() -> None:
    """``gymnasium.make("MonkeyPalace-v0")`` after ``import monkey_env`` (entry points are
    strings: nothing heavy is imported until an environment is made)."""
    import gymnasium

    from monkey_env.games import GAMES

    for spec in GAMES.values():
        if spec.gym_id and spec.gym_id not in gymnasium.registry:
            gymnasium.register(spec.gym_id, entry_point=spec.parts["gym_env"])


_register_gymnasium_ids()


def __getattr__(name):
    # The PettingZoo environment loads JAX and PettingZoo: only when asked for.
    if name in ("env", "raw_env"):
        from monkey_env.monkey_palace.envs import pettingzoo_env
        return getattr(pettingzoo_env, name)
    raise AttributeError(f"module 'monkey_env' has no attribute {name!r}")
