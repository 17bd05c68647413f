"""The Shadow Theater's balance-tune space (its ``tune`` part): which numbers of its game data
(configs/shadow_theater/) may change, within what bounds, read from a YAML space file and
validated before anything is played.

    game: shadow_theater
    numbers:
      - {number: weapons.pearl-of-the-dragon.points, low: 1, high: 5}
      - {number: scrolls.jade-throne.amount, low: 2, high: 5}
      - {number: game.lanterns_to_win, low: 2, high: 3}

The names of the numbers (NUMBER_FORMS); a kind or a scroll is named by its name in
weapons.yaml or scrolls.yaml in lower case, words joined by '-', no apostrophes
("Dragon's Favour" is ``dragons-favour``):

| name | the number |
|---|---|
| ``weapons.<kind>.points`` | points of each card of the kind in hand at a round's end |
| ``weapons.<kind>.amount`` | what a gain, steal or recall card of the kind takes |
| ``scrolls.<scroll>.amount`` | the scroll's amount (its effect says of what) |
| ``game.lanterns_to_win`` | Lanterns that win the game (the Lantern rule) |
| ``game.scoring.<field>`` | a round's scoring (who scores more takes its Lantern): SCORING's fields |
| ``game.starting_monkeys.<starter/other>`` | monkeys the round's starter and the other player take |

The bounds are integers, ``low < high``, the starting data's value lies between them, each
within the range of its kind (RANGES), and the data made with every number at its low and at
its high bound must pass the game data's own validation (game_data.py). Every one of these
numbers is a traced value of the JAX engine (jaxgame.engine.Params): a tune compiles once.
The objective's terms: seat, skill, length (rounds) and ``scrolls``, the item term: a scroll
whose keepers (kept in at least one round) win too often (monkey_env/apps/tune/objective.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from monkey_env.core.tuning import SHARED_TERMS, Bound, GameTune, Number, SpaceError, TuneSpace, checked_bound, slug
from monkey_env.shadow_theater.game_data import GameData, GameFile, ScrollsFile, WeaponsFile, load_game_data

FOLDER = "shadow_theater"
SCORING = ("monkeys_fed_per_peach", "points_per_fed_monkey", "jade_per_set", "points_per_jade_set",
           "jade_majority_points")     # the order of the JAX engine's Params.scoring (engine.SCORING_FIELDS)
NUMBER_FORMS = ("weapons.<kind>.points", "weapons.<kind>.amount", "scrolls.<scroll>.amount", "game.lanterns_to_win",
                f"game.scoring.<{'|'.join(SCORING)}>", "game.starting_monkeys.<starter|other>")
# What a tuned number may be, beyond the data's own rules (a kind's points and amounts are 0-9 there).
RANGES = {"points": (0, 9), "card_amount": (1, 9), "scroll_amount": (0, 9), "lanterns": (1, 5),
          "scoring": (0, 9), "jade_per_set": (1, 9), "starting": (0, 12)}
TERMS = SHARED_TERMS + ("scrolls",)
AMOUNT_EFFECTS = ("gain", "steal", "recall")     # the card effects that read an amount


class Space(TuneSpace):
    """The validated space over one starting data set (the shipped configs/ or --config-dir);
    a Number's index is its kind, scroll, scoring field or seat (starter 0, other 1), 0 for lanterns."""

    GAME, TERMS, FOLDER, SPACE_FILE = "shadow_theater", TERMS, FOLDER, "shadow_theater_space.yaml"

    def _resolve(self, b: Bound) -> Number:
        parts, where, data = b.number.split("."), f"{self.source}: {b.number}", self.data
        kinds = [slug(k.name) for k in data.kinds]
        scrolls = [slug(s.name) for s in data.scrolls]
        if parts[0] == "weapons" and len(parts) == 3:
            if parts[1] not in kinds:
                raise SpaceError(f"{where}: unknown weapon kind {parts[1]!r}; kinds: {', '.join(kinds)}")
            k = kinds.index(parts[1])
            kind = data.kinds[k]
            if parts[2] == "points":
                return self._checked(Number(b, "points", k, kind.points), where)
            if parts[2] == "amount":
                if kind.effect not in AMOUNT_EFFECTS:
                    raise SpaceError(f"{where}: a {kind.effect} card has no amount (only {', '.join(AMOUNT_EFFECTS)})")
                return self._checked(Number(b, "card_amount", k, kind.amount), where)
        if parts[0] == "scrolls" and len(parts) == 3 and parts[2] == "amount":
            if parts[1] not in scrolls:
                raise SpaceError(f"{where}: unknown scroll {parts[1]!r}; scrolls: {', '.join(scrolls)}")
            s = scrolls.index(parts[1])
            return self._checked(Number(b, "scroll_amount", s, data.scrolls[s].amount), where)
        g = data.game
        if parts == ["game", "lanterns_to_win"]:
            return self._checked(Number(b, "lanterns", 0, g.lanterns_to_win), where)
        if len(parts) == 3 and parts[:2] == ["game", "scoring"]:
            if parts[2] == "points_per_card":
                raise SpaceError(f"{where}: not read by the engines: a card's points are its kind's "
                                 "(weapons.<kind>.points)")
            if parts[2] in SCORING:
                return self._checked(Number(b, "scoring", SCORING.index(parts[2]), getattr(g.scoring, parts[2])), where)
        if len(parts) == 3 and parts[:2] == ["game", "starting_monkeys"] and parts[2] in ("starter", "other"):
            return self._checked(Number(b, "starting", ("starter", "other").index(parts[2]),
                                        g.starting_monkeys[parts[2]]), where)
        raise SpaceError(f"{where}: not a tunable number; the forms are: {', '.join(NUMBER_FORMS)}")

    def _checked(self, n: Number, where: str) -> Number:
        kind = "jade_per_set" if n.kind == "scoring" and SCORING[n.index] == "jade_per_set" else n.kind
        checked_bound(n.bound, n.start, RANGES[kind], where, kind.replace("_", " "))
        return n

    def _kind_values(self, c: dict) -> tuple[list[int], list[int], list[int]]:
        """Each kind's points and amount and each scroll's amount under a candidate."""
        points = [k.points for k in self.data.kinds]
        amounts = [k.amount for k in self.data.kinds]
        scrolls = [s.amount for s in self.data.scrolls]
        for n in self.numbers:
            target = {"points": points, "card_amount": amounts, "scroll_amount": scrolls}.get(n.kind)
            if target is not None:
                target[n.index] = c[n.name]
        return points, amounts, scrolls

    def _game_values(self, c: dict) -> tuple[int, list[int], list[int]]:
        g = self.data.game
        lanterns = g.lanterns_to_win
        scoring = [getattr(g.scoring, f) for f in SCORING]
        starting = [g.starting_monkeys["starter"], g.starting_monkeys["other"]]
        for n in self.numbers:
            if n.kind == "lanterns":
                lanterns = c[n.name]
            elif n.kind == "scoring":
                scoring[n.index] = c[n.name]
            elif n.kind == "starting":
                starting[n.index] = c[n.name]
        return lanterns, scoring, starting

    def values(self, candidate: Mapping[str, int]) -> dict[str, np.ndarray]:
        """The JAX engine's traced values (jaxgame.engine.VALUE_FIELDS) of a candidate."""
        c = self._checked_candidate(candidate)
        points, amounts, scrolls = self._kind_values(c)
        lanterns, scoring, starting = self._game_values(c)
        by_card = lambda per_kind: np.asarray([per_kind[card.kind] for card in self.data.cards], np.int32)
        return {"card_amount": by_card(amounts), "card_points": by_card(points),
                "scroll_amount": np.asarray(scrolls, np.int32), "scoring": np.asarray(scoring, np.int32),
                "starting_monkeys": np.asarray(starting, np.int32), "lanterns_to_win": np.int32(lanterns)}

    def _files(self, candidate: Mapping[str, int]) -> dict[str, dict]:
        """The three data files of a candidate, as dicts (validated by apply)."""
        c = self._checked_candidate(candidate)
        points, amounts, scrolls = self._kind_values(c)
        lanterns, scoring, starting = self._game_values(c)
        game = self.data.game.model_dump(mode="json")
        game["lanterns_to_win"] = lanterns
        game["scoring"].update(dict(zip(SCORING, scoring)))
        game["starting_monkeys"] = {"starter": starting[0], "other": starting[1]}
        kinds = []
        for k, kind in enumerate(self.data.kinds):
            d = kind.model_dump(mode="json", exclude_none=True)
            d["points"], d["amount"] = points[k], amounts[k]
            kinds.append(d)
        scroll_list = []
        for s, scroll in enumerate(self.data.scrolls):
            d = scroll.model_dump(mode="json", exclude_none=True)
            d["amount"] = scrolls[s]
            scroll_list.append(d)
        return {"game.yaml": game, "weapons.yaml": {"kinds": kinds}, "scrolls.yaml": {"scrolls": scroll_list}}

    def apply(self, candidate: Mapping[str, int]) -> GameData:
        """The game data with a candidate's numbers, validated by the game data's own models."""
        files = self._files(candidate)
        game = GameFile.model_validate(files["game.yaml"])
        kinds = WeaponsFile.model_validate(files["weapons.yaml"]).kinds
        scrolls = ScrollsFile.model_validate(files["scrolls.yaml"]).scrolls
        cards = tuple(dataclasses.replace(card, amount=kinds[card.kind].amount, points=kinds[card.kind].points)
                      for card in self.data.cards)
        return dataclasses.replace(self.data, game=game, kinds=tuple(kinds), cards=cards, scrolls=tuple(scrolls))

    def most_start_cards(self) -> int:
        """The most cards a start scroll may draw anywhere in the space (the engine's loop bound)."""
        most = [s.amount for s in self.data.scrolls if s.effect == "start" and s.resource == "cards"]
        for n in self.numbers:
            scroll = self.data.scrolls[n.index] if n.kind == "scroll_amount" else None
            if scroll is not None and scroll.effect == "start" and scroll.resource == "cards":
                most.append(n.bound.high)
        return max(most, default=0)

