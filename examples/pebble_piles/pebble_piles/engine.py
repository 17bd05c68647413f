"""The reference engine: Pebble Piles as the rulebook says it, one method per step of a turn.

    game = Game.from_options(PebblePilesOptions(players=3, seed=7))
    game.apply(game.legal_actions()[0])

The deal (the piles' sizes) comes from the seed; a record (options, deal, actions) replays a game.
Nothing is hidden: every player sees the piles and the points.
"""

from __future__ import annotations

import numpy as np

from monkey_env.core.outcome import places as places_of
from pebble_piles.options import PebblePilesOptions
from pebble_piles.rules import MAX_PEBBLES, MIN_PEBBLES, NAME, NUM_ACTIONS, PILES, action_name, decode


def deal_piles(seed: int) -> list[int]:
    """The row of piles of game ``seed``."""
    return np.random.default_rng(seed).integers(MIN_PEBBLES, MAX_PEBBLES + 1, PILES).tolist()


class Game:
    """One game of Pebble Piles (monkey_env.core.protocol.ReferenceGame)."""

    def __init__(self, options: PebblePilesOptions, deal: dict | None = None):
        self.options = options
        self.deal = {"piles": [int(p) for p in (deal or {"piles": deal_piles(options.seed)})["piles"]]}
        if len(self.deal["piles"]) != PILES or not all(0 <= p <= MAX_PEBBLES for p in self.deal["piles"]):
            raise ValueError(f"a deal is {PILES} piles of 0 to {MAX_PEBBLES} pebbles, got {self.deal['piles']}")
        self.piles = list(self.deal["piles"])
        self.points = [0] * options.players
        self.current = 0
        self.last_taker = -1          # the seat that took the last pebble taken so far (the tie-break)
        self.history: list[int] = []

    @classmethod
    def from_options(cls, options: PebblePilesOptions, **kwargs) -> Game:
        return cls(options, **kwargs)

    # ------------------------------------------------------------------ the turn
    @property
    def game_over(self) -> bool:
        return sum(self.piles) == 0

    @property
    def round(self) -> int:
        """The round being played (every seat one turn), from 1."""
        return len(self.history) // self.options.players + 1

    @property
    def end_reason(self) -> str:
        return "the piles are empty" if self.game_over else ""

    def explain(self, action: int) -> str:
        """"legal", or why not."""
        if not 0 <= action < NUM_ACTIONS:
            return f"no action {action}: actions are 0 to {NUM_ACTIONS - 1}"
        if self.game_over:
            return "the game is over"
        pile, pebbles = decode(action)
        ends = self.row_ends()
        if pile not in ends:
            return f"pile {pile + 1} is not at an end of the row (the ends: piles {' and '.join(str(p + 1) for p in ends)})"
        if self.piles[pile] < pebbles:
            return f"pile {pile + 1} has only {self.piles[pile]} pebble(s), not {pebbles}"
        return "legal"

    def row_ends(self) -> list[int]:
        """The first and the last pile that still hold pebbles (one pile when only one does)."""
        left = [p for p, n in enumerate(self.piles) if n > 0]
        return sorted({left[0], left[-1]}) if left else []

    def legal_mask(self) -> np.ndarray:
        return np.array([self.explain(a) == "legal" for a in range(NUM_ACTIONS)])

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_mask())]

    def action_name(self, action: int) -> str:
        return action_name(action) if 0 <= action < NUM_ACTIONS else f"action {action} (none)"

    def apply(self, action: int) -> None:
        action = int(action)
        problem = self.explain(action)
        if problem != "legal":
            raise ValueError(problem)
        pile, pebbles = decode(action)
        self.take_pebbles(pile, pebbles)
        self.pass_the_turn()
        self.history.append(action)

    def take_pebbles(self, pile: int, pebbles: int) -> None:
        """The player takes the pebbles: a point each."""
        self.piles[pile] -= pebbles
        self.points[self.current] += pebbles
        self.last_taker = self.current

    def pass_the_turn(self) -> None:
        self.current = (self.current + 1) % self.options.players

    # ------------------------------------------------------------------ the outcome
    def scores(self) -> list[int]:
        return list(self.points)

    def stats(self) -> dict:
        """No per-game figures of its own (the balance report's seat win rates and lengths suffice)."""
        return {}

    def places(self) -> list[int]:
        """1 = winner: the most points; equal points go to the seat that took the last pebble."""
        return places_of(self.points, self.last_taker)

    def winners(self) -> list[int]:
        return [s for s, p in enumerate(self.places()) if p == 1]

    def redraw_hidden(self, seat: int, rng) -> Game:
        """Nothing is hidden: the same game."""
        del seat, rng
        return Game.from_dict(self.to_dict())

    # ------------------------------------------------------------------ saves and records
    def record(self) -> dict:
        return {"game": NAME, "options": self.options.model_dump(), "deal": dict(self.deal),
                "actions": list(self.history)}

    def to_dict(self) -> dict:
        return {**{k: v for k, v in self.record().items() if k != "actions"}, "history": list(self.history),
                "piles": list(self.piles), "points": list(self.points), "current": self.current,
                "last_taker": self.last_taker}

    @classmethod
    def replay(cls, record: dict) -> Game:
        game = cls(PebblePilesOptions(**record["options"]), deal=record["deal"])
        for action in record["actions"]:
            game.apply(int(action))
        return game

    @classmethod
    def from_dict(cls, d: dict) -> Game:
        """A saved position: its history replayed from the deal must lead to the stored position."""
        game = cls.replay({**d, "actions": d["history"]})
        for key in ("piles", "points", "current", "last_taker"):
            if key in d and d[key] != getattr(game, key):
                raise ValueError(f"the save's {key} is {d[key]}, its history gives {getattr(game, key)}")
        return game


