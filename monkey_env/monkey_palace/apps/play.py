"""``monkey-palace play``: a game of Monkey Palace in the terminal against bots.

The human answers one question per decision. Each turn shows the palace and, under it, who
built each cell (text_view.palace_with_owners); the first also shows the legend, and ``help``
says what a turn is and repeats the legend. A staircase is chosen in two steps (where it
starts, then its shape among the legal ones, each described by direction, arches, the height
its decoration reaches and the credits it earns); nothing is played until the shape is chosen,
so "back" returns to the starting studs. Each shape says what goes where, in building order
(every stack of bricks or columns, arch and the decoration, with its cell and the heights it
reaches), and ``preview N`` draws the palace around shape N as it would stand. Lists are laid
out to the terminal's width without breaking an entry. Anything mistyped or illegal is explained
and asked again. At any question: ``help``, ``show`` (the whole game), ``save [FILE]``, ``quit``
(saves).
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import sys
from pathlib import Path

import numpy as np

from monkey_env.agents.registry import known_names, make_agent, split_agent_names
from monkey_env.apps.play import Quit, read_answer
from monkey_env.apps.play import Session as TerminalSession
from monkey_env.core.outcome import seat_label
from monkey_env.monkey_palace.actions import Phase
from monkey_env.monkey_palace.catalogue import ARCH_SPAN
from monkey_env.monkey_palace.config import PILE_IDS
from monkey_env.monkey_palace.engine import Game, IllegalActionError
from monkey_env.monkey_palace.geometry import BOARD_SIZE, COLOUR_NAMES, HEADING_NAMES, Knob, cell_xy, heading_step
from monkey_env.monkey_palace.text_view import LEGEND, TURN, cell_token, game_text, palace_with_owners

HEADING_WORDS = dict(zip(HEADING_NAMES, ("north", "east", "south", "west")))
COLOUR_WORDS = {"light": "light-green", "dark": "dark-green", "gold": "gold", "multi": "multicolour"}
HELP = "\n".join((
    "Type the number of a choice (or what the question suggests); among staircases, preview N draws",
    "staircase N on the palace. At any question: help, show (the whole game), save [FILE], quit (saves",
    "and stops).", TURN, LEGEND))


class Retry(Exception):
    """The answer is not usable; the message says why."""


# ------------------------------------------------------------------------------------ in words
def card_words(game: Game, card_id: int) -> str:
    c = game.data.cards[card_id]
    instant = ", ".join(i.replace("_", " ") for i in c.instant) or "nothing"
    a, b, col = c.recurring
    rec = ", ".join(f"{n} {w}" for n, w in ((a, "arch"), (b, "brick"), (col, "column")) if n) or "nothing"
    return f"{c.bananas} Banana Points; now: {instant}; every turn: {rec}"


def pile_words(game: Game, pile: int) -> str:
    cards = game.piles[pile]
    name = PILE_IDS[pile]
    if not cards:
        return f"{name}: empty"
    c = game.data.cards[cards[-1]]
    return f"{name} ({COLOUR_WORDS[c.colour]}, costs {c.cost}, {len(cards)} left): {card_words(game, cards[-1])}"


def staircase_words(game: Game, anchor: int, shape_index: int) -> str:
    """Direction, arches, what it takes, the height its decoration reaches and the credits."""
    shape = game.data.shapes[shape_index]
    p = game.palace
    plan = _plan(game, anchor, shape_index)
    colour = COLOUR_NAMES[plan.colour]
    highest = plan.deco_top > p.deco_max[plan.colour]
    credits = len(plan.arches) + (1 if highest else 0)
    turns = "" if shape.arches == 1 else (", straight" if set(shape.turns) == {"S"} else
                                          ", turning " + "-".join({"S": "on", "L": "left", "R": "right"}[t]
                                                                  for t in shape.turns))
    uses = [f"{len(plan.arches)} arch{'es' if len(plan.arches) > 1 else ''}"]
    bricks = plan.bricks
    if bricks:
        uses.append(f"{bricks} brick{'s' if bricks > 1 else ''}")
    if plan.columns:
        uses.append(f"{plan.columns} column{'s' if plan.columns > 1 else ''}")
    best = f" (highest {COLOUR_WORDS[colour]}: +1)" if highest else ""
    return (f"{HEADING_WORDS[HEADING_NAMES[shape.heading]]}{turns}, {shape.arches} arch{'es' if shape.arches > 1 else ''}"
            f"; uses {', '.join(uses)}; decoration reaches height {plan.deco_top}; earns {credits} credit"
            f"{'s' if credits != 1 else ''}{best}")


def _plan(game: Game, anchor: int, shape_index: int):
    return game.palace.check_staircase(cell_xy(anchor), game.data.shapes[shape_index], game.player.supply,
                                       game.data.tray.column_units)


def _built(game: Game, anchor: int, shape_index: int):
    """The palace as it would stand with this staircase, and the elements it adds (building order)."""
    palace = copy.deepcopy(game.palace)
    before = len(palace.elements)
    palace.build_staircase(_plan(game, anchor, shape_index), owner=game.current, turn=game.turns_played,
                           column_units=game.data.tray.column_units)
    return palace, palace.elements[before:]


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 'es' if word.endswith('ch') else 's'}"


def build_steps(game: Game, anchor: int, shape_index: int) -> list[str]:
    """Where the staircase's pieces go, in building order, with the top heights the text grid shows:
    each stack (its bricks and columns, the cell, the height before and after), each arch (its
    two end knobs and its top) and the decoration (its cell and top)."""
    steps = []
    for e in _built(game, anchor, shape_index)[1]:
        if e["kind"] == "stack":
            bricks = e["units"] - game.data.tray.column_units * e["columns"]
            what = " and ".join(_count(n, w) for n, w in ((e["columns"], "column"), (bricks, "brick")) if n)
            steps.append(f"{what} at ({e['x']}, {e['y']}) height {e['bottom']}->{e['bottom'] + e['units']}")
        elif e["kind"] == "arch":
            sx, sy = heading_step(HEADING_NAMES.index(e["heading"]))
            far = (e["x"] + ARCH_SPAN * sx, e["y"] + ARCH_SPAN * sy)
            steps.append(f"arch ({e['x']}, {e['y']})-{far} top {e['level'] + 1}")
        else:
            steps.append(f"decoration at ({e['x']}, {e['y']}) top {e['top']}")
    return steps


def preview_text(game: Game, anchor: int, shape_index: int) -> str:
    """The palace around the staircase as it would stand, its new cells marked with '*'."""
    after, _ = _built(game, anchor, shape_index)
    changed = np.argwhere((after.height != game.palace.height) | (after.knob != game.palace.knob))
    (y0, x0), (y1, x1) = np.maximum(changed.min(0) - 1, 0), np.minimum(changed.max(0) + 1, BOARD_SIZE - 1)
    new = {(int(x), int(y)) for y, x in changed}
    lines = ["y\\x " + " ".join(f"{x:<4}" for x in range(x0, x1 + 1))]
    for y in range(y0, y1 + 1):
        lines.append(f"{y:>3} " + " ".join(f"{cell_token(after, x, y) + ('*' if (x, y) in new else ''):<4}"
                                           for x in range(x0, x1 + 1)))
    return "\n".join(line.rstrip() for line in lines)


def terminal_width() -> int:
    """The terminal's columns (COLUMNS, else the terminal, else 80), at least 40."""
    return max(40, shutil.get_terminal_size((80, 24)).columns)


