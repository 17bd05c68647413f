"""The Shadow Theater's reference engine: the specification, one method per step of the rules.

    game = Game.from_options(ShadowTheaterOptions(seed=3))
    while not game.game_over:
        game.apply(agent.act(game, game.legal_mask()))
    game.lanterns, game.winners()

A decision is one action of ``monkey_env.shadow_theater.actions``. A turn is: optionally play
weapon cards matching the Monkey King's location (each one a decision), then place one monkey or
collect a location (or pass when neither is possible); a Garden placement, and a move_king card,
add the decision of where the King goes. Chance is dealt in advance from the seed: for each round
the order of the 17 weapon cards (the first 9 are the round's deck), the order of the 10 scrolls
(the starter draws the first 2, the other player the next 2) and the King's starting location
(``deal``; a record keeps it, so a replay needs no random numbers). Rules: docs/games/shadow_theater.md.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np

from monkey_env.core.protocol import SaveFileError
from monkey_env.shadow_theater.actions import (
    COLLECT,
    DRAFT,
    KEEP,
    KING,
    KING_MOVE,
    MAX_ROUNDS,
    N_CARDS,
    NUM_ACTIONS,
    OVER,
    PASS,
    PHASE_NAMES,
    PLACE,
    PLAY,
    TURN,
)
from monkey_env.shadow_theater.game_data import LOCATION_NAMES, LOCATIONS, RESOURCES, GameData
from monkey_env.shadow_theater.options import ShadowTheaterOptions

GAME_NAME = "shadow_theater"
MONKEYS, JADE, PEACHES = 0, 1, 2      # indices into RESOURCES


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the message says why. The game is unchanged."""


def deal_rounds(seed: int, rounds: int = MAX_ROUNDS, n_cards: int = N_CARDS, n_scrolls: int = 10) -> dict:
    """Every round's chance from one seed: card order, scroll order, the King's start."""
    rng = np.random.default_rng(seed)
    return {"cards": [rng.permutation(n_cards).tolist() for _ in range(rounds)],
            "scrolls": [rng.permutation(n_scrolls).tolist() for _ in range(rounds)],
            "king": rng.integers(0, 3, size=rounds).tolist()}


