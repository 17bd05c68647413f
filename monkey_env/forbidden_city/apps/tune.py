"""Forbidden City's balance-tune space (its ``tune`` part): which numbers of its game data
(configs/forbidden_city/) may change, within what bounds, read from a YAML space file and
validated before anything is played.

    game: forbidden_city
    numbers:
      - {number: coins.dragon, low: 2, high: 5}
      - {number: tiles.stack.4.advisors, low: 0, high: 1}

The names of the numbers (NUMBER_FORMS):

| name | the number |
|---|---|
| ``coins.<field>`` | table.yaml's coins (COINS): a room's per tile, per dragon; a kept tile's per advisor, per dragon |
| ``tiles.stack.<i>.advisors`` | advisors on the i-th tile of tiles.yaml's stack (from 1; every ``count`` copy of it alike) |
| ``tiles.stack.<i>.dragon`` | whether it holds a dragon (0 or 1) |
| ``tiles.two_player_extras.<i>.advisors`` / ``.dragon`` | the same for the tiles marked "2" |

The tile mix is what the tiles hold (advisors and dragons: a blank tile made a one-advisor tile,
a dragon tile made blank); their walls, doors, floors and the stack's size are not tunable (the
JAX engine's fixed shapes: the table's rooms and the action space come from them). The bounds
are integers, ``low < high``, the starting data's value lies between them, each within the range
of its kind (RANGES), and the data made with every number at its low and at its high bound must
pass the game data's own validation (game_data.py). Every number is a traced value of the JAX
engine (jaxgame.env.Params: coin_values, tile_advisors, tile_dragons): a tune compiles once.
The objective's terms: seat and skill. The game has no item term (no card to buy: the tiles come
in a shuffled stack) and no length term (its length is fixed by the stack: every game lasts the
same number of rounds).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

import numpy as np

from monkey_env.core.tuning import Bound, GameTune, Number, SpaceError, TuneSpace, checked_bound
from monkey_env.forbidden_city.game_data import GameData, TableConfig, TilesConfig, load_game_data

FOLDER = "forbidden_city"
COINS = ("tile", "dragon", "end_advisor", "end_dragon")   # the order of Params.coin_values (tables.COIN_FIELDS)
LISTS = ("stack", "two_player_extras")
NUMBER_FORMS = (f"coins.<{'|'.join(COINS)}>", "tiles.<stack|two_player_extras>.<i>.advisors",
                "tiles.<stack|two_player_extras>.<i>.dragon")
RANGES = {"coins": (0, 10), "advisors": (0, 3), "dragon": (0, 1)}
TERMS = ("seat", "skill")


class Space(TuneSpace):
    """The validated space over one starting data set (the shipped configs/ or --config-dir); a
    Number's kind is "coins", "advisors" or "dragon", its index (coin,) or (list, entry)."""

    GAME, TERMS, FOLDER, SPACE_FILE = "forbidden_city", TERMS, FOLDER, "forbidden_city_space.yaml"

    def _resolve(self, b: Bound) -> Number:
        parts, where = b.number.split("."), f"{self.source}: {b.number}"
        if len(parts) == 2 and parts[0] == "coins" and parts[1] in COINS:
            n = Number(b, "coins", (COINS.index(parts[1]),), getattr(self.data.table.coins, parts[1]))
            checked_bound(b, n.start, RANGES["coins"], where, "coins")
            return n
        if len(parts) == 4 and parts[0] == "tiles" and parts[3] in ("advisors", "dragon"):
            if parts[1] not in LISTS:
                raise SpaceError(f"{where}: tiles.yaml has the lists {', '.join(LISTS)}, not {parts[1]!r}")
            entries = getattr(self.data.tiles, parts[1])
            if not re.fullmatch(r"[0-9]+", parts[2]) or not 1 <= int(parts[2]) <= len(entries):
                raise SpaceError(f"{where}: {parts[1]} has tiles 1 to {len(entries)}, not {parts[2]!r}")
            e = int(parts[2]) - 1
            n = Number(b, parts[3], (LISTS.index(parts[1]), e), getattr(entries[e], parts[3]))
            checked_bound(b, n.start, RANGES[parts[3]], where, parts[3])
            return n
        raise SpaceError(f"{where}: not a tunable number; the forms are: {', '.join(NUMBER_FORMS)}")

    def _files(self, candidate: Mapping[str, int]) -> dict[str, dict]:
        c = self._checked_candidate(candidate)
        tiles = self.data.tiles.model_dump(mode="json")
        table = self.data.table.model_dump(mode="json")
        for n in self.numbers:
            if n.kind == "coins":
                table["coins"][COINS[n.index[0]]] = c[n.name]
            else:
                tiles[LISTS[n.index[0]]][n.index[1]][n.kind] = c[n.name]
        return {"tiles.yaml": tiles, "table.yaml": table}

    def apply(self, candidate: Mapping[str, int]) -> GameData:
        """The game data with a candidate's numbers, validated by the game data's own models."""
        files = self._files(candidate)
        return dataclasses.replace(self.data, tiles=TilesConfig.model_validate(files["tiles.yaml"]),
                                   table=TableConfig.model_validate(files["table.yaml"]))

    def values(self, candidate: Mapping[str, int]) -> dict[str, np.ndarray]:
        """The JAX engine's traced values (jaxgame.env.VALUE_FIELDS) of a candidate."""
        from monkey_env.forbidden_city.jaxgame.tables import build_tables

        data = self.apply(candidate)
        tables, static = build_tables(data)
        return {"coin_values": np.asarray(static.coins, np.int32), "tile_advisors": np.asarray(tables.advisors),
                "tile_dragons": np.asarray(tables.dragons)}

