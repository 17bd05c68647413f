"""The Shadow Theater's game data, from human-edited YAML in ``configs/shadow_theater/``.

``game.yaml`` holds the seed's figures (exact); ``weapons.yaml`` and ``scrolls.yaml`` hold the
17 Dragon Weapon cards and 10 Scroll tiles, which are NOT in the seed: labelled stand-ins a
designer replaces without touching code. Each file is validated by a pydantic model; any problem
is one :class:`ConfigError` naming the file, the field and what is wrong.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from monkey_env.core.config_loading import ConfigError, StrictModel, default_config_dir, read_yaml_model

LOCATIONS = ("lair", "palace", "garden")
LOCATION_NAMES = {"lair": "the Dragon's Lair", "palace": "the Emperor's Palace", "garden": "the Celestial Garden"}
RESOURCES = ("monkeys", "jade", "peaches")          # the order of every resource array
CARD_EFFECTS = ("gain", "steal", "move_king", "recall", "treasure")
SCROLL_EFFECTS = ("place_bonus", "feed", "jade_set", "start", "card_points", "jade_majority")


class Scoring(StrictModel):
    monkeys_fed_per_peach: int = Field(ge=0)
    points_per_fed_monkey: int = Field(ge=0)
    points_per_card: int = Field(ge=0)
    jade_per_set: int = Field(ge=1)
    points_per_jade_set: int = Field(ge=0)
    jade_majority_points: int = Field(ge=0)


class PlaceEffects(StrictModel):
    lair: dict[Literal["cards"], int]
    palace: dict[Literal["jade", "monkeys"], int]
    garden: dict[Literal["peaches", "move_king"], int | bool]


class GameFile(StrictModel):
    locations: tuple[Literal["lair"], Literal["palace"], Literal["garden"]]
    spaces_per_location: int = Field(ge=1, le=9)
    monkeys: int = Field(ge=8, le=60)
    jade: int = Field(ge=1, le=60)
    peaches: int = Field(ge=1, le=60)
    weapon_cards_per_round: int = Field(ge=1)
    scrolls_drawn: Literal[2]
    starting_monkeys: dict[Literal["starter", "other"], int]
    lanterns_to_win: int = Field(ge=1, le=5)
    scoring: Scoring
    place_effects: PlaceEffects


class WeaponKind(StrictModel):
    name: str = Field(min_length=1)
    location: Literal["lair", "palace", "garden"]
    effect: Literal["gain", "steal", "move_king", "recall", "treasure"]
    resource: Literal["monkeys", "jade", "peaches"] | None = None
    amount: int = Field(0, ge=0, le=9)
    points: int = Field(1, ge=0, le=9)
    copies: int = Field(ge=1, le=17)

    @model_validator(mode="after")
    def _fields_of_the_effect(self):
        if self.effect in ("gain", "steal") and (self.resource is None or self.amount < 1):
            raise ValueError(f"{self.name}: a {self.effect} card needs a resource and an amount of at least 1")
        if self.effect == "recall" and self.amount < 1:
            raise ValueError(f"{self.name}: a recall card needs an amount of at least 1")
        if self.effect not in ("gain", "steal") and self.resource is not None:
            raise ValueError(f"{self.name}: a {self.effect} card takes no resource")
        return self


class WeaponsFile(StrictModel):
    kinds: list[WeaponKind]

    @model_validator(mode="after")
    def _seventeen(self):
        total = sum(k.copies for k in self.kinds)
        if total != 17:
            raise ValueError(f"the copies add up to {total} cards; the game has 17 Dragon Weapon cards")
        names = [k.name for k in self.kinds]
        if len(set(names)) != len(names):
            raise ValueError("two kinds have the same name")
        return self


class Scroll(StrictModel):
    name: str = Field(min_length=1)
    effect: Literal["place_bonus", "feed", "jade_set", "start", "card_points", "jade_majority"]
    location: Literal["lair", "palace", "garden"] | None = None
    resource: Literal["monkeys", "jade", "peaches", "cards"] | None = None
    amount: int = Field(ge=0, le=9)

    @model_validator(mode="after")
    def _fields_of_the_effect(self):
        if self.effect == "place_bonus" and (self.location is None or self.resource in (None, "cards")):
            raise ValueError(f"{self.name}: a place_bonus scroll needs a location and a resource (monkeys, jade, peaches)")
        if self.effect == "start" and self.resource is None:
            raise ValueError(f"{self.name}: a start scroll needs a resource")
        if self.effect not in ("place_bonus", "start") and (self.location or self.resource):
            raise ValueError(f"{self.name}: a {self.effect} scroll takes no location or resource")
        return self


class ScrollsFile(StrictModel):
    scrolls: list[Scroll]

    @model_validator(mode="after")
    def _ten(self):
        if len(self.scrolls) != 10:
            raise ValueError(f"{len(self.scrolls)} scrolls; the game has 10 Scroll tiles")
        return self


@dataclass(frozen=True)
class Card:
    """One of the 17 cards: its kind (index into GameData.kinds) and that kind's fields."""

    id: int
    kind: int
    name: str
    location: int          # index into LOCATIONS
    effect: str
    resource: int          # index into RESOURCES, -1 none
    amount: int
    points: int


@dataclass(frozen=True)
class GameData:
    game: GameFile
    kinds: tuple[WeaponKind, ...]
    cards: tuple[Card, ...]
    scrolls: tuple[Scroll, ...]
    config_dir: str | None
    fingerprint: str           # a hash of the three files' contents

    @property
    def fingerprint_without_map(self) -> str:       # the applications' name for "the data's hash"
        return self.fingerprint


def default_dir() -> Path:
    return default_config_dir() / "shadow_theater"


DATA_FILES = ("game.yaml", "weapons.yaml", "scrolls.yaml")


def load_game_data(config_dir: str | None = None) -> GameData:
    """The game data of ``config_dir/shadow_theater/`` (or the shipped ones); a file missing
    there is taken from the shipped data, but a folder holding none of them is refused."""
    return _load(None if config_dir is None else str(config_dir))


@lru_cache(maxsize=16)
def _load(config_dir: str | None) -> GameData:
    from monkey_env.core.data_folder import data_folder_problem

    problem = None if config_dir is None else data_folder_problem(config_dir, "shadow_theater", DATA_FILES)
    if problem:
        raise ConfigError(f"config_dir: {problem}")
    texts, parsed = [], {}
    for name, model in (("game.yaml", GameFile), ("weapons.yaml", WeaponsFile), ("scrolls.yaml", ScrollsFile)):
        path = default_dir() / name
        if config_dir is not None and (Path(config_dir) / "shadow_theater" / name).is_file():
            path = Path(config_dir) / "shadow_theater" / name
        parsed[name], text = read_yaml_model(path, model)
        texts.append(text)
    kinds = tuple(parsed["weapons.yaml"].kinds)
    cards, i = [], 0
    for k, kind in enumerate(kinds):
        for _ in range(kind.copies):
            cards.append(Card(i, k, kind.name, LOCATIONS.index(kind.location), kind.effect,
                              RESOURCES.index(kind.resource) if kind.resource else -1, kind.amount, kind.points))
            i += 1
    return GameData(parsed["game.yaml"], kinds, tuple(cards), tuple(parsed["scrolls.yaml"].scrolls), config_dir,
                    hashlib.sha256(json.dumps(texts).encode()).hexdigest()[:16])
