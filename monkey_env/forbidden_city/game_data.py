"""Forbidden City's game data from configs/forbidden_city/, validated with pydantic on load.

``tiles.yaml`` (one player's stack and the two-player extras), ``start_tile.yaml`` (the start
tile's two sides) and ``table.yaml`` (table size, coins, seat colours). A bad file raises a
ConfigError naming the file, the entry and the problem. Both engines read the one GameData.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from monkey_env.core.config_loading import ConfigError, default_config_dir, load_yaml_model
from monkey_env.forbidden_city.geometry import (
    COLOURS,
    DIAGONALS,
    DIRECTIONS,
    DOOR,
    GARDEN,
    OPEN,
    PALACE,
    ROOM_COLOURS,
    SIDE_LETTERS,
    STEP,
    WALL,
    opposite,
    rotate,
)

START_SIDES = ("beginner", "advanced")
PLAYER_COLOURS = ("red", "blue", "yellow", "purple")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _sides(v: str) -> str:
    if not isinstance(v, str) or len(v) != 4 or any(c not in SIDE_LETTERS for c in v):
        raise ValueError(f"sides must be four letters of o (open), w (wall), d (door) for N, E, S, W; got {v!r}")
    return v


class TileModel(_Strict):
    """One kind of tile of a stack (tiles.yaml)."""

    floor: Literal["green", "pink", "white"] | list[Literal["green", "pink", "white"]]
    sides: str
    diagonal: Literal["none", "nw-se", "sw-ne"] = "none"
    advisors: int = Field(0, ge=0, le=3)
    dragon: int = Field(0, ge=0, le=1)
    part: int = Field(0, ge=0, le=1, description="the part holding the advisors and the dragon")
    count: int = Field(1, ge=1, le=24)

    _check_sides = field_validator("sides")(classmethod(lambda cls, v: _sides(v)))

    @model_validator(mode="after")
    def _parts(self):
        floors = self.floors
        if self.diagonal == "none" and len(floors) != 1:
            raise ValueError("a tile without a diagonal wall has one floor colour")
        if self.diagonal != "none" and len(floors) != 2:
            raise ValueError(f"a tile with a {self.diagonal} diagonal has two floor colours, one per part")
        if self.diagonal == "none" and self.part != 0:
            raise ValueError("part: 1 needs a diagonal (a tile without one has a single part)")
        return self

    @property
    def floors(self) -> tuple[str, ...]:
        return (self.floor,) if isinstance(self.floor, str) else tuple(self.floor)


class StartCellModel(_Strict):
    floor: Literal["green", "pink", "white", "palace", "garden"]
    sides: str

    _check_sides = field_validator("sides")(classmethod(lambda cls, v: _sides(v)))


class TilesConfig(_Strict):
    stack: list[TileModel]
    two_player_extras: list[TileModel] = []

    @model_validator(mode="after")
    def _sizes(self):
        if sum(t.count for t in self.stack) < 3:
            raise ValueError("stack: a player needs at least 3 tiles")
        if sum(t.count for t in self.stack) + sum(t.count for t in self.two_player_extras) > 64:
            raise ValueError("stack and two_player_extras hold more than 64 tiles")
        return self


class StartTileConfig(_Strict):
    beginner: list[list[StartCellModel]]
    advanced: list[list[StartCellModel]]

    @model_validator(mode="after")
    def _shape(self):
        for name in START_SIDES:
            rows = getattr(self, name)
            if not rows or any(len(r) != len(rows) for r in rows) or len(rows) % 2 == 0:
                raise ValueError(f"{name}: the start tile is an odd square of cells (rows of equal length)")
            if sum(c.floor == "palace" for r in rows for c in r) != 1:
                raise ValueError(f"{name}: the start tile holds exactly one Imperial Palace cell")
            for y, row in enumerate(rows):
                for x, cell in enumerate(row):
                    for d in (1, 2):   # east and south neighbours
                        dx, dy = STEP[d]
                        if 0 <= y + dy < len(rows) and 0 <= x + dx < len(rows):
                            other = rows[y + dy][x + dx]
                            if (SIDE_LETTERS[cell.sides[d]] == OPEN and SIDE_LETTERS[other.sides[opposite(d)]] == OPEN
                                    and cell.floor != other.floor):
                                raise ValueError(f"{name}: cells ({x}, {y}) and ({x + dx}, {y + dy}) join "
                                                 f"{cell.floor} and {other.floor} floors with no wall between")
        return self


class CoinsConfig(_Strict):
    tile: int = Field(ge=0)
    dragon: int = Field(ge=0)
    end_advisor: int = Field(ge=0)
    end_dragon: int = Field(ge=0)


class TableConfig(_Strict):
    table_size: int = Field(ge=5, le=41)
    coins: CoinsConfig
    seat_colours: dict[int, list[Literal["red", "blue", "yellow", "purple"]]]

    model_config = ConfigDict(extra="forbid", strict=False, frozen=True)   # YAML keys 2, 3, 4 as ints

    @field_validator("seat_colours")
    @classmethod
    def _colours(cls, v):
        for n in (2, 3, 4):
            if n not in v or len(v[n]) != n or len(set(v[n])) != n:
                raise ValueError(f"seat_colours needs {n} distinct colours for {n} players")
        return v


@dataclass(frozen=True)
class TileFace:
    """A tile (or a start-tile cell) as laid, after rotation: everything the rules read."""

    sides: tuple[int, int, int, int]         # OPEN, WALL or DOOR, per direction N E S W
    quarter_part: tuple[int, int, int, int]  # the part (0 or 1) of the quarter against each side
    floors: tuple[int, ...]                  # colour index per part (1 or 2 parts)
    advisors: tuple[int, ...]                # advisors per part (the owner's colour)
    dragons: tuple[int, ...]                 # dragons per part
    counts: bool = True                      # False for a garden: never counted in a room's value

    @property
    def parts(self) -> int:
        return len(self.floors)

    def floor_towards(self, d: int) -> int:
        return self.floors[self.quarter_part[d]]

    def turned(self, turns: int) -> TileFace:
        return TileFace(rotate(self.sides, turns), rotate(self.quarter_part, turns), self.floors,
                        self.advisors, self.dragons, self.counts)

    def words(self) -> str:
        """Its walls and doors by side (the other sides open) and, split by a diagonal wall,
        which half has which floor, with what it holds: "wall N, door E" or "green NE half
        (2 advisors), pink SW half; wall N". In words, since letters here would clash with the
        grid's (w is white floor there)."""
        said = []
        for kind, name in ((WALL, "wall"), (DOOR, "door")):
            where = ["NESW"[d] for d in DIRECTIONS if self.sides[d] == kind]
            if where:
                said.append(f"{name}{'s' * (len(where) > 1)} {' '.join(where)}")
        sides = ", ".join(said) or "no wall"
        if self.parts == 1:
            return sides
        halves = []
        for part in range(2):
            held = [f"{n} advisor{'s' * (n > 1)}" for n in [self.advisors[part]] if n] + ["a dragon"] * self.dragons[part]
            quarters = {"NESW"[d] for d in DIRECTIONS if self.quarter_part[d] == part}   # two neighbours
            half = next(h for h in ("NE", "SE", "SW", "NW") if set(h) == quarters)
            halves.append(f"{COLOURS[self.floors[part]]} {half} half" + (f" ({', '.join(held)})" if held else ""))
        return f"{', '.join(halves)}; {sides}"