def in_columns(entries: list[str], width: int, indent: str = "  ", gap: int = 3) -> list[str]:
    """Entries in aligned columns, numbered down each column as ``ls`` does, so that no entry is
    cut by the end of a line (an entry longer than the line gets a line of its own)."""
    if not entries:
        return []
    cell = max(len(e) for e in entries)
    per_line = max(1, (width - len(indent) + gap) // (cell + gap))
    rows = -(-len(entries) // per_line)
    per_line = -(-len(entries) // rows)           # as few columns as that many rows need
    lines = []
    for r in range(rows):
        row = [entries[c * rows + r] for c in range(per_line) if c * rows + r < len(entries)]
        lines.append((indent + (" " * gap).join(e.ljust(cell) for e in row)).rstrip())
    return lines


def flowing(entries: list[str], width: int, indent: str, sep: str = "; ") -> list[str]:
    """Entries one after another, a line broken only between two entries."""
    lines, line = [], ""
    for e in entries:
        if line and len(indent) + len(line) + len(sep) + len(e) > width:
            lines.append(indent + line + sep.rstrip())
            line = e
        else:
            line = f"{line}{sep}{e}" if line else e
    return lines + [indent + line] if line else lines


def stud_words(game: Game, cell: int) -> str:
    x, y = cell_xy(cell)
    knob = Knob(int(game.palace.ground[y, x]))
    return {Knob.GROUND_LIGHT: "light-green", Knob.GROUND_DARK: "dark-green", Knob.GROUND_GOLD: "gold"}.get(knob, "")


def arch_words(game: Game, heading: int, rise: int) -> str:
    """The next arch of a staircase built arch by arch: its stack, cells, level, far leg and support."""
    search, prefix = game.build_search(), game.build_prefix()
    after = search.extend(prefix, heading, rise)
    n = prefix.arches + 1
    far = (after.x, after.y)
    under = int(game.palace.height[after.y, after.x])
    support = after.level - under
    where = "on the anchor" if n == 1 else f"on arch {n - 1}'s end knob at ({prefix.x}, {prefix.y})"
    stack = f"{_count(rise, 'unit')} stacked {where}; then " if rise else ""
    leg = f"far leg at {far} on {game.palace.what_is_at(*far)}" + (f", a support of {support}" if support else "")
    attaches = "; attaches to the palace" if under > 0 and not prefix.attached else ""
    return (f"{stack}arch {n} {HEADING_WORDS[HEADING_NAMES[heading]]} at level {after.level}; {leg}{attaches}; "
            f"{_count(after.units, 'brick unit')} so far")


def finish_words(game: Game) -> str:
    """The staircase built so far, as it would end now: what it takes and what it earns."""
    plan = game.palace.check_steps(cell_xy(game.turn.anchor), game.turn.steps, game.player.supply,
                                   game.data.tray.column_units)
    highest = plan.deco_top > game.palace.deco_max[plan.colour]
    credits = len(plan.arches) + highest
    uses = [_count(len(plan.arches), "arch")] + [_count(n, w) for n, w in ((plan.bricks, "brick"),
                                                                         (plan.columns, "column")) if n]
    tallest = max((s.units for s in plan.stacks), default=0)
    bonus = (" and a bonus card (a stack of " + str(tallest) + ")"
             if tallest >= game.data.tray.bonus.min_stack and game.bonus_left else "")
    best = f" (highest {COLOUR_WORDS[COLOUR_NAMES[plan.colour]]}: +1)" if highest else ""
    return (f"finish here: uses {', '.join(uses)}; decoration reaches height {plan.deco_top}; earns "
            f"{_count(credits, 'credit')}{best}{bonus}")


def action_words(game: Game, action: int) -> str:
    """What a bot's decision does, said before it is applied."""
    kind, value = game.layout.decode(action)
    if game.phase == Phase.ANCHOR:
        return f"starts a staircase at {value}"
    if kind == "arch":
        return f"builds {arch_words(game, *value)}"
    if kind == "finish":
        return f"finishes the staircase: {finish_words(game).removeprefix('finish here: ')}"
    if game.phase == Phase.SHAPE:
        return f"builds {staircase_words(game, game.turn.anchor, value)}"
    if kind == "buy":
        return f"buys {PILE_IDS[value]} ({card_words(game, game.piles[value][-1])})"
    if kind == "buy_end":
        return "stops buying"
    if kind == "instant":
        return f"takes a{'n' if value == 'arch' else ''} {value}"
    if kind == "slot":
        return f"puts the new card on slot {value + 1}"
    if kind == "cell":
        return f"moves the monkey to {value}"
    if kind == "monkey_stay":
        return "leaves the monkey where it is"
    return "takes the Frog" if value else "declines the Frog"


def status_words(game: Game, seat: int) -> str:
    p = game.players[seat]
    s = p.supply
    tops = [pile_words(game, game.data.cards[slot[-1]].pile).split(":")[0] if slot else "empty" for slot in p.slots]
    return (f"Your supply: {s.arches} arches, {s.bricks} bricks, {s.columns} columns. "
            f"Banana Points: {game.bananas(seat)['total']}. Board: {' | '.join(tops)}")


# ------------------------------------------------------------------------------------ the session
class Session(TerminalSession):
    def __init__(self, game: Game, human: int, opponents: list[str], save_path: Path, out=None, inp=None):
        self.game, self.human, self.opponents, self.save_path = game, human, opponents, save_path
        self.out = out or sys.stdout
        self.inp = inp or sys.stdin
        self.legend_shown = False       # the legend comes with the first palace this session shows
        self.bots = {}
        bots = iter(opponents)
        for seat in range(game.options.players):
            if seat != human:
                name = next(bots)
                # Seeded from the game and the turn, so a resumed game goes on deterministically.
                self.bots[seat] = (name, make_agent(name, seed=game.options.seed * 100 + game.turns_played * 4 + seat))

    def say_columns(self, entries: list[str]) -> None:
        for line in in_columns(entries, terminal_width()):
            self.say(line)

    # ---- input
    def ask(self, question: str) -> str:
        """One answer; the commands that work at every question are handled here."""
        return read_answer(self, f"{question}\n> ", lambda: HELP, lambda: game_text(self.game))

    def choose(self, question: str, parse) -> int:
        """Ask until `parse(answer)` gives an action; a Retry is explained and asked again."""
        while True:
            answer = self.ask(question)
            try:
                return parse(answer)
            except Retry as e:
                self.say(f"  {e}")

    # ---- saving
    def save(self, path: Path | None = None) -> None:
        path = path or self.save_path
        from monkey_env.apps.saves import play_save
        doc = play_save("monkey_palace", self.human, self.opponents, self.game)   # one format for every game
        try:
            Path(path).write_text(json.dumps(doc), encoding="utf-8")
        except OSError as e:
            self.say(f"  cannot save to {path}: {e.strerror}")
            return
        self.say(f"  game saved to {path}; resume with: monkey-palace play --resume {path}")

    # ---- playing
    def greeting(self) -> str:
        return f"You are {seat_label(self.human)}. " + ", ".join(f"{seat_label(s)}: {n}" for s, (n, _) in self.bots.items())

    def bot_words(self, seat: int, name: str, action: int) -> str:
        return f"{seat_label(seat)} ({name}) {action_words(self.game, action)}"

    def human_turn(self) -> None:
        g = self.game
        if g.phase == Phase.ANCHOR:
            self.say("")
            self.say(f"=== Round {g.round}: your turn ({seat_label(self.human)}) ===")
            self.say(palace_with_owners(g.palace))
            if not self.legend_shown:
                self.say(LEGEND)
                self.say("(help: what a turn is, and this legend)")
                self.legend_shown = True
            self.say(status_words(g, self.human))
            self.say("Piles (top cards):")
            for pile in range(len(PILE_IDS)):
                self.say(f"  {pile_words(g, pile)}")
            self.staircase()
            return
        handler = {Phase.BUY: self.buy, Phase.INSTANT: self.instant, Phase.SLOT: self.slot,
                   Phase.MONKEY: self.monkey, Phase.FROG: self.frog, Phase.SHAPE: self.shape_only}[g.phase]
        self.apply(handler())

    def apply(self, action: int) -> None:
        try:
            self.game.apply(action)
        except IllegalActionError as e:     # a safety net: the choices offered are legal
            self.say(f"  not allowed: {e}")

    def staircase(self) -> None:
        """Anchor, then shape; 'back' from the shapes returns to the anchors."""
        g = self.game
        if g.complete_build:
            self.staircase_by_arches()
            return
        matrix = g.build_matrix()
        anchors = [int(c) for c in matrix.any(axis=0).nonzero()[0]]
        while True:
            self.say("Where does your staircase start? Legal studs (x y):")
            self.say_columns([f"{i + 1}) {cell_xy(c)} {stud_words(g, c)} [{int(matrix[:, c].sum())}]"
                              for i, c in enumerate(anchors)])
            anchor = self.choose("Type the number of a stud, or its x and y (e.g. 12 7). [n] is how many staircases start there.",
                                 lambda a: self._parse_anchor(a, anchors))
            shapes = [int(s) for s in matrix[:, anchor].nonzero()[0]]
            self.say(f"Staircases from {cell_xy(anchor)} (heights are the tops, as in the grid):")
            self.say_shapes(anchor, shapes)
            shape = self.choose_shape(anchor, shapes, "Type the number of a staircase, 'preview N' to see staircase N "
                                                      "on the palace, or 'back' to choose another stud.", allow_back=True)
            if shape is None:
                continue
            self.apply(g.layout.encode_cell(*cell_xy(anchor)))
            if g.phase == Phase.SHAPE:      # a single legal shape is taken by the engine itself
                self.apply(g.layout.encode_shape(shape))
            return

    def staircase_by_arches(self) -> None:
        """The complete build action: the anchor, then each arch (its rise and heading) or finish."""
        g = self.game
        anchors = [int(c) for c in np.flatnonzero(g.anchor_cells())]
        self.say("Where does your staircase start? Legal studs (x y):")
        self.say_columns([f"{i + 1}) {cell_xy(c)} {stud_words(g, c)}" for i, c in enumerate(anchors)])
        anchor = self.choose("Type the number of a stud, or its x and y (e.g. 12 7).",
                             lambda a: self._parse_anchor(a, anchors))
        self.apply(g.layout.encode_cell(*cell_xy(anchor)))
        while g.phase == Phase.SHAPE and not g.game_over:
            self.apply(self.next_arch())

    def next_arch(self) -> int:
        """One step of a staircase built arch by arch: every arch that can still end in a legal
        staircase, each in words, and finishing when the staircase is legal as it stands."""
        g = self.game
        mask, L = g.legal_mask(), g.layout
        steps = [g.layout.decode(int(a))[1] for a in np.flatnonzero(mask) if L.arch <= a < L.finish]
        options = [L.encode_arch(h, r) for h, r in steps] + ([L.finish] if mask[L.finish] else [])
        so_far = f" (arches so far: {len(g.turn.steps)})" if g.turn.steps else ""
        self.say(f"Your staircase from {cell_xy(g.turn.anchor)}{so_far}: what next?")
        width = terminal_width()
        for i, a in enumerate(options):
            head = f"  {i + 1}) "
            text = finish_words(g) if a == L.finish else arch_words(g, *g.layout.decode(a)[1])
            lines = flowing(text.split("; "), width, " " * len(head))
            self.say(head + lines[0].lstrip())
            for line in lines[1:]:
                self.say(line)
        return self.choose("Type the number of your choice.", lambda a: self._parse_numbered(a, options))

    def shape_only(self) -> int:
        """A resumed game saved between the two steps: the anchor is already chosen."""
        g = self.game
        if g.complete_build:
            return self.next_arch()
        shapes = [int(s) for s in g.build_matrix()[:, g.turn.anchor].nonzero()[0]]
        self.say(f"Staircases from {cell_xy(g.turn.anchor)} (heights are the tops, as in the grid):")
        self.say_shapes(g.turn.anchor, shapes)
        return g.layout.encode_shape(self.choose_shape(
            g.turn.anchor, shapes, "Type the number of a staircase, or 'preview N' to see staircase N on the palace."))

    def say_shapes(self, anchor: int, shapes: list[int]) -> None:
        """Each shape in words, then where its pieces go: choices that differ only in their
        bricks say which cells the bricks raise."""
        width = terminal_width()
        for i, s in enumerate(shapes):
            head = f"  {i + 1}) "
            words = flowing(staircase_words(self.game, anchor, s).split("; "), width, " " * len(head))
            self.say(head + words[0].lstrip())
            for line in words[1:] + flowing(build_steps(self.game, anchor, s), width, " " * (len(head) + 2)):
                self.say(line)

    def choose_shape(self, anchor: int, shapes: list[int], question: str, allow_back: bool = False):
        """A shape's number, or None for 'back'; 'preview N' draws shape N built and asks again."""
        while True:
            answer = self.ask(question)
            word, _, rest = answer.partition(" ")
            try:
                if word.lower() == "preview":
                    if not rest.strip():
                        raise Retry("preview needs a staircase's number, e.g. preview 2")
                    shape = self._parse_numbered(rest.strip(), shapes)
                    self.say(f"Staircase {shapes.index(shape) + 1} from {cell_xy(anchor)}, built "
                             f"('*' marks the cells it changes):")
                    self.say(preview_text(self.game, anchor, shape))
                    continue
                return self._parse_numbered(answer, shapes, allow_back=allow_back)
            except Retry as e:
                self.say(f"  {e}")

    def _parse_anchor(self, answer: str, anchors: list[int]) -> int:
        parts = answer.replace(",", " ").replace("(", " ").replace(")", " ").split()
        if len(parts) == 2 and all(p.lstrip("-").isdigit() for p in parts):
            x, y = int(parts[0]), int(parts[1])
            if not (0 <= x < BOARD_SIZE and 0 <= y < BOARD_SIZE):
                raise Retry(f"({x}, {y}) is off the plate: x and y go from 0 to {BOARD_SIZE - 1}")
            cell = y * BOARD_SIZE + x
            if cell not in anchors:
                raise Retry(self.game.explain(self.game.layout.encode_cell(x, y)))
            return cell
        return self._parse_numbered(answer, anchors)

    def _parse_numbered(self, answer: str, options: list, allow_back: bool = False):
        if allow_back and answer.lower() == "back":
            return None
        if not answer.isdigit():
            raise Retry(f"I did not understand {answer!r}: type a number from 1 to {len(options)}"
                        + (", or 'back'" if allow_back else "") + " (or 'help')")
        i = int(answer)
        if not 1 <= i <= len(options):
            raise Retry(f"{i} is not in the list: type a number from 1 to {len(options)}")
        return options[i - 1]

    def buy(self) -> int:
        g = self.game
        legal = g.legal_mask()
        self.say(f"You have {g.turn.credits} Monkey Credit(s) and a {COLOUR_WORDS[COLOUR_NAMES[g.turn.colour]]} "
                 f"decoration. Cards you can buy:")
        buyable = [p for p in range(len(PILE_IDS)) if legal[g.layout.encode_buy(p)]]
        for i, p in enumerate(buyable):
            self.say(f"  {i + 1}) {pile_words(g, p)}")
        self.say("  0) stop buying (unused credits are lost)")

        def parse(answer: str) -> int:
            if answer in ("0", "done", "stop", "end"):
                return g.layout.buy_end
            if answer in PILE_IDS:
                action = g.layout.encode_buy(PILE_IDS.index(answer))
                if not legal[action]:
                    raise Retry(g.explain(action))
                return action
            return g.layout.encode_buy(self._parse_numbered(answer, buyable)) if buyable else parse_none(answer)

        def parse_none(answer: str) -> int:
            raise Retry(f"I did not understand {answer!r}: nothing is affordable now, type 0 to stop buying")
        return self.choose("Type the number of a card (or the pile's name, e.g. multi-1), or 0 to stop.", parse)

    def instant(self) -> int:
        g = self.game

        def parse(answer: str) -> int:
            a = answer.lower()
            if a in ("a", "arch"):
                return g.layout.instant_arch
            if a in ("b", "brick"):
                return g.layout.instant_brick
            raise Retry(f"I did not understand {answer!r}: type a (an arch) or b (a brick)")
        return self.choose("A card lets you take an arch or a brick: a or b?", parse)

    def slot(self) -> int:
        g = self.game
        card = g.turn.to_place[0]
        self.say(f"Your board is full. The new card ({card_words(g, card)}) covers the top card of a slot:")
        for i, slot in enumerate(g.player.slots):
            self.say(f"  {i + 1}) {card_words(g, slot[-1])}")
        return g.layout.encode_slot(self.choose("Which slot (1-4)?", lambda a: self._parse_numbered(a, [0, 1, 2, 3])))

    def monkey(self) -> int:
        g = self.game
        legal = g.legal_mask()
        ends = [c for c in range(BOARD_SIZE * BOARD_SIZE) if legal[g.layout.cell + c]]
        stay = bool(legal[g.layout.monkey_stay])
        self.say("Your gold decoration wins the Monkey. It may go on an open arch end knob:")
        self.say_columns([f"{i + 1}) {cell_xy(c)}" for i, c in enumerate(ends)])
        if stay:
            self.say("  0) leave it where it is")

        def parse(answer: str) -> int:
            if stay and answer in ("0", "stay"):
                return g.layout.monkey_stay
            return g.layout.cell + self._parse_anchor(answer, ends)
        return self.choose("Type a number or the knob's x and y.", parse)

    def frog(self) -> int:
        g = self.game

        def parse(answer: str) -> int:
            if answer.lower() in ("y", "yes"):
                return g.layout.frog_take
            if answer.lower() in ("n", "no"):
                return g.layout.frog_decline
            raise Retry(f"I did not understand {answer!r}: type y or n")
        return self.choose("Take the Frog trophy card (-3 Banana Points, a column, and the frog on your staircase)? y/n", parse)

    def finish(self) -> None:
        g = self.game
        self.say("")
        self.say("=== Game over ===")
        self.say(game_text(g))
        scores = g.scores()
        winners = g.winners()
        names = {s: n for s, (n, _) in self.bots.items()} | {self.human: "you"}
        for seat in sorted(range(len(scores)), key=lambda s: -scores[s]):
            self.say(f"  {seat_label(seat)} ({names[seat]}): {scores[seat]} Banana Points"
                     + ("  WINNER" if seat in winners else ""))
        self.say(("You win!" if self.human in winners else "You lose.") + f" Won by {g.winners_text()}.")


# ------------------------------------------------------------------------------------ setting up
def ask_setup(args, out, inp) -> tuple[Game, int, list[str]]:
    """Map, players, expansions, opponents and seat, each with the command line's value as default."""
    def ask(question: str, default: str, parse):
        while True:
            out.write(f"{question} [{default}]\n> ")
            out.flush()
            line = inp.readline()
            if not line:
                raise Quit("the input closed")
            answer = line.strip() or default
            try:
                return parse(answer)
            except (ValueError, Retry) as e:
                print(f"  {e}", file=out, flush=True)

    def number(lo, hi, what):
        def parse(a):
            if not a.isdigit() or not lo <= int(a) <= hi:
                raise Retry(f"{a!r} is not a {what}: type a number from {lo} to {hi}")
            return int(a)
        return parse

    def yes_no(a):
        if a.lower() in ("y", "yes"):
            return True
        if a.lower() in ("n", "no"):
            return False
        raise Retry(f"{a!r}: type y or n")

    def map_choice(a):
        if a.isdigit() and not 1 <= int(a) <= 4:
            raise Retry(f"there is no map {a}: maps are 1 to 4 (or the path of an edited map file)")
        from monkey_env.monkey_palace.game_data import load_game_data
        load_game_data(a)       # raises with the reason if the file is wrong
        return a

    made = {}     # each opponent's agent, made once to check it (name -> agent)
    if args.yes:
        game_map, players, butterfly, frog = args.map, args.players, args.butterfly, args.frog
        opponents, seat = args.opponents, args.seat
    else:
        game_map = ask("Map: 1 (first game), 2, 3 or 4?", args.map, map_choice)
        players = ask("Players, you included (2-4)?", str(args.players), number(2, 4, "number of players"))
        butterfly = ask("Play with the Butterfly (y/n)?", "y" if args.butterfly else "n", yes_no)
        frog = ask("Play with the Frog (y/n)?", "y" if args.frog else "n", yes_no)
        opponents = ask(f"Opponents ({players - 1}; built-in: {', '.join(known_names())}; or package.module:Class)?",
                        args.opponents, lambda a: _check_opponents(a, players, made))
        seat = ask(f"Your seat (1-{players}; seat 1 plays first)?", str(min(args.seat, players)),
                   number(1, players, "seat"))
    if args.yes:
        opponents = _check_opponents(opponents, players, made)
        if not 1 <= seat <= players:
            raise Retry(f"--seat must be 1 to {players} (seat 1 plays first), got {seat}")
    from monkey_env.apps.cli import game_options
    game = Game.from_options(game_options(args, players=int(players), map=str(game_map), butterfly=bool(butterfly),
                                          frog=bool(frog)))
    from monkey_env.agents.base import check_plays
    try:
        check_plays({n: made[n] for n in opponents}, game.options)   # e.g. ppo-sb3 on the complete action
    except ValueError as e:
        raise Retry(str(e)) from None
    return game, int(seat) - 1, opponents


def _check_opponents(text: str, players: int, made: dict) -> list[str]:
    """The opponents' names, each made once into ``made`` (name -> agent) to check it can play."""
    names = split_agent_names(text)
    if len(names) == 1:
        names = names * (players - 1)
    if len(names) != players - 1:
        raise Retry(f"{players} players need {players - 1} opponent(s), got {len(names)}: {', '.join(names)}")
    for n in dict.fromkeys(names):
        try:
            agent = made[n] if n in made else make_agent(n, 0)
        except ValueError as e:
            raise Retry(str(e)) from None
        made[n] = agent
        if not hasattr(agent, "act"):
            raise Retry(f"{n} cannot play the terminal game: it has no act(game, mask)")
    return names


def play(args: argparse.Namespace, resumed=None) -> int:
    """The ``play`` part: ``monkey-palace play`` of Monkey Palace, its two-step staircase questions.
    resumed: (spec, game, human seat, opponents) of a save (apps.saves.play_session), else the
    setup is asked (the command line's settings as the default answers; --yes takes them)."""
    from monkey_env.apps.cli_edges import check_output_file

    png = "monkey-palace-final.png" if args.png is None else args.png
    if png:
        check_output_file(png, "--png")
    out, inp = sys.stdout, sys.stdin
    try:
        if resumed:
            _, game, human, opponents = resumed
            print(f"Resuming {args.resume}: round {game.round}.", file=out, flush=True)
        else:
            game, human, opponents = ask_setup(args, out, inp)
    except Quit as e:
        print(f"Stopped: {e}.", file=out)
        return 0
    except Retry as e:
        print(f"monkey-palace play: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nStopped before the game began: nothing to save.", file=out)
        return 130
    save_path = Path(args.save or args.resume or "monkey-palace-game.json")
    session = Session(game, human, opponents, save_path, out, inp)
    code = session.run()
    if game.game_over and png:
        from monkey_env.monkey_palace import render
        render.save_png(render.game_picture(game), png)
        print(f"A picture of the palace: {png}", file=out, flush=True)
    return code
