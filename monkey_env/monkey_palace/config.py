"""Loading and validating the human-edited game data in ``configs/``.

Each YAML file is parsed into a pydantic model. Any problem, a YAML syntax error,
a missing or mistyped field, a rule of the data broken (67 cards, corner pieces in
place, ...), becomes one :class:`ConfigError` naming the file, the field and the
problem, never a traceback from deep inside.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from monkey_env.core.config_loading import ConfigError, StrictModel, default_config_dir, load_yaml_model
from monkey_env.monkey_palace.geometry import BOARD_SIZE, CORNER_CELLS, HEADING_NAMES, heading_step

PILE_IDS = (
    "multi-1", "multi-2", "multi-6",
    "light-3", "light-4", "light-5",
    "dark-3", "dark-4", "dark-5",
    "gold-3", "gold-4", "gold-5",
)
MAP_CHARS = "ldgw#C"
START_STAIRCASE_LENGTH = 7  # arch, arch sharing a leg, brick under the far leg: 7 studs in a line


class Elements(StrictModel):
    arches: int = Field(ge=0)
    bricks: int = Field(ge=0)
    columns: int = Field(ge=0)

    def total(self) -> int:
        return self.arches + self.bricks + self.columns


class Decorations(StrictModel):
    light: int | None = Field(default=None, ge=0)
    dark: int | None = Field(default=None, ge=0)
    gold: int | None = Field(default=None, ge=0)


class Bonus(StrictModel):
    cards: int = Field(ge=0)
    points: int
    min_stack: int = Field(ge=1)


class Trophies(StrictModel):
    monkey: int
    butterfly: int
    frog: int


class TrayConfig(StrictModel):
    elements: Elements
    column_units: int = Field(ge=1)
    decorations: Decorations = Decorations()
    bonus: Bonus
    trophies: Trophies
    animal_height: int = Field(ge=0)

    @property
    def max_units(self) -> int:
        """The tallest stack the whole tray could make: the complete build action's highest rise."""
        return self.elements.bricks + self.column_units * self.elements.columns

    @model_validator(mode="after")
    def _unlimited_decorations(self) -> TrayConfig:
        # Decorations are unlimited in the published game (FAQ); a finite count would need
        # a rule for running out, which the texts do not give.
        if any(v is not None for v in (self.decorations.light, self.decorations.dark, self.decorations.gold)):
            raise ValueError("decorations must be null (unlimited): the rules give no rule for running out")
        return self


InstantIcon = Literal["arch", "brick", "column", "arch_or_brick"]


class Card(StrictModel):
    bananas: int
    instant: list[InstantIcon] = []
    recurring: Elements = Elements(arches=0, bricks=0, columns=0)


class Pile(StrictModel):
    id: str
    cost: int = Field(ge=1)
    colour: Literal["multi", "light", "dark", "gold"]
    cards: list[Card] = Field(min_length=1)

    @model_validator(mode="after")
    def _id_matches(self) -> Pile:
        if self.id not in PILE_IDS:
            raise ValueError(f"unknown pile id {self.id!r}; expected one of {', '.join(PILE_IDS)}")
        colour, cost = self.id.split("-")
        if colour != self.colour or int(cost) != self.cost:
            raise ValueError(f"pile {self.id!r} must have colour {colour} and cost {cost}, "
                             f"not {self.colour} and {self.cost}")
        return self


class CardsConfig(StrictModel):
    piles: list[Pile]

    @model_validator(mode="after")
    def _twelve_piles(self) -> CardsConfig:
        ids = [p.id for p in self.piles]
        if sorted(ids) != sorted(PILE_IDS):
            raise ValueError(f"piles must be exactly {', '.join(PILE_IDS)} once each, got {', '.join(ids)}")
        return self

    def ordered_piles(self) -> list[Pile]:
        """The piles in the canonical order of PILE_IDS (the action indices follow it)."""
        by_id = {p.id: p for p in self.piles}
        return [by_id[i] for i in PILE_IDS]


class Board(StrictModel):
    seat: int = Field(ge=1, le=4)
    starting: Elements
    recurring: Elements

    @field_validator("recurring")
    @classmethod
    def _recurring_not_empty(cls, v: Elements) -> Elements:
        # Every turn takes from the tray, so the tray empties and every game ends.
        if v.total() < 1:
            raise ValueError("the recurring supply must hold at least one element (or games could never end)")
        return v


