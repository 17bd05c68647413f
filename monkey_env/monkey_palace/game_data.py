"""All the game data one game needs, loaded from configs/ and validated, as one object.

Both engines read this object (the JAX engine turns it into arrays), so no number
of the game is written twice.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from monkey_env.monkey_palace.build_legality import LaneTree, ShapeTree
from monkey_env.monkey_palace.catalogue import Shape, build_catalogue
from monkey_env.monkey_palace.config import (
    BoardsConfig,
    CardsConfig,
    CatalogueConfig,
    MapConfig,
    TrayConfig,
    load_boards,
    load_cards,
    load_catalogue,
    load_map,
    load_tray,
)


@dataclass(frozen=True)
class CardInfo:
    """One Monkey Card, with its place in the deck (card ids follow the piles' order)."""

    id: int
    pile: int        # index into PILE_IDS
    cost: int
    colour: str      # multi, light, dark, gold
    bananas: int
    instant: tuple[str, ...]
    recurring: tuple[int, int, int]  # arches, bricks, columns


@dataclass(frozen=True)
class GameData:
    tray: TrayConfig
    cards_config: CardsConfig
    boards: BoardsConfig
    catalogue_config: CatalogueConfig
    map: MapConfig
    map_id: str
    # Where the data came from, so that another map of the same data can be loaded alike:
    config_dir: str | None = None        # the folder laid out like configs/, None for the shipped one
    catalogue_path: str | None = None    # an edited template catalogue, if given apart

    @cached_property
    def cards(self) -> tuple[CardInfo, ...]:
        out = []
        for p, pile in enumerate(self.cards_config.ordered_piles()):
            for c in pile.cards:
                out.append(CardInfo(len(out), p, pile.cost, pile.colour, c.bananas, tuple(c.instant),
                                    (c.recurring.arches, c.recurring.bricks, c.recurring.columns)))
        return tuple(out)

    @cached_property
    def pile_cards(self) -> tuple[tuple[int, ...], ...]:
        """The card ids of each pile, in the order the config lists them (before shuffling)."""
        return tuple(tuple(c.id for c in self.cards if c.pile == p) for p in range(12))

    @cached_property
    def shapes(self) -> tuple[Shape, ...]:
        return build_catalogue(self.catalogue_config)

    @cached_property
    def shape_tree(self) -> ShapeTree:
        return ShapeTree(self.shapes)

    @cached_property
    def lane_tree(self) -> LaneTree:
        return LaneTree(self.shape_tree)

    @cached_property
    def fingerprint(self) -> str:
        """A hash of every number of the game data: saves and records are tied to it."""
        return _hash(self.tray, self.cards_config, self.boards, self.catalogue_config, self.map)

    @cached_property
    def fingerprint_without_map(self) -> str:
        """The same without the map: games of one JAX engine share it (their maps are parameters)."""
        return _hash(self.tray, self.cards_config, self.boards, self.catalogue_config)


def _hash(*models) -> str:
    blob = json.dumps([m.model_dump(mode="json") for m in models], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def load_game_data(map_id: int | str = 1, *, config_dir: str | Path | None = None,
                   cards: str | Path | None = None, boards: str | Path | None = None,
                   catalogue: str | Path | None = None) -> GameData:
    """Load and validate the game data: the shipped configs, or a folder / files of edited copies."""
    d = Path(config_dir) if config_dir else None
    pick = lambda explicit, name: Path(explicit) if explicit else (d / name if d else None)
    return GameData(
        tray=load_tray(pick(None, "tray.yaml")),
        cards_config=load_cards(pick(cards, "cards.yaml")),
        boards=load_boards(pick(boards, "boards.yaml")),
        catalogue_config=load_catalogue(pick(catalogue, "catalogue.yaml")),
        map=load_map(map_id, d),
        map_id=str(map_id),
        config_dir=str(d) if d else None,
        catalogue_path=str(catalogue) if catalogue else None,
    )
