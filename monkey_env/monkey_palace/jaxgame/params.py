"""The traced settings of one game of the JAX engine: players, rule options, the map's
starting palace, made from the game's options object (monkey_env.monkey_palace.options), and
the game's values (cards' Banana Points, boards' starting supply, bonus card and trophy
points), the game data's own unless a balance tune gives others (:meth:`Params.with_values`)."""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np
from jax import export

from monkey_env.core.jax_cache import on_device
from monkey_env.monkey_palace.config import load_map
from monkey_env.monkey_palace.game_data import GameData
from monkey_env.monkey_palace.geometry import HEADING_NAMES
from monkey_env.monkey_palace.options import GameOptions
from monkey_env.monkey_palace.palace import Palace


class Params(NamedTuple):
    """The per-game settings, traced: a batch may mix maps, player counts and options."""

    players: jnp.ndarray        # () int32
    options: jnp.ndarray        # (5,) bool, see rules.OPT_*
    start_height: jnp.ndarray   # (32, 32) int8 the map with its starting staircase
    start_knob: jnp.ndarray     # (32, 32) int8
    start_deco_max: jnp.ndarray  # (3,) int32
    # The game's values: traced, so one compiled engine plays every candidate of a tune.
    card_bananas: jnp.ndarray   # (C,) int32 Banana Points of each card
    board_start: jnp.ndarray    # (4, 3) int32 each board's starting arches, bricks, columns
    bonus_points: jnp.ndarray   # () int32 Banana Points of a bonus card
    trophy_points: jnp.ndarray  # (3,) int32 monkey, butterfly, frog trophy

    def with_values(self, **values) -> Params:
        """These settings with other values (VALUE_FIELDS), same shapes and dtypes: what a
        balance tune tries without recompiling."""
        from monkey_env.core.tuning import replace_values

        return replace_values(self, VALUE_FIELDS, values)


VALUE_FIELDS = ("card_bananas", "board_start", "bonus_points", "trophy_points")
export.register_namedtuple_serialization(Params, serialized_name="monkey_palace.Params")


class ParamsMaker:
    """Params from options, for one set of game data; each map's starting palace is built once."""

    def __init__(self, data: GameData):
        self.data = data
        self._maps: dict[tuple, tuple] = {}
        self._values: tuple | None = None

    def __call__(self, options: GameOptions | None = None, /, **values) -> Params:
        """The traced settings of one game, from an options object or its fields as keywords.

        The map is loaded from the options' game data (``config_dir``, or the map's path); the
        cards, boards, tray and catalogue are this JaxGame's, and options naming other ones
        raise a ValueError. Keywords not given take this JaxGame's data source."""
        if options is None:
            values.setdefault("config_dir", self.data.config_dir)
            values.setdefault("catalogue", self.data.catalogue_path)
            options = GameOptions(**values)
        elif values:
            raise TypeError("params takes an options object or keywords, not both")
        if (options.config_dir, options.catalogue) != (self.data.config_dir, self.data.catalogue_path):
            raise ValueError(f"these options' game data (config_dir={options.config_dir}, catalogue="
                             f"{options.catalogue}) are not this JaxGame's (config_dir={self.data.config_dir}, "
                             f"catalogue={self.data.catalogue_path}): use jax_game_for(options)")
        key = (options.map, options.config_dir)
        if key not in self._maps:
            # The starting palace of the map, built by the reference engine's own code.
            map_config = load_map(options.map, options.config_dir)
            palace = Palace.from_map(map_config, self.data.tray.animal_height)
            palace.place_start_staircase(tuple(map_config.start.anchor), HEADING_NAMES.index(map_config.start.heading))
            self._maps[key] = (on_device(palace.height, np.int8), on_device(palace.knob, np.int8),
                               on_device(palace.deco_max, np.int32))
        height, knob, deco_max = self._maps[key]
        flags = on_device([options.butterfly, options.frog, options.monkey_move == "mandatory",
                           options.butterfly_rule == "highest_overall", options.end_trigger == "last_taken"])
        return Params(on_device(options.players, np.int32), flags, height, knob, deco_max, *self.values)

    @property
    def values(self) -> tuple:
        """The game data's own values, in the order of VALUE_FIELDS."""
        if self._values is None:
            tray = self.data.tray
            el = lambda e: (e.arches, e.bricks, e.columns)
            self._values = (on_device([c.bananas for c in self.data.cards], np.int32),
                            on_device([el(b.starting) for b in self.data.boards.boards], np.int32),
                            on_device(tray.bonus.points, np.int32),
                            on_device([tray.trophies.monkey, tray.trophies.butterfly, tray.trophies.frog], np.int32))
        return self._values