@dataclass(frozen=True)
class TileKind:
    """One tile of a stack as the engines use it (unrotated face, and a name for people)."""

    index: int          # place in the stack list (the order of tiles.yaml, expanded by count)
    face: TileFace
    diagonal: str
    extra: bool         # one of the tiles marked "2" (two players only)

    @property
    def content(self) -> str:
        """The tile's kind for statistics: dragon, blank, advisors-1, advisors-2..."""
        if sum(self.face.dragons):
            return "dragon"
        a = sum(self.face.advisors)
        return f"advisors-{a}" if a else "blank"

    def describe(self) -> str:
        """The tile as it comes (not turned), in words: "white floor; wall N, door E; 2 advisors"."""
        f = self.face
        if f.parts == 2:            # words() says which floor holds what
            return f"diagonal wall {self.diagonal}: {f.words()}"
        bits = [f"{COLOURS[f.floors[0]]} floor", f.words()]
        if sum(f.advisors):
            bits.append(f"{sum(f.advisors)} advisor{'s' if sum(f.advisors) > 1 else ''}")
        if sum(f.dragons):
            bits.append("a dragon")
        return "; ".join(bits)


def _face(model: TileModel) -> TileFace:
    parts = len(model.floors)
    adv = [0] * parts
    drg = [0] * parts
    adv[model.part] = model.advisors
    drg[model.part] = model.dragon
    return TileFace(tuple(SIDE_LETTERS[c] for c in model.sides), DIAGONALS[model.diagonal],
                    tuple(COLOURS.index(c) for c in model.floors), tuple(adv), tuple(drg))


