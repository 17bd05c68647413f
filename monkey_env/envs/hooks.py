"""What a game tells the shared environments about itself (one object per game, in its ``envs``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class EnvHooks:
    name: str                                   # the PettingZoo env id, e.g. "forbidden_city_v0"
    game: str                                   # the registry's name of the game (its agents, by name)
    options_class: type                         # the game's pydantic options (reward_mode, observation_format among them)
    # the first is the default, the seats' score changes; "zero_sum", "terminal" and the extra modes
    # follow monkey_env.envs.rewards
    reward_modes: tuple[str, ...]
    # engine(options, illegal_penalty) -> the game's JAX engine (monkey_env.core.protocol.JaxEngine)
    engine: Callable[[Any, float], Any]
    # observation_space(engine) -> gymnasium Dict(planes=Box, vector=Box) of one seat's observation
    observation_space: Callable[[Any], Any]
    # round(state) -> the round being played (from 1): what max_cycles counts
    round: Callable[[Any], int]
    # reference_game(engine, first_state, options) -> a reference game at the same deal, before any decision
    reference_game: Callable[[Any, Any, Any], Any]
    # the game's own reward modes: mode -> f(before, after, players) -> (B, players) on batched states
    extra_rewards: dict[str, Callable[[Any, Any, int], np.ndarray]] = field(default_factory=dict)
    positional: tuple[str, ...] = ()            # raw_env's positional arguments, by option name
    # extra_info(state, players) -> the game's own info fields beside round and scores
    extra_info: Callable[[Any, int], dict] = lambda state, players: {}
    # True when the engine's init and step, called on concrete arrays, already run compiled programs
    # (they keep their own start-up path); otherwise the env compiles them once per engine.
    compiled_steps: bool = False
    # text(game) and picture(game) of a reference game: render()'s "ansi"/"human" and "rgb_array";
    # None: the game's ``text`` and ``picture`` parts in the registry (monkey_env.games)
    text: Callable[[Any], str] | None = None
    picture: Callable[[Any], np.ndarray] | None = None

    def view(self, kind: str) -> Callable:
        """The hook ``kind`` ("text" or "picture"): the game's own here, else its registry part."""
        own = getattr(self, kind)
        if own is not None:
            return own
        from monkey_env.games import game_spec

        return game_spec(self.game).load(kind)

    def options(self, args: tuple, options, game_options: dict):
        """The game's options from an options object, or its fields as keywords or positionally."""
        if len(args) > len(self.positional):
            raise TypeError(f"{self.name} takes at most {len(self.positional)} positional game options "
                            f"({', '.join(self.positional) or 'none'}), got {len(args)}")
        if options is None:
            game_options.update(zip(self.positional, args))
            if "reward_mode" in game_options:
                self.check_reward_mode(game_options["reward_mode"])
            options = self.options_class(**game_options)
        elif args or game_options:
            raise TypeError("pass the game's options object or its fields, not both")
        self.check_reward_mode(options.reward_mode)
        return options

    def check_reward_mode(self, mode: str) -> str:
        if mode not in self.reward_modes:
            raise ValueError(f"unknown reward mode {mode!r}; choose one of {', '.join(self.reward_modes)}")
        return mode
