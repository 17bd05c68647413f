"""The reference rules engine of Monkey Palace: the specification the JAX engine follows.

A turn runs the rulebook's eight steps in order, one method each:
build a staircase, decorate it, count credits, buy Monkey Cards, take the instant
supply, place the cards and take the recurring supply, take a bonus card, take
trophies. Decisions are asked one at a time (see ``monkey_env.monkey_palace.actions``); a decision
with one legal option is taken by the engine itself.
"""

from __future__ import annotations

import copy
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from monkey_env.core.outcome import places, seat_label, winners, winners_label
from monkey_env.core.protocol import SaveFileError
from monkey_env.monkey_palace.actions import N_PILES, N_SLOTS, PHASE_WORDS, ActionLayout, Phase
from monkey_env.monkey_palace.build_legality import legal_build_matrix
from monkey_env.monkey_palace.config import PILE_IDS, ConfigError
from monkey_env.monkey_palace.game_data import GameData
from monkey_env.monkey_palace.geometry import (
    BOARD_SIZE,
    COLOUR_NAMES,
    HEADING_NAMES,
    NUM_CELLS,
    Animal,
    Colour,
    cell_xy,
)
from monkey_env.monkey_palace.options import GameOptions
from monkey_env.monkey_palace.palace import Palace, StaircasePlan, Supply
from monkey_env.monkey_palace.save_format import SAVE_VERSION, RecordModel, SaveModel, describe
from monkey_env.monkey_palace.staircases import BuildSearch, Prefix

ELEMENT_KINDS = ("arches", "bricks", "columns")


class IllegalActionError(ValueError):
    """An action that the rules do not allow now; the state is left exactly as it was."""

    def __init__(self, phase: Phase, action: int, reason: str):
        self.phase, self.action, self.reason = phase, action, reason
        super().__init__(f"illegal action {action} in phase {phase.name.lower()} "
                         f"({PHASE_WORDS[phase]}): {reason}")


@dataclass
class PlayerState:
    board: int                                          # index of the player board (seat order)
    supply: Supply
    slots: list[list[int]] = field(default_factory=lambda: [[] for _ in range(N_SLOTS)])  # card ids, top last
    bonus_cards: int = 0

    def cards(self) -> list[int]:
        return [c for slot in self.slots for c in slot]

    def top_cards(self) -> list[int]:
        return [slot[-1] for slot in self.slots if slot]


@dataclass
class TurnState:
    """What this turn has done so far (reset at the start of every turn)."""

    anchor: int = -1                # flat cell
    built: bool = False
    colour: int = -1                # decoration colour
    deco_cell: int = -1
    deco_top: int = 0
    arch_ends: list[int] = field(default_factory=list)   # flat cells of the new staircase's arch end knobs
    max_stack: int = 0
    credits: int = 0
    highest_of_colour: bool = False
    highest_overall: bool = False
    bought: list[int] = field(default_factory=list)      # card ids, in buying order
    instant_queue: list[str] = field(default_factory=list)
    to_place: list[int] = field(default_factory=list)    # card ids not yet on the board
    steps: list[tuple[int, int]] = field(default_factory=list)  # complete build: arches so far (heading, rise)


def action_layout(data: GameData, build_action: str) -> ActionLayout:
    """The action space of a build action: arch steps of every rise the tray's units allow, or
    the catalogue's shapes."""
    return ActionLayout(0, data.tray.max_units + 1) if build_action == "complete" else ActionLayout(len(data.shapes))