class Game:
    """One game of The Shadow Theater on the reference engine (2 players, seats 0 and 1)."""

    def __init__(self, options: ShadowTheaterOptions, data: GameData | None = None, deal: dict | None = None):
        self.options = options
        self.data = data or options.game_data()
        self.deal = deal or deal_rounds(options.seed, n_scrolls=len(self.data.scrolls))
        self._check_deal(self.deal)
        self.history: list[int] = []
        self.lanterns = [0, 0]
        self.round = 0                     # rounds started (1 = the first round is being played)
        self.starter = 0                   # reading: seat 1 (index 0) starts the first round
        self.round_log: list[dict] = []    # each scored round: points, winner (-1 void), why
        self.kind_played = [[0] * len(self.data.kinds) for _ in range(2)]   # cards played, by kind
        self.kind_held = [[0] * len(self.data.kinds) for _ in range(2)]     # cards in hand at a round's end, by kind
        self.scroll_rounds = [[0] * len(self.data.scrolls) for _ in range(2)]  # rounds each scroll was kept
        self.end_reason = ""
        self.hold_round_end = False        # a look-ahead copy (lookahead()) does not score the round
        self.round_end_held = False        # ... and notes here that the round would be scored now
        self.start_round()

    @classmethod
    def from_options(cls, options: ShadowTheaterOptions | None = None, **kwargs) -> Game:
        return cls(options or ShadowTheaterOptions(), **kwargs)

    def _check_deal(self, deal: dict) -> None:
        n, s = len(self.data.cards), len(self.data.scrolls)
        ok = (isinstance(deal, dict) and set(deal) == {"cards", "scrolls", "king"}
              and all(len(deal[k]) == MAX_ROUNDS for k in deal)
              and all(sorted(p) == list(range(n)) for p in deal["cards"])
              and all(sorted(p) == list(range(s)) for p in deal["scrolls"])
              and all(k in (0, 1, 2) for k in deal["king"]))
        if not ok:
            raise SaveFileError(f"a deal needs {MAX_ROUNDS} rounds of card orders (0..{n - 1}), "
                                f"scroll orders (0..{s - 1}) and King locations (0-2)")

    # ----------------------------------------------------------------------- set-up of a round
    def start_round(self) -> None:
        """New round: return everything to the reserve, a 9-card deck from all 17 shuffled, the
        King on his start, the scroll draft (the starter chooses first)."""
        g, r = self.data.game, self.round
        self.round += 1
        self.reserve = [g.monkeys, g.jade, g.peaches]
        self.supply = [[0, 0, 0], [0, 0, 0]]            # per seat: monkeys, jade, peaches
        self.hands: list[list[int]] = [[], []]
        self.deck = list(self.deal["cards"][r][:g.weapon_cards_per_round])   # top first
        self.discard: list[int] = []
        self.board = [0, 0, 0]                          # monkeys on each location
        # Who placed each of them, in order: monkeys are neutral (the rules read none of this),
        # but a player follows the board by who put what where (the text view).
        self.placed_by: list[list[int]] = [[], [], []]
        self.king = int(self.deal["king"][r])
        self.scroll: list[int | None] = [None, None]
        order = self.deal["scrolls"][r]
        self.drawn = {self.starter: order[0:2], 1 - self.starter: order[2:4]}
        self.current = self.starter
        self.phase = DRAFT
        self.king_ends_turn = False

    def keep_scroll(self, choice: int) -> None:
        """Of the two Scroll tiles drawn, keep one face up, discard the other."""
        seat = self.current
        self.scroll[seat] = self.drawn[seat][choice]
        self.scroll_rounds[seat][self.scroll[seat]] += 1
        if self.scroll[1 - seat] is None:
            self.current = 1 - seat
            return
        self.take_starting_monkeys()
        self.current, self.phase = self.starter, TURN

    def take_starting_monkeys(self) -> None:
        """The starter takes 3 monkeys, the other 4; then each scroll's 'start' bonus."""
        counts = self.data.game.starting_monkeys
        for seat in (self.starter, 1 - self.starter):
            self.take_from_reserve(seat, MONKEYS, counts["starter" if seat == self.starter else "other"])
        for seat in (self.starter, 1 - self.starter):
            s = self.scroll_of(seat)
            if s is not None and s.effect == "start":
                if s.resource == "cards":
                    for _ in range(s.amount):
                        self.draw_card(seat)
                else:
                    self.take_from_reserve(seat, RESOURCES.index(s.resource), s.amount)

    # ----------------------------------------------------------------------- small steps
    def scroll_of(self, seat: int):
        return None if self.scroll[seat] is None else self.data.scrolls[self.scroll[seat]]

    def take_from_reserve(self, seat: int, resource: int, amount: int) -> int:
        """Take up to `amount` from the reserve (what is left, if less); returns how many."""
        n = min(amount, self.reserve[resource])
        self.reserve[resource] -= n
        self.supply[seat][resource] += n
        return n

    def draw_card(self, seat: int) -> None:
        if self.deck:
            self.hands[seat].append(self.deck.pop(0))
            self.hands[seat].sort()

    def free_spaces(self, location: int) -> int:
        """Spaces of a location without a monkey or the King."""
        return self.data.game.spaces_per_location - self.board[location] - (1 if self.king == location else 0)

    def king_destinations(self) -> list[int]:
        """Where the King may go: a free space of another location than his own."""
        return [loc for loc in range(3) if loc != self.king and self.free_spaces(loc) > 0]

    def exhausted(self) -> list[str]:
        """The reserve's types that are exhausted (weapon cards, monkeys, jade, peaches)."""
        out = ["weapon cards"] if not self.deck else []
        return out + [RESOURCES[i] for i in range(3) if self.reserve[i] == 0]

    # ----------------------------------------------------------------------- legality
    @property
    def game_over(self) -> bool:
        return self.phase == OVER

    def playable(self, card: int) -> str:
        """Why a card cannot be played now ("" if it can)."""
        c = self.data.cards[card]
        if card not in self.hands[self.current]:
            return f"{c.name} (card {card}) is not in your hand"
        if c.effect == "treasure":
            return f"{c.name} is a treasure: it scores in hand and cannot be played"
        if c.location != self.king:
            return (f"{c.name} matches {LOCATION_NAMES[LOCATIONS[c.location]]}, but the Monkey King is in "
                    f"{LOCATION_NAMES[LOCATIONS[self.king]]}")
        if c.effect == "move_king" and not self.king_destinations():
            return f"{c.name} would move the King, but every space of the other locations is taken"
        return ""

    def explain(self, action: int) -> str:
        """"legal", or why not, in a player's words."""
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
            return f"an action is an integer, not {action!r}"
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            return f"no action {action} (0-{NUM_ACTIONS - 1})"
        if self.phase == OVER:
            return "the game is over"
        if self.phase == DRAFT:
            return "legal" if KEEP <= action < KEEP + 2 else "first keep one of your two Scroll tiles"
        if self.phase == KING_MOVE:
            if not KING <= action < KING + 3:
                return "first move the Monkey King"
            loc = action - KING
            if loc == self.king:
                return "the King must go to another location"
            return "legal" if self.free_spaces(loc) > 0 else f"{LOCATION_NAMES[LOCATIONS[loc]]} has no free space"
        if PLAY <= action < PLAY + N_CARDS:
            return self.playable(action - PLAY) or "legal"
        if PLACE <= action < PLACE + 3:
            loc = action - PLACE
            if self.supply[self.current][MONKEYS] == 0:
                return "you have no monkey to place"
            return "legal" if self.free_spaces(loc) > 0 else f"{LOCATION_NAMES[LOCATIONS[loc]]} has no free space"
        if COLLECT <= action < COLLECT + 3:
            loc = action - COLLECT
            return "legal" if self.board[loc] > 0 else f"{LOCATION_NAMES[LOCATIONS[loc]]} holds no monkey to collect"
        if action == PASS:
            can = any(self.explain(a) == "legal" for a in range(PLACE, COLLECT + 3))
            return "you can place or collect, so you may not pass" if can else "legal"
        return "a King move or a scroll choice is not asked now"

    def legal_mask(self) -> np.ndarray:
        return np.array([self.explain(a) == "legal" for a in range(NUM_ACTIONS)], bool)

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_mask())]

    # ----------------------------------------------------------------------- one decision
    def apply(self, action: int) -> None:
        """Play one decision; an illegal one raises IllegalActionError and changes nothing."""
        why = self.explain(action)
        if why != "legal":
            raise IllegalActionError(f"{self.action_name(action) if isinstance(action, (int, np.integer)) else action}: {why}")
        action = int(action)
        self.history.append(action)
        if self.phase == DRAFT:
            self.keep_scroll(action - KEEP)
        elif self.phase == KING_MOVE:
            self.move_king(action - KING)
            if self.king_ends_turn:
                self.end_turn()
            else:
                self.phase = TURN
        elif action < PLACE:
            self.play_card(action - PLAY)
        elif action < COLLECT:
            self.place_monkey(action - PLACE)
        elif action < KING:
            self.collect(action - COLLECT)
            self.end_turn()
        else:                                       # pass
            self.end_turn()

    # ----------------------------------------------------------------------- the optional action
    def play_card(self, card: int) -> None:
        """Play a weapon card matching the King's location: apply its effect, discard it face up."""
        seat, c = self.current, self.data.cards[card]
        self.hands[seat].remove(card)
        self.discard.append(card)
        self.kind_played[seat][c.kind] += 1
        other = 1 - seat
        if c.effect == "gain":
            self.take_from_reserve(seat, c.resource, c.amount)
        elif c.effect == "steal":
            n = min(c.amount, self.supply[other][c.resource])
            self.supply[other][c.resource] -= n
            self.supply[seat][c.resource] += n
        elif c.effect == "recall":
            n = min(c.amount, self.board[self.king])
            self.board[self.king] -= n
            self.supply[seat][MONKEYS] += n
            self.take_placed(self.king, seat, n)
        elif c.effect == "move_king":
            self.phase, self.king_ends_turn = KING_MOVE, False

    # ----------------------------------------------------------------------- the mandatory action
    def place_monkey(self, location: int) -> None:
        """Place one of your monkeys on a free space and resolve the location."""
        seat = self.current
        self.supply[seat][MONKEYS] -= 1
        self.board[location] += 1
        self.placed_by[location].append(seat)
        effects = self.data.game.place_effects
        name = LOCATIONS[location]
        if name == "lair":
            for _ in range(effects.lair.get("cards", 0)):
                self.draw_card(seat)
        elif name == "palace":
            self.take_from_reserve(seat, JADE, effects.palace.get("jade", 0))
            self.take_from_reserve(seat, MONKEYS, effects.palace.get("monkeys", 0))
        else:
            self.take_from_reserve(seat, PEACHES, int(effects.garden.get("peaches", 0)))
        s = self.scroll_of(seat)
        if s is not None and s.effect == "place_bonus" and s.location == name:
            self.take_from_reserve(seat, RESOURCES.index(s.resource), s.amount)
        if name == "garden" and effects.garden.get("move_king", False) and self.king_destinations():
            self.phase, self.king_ends_turn = KING_MOVE, True    # the King must move: the turn ends after
            return
        self.end_turn()

    def move_king(self, location: int) -> None:
        """The King goes to a free space of another location; that location's effect is not resolved."""
        self.king = location

    def collect(self, location: int) -> None:
        """Take every monkey of one location (whoever placed them); the King stays."""
        self.supply[self.current][MONKEYS] += self.board[location]
        self.board[location] = 0
        self.placed_by[location] = []

    def take_placed(self, location: int, seat: int, n: int) -> None:
        """A recall "takes back" n monkeys: the seat's own first, then the latest placed."""
        placed = self.placed_by[location]
        for _ in range(min(n, len(placed))):        # fewer in positions set by hand (tests)
            mine = [i for i, s in enumerate(placed) if s == seat]
            placed.pop(mine[-1] if mine else -1)

    def end_turn(self) -> None:
        """The turn is over: the round ends if a reserve type is exhausted, else the other plays."""
        if self.exhausted():
            if self.hold_round_end:     # a look-ahead: the result would read the hidden hands
                self.round_end_held = True
                return
            self.score_round()
            return
        self.current, self.phase = 1 - self.current, TURN

    # ----------------------------------------------------------------------- the round's end
    def round_points(self, seat: int) -> dict:
        """A seat's points if the round ended now, item by item."""
        sc, me, other = self.data.game.scoring, self.supply[seat], self.supply[1 - seat]
        s = self.scroll_of(seat)
        per_peach = s.amount if s is not None and s.effect == "feed" else sc.monkeys_fed_per_peach
        per_set = s.amount if s is not None and s.effect == "jade_set" else sc.points_per_jade_set
        majority = s.amount if s is not None and s.effect == "jade_majority" else sc.jade_majority_points
        card_bonus = s.amount if s is not None and s.effect == "card_points" else 0
        fed = min(me[MONKEYS], per_peach * me[PEACHES])
        parts = {"fed_monkeys": fed * sc.points_per_fed_monkey,
                 "cards": sum(self.data.cards[c].points + card_bonus for c in self.hands[seat]),
                 "jade_sets": (me[JADE] // sc.jade_per_set) * per_set,
                 "most_jade": majority if me[JADE] > other[JADE] else 0}
        parts["total"] = sum(parts.values())
        return parts

    def unseen_card_value(self, viewer: int) -> float:
        """What a weapon card ``viewer`` has not seen this round is worth on average: the mean
        points of the cards outside its hand and the discard (the other hand, the deck and the
        cards set aside are alike to it). The opponent's hand is valued by this, never read."""
        seen = set(self.hands[viewer]) | set(self.discard)
        unseen = [c.points for i, c in enumerate(self.data.cards) if i not in seen]
        return sum(unseen) / len(unseen) if unseen else 0.0

    def public_points(self, viewer: int, seen_from: Game | None = None) -> list[float]:
        """Both seats' points if the round ended now, as ``viewer`` knows them at ``seen_from``
        (this position by default; a look-ahead passes the position it looks from, so a card it
        would draw stays unknown): the cards ``viewer`` held there at their values, every other
        card in a hand at ``unseen_card_value`` there. The hands stay hidden until the round's
        end ("révélez toutes les cartes en main")."""
        seen_from = seen_from or self
        known, expected = set(seen_from.hands[viewer]), seen_from.unseen_card_value(viewer)
        out = []
        for seat in (0, 1):
            parts = self.round_points(seat)
            s = self.scroll_of(seat)
            bonus = s.amount if s is not None and s.effect == "card_points" else 0
            cards = sum((self.data.cards[c].points if seat == viewer and c in known else expected) + bonus
                        for c in self.hands[seat])
            out.append(parts["total"] - parts["cards"] + cards)
        return out

    def round_winner(self) -> tuple[int, str]:
        """The round's winner (-1: void) and why: points, then monkeys, then cards + jade + peaches."""
        pts = [self.round_points(s)["total"] for s in (0, 1)]
        monkeys = [self.supply[s][MONKEYS] for s in (0, 1)]
        things = [len(self.hands[s]) + self.supply[s][JADE] + self.supply[s][PEACHES] for s in (0, 1)]
        for values, why in ((pts, "points"), (monkeys, "monkeys"), (things, "cards, jade and peaches")):
            if values[0] != values[1]:
                return (0 if values[0] > values[1] else 1), why
        return -1, "void"

    def score_round(self) -> None:
        """Score the round, give its winner a Lantern; the game ends at 2 Lanterns, else a new round
        (the loser starts; after a void round the other player starts)."""
        winner, why = self.round_winner()
        points = [self.round_points(s)["total"] for s in (0, 1)]
        for seat in (0, 1):
            for c in self.hands[seat]:
                self.kind_held[seat][self.data.cards[c].kind] += 1
        self.round_log.append({"round": self.round, "points": points, "winner": winner, "by": why,
                               "exhausted": self.exhausted()})
        if winner >= 0:
            self.lanterns[winner] += 1
        if max(self.lanterns) >= self.data.game.lanterns_to_win:
            self.phase = OVER
            self.end_reason = f"{self.data.game.lanterns_to_win} Lanterns taken"
            return
        if self.round >= MAX_ROUNDS:
            self.phase = OVER
            self.end_reason = f"{MAX_ROUNDS} rounds played (void rounds): the Lanterns as they are"
            return
        self.starter = (1 - winner) if winner >= 0 else (1 - self.starter)
        self.start_round()

    # ----------------------------------------------------------------------- results
    def scores(self) -> list[int]:
        """Lanterns taken (the game's score)."""
        return list(self.lanterns)

    def places(self) -> list[int]:
        a, b = self.lanterns
        return [1 + (b > a), 1 + (a > b)]

    def winners(self) -> list[int]:
        return [s for s, p in enumerate(self.places()) if p == 1]

    def stats(self) -> dict:
        """Per seat: weapon cards played and held at a round's end by kind, rounds each scroll was kept
        (the balance report)."""
        return {"kind_played": np.asarray(self.kind_played, np.int64), "kind_held": np.asarray(self.kind_held, np.int64),
                "scroll_rounds": np.asarray(self.scroll_rounds, np.int64)}

    # ----------------------------------------------------------------------- words
    def action_name(self, action: int) -> str:
        a = int(action)
        if PLAY <= a < PLACE:
            c = self.data.cards[a - PLAY]
            return f"play {c.name} (card {a - PLAY}, {LOCATIONS[c.location]}: {describe_card(c)})"
        if PLACE <= a < COLLECT:
            return f"place a monkey on {LOCATION_NAMES[LOCATIONS[a - PLACE]]}"
        if COLLECT <= a < KING:
            return f"collect the monkeys of {LOCATION_NAMES[LOCATIONS[a - COLLECT]]}"
        if KING <= a < KEEP:
            return f"move the Monkey King to {LOCATION_NAMES[LOCATIONS[a - KING]]}"
        if KEEP <= a < PASS:
            seat = self.current if self.phase == DRAFT else None
            if seat is not None:
                s = self.data.scrolls[self.drawn[seat][a - KEEP]]
                return f"keep the scroll {s.name} ({describe_scroll(s)})"
            return f"keep scroll choice {a - KEEP + 1}"
        if a == PASS:
            return "pass (nothing to place or collect)"
        return f"action {a}"

    def clone(self) -> Game:
        """An independent copy for looking ahead (the data and the deal, never changed, are shared)."""
        other = copy.copy(self)
        for name in ("history", "lanterns", "reserve", "board", "scroll", "deck", "discard", "round_log"):
            setattr(other, name, list(getattr(self, name)))
        for name in ("supply", "hands", "kind_played", "kind_held", "scroll_rounds", "placed_by"):
            setattr(other, name, [list(x) for x in getattr(self, name)])
        return other

    def lookahead(self) -> Game:
        """A copy to try a decision on, whose round end is noted (``round_end_held``) and not
        scored: scoring reveals the hands, which the seat looking ahead cannot know yet."""
        other = self.clone()
        other.hold_round_end = True
        return other

    def redraw_hidden(self, seat: int, rng: np.random.Generator) -> Game:
        """The same game as ``seat`` has seen it, with what it cannot see drawn anew from ``rng``
        (a determinization, for search and for the information-set tests): this round, the
        cards of the other hand and of the deck and those set aside are shuffled together
        among their places in the deal (the cards ``seat`` drew and every card played keep
        theirs), and the Scroll tiles ``seat`` has not seen among theirs (its own pair and the
        other's kept tile keep theirs); later rounds are dealt anew. The decisions are replayed."""
        r, other = self.round - 1, 1 - seat
        deal = copy.deepcopy(self.deal)
        if self.game_over:          # the last round was scored: its hands were revealed
            return Game.replay(self.record(), self.data)
        cards = deal["cards"][r]
        drawn = self.data.game.weapon_cards_per_round - len(self.deck)
        seen = set(self.hands[seat]) | set(self.discard)
        places = [i for i, c in enumerate(cards) if i >= drawn or c not in seen]
        for i, c in zip(places, rng.permutation([cards[i] for i in places])):
            cards[i] = int(c)
        scrolls = deal["scrolls"][r]
        mine = range(0, 2) if seat == self.starter else range(2, 4)
        kept = {self.scroll[other]} - {None}
        places = [i for i, t in enumerate(scrolls) if i not in mine and t not in kept]
        for i, t in zip(places, rng.permutation([scrolls[i] for i in places])):
            scrolls[i] = int(t)
        later = deal_rounds(int(rng.integers(2**31)), n_scrolls=len(self.data.scrolls))
        for key in deal:
            deal[key][r + 1:] = later[key][r + 1:]
        return Game.replay({"options": self.options.model_dump(), "deal": deal, "actions": self.history}, self.data)

    # ----------------------------------------------------------------------- saving
    def to_dict(self) -> dict:
        """An independent JSON-able snapshot of the whole game."""
        return copy.deepcopy({
            "game": GAME_NAME, "options": self.options.model_dump(), "data": self.data.fingerprint, "deal": self.deal,
            "history": self.history, "lanterns": self.lanterns, "round": self.round, "starter": self.starter,
            "current": self.current, "phase": PHASE_NAMES[self.phase], "king_ends_turn": self.king_ends_turn,
            "reserve": self.reserve, "supply": self.supply, "hands": self.hands, "deck": self.deck,
            "discard": self.discard, "board": self.board, "king": self.king, "scroll": self.scroll,
            "drawn": {str(k): v for k, v in self.drawn.items()}, "round_log": self.round_log,
            "kind_played": self.kind_played, "kind_held": self.kind_held, "scroll_rounds": self.scroll_rounds,
            "end_reason": self.end_reason})

    @classmethod
    def from_dict(cls, d: dict, data: GameData | None = None) -> Game:
        """The game of a snapshot (to_dict), checked by replaying its history from its deal."""
        if not isinstance(d, dict) or d.get("game") != GAME_NAME or "history" not in d:
            raise SaveFileError("not a saved game of The Shadow Theater")
        game = cls.replay({"game": GAME_NAME, "options": d["options"], "deal": d["deal"], "actions": d["history"]},
                          data)
        if game.to_dict() != {**d, "options": game.options.model_dump(), "data": game.data.fingerprint}:
            raise SaveFileError("the saved position is not the one its history leads to (edited by hand?)")
        return game

    def record(self) -> dict:
        """Options, deal and actions: everything a replay needs."""
        return copy.deepcopy({"game": GAME_NAME, "options": self.options.model_dump(), "data": self.data.fingerprint,
                              "deal": self.deal, "actions": self.history})

    @classmethod
    def replay(cls, record: dict, data: GameData | None = None) -> Game:
        from monkey_env.core.options import OptionsError, make_options

        if not isinstance(record, dict) or "actions" not in record or "deal" not in record:
            raise SaveFileError("a record needs options, deal and actions")
        try:
            options = make_options(ShadowTheaterOptions, **record.get("options", {}))
        except OptionsError as e:
            raise SaveFileError(str(e)) from None
        game = cls(options, data, deal=record["deal"])
        for i, a in enumerate(record["actions"]):
            try:
                game.apply(a)
            except IllegalActionError as e:
                raise SaveFileError(f"action {i} of the record: {e}") from None
        return game

    def save(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_dict()), encoding="utf-8")


def describe_card(c) -> str:
    res = RESOURCES[c.resource] if c.resource >= 0 else ""
    return {"gain": f"take {c.amount} {res}", "steal": f"steal {c.amount} {res}",
            "move_king": "move the King", "recall": f"take back {c.amount} monkeys from the King's location",
            "treasure": f"cannot be played, {c.points} points in hand"}[c.effect]


def describe_scroll(s) -> str:
    return {"place_bonus": lambda: f"placing on {s.location}: +{s.amount} {s.resource}",
            "feed": lambda: f"a peach feeds {s.amount} monkeys",
            "jade_set": lambda: f"3 jade score {s.amount}",
            "start": lambda: f"start with {s.amount} more {s.resource}",
            "card_points": lambda: f"+{s.amount} point per card in hand",
            "jade_majority": lambda: f"most jade scores {s.amount}"}[s.effect]()