def data_changes(before: GameData, after: GameData) -> list[dict]:
    """Every tunable number of the three data files that differs: file, where, values."""
    out = []
    for a, b in zip(before.kinds, after.kinds):
        for field in ("points", "amount"):
            if getattr(a, field) != getattr(b, field):
                out.append(dict(file=f"{FOLDER}/weapons.yaml", where=f"{a.name} {field}",
                                start=getattr(a, field), tuned=getattr(b, field)))
    for a, b in zip(before.scrolls, after.scrolls):
        if a.amount != b.amount:
            out.append(dict(file=f"{FOLDER}/scrolls.yaml", where=f"{a.name} amount", start=a.amount, tuned=b.amount))
    ga, gb = before.game, after.game
    if ga.lanterns_to_win != gb.lanterns_to_win:
        out.append(dict(file=f"{FOLDER}/game.yaml", where="lanterns_to_win", start=ga.lanterns_to_win,
                        tuned=gb.lanterns_to_win))
    for f in SCORING:
        if getattr(ga.scoring, f) != getattr(gb.scoring, f):
            out.append(dict(file=f"{FOLDER}/game.yaml", where=f"scoring {f}", start=getattr(ga.scoring, f),
                            tuned=getattr(gb.scoring, f)))
    for seat in ("starter", "other"):
        if ga.starting_monkeys[seat] != gb.starting_monkeys[seat]:
            out.append(dict(file=f"{FOLDER}/game.yaml", where=f"starting_monkeys {seat}",
                            start=ga.starting_monkeys[seat], tuned=gb.starting_monkeys[seat]))
    return out