def _cell_face(model: StartCellModel) -> TileFace:
    colour = COLOURS.index(model.floor)
    return TileFace(tuple(SIDE_LETTERS[c] for c in model.sides), (0, 0, 0, 0), (colour,), (0,), (0,),
                    counts=colour != GARDEN)


@dataclass(frozen=True)
class GameData:
    tiles: TilesConfig
    start: StartTileConfig
    table: TableConfig
    config_dir: str | None = None

    @cached_property
    def kinds(self) -> tuple[TileKind, ...]:
        """Every tile a stack may hold: the base stack, then the two-player extras."""
        out = []
        for extra, models in ((False, self.tiles.stack), (True, self.tiles.two_player_extras)):
            for m in models:
                for _ in range(m.count):
                    out.append(TileKind(len(out), _face(m), m.diagonal, extra))
        return tuple(out)

    @property
    def base_size(self) -> int:
        return sum(t.count for t in self.tiles.stack)

    def stack_size(self, players: int) -> int:
        return len(self.kinds) if players == 2 else self.base_size

    @property
    def size(self) -> int:
        return self.table.table_size

    def start_cells(self, side: str) -> list[list[TileFace]]:
        return [[_cell_face(c) for c in row] for row in getattr(self.start, side)]

    @property
    def start_span(self) -> int:
        return len(self.start.beginner)

    def start_origin(self, side: str) -> int:
        """x (= y) of the start tile's north-west cell: the start tile sits in the middle."""
        return (self.size - len(getattr(self.start, side))) // 2

    @cached_property
    def fingerprint(self) -> str:
        blob = json.dumps([self.tiles.model_dump(), self.start.model_dump(), self.table.model_dump()],
                          sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def seat_colours(self, players: int) -> list[str]:
        return list(self.table.seat_colours[players])


def load_game_data(config_dir: str | Path | None = None) -> GameData:
    """The game data of ``config_dir``'s forbidden_city/ folder (the shipped configs/ if None)."""
    root = (Path(config_dir) if config_dir is not None else default_config_dir()) / "forbidden_city"
    if not root.is_dir():
        raise ConfigError(f"{root}: no forbidden_city folder (tiles.yaml, start_tile.yaml, table.yaml)")
    tiles = load_yaml_model(root / "tiles.yaml", TilesConfig)
    start = load_yaml_model(root / "start_tile.yaml", StartTileConfig)
    table = load_yaml_model(root / "table.yaml", TableConfig)
    if len(start.beginner) != len(start.advanced):
        raise ConfigError(f"{root / 'start_tile.yaml'}: both sides of the start tile have the same size")
    if len(start.beginner) + 4 > table.table_size:
        raise ConfigError(f"{root / 'table.yaml'}: table_size {table.table_size} leaves no room around the start tile")
    return GameData(tiles, start, table, None if config_dir is None else str(config_dir))


__all__ = ["GameData", "TileFace", "TileKind", "load_game_data", "START_SIDES", "PLAYER_COLOURS", "ConfigError",
           "ROOM_COLOURS", "PALACE", "DIRECTIONS"]