class BoardsConfig(StrictModel):
    slots: int = Field(ge=1)
    boards: list[Board]

    @model_validator(mode="after")
    def _four_seats(self) -> BoardsConfig:
        if [b.seat for b in self.boards] != [1, 2, 3, 4]:
            raise ValueError("boards must list seats 1, 2, 3, 4 in order")
        return self


class Start(StrictModel):
    anchor: tuple[int, int]
    heading: Literal["N", "E", "S", "W"]


class MapConfig(StrictModel):
    name: str
    description: str
    start: Start
    grid: str

    @field_validator("grid")
    @classmethod
    def _grid_shape(cls, v: str) -> str:
        rows = v.strip("\n").split("\n")
        if len(rows) != BOARD_SIZE:
            raise ValueError(f"the grid must have {BOARD_SIZE} rows, found {len(rows)}")
        for y, row in enumerate(rows):
            if len(row) != BOARD_SIZE:
                raise ValueError(f"row {y} must have {BOARD_SIZE} characters, found {len(row)}: {row!r}")
            bad = sorted(set(row) - set(MAP_CHARS))
            if bad:
                raise ValueError(f"row {y} has unknown characters {bad}; allowed: {' '.join(MAP_CHARS)}")
        corners = {(x, y) for y in range(BOARD_SIZE) for x in range(BOARD_SIZE) if rows[y][x] == "C"}
        if corners != set(CORNER_CELLS):
            raise ValueError(f"corner pieces ('C') must be exactly at {sorted(CORNER_CELLS)}, found {sorted(corners)}")
        return "\n".join(rows)

    @model_validator(mode="after")
    def _start_on_white(self) -> MapConfig:
        rows = self.rows()
        dx, dy = heading_step(HEADING_NAMES.index(self.start.heading))
        x0, y0 = self.start.anchor
        for i in range(START_STAIRCASE_LENGTH):
            x, y = x0 + i * dx, y0 + i * dy
            if not (0 <= x < BOARD_SIZE and 0 <= y < BOARD_SIZE) or rows[y][x] != "w":
                raise ValueError(f"start: the starting staircase's stud {i} at ({x}, {y}) must be a white 'w' stud")
        return self

    def rows(self) -> list[str]:
        return self.grid.split("\n")


Programme = Literal["straight", "single_turn", "zigzag", "spiral"]


class CatalogueConfig(StrictModel):
    headings: list[Literal["N", "E", "S", "W"]] = Field(min_length=1)
    bases: list[int] = Field(min_length=1)
    max_arches: int = Field(ge=1, le=8)
    rises: list[int] = Field(min_length=1)
    programmes: list[Programme] = Field(min_length=1)

    @field_validator("bases", "rises")
    @classmethod
    def _small_non_negative(cls, v: list[int]) -> list[int]:
        if any(x < 0 or x > 8 for x in v) or len(set(v)) != len(v):
            raise ValueError("must be distinct whole numbers from 0 to 8")
        return sorted(v)

    @field_validator("headings", "programmes")
    @classmethod
    def _distinct(cls, v: list) -> list:
        if len(set(v)) != len(v):
            raise ValueError("entries must be distinct")
        return v


# --------------------------------------------------------------------------- loading

def load_tray(path: Path | None = None) -> TrayConfig:
    return load_yaml_model(path or default_config_dir() / "tray.yaml", TrayConfig)


def load_cards(path: Path | None = None) -> CardsConfig:
    return load_yaml_model(path or default_config_dir() / "cards.yaml", CardsConfig)


def load_boards(path: Path | None = None) -> BoardsConfig:
    return load_yaml_model(path or default_config_dir() / "boards.yaml", BoardsConfig)


def load_catalogue(path: Path | None = None) -> CatalogueConfig:
    return load_yaml_model(path or default_config_dir() / "catalogue.yaml", CatalogueConfig)


def map_path(map_id: int | str, config_dir: str | Path | None = None) -> Path:
    """A map by number (1-4: maps/mapN.yaml of ``config_dir``, the shipped configs by default)
    or by the path of an edited copy."""
    if isinstance(map_id, int) or (isinstance(map_id, str) and map_id.isdigit()):
        n = int(map_id)
        if n not in (1, 2, 3, 4):
            raise ConfigError(f"map {n}: there are four ground maps, numbered 1 to 4")
        return Path(config_dir or default_config_dir()) / "maps" / f"map{n}.yaml"
    return Path(map_id)


def load_map(map_id: int | str, config_dir: str | Path | None = None) -> MapConfig:
    return load_yaml_model(map_path(map_id, config_dir), MapConfig)
