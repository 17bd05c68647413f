"""monkey-palace: Monkey Palace (the LEGO board game) as a rules engine and RL environment.

Importing the package turns on JAX's persistent compilation cache (~/.cache/monkey-palace/jax;
MONKEY_PALACE_JAX_CACHE=DIR moves it, MONKEY_PALACE_JAX_CACHE=off turns it off), so every entry
point, environments and their worker processes included, compiles the engine once per machine.
"""

from monkey_env.core.jax_cache import enable_compilation_cache

enable_compilation_cache()

from monkey_env.core.config_loading import ConfigError  # noqa: E402  (after the compilation cache is on)
from monkey_env.games import game_names, game_spec, make  # noqa: E402  (after the compilation cache is on)
from monkey_env.monkey_palace.actions import ActionLayout, Phase  # noqa: E402  (after the compilation cache is on)
from monkey_env.monkey_palace.engine import Game, IllegalActionError, SaveFileError  # noqa: E402  (after the compilation cache is on)
from monkey_env.monkey_palace.game_data import GameData, load_game_data  # noqa: E402  (after the compilation cache is on)
from monkey_env.monkey_palace.options import GameOptions  # noqa: E402  (after the compilation cache is on)

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
