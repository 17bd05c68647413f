"""Monkey Palace's balance-tune space (its ``tune`` part): which numbers of the game data may change, within what
bounds, read from a YAML file and validated before anything is played.

    numbers:
      - {number: boards.seat1.starting.bricks, low: 1, high: 5}
      - {number: cards.multi-6.bananas_shift, low: -1, high: 1}
      - {number: tray.bonus.points, low: 2, high: 6}

The names of the numbers (NUMBER_FORMS):

| name | the number |
|---|---|
| ``cards.<pile>.<k>.bananas`` | Banana Points of the k-th card (from 1) of a pile, as cards.yaml lists it |
| ``cards.<pile>.bananas_shift`` | added to the Banana Points of every card of the pile (shipped: 0) |
| ``boards.seat<N>.starting.<arches/bricks/columns>`` | a board's starting supply |
| ``tray.bonus.points`` | Banana Points of a bonus card |
| ``tray.trophies.<monkey/butterfly/frog>`` | a trophy's Banana Points |

A pile's cost is not tunable: its id fixes it (the published costs, configs/cards.yaml).

The bounds are integers (``2.5`` or ``"3"`` is refused), ``low < high``, the starting data's
value lies between them (the search starts from the shipped data), and the data made with
every number at its low and at its high bound must still pass the game data's own validation
(monkey_env.monkey_palace.config) and the ranges of RANGES. The file may also hold the
objective's targets and weights (``objective:``, see objective.ObjectiveConfig).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

import numpy as np

from monkey_env.core.tuning import SHARED_TERMS, Bound, GameTune, Number, SpaceError, TuneSpace
from monkey_env.monkey_palace.config import PILE_IDS, BoardsConfig, CardsConfig, TrayConfig
from monkey_env.monkey_palace.game_data import GameData

ELEMENTS = ("arches", "bricks", "columns")
TROPHIES = ("monkey", "butterfly", "frog")
NUMBER_FORMS = ("cards.<pile>.<k>.bananas", "cards.<pile>.bananas_shift",
                "boards.seat<N>.starting.<arches|bricks|columns>", "tray.bonus.points",
                "tray.trophies.<monkey|butterfly|frog>")
# What a tuned number may be, beyond the data's own rules: a card's Banana Points and a starting
# supply are never negative; points stay within what the game's scale makes sense of.
RANGES = {"bananas": (0, 20), "starting": (0, 20), "bonus": (0, 20), "trophy": (-10, 10)}
# The objective's terms: the shared ones and the game's item term, a card bought (objective.py).
TERMS = SHARED_TERMS + ("cards",)


class Space(TuneSpace):
    """The validated space over one starting data set (the shipped configs/ or --config-dir). A
    Number's kind is "bananas", "shift", "starting", "bonus" or "trophy", its index the card ids
    (bananas, shift), (seat, element) (starting) or the trophy; a shift starts at 0."""

    GAME, TERMS, SPACE_FILE = "monkey_palace", TERMS, "default_space.yaml"   # its data files at configs/' top

    def _resolve(self, b: Bound) -> Number:
        parts = b.number.split(".")
        where = f"{self.source}: {b.number}"
        data = self.data
        if parts[0] == "cards" and len(parts) in (3, 4):
            pile = parts[1]
            if pile not in PILE_IDS:
                raise SpaceError(f"{where}: unknown pile {pile!r}; piles: {', '.join(PILE_IDS)}")
            ids = data.pile_cards[PILE_IDS.index(pile)]
            if parts[2:] == ["cost"]:
                raise SpaceError(f"{where}: a pile's cost is not tunable (its id fixes it: the published costs)")
            if parts[2:] == ["bananas_shift"]:
                return self._checked(Number(b, "shift", tuple(ids), 0), where)
            if len(parts) == 4 and parts[3] == "bananas" and re.fullmatch(r"[0-9]+", parts[2]):
                k = int(parts[2])
                if not 1 <= k <= len(ids):
                    raise SpaceError(f"{where}: pile {pile} has cards 1 to {len(ids)}, not {k}")
                card = ids[k - 1]
                return self._checked(Number(b, "bananas", (card,), data.cards[card].bananas), where)
        if parts[0] == "boards" and len(parts) == 4 and parts[2] == "starting":
            m = re.fullmatch(r"seat([1-4])", parts[1])
            if m and parts[3] in ELEMENTS:
                seat, el = int(m.group(1)) - 1, ELEMENTS.index(parts[3])
                value = getattr(data.boards.boards[seat].starting, parts[3])
                return self._checked(Number(b, "starting", (seat, el), value), where)
        if parts == ["tray", "bonus", "points"]:
            return self._checked(Number(b, "bonus", (), data.tray.bonus.points), where)
        if len(parts) == 3 and parts[:2] == ["tray", "trophies"] and parts[2] in TROPHIES:
            t = TROPHIES.index(parts[2])
            return self._checked(Number(b, "trophy", (t,), getattr(data.tray.trophies, parts[2])), where)
        raise SpaceError(f"{where}: not a tunable number; the forms are: {', '.join(NUMBER_FORMS)}")

    def _checked(self, n: Number, where: str) -> Number:
        b = n.bound
        if not b.low <= n.start <= b.high:
            raise SpaceError(f"{where}: the starting data's value {n.start} is outside [{b.low}, {b.high}] "
                             "(the search starts from the data)")
        kind = "bananas" if n.kind == "shift" else n.kind
        lo, hi = RANGES[kind]
        if n.kind == "shift":
            have = [self.data.cards[c].bananas for c in n.index]
            values = (min(have) + b.low, max(have) + b.high)
            what = f"its cards' Banana Points would reach {values[0]} to {values[1]}"
        else:
            values, what = (b.low, b.high), f"bounds [{b.low}, {b.high}]"
        if values[0] < lo or values[1] > hi:
            raise SpaceError(f"{where}: {what}, outside the range of a {kind} number [{lo}, {hi}]")
        return n

    def _check_numbers(self) -> None:
        """A card's Banana Points set and shifted at once would be ambiguous."""
        set_cards = {c for n in self.numbers if n.kind == "bananas" for c in n.index}
        for n in self.numbers:
            if n.kind == "shift" and set_cards & set(n.index):
                raise SpaceError(f"{self.source}: {n.name} shifts cards whose Banana Points are also set one by one")

    def values(self, candidate: Mapping[str, int]) -> dict[str, np.ndarray]:
        """The JAX engine's traced values (jaxgame.params.VALUE_FIELDS) of a candidate."""
        c = self._checked_candidate(candidate)
        data = self.data
        tray = data.tray
        bananas = np.asarray([card.bananas for card in data.cards], np.int32)
        start = np.asarray([[getattr(b.starting, e) for e in ELEMENTS] for b in data.boards.boards], np.int32)
        bonus = np.int32(tray.bonus.points)
        trophies = np.asarray([getattr(tray.trophies, t) for t in TROPHIES], np.int32)
        for n in self.numbers:
            v = c[n.name]
            if n.kind == "bananas":
                bananas[n.index[0]] = v
            elif n.kind == "shift":
                bananas[list(n.index)] += v
            elif n.kind == "starting":
                start[n.index] = v
            elif n.kind == "bonus":
                bonus = np.int32(v)
            else:
                trophies[n.index[0]] = v
        return {"card_bananas": bananas, "board_start": start, "bonus_points": bonus, "trophy_points": trophies}

    def apply(self, candidate: Mapping[str, int]) -> GameData:
        """The game data with a candidate's numbers, validated by the game data's own models."""
        v = self.values(candidate)
        data = self.data
        cards = data.cards_config.model_dump(mode="json")
        by_id = {p["id"]: p for p in cards["piles"]}
        for p, ids in enumerate(data.pile_cards):
            for k, card in enumerate(ids):
                by_id[PILE_IDS[p]]["cards"][k]["bananas"] = int(v["card_bananas"][card])
        boards = data.boards.model_dump(mode="json")
        for seat, b in enumerate(boards["boards"]):
            b["starting"] = {e: int(v["board_start"][seat, i]) for i, e in enumerate(ELEMENTS)}
        tray = data.tray.model_dump(mode="json")
        tray["bonus"]["points"] = int(v["bonus_points"])
        tray["trophies"] = {t: int(v["trophy_points"][i]) for i, t in enumerate(TROPHIES)}
        new = dataclasses.replace(data, cards_config=CardsConfig.model_validate(cards),
                                  boards=BoardsConfig.model_validate(boards), tray=TrayConfig.model_validate(tray))
        total = v["board_start"].sum(0)
        stock = np.asarray([getattr(new.tray.elements, e) for e in ELEMENTS])
        if (total > stock).any():
            raise ValueError(f"the boards' starting supply {total.tolist()} exceeds the tray's {stock.tolist()}")
        return new

    def _files(self, candidate: Mapping[str, int]) -> dict[str, dict]:
        """cards.yaml, boards.yaml and tray.yaml of a candidate, as dicts."""
        data = self.apply(candidate)
        return {"cards.yaml": data.cards_config.model_dump(mode="json"), "boards.yaml": data.boards.model_dump(mode="json"),
                "tray.yaml": data.tray.model_dump(mode="json")}