@lru_cache(maxsize=4)
def _tune_engine(config_dir: str | None, most_start_cards: int | None):
    """The process's engine for a tune of this data and loop bound (its agents compile once for it)."""
    from monkey_env.shadow_theater.jaxgame.engine import ShadowTheaterJax
    from monkey_env.shadow_theater.options import ShadowTheaterOptions

    return ShadowTheaterJax(ShadowTheaterOptions(config_dir=config_dir), max_start_cards=most_start_cards)


class ShadowTheaterTune(GameTune):
    """The ``tune`` part: what monkey_env/apps/tune asks of a game (monkey_env.games.PARTS)."""

    Space = Space
    data_changes = staticmethod(data_changes)            # one setting (no maps): the game data
    player_counts = (2,)          # a duel
    default_players = (2,)
    item_words = "scroll"         # the item term's items: the scrolls a seat kept

    loader = staticmethod(load_game_data)

    @staticmethod
    def jax_game(config_dir: str | None, space: Space | None = None, options: dict | None = None):
        """The JAX engine whose Params.with_values take Space.values (traced: compiled once),
        its start-scroll loop long enough for every candidate of ``space``."""
        _no_rule_options(options)
        return _tune_engine(config_dir, None if space is None else space.most_start_cards())

    @staticmethod
    def max_players() -> int:
        return 2

    @staticmethod
    def params(jg, players: int, map_id: int, options: dict | None = None):
        del players, map_id
        _no_rule_options(options)
        return jg.params()

    @staticmethod
    def held_items(states):
        """(B, 2, S) bool: each seat kept each scroll in at least one round."""
        return np.asarray(states.scroll_rounds) > 0


def _no_rule_options(options: dict | None) -> None:
    """The duel has no option to play its games under (only seeds and data)."""
    if options:
        raise ValueError(f"The Shadow Theater has no game options to tune under (got {', '.join(options)})")


TUNE = ShadowTheaterTune()