def data_changes(before: GameData, after: GameData) -> list[dict]:
    """Every tunable number of tiles.yaml and table.yaml that differs: file, where, values."""
    out = []
    for f in COINS:
        a, b = getattr(before.table.coins, f), getattr(after.table.coins, f)
        if a != b:
            out.append(dict(file=f"{FOLDER}/table.yaml", where=f"coins {f}", start=a, tuned=b))
    for name in LISTS:
        for e, (a, b) in enumerate(zip(getattr(before.tiles, name), getattr(after.tiles, name))):
            for f in ("advisors", "dragon"):
                if getattr(a, f) != getattr(b, f):
                    out.append(dict(file=f"{FOLDER}/tiles.yaml", where=f"{name} tile {e + 1} (x{a.count}) {f}",
                                    start=getattr(a, f), tuned=getattr(b, f)))
    return out


class ForbiddenCityTune(GameTune):
    """The ``tune`` part: what monkey_env/apps/tune asks of a game (monkey_env.games.PARTS)."""

    Space = Space
    data_changes = staticmethod(data_changes)
    # one setting (no maps): the beginner side of the start tile, the publisher's ending
    player_counts = (2, 3, 4)
    default_players = (2, 4)
    item_words = "tile"

    loader = staticmethod(load_game_data)

    @staticmethod
    def jax_game(config_dir: str | None, space: Space | None = None, options: dict | None = None):
        """The JAX engine whose Params.with_values take Space.values (traced: compiled once);
        ``options`` (the start side, the ending) are traced, so they are the params'."""
        from monkey_env.forbidden_city.jaxgame.env import jax_game_for
        from monkey_env.forbidden_city.options import ForbiddenCityOptions

        del space, options
        return jax_game_for(ForbiddenCityOptions(config_dir=config_dir))

    @staticmethod
    def max_players() -> int:
        from monkey_env.forbidden_city.jaxgame.state import MAX_PLAYERS

        return MAX_PLAYERS

    @staticmethod
    def params(jg, players: int, map_id: int, options: dict | None = None):
        del map_id
        return jg.params(players=players, **(options or {}))

    @staticmethod
    def held_items(states):
        """None: the game has no item term."""
        del states
        return None


TUNE = ForbiddenCityTune()