default_space_path = Space.default_space_path       # configs/tune/default_space.yaml


def data_changes(before: GameData, after: GameData) -> list[dict]:
    """Every number of cards.yaml, boards.yaml and tray.yaml that differs: file, where, values."""
    out = []
    for p, ids in enumerate(before.pile_cards):
        for k, card in enumerate(ids):
            a, b = before.cards[card].bananas, after.cards[card].bananas
            if a != b:
                out.append(dict(file="cards.yaml", where=f"{PILE_IDS[p]} card {k + 1} (id {card}) bananas", start=a, tuned=b))
    for seat, (a, b) in enumerate(zip(before.boards.boards, after.boards.boards)):
        for e in ELEMENTS:
            if getattr(a.starting, e) != getattr(b.starting, e):
                out.append(dict(file="boards.yaml", where=f"seat {seat + 1} starting {e}",
                                start=getattr(a.starting, e), tuned=getattr(b.starting, e)))
    if before.tray.bonus.points != after.tray.bonus.points:
        out.append(dict(file="tray.yaml", where="bonus points", start=before.tray.bonus.points,
                        tuned=after.tray.bonus.points))
    for t in TROPHIES:
        a, b = getattr(before.tray.trophies, t), getattr(after.tray.trophies, t)
        if a != b:
            out.append(dict(file="tray.yaml", where=f"trophies {t}", start=a, tuned=b))
    return out