class Game:
    """One game of Monkey Palace. Create with :meth:`new`, then :meth:`apply` actions."""

    def __init__(self, options: GameOptions, data: GameData):
        self.options = options
        self.data = data
        self.complete_build = options.build_action == "complete"
        self.layout = action_layout(data, options.build_action)
        self.palace = Palace.from_map(data.map, data.tray.animal_height)
        e = data.tray.elements
        self.tray = Supply(e.arches, e.bricks, e.columns)
        self.piles: list[list[int]] = []                  # card ids per pile, top card last
        self.players: list[PlayerState] = []
        self.holders = {"monkey": -1, "butterfly": -1, "frog": -1}   # seat holding each trophy card
        self.bonus_left = data.tray.bonus.cards
        self.current = 0
        self.round = 1
        self.turns_played = 0
        self.end_triggered = False
        self.end_shortage = ""                            # the element that ran short: arches, bricks, ...
        self.end_round = 0                                # the round in which it ran short
        self.end_seat = -1                                # whose take it was
        self.phase = Phase.ANCHOR
        self.turn = TurnState()
        self.history: list[int] = []                      # actions chosen by the agents
        self.deal: list[list[int]] | None = None          # pile orders given to new(), else the seed's shuffle
        self._build_cache: np.ndarray | None = None       # (n_shapes, 1024) legality of this turn's builds
        self._search: BuildSearch | None = None           # the complete build action's search, this turn
        self._turn_over = False                           # a turn ended and the next is not started yet

    # ================================================================= set-up
    @classmethod
    def new(cls, players: int = 2, map: int | str = 1, *, seed: int = 0, butterfly: bool = False,
            frog: bool = False, data: GameData | None = None,
            pile_orders: list[list[int]] | None = None, **readings) -> Game:
        """Set up a game. ``pile_orders`` (card ids per pile, top card last) replaces the
        seeded shuffle, so another engine's deal can be replayed exactly."""
        options = GameOptions(players=players, map=map, butterfly=butterfly, frog=frog, seed=seed, **readings)
        return cls.from_options(options, data=data, pile_orders=pile_orders)

    @classmethod
    def from_options(cls, options: GameOptions, *, data: GameData | None = None,
                     pile_orders: list[list[int]] | None = None) -> Game:
        """Set up a game from its options object (its game data unless ``data`` is given)."""
        game = cls(options, data or options.game_data())
        game._set_up(pile_orders)
        return game

    def _set_up(self, pile_orders: list[list[int]] | None) -> None:
        start = self.data.map.start
        # The starting staircase: 1 brick and 2 arches from the tray, a gold decoration on top.
        self.palace.place_start_staircase(tuple(start.anchor), HEADING_NAMES.index(start.heading))
        self.tray.arches -= 2
        self.tray.bricks -= 1
        rng = np.random.default_rng(self.options.seed)
        if pile_orders is None:
            pile_orders = [[int(c) for c in rng.permutation(cards)] for cards in self.data.pile_cards]
        else:  # a given deal: the record keeps it, since the seed does not give it
            self._check_pile_orders(pile_orders)
            self.deal = [[int(c) for c in p] for p in pile_orders]
        self.piles = [list(p) for p in pile_orders]
        for seat in range(self.options.players):
            board = self.data.boards.boards[seat]
            s = board.starting
            self.players.append(PlayerState(board=seat, supply=Supply()))
            for kind, n in zip(ELEMENT_KINDS, (s.arches, s.bricks, s.columns)):
                got = min(n, getattr(self.tray, kind))
                setattr(self.tray, kind, getattr(self.tray, kind) - got)
                setattr(self.players[-1].supply, kind, got)
        self._start_turn()
        self._advance()

    def _check_pile_orders(self, orders: list[list[int]]) -> None:
        if len(orders) != N_PILES or any(sorted(o) != sorted(p) for o, p in zip(orders, self.data.pile_cards)):
            raise ValueError("pile_orders must give each of the 12 piles' card ids exactly once")

    # ================================================================= queries
    @property
    def player(self) -> PlayerState:
        return self.players[self.current]

    @property
    def phase_words(self) -> str:
        """What the player must do now, in words (the shape phase is arch by arch with the complete build)."""
        if self.phase == Phase.SHAPE and self.complete_build:
            return "build your staircase arch by arch, or finish it"
        return PHASE_WORDS[self.phase]

    @property
    def game_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    def build_matrix(self) -> np.ndarray:
        """(n_shapes, 1024) bool: this turn's legal (shape, anchor) pairs."""
        if self._build_cache is None:
            s = self.player.supply
            m = legal_build_matrix(self.palace, self.data.lane_tree, s.arches, s.bricks, s.columns,
                                   self.data.tray.column_units)
            self._build_cache = m.reshape(len(self.data.shapes), NUM_CELLS)
        return self._build_cache

    def build_search(self) -> BuildSearch:
        """The complete build action's exact search over this turn's palace and supply."""
        if self._search is None:
            s = self.player.supply
            self._search = BuildSearch(self.palace, s.arches, s.bricks, s.columns, self.data.tray.column_units)
        return self._search

    def build_prefix(self) -> Prefix | None:
        """The staircase built so far this turn (complete build action), or None before the anchor."""
        if self.turn.anchor < 0:
            return None
        search = self.build_search()
        p = search.start(cell_xy(self.turn.anchor))
        for heading, rise in self.turn.steps:
            if p is None:
                break
            p = search.extend(p, heading, rise)
        return p

    def _steps_fit_the_turn(self) -> bool:
        """Whether a loaded turn's arches (complete build action) can be this turn's: while building,
        a staircase the rules allow so far; once built (the rest of the turn keeps them), one
        step per arch of the staircase standing."""
        if not self.complete_build:
            return False
        if self.phase == Phase.SHAPE:
            return self.build_prefix() is not None
        return self.turn.built and len(self.turn.steps) == len(self.turn.arch_ends)

    def anchor_cells(self) -> np.ndarray:
        """(1024,) bool: the anchors from which a legal staircase can be built this turn."""
        if self.complete_build:
            return self.build_search().legal_anchors().reshape(NUM_CELLS)
        return self.build_matrix().any(axis=0)

    def legal_actions(self) -> np.ndarray:
        return np.flatnonzero(self.legal_mask())

    def legal_mask(self) -> np.ndarray:
        """Bool mask over the whole flat action space for the current decision."""
        L, mask = self.layout, np.zeros(self.layout.size, bool)
        t, p = self.turn, self.phase
        if p == Phase.ANCHOR:
            mask[L.cell:L.cell + NUM_CELLS] = self.anchor_cells()
        elif p == Phase.SHAPE and self.complete_build:
            prefix = self.build_prefix()
            for heading, rise in self.build_search().next_steps(prefix):
                mask[L.encode_arch(heading, rise)] = True
            mask[L.finish] = BuildSearch.can_finish(prefix)
        elif p == Phase.SHAPE:
            mask[L.shape:L.shape + len(self.data.shapes)] = self.build_matrix()[:, t.anchor]
        elif p == Phase.BUY:
            for pile in range(N_PILES):
                mask[L.buy_pile + pile] = self._buy_problem(pile) is None
            mask[L.buy_end] = True
        elif p == Phase.INSTANT:
            mask[L.instant_arch] = mask[L.instant_brick] = True
        elif p == Phase.SLOT:
            mask[L.slot:L.slot + N_SLOTS] = True
        elif p == Phase.MONKEY:
            for x, y in self.palace.open_arch_ends():
                mask[L.encode_cell(x, y)] = True
            mask[L.monkey_stay] = self.options.monkey_move == "optional" or not mask[:NUM_CELLS].any()
        elif p == Phase.FROG:
            mask[L.frog_take] = mask[L.frog_decline] = True
        return mask

    def action_name(self, action: int) -> str:
        """The action in words, for people and logs ("anchor at (12, 3)", "buy pile B", ...)."""
        kind, value = self.layout.decode(action)
        if kind == "cell":
            return f"monkey to {value}" if self.phase == Phase.MONKEY else f"anchor at {value}"
        if kind == "shape":
            return f"staircase {value}: {self.data.shapes[value].describe()}"
        if kind == "arch":
            heading, rise = value
            n = len(self.turn.steps) + 1 if self.phase == Phase.SHAPE else "next"
            stacked = "" if rise == 0 else f"{rise} unit(s) stacked {'on the anchor' if n == 1 else 'on the end knob'}, "
            return f"arch {n}: {stacked}heading {HEADING_NAMES[heading]}"
        if kind == "finish":
            return "finish the staircase"
        if kind == "buy":
            return f"buy pile {PILE_IDS[value]}"
        if kind == "slot":
            return f"card on slot {value + 1}"
        if kind == "instant":
            return f"take an {value}" if value == "arch" else f"take a {value}"
        if kind == "frog":
            return "take the frog" if value else "leave the frog"
        return {"buy_end": "stop buying", "monkey_stay": "the monkey stays"}[kind]

    def explain(self, action: int) -> str:
        """Why ``action`` is illegal now, in a player's words; "legal" if it is legal."""
        problem = self._problem(action)
        return "legal" if problem is None else problem

    def _problem(self, action: int) -> str | None:
        try:
            kind, value = self.layout.decode(action)
        except ValueError as e:  # out of range
            return str(e)
        p, t = self.phase, self.turn
        build = {"arch", "finish"} if self.complete_build else {"shape"}
        expected = {Phase.ANCHOR: {"cell"}, Phase.SHAPE: build, Phase.BUY: {"buy", "buy_end"},
                    Phase.INSTANT: {"instant"}, Phase.SLOT: {"slot"}, Phase.MONKEY: {"cell", "monkey_stay"},
                    Phase.FROG: {"frog"}, Phase.GAME_OVER: set()}[p]
        if kind not in expected:
            if p == Phase.GAME_OVER:
                return "the game is over"
            return f"a {kind.replace('_', ' ')} action is not a choice now: the player must {self.phase_words}"
        if p == Phase.ANCHOR:
            x, y = value
            if self.anchor_cells()[y * BOARD_SIZE + x]:
                return None
            return self._anchor_problem(x, y)
        if p == Phase.SHAPE and self.complete_build:
            return self._build_step_problem(kind, value)
        if p == Phase.SHAPE:
            shape = self.data.shapes[value]
            plan = self._plan(t.anchor, value)
            return None if plan.legal else f"{shape.describe()} from {cell_xy(t.anchor)}: {plan.reason}"
        if p == Phase.BUY:
            return None if kind == "buy_end" else self._buy_problem(value)
        if p == Phase.MONKEY:
            if kind == "monkey_stay":
                return None if self.legal_mask()[self.layout.monkey_stay] else \
                    "the monkey must move (monkey_move is mandatory) while an arch end knob is open"
            x, y = value
            return None if self.palace.is_open_arch_end(x, y) else \
                f"the monkey goes on an open arch end knob, and ({x}, {y}) holds {self.palace.what_is_at(x, y)}"
        return None

    def _build_step_problem(self, kind: str, value) -> str | None:
        """Why this arch or finish is refused now (complete build action), or None."""
        t, s, search = self.turn, self.player.supply, self.build_search()
        prefix, anchor = self.build_prefix(), cell_xy(self.turn.anchor)
        if kind == "finish":
            if search.can_finish(prefix):
                return None
            plan = self.palace.check_steps(anchor, t.steps, s, self.data.tray.column_units)
            return f"the staircase cannot end here: {plan.reason}"
        heading, rise = value
        n = len(t.steps) + 1
        if search.extend(prefix, heading, rise) is None:
            plan = self.palace.check_steps(anchor, [*t.steps, (heading, rise)], s, self.data.tray.column_units)
            if not plan.legal and plan.rule != "E":
                return plan.reason
            return f"arch {n} (heading {HEADING_NAMES[heading]}, rise {rise}) needs more than your supply holds"
        if (heading, rise) not in search.next_steps(prefix):
            return (f"after arch {n} (heading {HEADING_NAMES[heading]}, rise {rise}) no legal staircase can be "
                    "finished: it cannot attach to the palace within your supply (rule E)")
        return None

    def _anchor_problem(self, x: int, y: int) -> str:
        s = self.player.supply
        if self.complete_build:
            plan = self.palace.check_steps((x, y), [], s)
            if plan.rule in ("plate", "A"):
                return plan.reason
            return (f"no staircase can start at ({x}, {y}): none attaches to the palace within your supply "
                    "(rules E and F, and your arches, bricks and columns)")
        plans = [self.palace.check_staircase((x, y), shape, s, self.data.tray.column_units)
                 for shape in self.data.shapes]
        # Report the miss closest to working: a supply or attachment problem beats a geometric one.
        for rule in ("supply", "E", "A"):
            for plan in plans:
                if plan.rule == rule:
                    return f"no staircase can start at ({x}, {y}): for example, {plan.reason}"
        return f"no staircase can start at ({x}, {y}): for example, {plans[0].reason}"

    def _buy_problem(self, pile: int) -> str | None:
        t, cards = self.turn, self.piles[pile]
        name = PILE_IDS[pile]
        if not cards:
            return f"pile {name} is empty"
        if any(self.data.cards[c].pile == pile for c in t.bought):
            return f"you already took the top card of pile {name} this turn: one card per pile per turn"
        card = self.data.cards[cards[-1]]
        if card.colour != "multi" and card.colour != COLOUR_NAMES[t.colour]:
            return (f"pile {name} is {card.colour}, but your decoration is {COLOUR_NAMES[t.colour]}: "
                    f"only {COLOUR_NAMES[t.colour]} or multicolour cards")
        if card.cost > t.credits:
            return f"pile {name} costs {card.cost} but you have {t.credits} Monkey Credit(s) left"
        return None

    def _plan(self, anchor: int, shape: int) -> StaircasePlan:
        return self.palace.check_staircase(cell_xy(anchor), self.data.shapes[shape], self.player.supply,
                                           self.data.tray.column_units)

    # ================================================================= scores
    def bananas(self, seat: int) -> dict[str, int]:
        """Banana Points by source: cards, bonus cards, trophies, and the total."""
        tray = self.data.tray
        cards = sum(self.data.cards[c].bananas for c in self.owned_cards(seat))
        bonus = self.players[seat].bonus_cards * tray.bonus.points
        trophies = sum(getattr(tray.trophies, name) for name, holder in self.holders.items() if holder == seat)
        return {"cards": cards, "bonus": bonus, "trophies": trophies, "total": cards + bonus + trophies}

    def owned_cards(self, seat: int) -> list[int]:
        """Cards on the seat's board, plus those bought this turn and not yet placed:
        a card counts from the moment it is bought."""
        on_board = self.players[seat].cards()
        if seat != self.current or self.phase == Phase.GAME_OVER:
            return on_board
        return on_board + [c for c in self.turn.bought if c not in on_board]

    def scores(self) -> list[int]:
        return [self.bananas(s)["total"] for s in range(self.options.players)]

    def stats(self) -> dict:
        """No per-game figures here: Monkey Palace's (cards, colours, trophies) come from its
        play_games part (apps/play_games.py) and balance lab."""
        return {}

    def winners(self) -> list[int]:
        """Seat indices (from 0, like ``scores()`` and ``current``: ``scores()[w]`` is a winner's
        score) with most Banana Points; a tie goes to the Monkey trophy holder, else the tied share
        the win (monkey_env.core.outcome). ``winners_text()`` says it for people, from seat 1."""
        return winners(self.scores(), self.holders["monkey"])

    def winners_text(self) -> str:
        """The winners as screens say them, seats counted from 1: "seat 2", or "seats 1 and 3 (a
        shared win)"; "" while the game goes on."""
        return winners_label(self.winners()) if self.game_over else ""

    def places(self) -> list[int]:
        """Each seat's place, 1 for the winners, by the same rule as winners()."""
        return places(self.scores(), self.holders["monkey"])

    def elements_in_play(self) -> Supply:
        """Tray + every supply + the palace: conserved, equal to the tray's totals."""
        total = Supply(*self.tray.as_tuple())
        for p in self.players:
            for kind in ELEMENT_KINDS:
                setattr(total, kind, getattr(total, kind) + getattr(p.supply, kind))
        for el in self.palace.elements:
            if el["kind"] == "arch":
                total.arches += 1
            elif el["kind"] == "stack":
                total.columns += el["columns"]
                total.bricks += el["units"] - self.data.tray.column_units * el["columns"]
        return total

    # ================================================================= acting
    def apply(self, action: int) -> None:
        """Apply one agent decision; an illegal one raises IllegalActionError and changes nothing."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(self.phase, action, f"an action is an integer index of the action space, "
                                     f"not {type(action).__name__} {action!r}")
        action = int(action)
        problem = self._problem(action)
        if problem is None and not self.legal_mask()[action]:
            problem = "not among the legal actions"  # a safety net: _problem and legal_mask agree
        if problem is not None:
            raise IllegalActionError(self.phase, action, problem)
        self.history.append(action)
        self._do(action)
        self._advance()

    def _advance(self) -> None:
        """Run the game up to the next real decision: start turns as they come, and never
        ask a decision with a single legal option (take it and go on)."""
        while self.phase != Phase.GAME_OVER:
            if self._turn_over:
                self._turn_over = False
                self._start_turn()
                continue
            legal = self.legal_actions()
            if len(legal) != 1:
                return
            self._do(int(legal[0]))

    def _do(self, action: int) -> None:
        kind, value = self.layout.decode(action)
        t = self.turn
        if self.phase == Phase.ANCHOR:
            t.anchor = value[1] * BOARD_SIZE + value[0]
            self.phase = Phase.SHAPE
        elif self.phase == Phase.SHAPE and kind == "arch":
            t.steps.append(value)
        elif self.phase == Phase.SHAPE and kind == "finish":
            self.step1_build(self.palace.check_steps(cell_xy(t.anchor), t.steps, self.player.supply,
                                                     self.data.tray.column_units))
        elif self.phase == Phase.SHAPE:
            self.step1_build(self._plan(t.anchor, value))
        elif self.phase == Phase.BUY:
            if kind == "buy_end":
                self.step5_instant_supply()
            else:
                self.buy(value)
        elif self.phase == Phase.INSTANT:
            self._take(value + "es" if value == "arch" else value + "s", 1)
            self.step5_instant_supply()
        elif self.phase == Phase.SLOT:
            self.players[self.current].slots[value].append(t.to_place.pop(0))
            self.step6_place_cards()
        elif self.phase == Phase.MONKEY:
            if kind == "cell":
                self.palace.move_animal(Animal.MONKEY, *value)
            self.step8b_butterfly()
        elif self.phase == Phase.FROG:
            if value:
                self.take_frog()
            self.end_turn()

    # ================================================================= the turn
    def _start_turn(self) -> None:
        self.turn = TurnState()
        self._build_cache = None
        self._search = None
        self.phase = Phase.ANCHOR
        if not self.anchor_cells().any():
            # Rule E's rare case: no staircase can attach; take only the recurring supply.
            self.take_recurring_supply()
            self.end_turn()

    def step1_build(self, plan: StaircasePlan) -> None:
        t, p = self.turn, self.player
        p.supply.arches -= len(plan.arches)
        p.supply.bricks -= plan.bricks
        p.supply.columns -= plan.columns
        t.built = True
        t.colour = plan.colour
        t.max_stack = max((s.units for s in plan.stacks), default=0)
        # The new staircase's arch end knobs: each arch's near end (the last far end takes the decoration).
        t.arch_ends = [y * BOARD_SIZE + x for x, y, _, _ in plan.arches]
        # Compare with the palace before the new decoration: "the highest of that colour" means strictly.
        deco_max = self.palace.deco_max
        t.highest_of_colour = plan.deco_top > deco_max[plan.colour]
        t.highest_overall = plan.deco_top > max(deco_max)
        self.palace.build_staircase(plan, owner=self.current, turn=self.turns_played + 1,
                                    column_units=self.data.tray.column_units)
        self.step2_decorate(plan)

    def step2_decorate(self, plan: StaircasePlan) -> None:
        # Done by build_staircase: the decoration's colour is the anchor stud's colour.
        t = self.turn
        t.deco_cell = plan.deco[1] * BOARD_SIZE + plan.deco[0]
        t.deco_top = plan.deco_top
        self.step3_credits(len(plan.arches))

    def step3_credits(self, arches: int) -> None:
        t = self.turn
        t.credits = arches + (1 if t.highest_of_colour else 0)
        self.phase = Phase.BUY  # step 4; BUY_END is always legal

    def buy(self, pile: int) -> None:
        t = self.turn
        card = self.data.cards[self.piles[pile].pop()]
        t.credits -= card.cost
        t.bought.append(card.id)
        t.instant_queue.extend(card.instant)

    def step5_instant_supply(self) -> None:
        """Take the instant supply of the cards bought; ask only for real arch-or-brick choices."""
        t = self.turn
        t.credits = 0  # unused credits are lost
        while t.instant_queue:
            icon = t.instant_queue.pop(0)
            if icon != "arch_or_brick":
                self._take({"arch": "arches", "brick": "bricks", "column": "columns"}[icon], 1)
            elif self.tray.arches and self.tray.bricks:
                self.phase = Phase.INSTANT
                return
            elif self.tray.arches or self.tray.bricks:
                self._take("arches" if self.tray.arches else "bricks", 1)
            else:
                self._trigger_end("arches and bricks")
        t.to_place = list(t.bought)
        self.step6_place_cards()

    def step6_place_cards(self) -> None:
        """New cards go on empty slots; on a full board the player picks a slot for each."""
        t, p = self.turn, self.player
        while t.to_place:
            empty = [i for i, slot in enumerate(p.slots) if not slot]
            if not empty:
                self.phase = Phase.SLOT
                return
            p.slots[empty[0]].append(t.to_place.pop(0))
        self.take_recurring_supply()
        self.step7_bonus()

    def take_recurring_supply(self) -> None:
        p = self.player
        r = self.data.boards.boards[p.board].recurring
        need = [r.arches, r.bricks, r.columns]
        for c in p.top_cards():
            need = [a + b for a, b in zip(need, self.data.cards[c].recurring)]
        for kind, n in zip(ELEMENT_KINDS, need):
            self._take(kind, n)

    def step7_bonus(self) -> None:
        if self.turn.max_stack >= self.data.tray.bonus.min_stack and self.bonus_left > 0:
            self.bonus_left -= 1
            self.player.bonus_cards += 1
        self.step8a_monkey()

    def step8a_monkey(self) -> None:
        if self.turn.colour == Colour.GOLD:
            self.holders["monkey"] = self.current
            self.phase = Phase.MONKEY
            return
        self.step8b_butterfly()

    def step8b_butterfly(self) -> None:
        t = self.turn
        if self.options.butterfly:
            wins = t.highest_overall if self.options.butterfly_rule == "highest_overall" else t.highest_of_colour
            if wins:
                self.palace.animals[Animal.BUTTERFLY] = t.deco_cell
                self.holders["butterfly"] = self.current
        self.step8c_frog()

    def frog_target(self) -> int | None:
        """The lowest open end knob of the staircase just built, if any."""
        open_ends = [c for c in self.turn.arch_ends if self.palace.is_open_arch_end(*cell_xy(c))]
        return min(open_ends, key=lambda c: int(self.palace.height.flat[c]), default=None)

    def step8c_frog(self) -> None:
        if self.options.frog and self.holders["frog"] != self.current and self.frog_target() is not None:
            self.phase = Phase.FROG
            return
        self.end_turn()

    def take_frog(self) -> None:
        self.holders["frog"] = self.current
        self.palace.animals[Animal.FROG] = self.frog_target()
        # The frog's column comes only if one is left; it is not the supply step, so a
        # missing column does not trigger the end (French FAQ).
        if self.tray.columns:
            self.tray.columns -= 1
            self.player.supply.columns += 1

    def end_turn(self) -> None:
        self.turns_played += 1
        self.current += 1
        if self.current == self.options.players:
            self.current = 0
            if self.end_triggered:  # the round is finished so everyone had the same number of turns
                self.phase = Phase.GAME_OVER
                self.turn = TurnState()
                return
            self.round += 1
        self._turn_over = True  # _advance starts the next turn

    # ================================================================= the tray
    def _take(self, kind: str, n: int) -> None:
        """Move n elements of a kind from the tray to the current player; a short tray ends the game."""
        if n <= 0:
            return
        have = getattr(self.tray, kind)
        got = min(n, have)
        setattr(self.tray, kind, have - got)
        setattr(self.player.supply, kind, getattr(self.player.supply, kind) + got)
        if got < n:
            self._trigger_end(kind)
        elif self.options.end_trigger == "last_taken" and have - got == 0:
            self._trigger_end(kind)

    @property
    def end_reason(self) -> str:
        """The end's trigger in words, made from end_shortage, end_round and end_seat."""
        if not self.end_triggered:
            return ""
        return f"{self.end_shortage} ran out in round {self.end_round} ({seat_label(self.end_seat)})"

    def _trigger_end(self, kind: str) -> None:
        if not self.end_triggered:
            self.end_triggered = True
            self.end_shortage, self.end_round, self.end_seat = kind, self.round, self.current

    # ================================================================= saving
    def to_dict(self) -> dict:
        """The whole state as plain JSON data: an independent snapshot, not the game's own lists."""
        return copy.deepcopy({
            "version": SAVE_VERSION, "data_fingerprint": self.data.fingerprint,
            "options": self.options.model_dump(), "palace": self.palace.to_dict(),
            "tray": asdict(self.tray), "piles": self.piles,
            "players": [{"board": p.board, "supply": asdict(p.supply), "slots": p.slots,
                         "bonus_cards": p.bonus_cards} for p in self.players],
            "holders": dict(self.holders), "bonus_left": self.bonus_left, "current": self.current,
            "round": self.round, "turns_played": self.turns_played, "end_triggered": self.end_triggered,
            "end_shortage": self.end_shortage, "end_round": self.end_round, "end_seat": self.end_seat,
            "phase": self.phase.name, "turn": asdict(self.turn), "history": list(self.history), "deal": self.deal,
        })

    @classmethod
    def from_dict(cls, d: dict, data: GameData | None = None) -> Game:
        """Rebuild a saved game; a malformed save raises SaveFileError naming the field."""
        m, options, data = _validated(SaveModel, d, "save", data)
        if len(m.players) != options.players:
            raise SaveFileError(f"the save is malformed: players: {len(m.players)} players but options say {options.players}")
        g = cls(options, data)
        g.palace = Palace.from_dict(m.palace.model_dump())
        g.tray = Supply(**m.tray.model_dump())
        g.piles = [list(p) for p in m.piles]
        g.players = [PlayerState(board=p.board, supply=Supply(**p.supply.model_dump()),
                                 slots=[list(s) for s in p.slots], bonus_cards=p.bonus_cards) for p in m.players]
        g.holders = m.holders.model_dump()
        g.bonus_left, g.current, g.round, g.turns_played = m.bonus_left, m.current, m.round, m.turns_played
        g.end_triggered, g.phase = m.end_triggered, Phase[m.phase]
        g.end_shortage, g.end_round, g.end_seat = m.end_shortage, m.end_round, m.end_seat
        turn = m.turn.model_dump()
        g.turn = TurnState(**{**turn, "steps": [tuple(step) for step in turn["steps"]]})
        if g.turn.steps and not g._steps_fit_the_turn():
            raise SaveFileError("the save is malformed: turn.steps: the arches built so far are not a staircase "
                                "the rules allow from this turn's anchor (or the game does not build arch by arch)")
        g.history = list(m.history)
        for i, a in enumerate(g.history):
            if not 0 <= a < g.layout.size:
                raise SaveFileError(f"the save is malformed: history: action #{i} is {a}, "
                                    f"outside the action space 0..{g.layout.size - 1}")
        g.deal = m.deal
        deck = [c for pile in g.piles for c in pile] + [c for seat in range(options.players) for c in g.owned_cards(seat)]
        if sorted(deck) != list(range(len(data.cards))):
            raise SaveFileError("the save is malformed: piles and boards must hold every Monkey Card exactly once")
        return g

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict()), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Game:
        return cls.from_dict(_read_json(path))

    # ================================================================= records
    def redraw_hidden(self, seat: int, rng: np.random.Generator) -> Game:
        """The same game as ``seat`` has seen it, with what it cannot see drawn anew from ``rng``
        (a determinization, for the information-set tests; agents/mcts.py redraws on the JAX
        engine alike): the order of the cards under each pile's top card. The cards bought and
        every top card keep their places; the decisions are replayed. Nothing else is hidden
        (every seat sees the palace, the tray, the boards and every top card)."""
        del seat                      # every seat sees the same: the tops, the rest of each pile unseen
        dealt = self.deal or Game.from_options(self.options, data=self.data).piles
        deal = []
        for order, pile in zip(dealt, self.piles):
            below_top = max(len(pile) - 1, 0)
            deal.append([int(c) for c in rng.permutation(order[:below_top])] + list(order[below_top:]))
        return Game.replay({**self.record(), "deal": deal}, self.data)

    def record(self) -> dict:
        """A game record: the options, the deal when it was given (else the seed makes it) and
        the agents' actions; replays to the identical state."""
        return copy.deepcopy({"version": SAVE_VERSION, "data_fingerprint": self.data.fingerprint,
                              "options": self.options.model_dump(), "deal": self.deal,
                              "actions": list(self.history)})

    @classmethod
    def replay(cls, record: dict, data: GameData | None = None) -> Game:
        """Replay a game record (options, deal + actions) to the identical game."""
        m, options, data = _validated(RecordModel, record, "record", data)
        game = cls(options, data)
        try:
            game._set_up(m.deal)
        except ValueError as e:
            raise SaveFileError(f"the record's deal is malformed: {e}") from None
        for i, a in enumerate(m.actions):
            try:
                game.apply(a)
            except IllegalActionError as e:
                raise SaveFileError(f"the record's action #{i} does not replay: {e}") from None
        return game


def _validated(model, raw: dict, what: str, data: GameData | None):
    """Validate a save or record against its format and the game data it was made with."""
    try:
        m = model.model_validate(raw)
    except ValidationError as e:
        raise SaveFileError(f"the {what} is malformed: {describe(e)}") from None
    options = m.options
    if data is None:
        try:
            data = options.game_data()
        except ConfigError as e:
            raise SaveFileError(f"the {what}'s game data cannot be loaded: {e}") from None
    if m.data_fingerprint != data.fingerprint:
        raise SaveFileError(f"this {what} was made with other game data (cards, maps, boards or catalogue "
                            f"differ: fingerprint {m.data_fingerprint} vs {data.fingerprint})")
    return m, options, data


def _read_json(path: str | Path) -> dict:
    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise SaveFileError(f"{path}: cannot read the file ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise SaveFileError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(d, dict):
        raise SaveFileError(f"{path}: expected a JSON object")
    return d


def load_record(path: str | Path) -> Game:
    return Game.replay(_read_json(path))
