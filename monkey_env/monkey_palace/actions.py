"""The flat action space: one index per choice, in ranges per decision phase.

| range                 | size            | phase(s)        | meaning                                   |
|-----------------------|-----------------|-----------------|-------------------------------------------|
| CELL                  | 1024            | anchor, monkey  | a stud (x, y) as y*32+x                   |
| SHAPE                 | catalogue size  | shape           | a staircase template of the catalogue     |
| ARCH                  | 4 x rises       | shape           | complete build: next arch (heading, rise) |
| FINISH                | 1               | shape           | complete build: the staircase is done     |
| BUY_PILE              | 12              | buy             | buy the top card of pile i (PILE_IDS)     |
| BUY_END               | 1               | buy             | stop buying (unused credits are lost)     |
| INSTANT_ARCH/BRICK    | 2               | instant         | take an arch / a brick for an "arch or brick" icon |
| SLOT                  | 4               | slot            | put the new card on slot i of the board   |
| MONKEY_STAY           | 1               | monkey          | leave the monkey where it is              |
| FROG_TAKE/DECLINE     | 2               | frog            | take the Frog trophy card, or not         |

With ``build_action: catalogue`` the ARCH and FINISH ranges are empty; with ``complete`` the
SHAPE range is, and the shape phase is a sequence of arch steps ended by FINISH (an arch's
index is ARCH + heading * rises + rise). The CELL range serves two phases that both choose a stud. A decision with a single
legal option is never asked: the engine takes it and moves on.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from monkey_env.monkey_palace.geometry import NUM_CELLS, cell_xy

N_PILES = 12
N_SLOTS = 4


class Phase(IntEnum):
    ANCHOR = 0   # choose the anchor stud of this turn's staircase
    SHAPE = 1    # choose the staircase's shape: a catalogue template, or arch by arch
    BUY = 2      # buy Monkey Cards one at a time, or stop
    INSTANT = 3  # an "arch or brick" instant-supply icon: which one
    SLOT = 4     # the board is full: on which slot the new card goes
    MONKEY = 5   # a gold decoration was placed: where the monkey goes
    FROG = 6     # take the Frog trophy card or not
    GAME_OVER = 7


PHASE_WORDS = {
    Phase.ANCHOR: "choose where your staircase starts",
    Phase.SHAPE: "choose your staircase's shape",
    Phase.BUY: "buy Monkey Cards",
    Phase.INSTANT: "choose an arch or a brick",
    Phase.SLOT: "choose a slot for your new card",
    Phase.MONKEY: "move the monkey",
    Phase.FROG: "take the Frog or not",
    Phase.GAME_OVER: "the game is over",
}


@dataclass(frozen=True)
class ActionLayout:
    n_shapes: int
    n_rises: int = 0  # the complete build action's rises 0..n_rises-1 (0: catalogue only)

    @property
    def cell(self) -> int: return 0
    @property
    def shape(self) -> int: return NUM_CELLS
    @property
    def arch(self) -> int: return self.shape + self.n_shapes
    @property
    def finish(self) -> int: return self.arch + 4 * self.n_rises
    @property
    def buy_pile(self) -> int: return self.finish + (1 if self.n_rises else 0)
    @property
    def buy_end(self) -> int: return self.buy_pile + N_PILES
    @property
    def instant_arch(self) -> int: return self.buy_end + 1
    @property
    def instant_brick(self) -> int: return self.instant_arch + 1
    @property
    def slot(self) -> int: return self.instant_brick + 1
    @property
    def monkey_stay(self) -> int: return self.slot + N_SLOTS
    @property
    def frog_take(self) -> int: return self.monkey_stay + 1
    @property
    def frog_decline(self) -> int: return self.frog_take + 1
    @property
    def size(self) -> int: return self.frog_decline + 1

    # ---- encoding
    def encode_cell(self, x: int, y: int) -> int: return self.cell + y * 32 + x
    def encode_shape(self, shape: int) -> int: return self.shape + shape
    def encode_arch(self, heading: int, rise: int) -> int: return self.arch + heading * self.n_rises + rise
    def encode_buy(self, pile: int) -> int: return self.buy_pile + pile
    def encode_slot(self, slot: int) -> int: return self.slot + slot

    def decode(self, action: int) -> tuple[str, object]:
        """(kind, value): ('cell', (x, y)), ('shape', i), ('arch', (heading, rise)), ('finish', None),
        ('buy', pile), ('buy_end', None),
        ('instant', 'arch'|'brick'), ('slot', i), ('monkey_stay', None), ('frog', True|False)."""
        a = int(action)
        if not 0 <= a < self.size:
            raise ValueError(f"action {a} is out of range: actions are 0..{self.size - 1}")
        if a < self.shape:
            return "cell", cell_xy(a)
        if a < self.arch:
            return "shape", a - self.shape
        if a < self.finish:
            return "arch", divmod(a - self.arch, self.n_rises)
        if a < self.buy_pile:
            return "finish", None
        if a < self.buy_end:
            return "buy", a - self.buy_pile
        if a == self.buy_end:
            return "buy_end", None
        if a in (self.instant_arch, self.instant_brick):
            return "instant", "arch" if a == self.instant_arch else "brick"
        if a < self.monkey_stay:
            return "slot", a - self.slot
        if a == self.monkey_stay:
            return "monkey_stay", None
        return "frog", a == self.frog_take