class MonkeyPalaceTune(GameTune):
    """The ``tune`` part: what monkey_env/apps/tune asks of a game (monkey_env.games.PARTS)."""

    Space = Space
    data_changes = staticmethod(data_changes)
    has_maps = True               # the seat games are played on every map of --maps
    default_maps = (1, 2, 3, 4)
    player_counts = (2, 3, 4)
    default_players = (2, 4)
    item_words = "card"           # the item term's items: the cards bought

    @staticmethod
    def params(jg, players: int, map_id: int, options: dict | None = None):
        """The JAX engine's params of one game of the tune's plan (``options``: GameOptions
        fields that differ from the defaults, e.g. a rule reading)."""
        return jg.params(players=players, map=map_id, **(options or {}))

    @staticmethod
    def held_items(states):
        """(B, C) the seat that bought each card, -1 none: the item term's table."""
        return np.asarray(states.card_owner).astype(np.int64)

    @staticmethod
    def load_data(config_dir: str | None, map_id: int = 1) -> GameData:
        from monkey_env.monkey_palace.game_data import load_game_data

        return load_game_data(map_id, config_dir=config_dir)

    @staticmethod
    def jax_game(config_dir: str | None, space: Space | None = None, options: dict | None = None):
        """The JAX engine whose params(values=...) take Space.values (traced: compiled once);
        one engine serves every space (its shapes do not depend on the bounds). ``options``:
        GameOptions fields that differ from the defaults (the build action picks the engine)."""
        del space
        from monkey_env.monkey_palace.jaxgame.env import jax_game_for
        from monkey_env.monkey_palace.options import GameOptions

        return jax_game_for(GameOptions(config_dir=config_dir, **(options or {})))

    @staticmethod
    def max_players() -> int:
        from monkey_env.monkey_palace.jaxgame.state import MAX_PLAYERS

        return MAX_PLAYERS


TUNE = MonkeyPalaceTune()
