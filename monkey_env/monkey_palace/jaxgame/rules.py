"""The turn of Monkey Palace as pure JAX functions over one game's State.

The same steps as monkey_env.monkey_palace.engine, in the same order, and the same decisions: a
decision with a single legal option is taken here too, so both engines stop at the same
decisions and the action indices mean the same thing. No Python branching on traced
values: every branch is a ``lax.cond``/``jnp.where``, so all of it runs under ``vmap``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import jax.numpy as jnp
from jax import lax

from monkey_env.monkey_palace.actions import N_PILES, N_SLOTS, ActionLayout, Phase
from monkey_env.monkey_palace.geometry import BOARD_SIZE, NUM_CELLS, Colour, Knob
from monkey_env.monkey_palace.jaxgame import complete_build, complete_masks
from monkey_env.monkey_palace.jaxgame.legality import (
    anchor_mask,
    build_parts,
    last_writes,
    place_staircase,
    shape_mask,
    staircase_stacks,
)
from monkey_env.monkey_palace.jaxgame.state import PENDING_NONE, PENDING_SETTLE, PENDING_SHAPE_MASK, PENDING_TURN_START, State
from monkey_env.monkey_palace.jaxgame.tables import Static, Tables

ARCH, BRICK, COLUMN, ARCH_OR_BRICK = 0, 1, 2, 3
MONKEY, BUTTERFLY, FROG = 0, 1, 2
# The game options, traced per game (State.options), so one compiled step serves them all.
OPT_BUTTERFLY, OPT_FROG, OPT_MONKEY_MANDATORY, OPT_BUTTERFLY_OVERALL, OPT_LAST_TAKEN = range(5)
# What runs next within a turn when no decision is asked (State.stage).
STAGE_NONE, STAGE_INSTANT, STAGE_PLACE, STAGE_SUPPLY_BONUS_MONKEY, STAGE_BUTTERFLY = range(5)


class PendingWork(NamedTuple):
    """Work the batched driver does only for the games whose ``pending`` is ``kind`` (and, when
    ``which`` is given, for which it is true), gathered into groups. ``share``: the part of a
    batch it takes at once on a CPU, for work whose cost per game falls with wider groups; None
    for the memory-bound tables, which run fastest a few games at a time."""

    kind: int
    which: Callable[[State], jnp.ndarray] | None
    work: Callable[[State], State]
    share: float | None = None


@dataclass(frozen=True)
class Rules:
    """The rules over the tables of one set of game data (cards, boards, tray, catalogue).
    Map, player count and options are per game, in the State."""

    tables: Tables
    static: Static
    layout: ActionLayout

    def __hash__(self):
        return id(self)

    # ------------------------------------------------------------ scores
    def bananas(self, s: State) -> jnp.ndarray:
        """(4,) int32 Banana Points of every seat: cards + bonus cards + trophies."""
        owner = s.card_owner.astype(jnp.int32)
        seats = jnp.arange(4)
        cards = jnp.sum(jnp.where(owner[None, :] == seats[:, None], s.card_bananas[None, :], 0), -1)
        trophies = jnp.sum(jnp.where(s.holders[None, :] == seats[:, None], s.trophy_points[None, :], 0), -1)
        return cards + s.bonus_cards * s.bonus_points + trophies

    # ------------------------------------------------------------ the tray
    def take(self, s: State, kind, n) -> State:
        """Move n elements of a kind from the tray to the current seat; a short tray ends the game."""
        have = s.tray[kind]
        got = jnp.minimum(n, have)
        trigger = (n > 0) & ((got < n) | (s.options[OPT_LAST_TAKEN] & (have - got == 0)))
        return self._trigger(s._replace(tray=s.tray.at[kind].add(-got),
                                        supply=s.supply.at[s.current, kind].add(got)), trigger, kind)

    @staticmethod
    def _trigger(s: State, trigger, kind) -> State:
        first = trigger & ~s.end_triggered
        return s._replace(end_triggered=s.end_triggered | trigger, end_kind=jnp.where(first, kind, s.end_kind))

    # ------------------------------------------------------------ legal actions
    def buyable(self, s: State) -> jnp.ndarray:
        """(12,) bool: piles whose top card may be bought now."""
        t = self.tables
        top = s.pile_cards[jnp.arange(N_PILES), jnp.maximum(s.pile_len - 1, 0)]
        bought_at = jnp.where(s.bought >= 0, t.card_pile[s.bought], N_PILES)
        bought_pile = jnp.zeros((N_PILES + 1,), bool).at[bought_at].set(True)[:N_PILES]
        colour_ok = (t.card_colour[top] == 3) | (t.card_colour[top] == s.colour)
        return (s.pile_len > 0) & ~bought_pile & colour_ok & (t.card_cost[top] <= s.credits)

    def open_arch_ends(self, s: State) -> jnp.ndarray:
        """(1024,) bool: arch end knobs with no animal on them."""
        animal = jnp.zeros((NUM_CELLS + 1,), bool).at[jnp.where(s.animals >= 0, s.animals, -1)].set(True)[:-1]
        return (s.knob.reshape(-1) == Knob.ARCH_END) & ~animal

    def legal_action_mask(self, s: State) -> jnp.ndarray:
        """(A,) bool in the order of ActionLayout: cells, shapes, piles, stop buying, instant
        arch and brick, slots, monkey stays, frog take and decline (one concatenation)."""
        p = s.phase
        monkey_cells = self.open_arch_ends(s)
        cells = jnp.where(p == Phase.ANCHOR, s.anchor_mask, (p == Phase.MONKEY) & monkey_cells)
        buy, instant, slot, frog = (p == Phase.BUY), (p == Phase.INSTANT), (p == Phase.SLOT), (p == Phase.FROG)
        stay = (p == Phase.MONKEY) & (~s.options[OPT_MONKEY_MANDATORY] | ~monkey_cells.any())
        mask = jnp.concatenate([
            cells, (p == Phase.SHAPE) & s.shape_mask, buy & self.buyable(s), buy[None],
            jnp.stack([instant, instant]), jnp.broadcast_to(slot, (N_SLOTS,)), stay[None], jnp.stack([frog, frog])])
        assert mask.shape == (self.layout.size,)
        return mask

    # ------------------------------------------------------------ turn start (expensive: anchor mask)
    def start_turn(self, s: State, tier: int | None = None) -> State:
        """A turn begins: its anchor mask (with the complete build, from the tables of ``tier``,
        or of the caps themselves when None: complete_build.caps_of)."""
        J = s.arch_ends.shape[0]
        s = s._replace(pending=jnp.int32(PENDING_NONE), phase=jnp.int32(Phase.ANCHOR), anchor=jnp.int32(-1),
                       colour=jnp.int32(-1), deco_cell=jnp.int32(-1), deco_top=jnp.int32(0),
                       arch_ends=jnp.full((J,), -1, jnp.int32), max_stack=jnp.int32(0), credits=jnp.int32(0),
                       highest_of_colour=jnp.asarray(False), highest_overall=jnp.asarray(False),
                       bought=jnp.full_like(s.bought, -1), n_bought=jnp.int32(0), queue=jnp.full_like(s.queue, -1),
                       q_head=jnp.int32(0), q_len=jnp.int32(0), placed=jnp.int32(0))
        if self.static.complete:
            mask = complete_build.anchor_mask(s, self.static, tier)
            s = s._replace(over_cap=s.over_cap | complete_build.over_cap(s, self.static))
        else:
            mask = anchor_mask(s, self.tables, self.static)
        s = s._replace(anchor_mask=mask)
        # Rule E's rare case: no staircase can attach; take only the recurring supply.
        return lax.cond(mask.any(), lambda s: s, lambda s: self.end_turn(self.take_recurring_supply(s)), s)

    def end_turn(self, s: State) -> State:
        nxt = s.current + 1
        wrap = nxt == s.players
        over = wrap & s.end_triggered
        return s._replace(
            turns_played=s.turns_played + 1, current=jnp.where(wrap, 0, nxt),
            round=jnp.where(wrap & ~over, s.round + 1, s.round),
            phase=jnp.where(over, jnp.int32(Phase.GAME_OVER), s.phase),
            pending=jnp.where(over, PENDING_NONE, PENDING_TURN_START).astype(jnp.int32),
            terminated=over,
        )

    # ------------------------------------------------------------ the decisions
    def apply(self, s: State, action) -> State:
        """Apply one decision (assumed legal) of the current phase; what follows it is left
        to `settle` as a stage, so each step of the turn is traced once."""
        L = self.layout
        if self.static.complete:
            R = self.static.n_rises
            choose_anchor = lambda s: complete_build.begin(s, action - L.cell)
            build = lambda s: lax.cond(action == L.finish, lambda s: complete_build.finish(s, self.static),
                                       lambda s: complete_build.add_arch(s, (action - L.arch) // R, (action - L.arch) % R,
                                                                         self.static), s)
        else:
            choose_anchor = lambda s: s._replace(anchor=action - L.cell, phase=jnp.int32(Phase.SHAPE),
                                                 pending=jnp.int32(PENDING_SHAPE_MASK))
            build = lambda s: self.build(s, action - L.shape)
        branches = [
            choose_anchor,
            build,
            lambda s: lax.cond(action == L.buy_end,
                               lambda s: s._replace(credits=jnp.int32(0), stage=jnp.int32(STAGE_INSTANT)),
                               lambda s: self.buy(s, action - L.buy_pile), s),
            lambda s: self.take(s, jnp.where(action == L.instant_arch, ARCH, BRICK), 1)._replace(
                stage=jnp.int32(STAGE_INSTANT)),
            lambda s: self.put_on_slot(s, action - L.slot)._replace(stage=jnp.int32(STAGE_PLACE)),
            lambda s: self.move_monkey(s, action)._replace(stage=jnp.int32(STAGE_BUTTERFLY)),
            lambda s: self.end_turn(lax.cond(action == L.frog_take, self.take_frog, lambda s: s, s)),
            lambda s: s,
        ]
        return lax.switch(jnp.clip(s.phase, 0, len(branches) - 1), branches, s)

    def compute_shape_mask(self, s: State, tier: int | None = None) -> State:
        if self.static.complete:
            return complete_build.step_mask(s, self.static, tier)
        return s._replace(shape_mask=shape_mask(s, self.tables, self.static, s.anchor), pending=jnp.int32(PENDING_NONE))

    # step 1-3: build, decorate, credits
    def build(self, s: State, shape) -> State:
        t, st = self.tables, self.static
        anchor = s.anchor
        ax, ay = anchor % BOARD_SIZE, anchor // BOARD_SIZE
        parts = build_parts(s, t, anchor, shape)
        columns = s.supply[s.current, COLUMN]
        k = t.shape_k[shape]
        _, used, need = staircase_stacks(parts, st.column_units, columns)
        valid = t.arch_valid[shape]
        level = t.arch_level[shape]
        # The arches' cells in building order (arch by arch: near end, middles, far end); a later
        # arch's near end covers the junction, so a cell takes its last write.
        cells = jnp.stack([t.arch_near[shape], t.arch_m1[shape], t.arch_m2[shape], t.arch_far[shape]], 1)  # (J, 4, 2)
        where = last_writes(((ay + cells[..., 1]) * BOARD_SIZE + ax + cells[..., 0]).reshape(-1), valid)
        last = k - 1
        deco_cell = (ay + t.arch_far[shape, last, 1]) * BOARD_SIZE + ax + t.arch_far[shape, last, 0]
        ends = jnp.where(valid, (ay + t.arch_near[shape, :, 1]) * BOARD_SIZE + ax + t.arch_near[shape, :, 0], -1)
        s = place_staircase(s, where, level, deco_cell, level[last] + 2, jnp.stack([k, need, used]), parts.max())
        return s._replace(arch_ends=ends)

    # step 4
    def buy(self, s: State, pile) -> State:
        t = self.tables
        card = s.pile_cards[pile, s.pile_len[pile] - 1]
        icons = t.card_instant[card]
        n_icons = jnp.sum(icons >= 0)
        queue = lax.dynamic_update_slice(s.queue, icons, (s.q_len,))
        return s._replace(pile_len=s.pile_len.at[pile].add(-1), credits=s.credits - t.card_cost[card],
                          bought=s.bought.at[s.n_bought].set(card), n_bought=s.n_bought + 1,
                          card_owner=s.card_owner.at[card].set(s.current.astype(jnp.int8)),
                          queue=queue, q_len=s.q_len + n_icons)

    # step 5
    def stage_instant(self, s: State) -> State:
        """Take the next queued instant icon; ask when it is arch-or-brick and the tray has both."""
        def next_icon(s):
            icon = s.queue[s.q_head]
            s = s._replace(q_head=s.q_head + 1)
            choice = icon == ARCH_OR_BRICK
            both = (s.tray[ARCH] > 0) & (s.tray[BRICK] > 0)

            def fixed(s):
                return self.take(s, jnp.maximum(icon, 0), 1)

            def forced(s):
                some = (s.tray[ARCH] > 0) | (s.tray[BRICK] > 0)
                kind = jnp.where(s.tray[ARCH] > 0, ARCH, BRICK)
                return lax.cond(some, lambda s: self.take(s, kind, 1), lambda s: self._trigger(s, True, 3), s)

            return lax.cond(choice & both,
                            lambda s: s._replace(phase=jnp.int32(Phase.INSTANT), stage=jnp.int32(STAGE_NONE)),
                            lambda s: lax.cond(choice, forced, fixed, s), s)

        done = lambda s: s._replace(placed=jnp.int32(0), stage=jnp.int32(STAGE_PLACE))
        return lax.cond(s.q_head < s.q_len, next_icon, done, s)

    # step 6
    def put_on_slot(self, s: State, slot) -> State:
        card = s.bought[s.placed]
        return s._replace(slot_top=s.slot_top.at[s.current, slot].set(card),
                          slot_depth=s.slot_depth.at[s.current, slot].add(1), placed=s.placed + 1)

    def stage_place(self, s: State) -> State:
        """The next new card goes on the lowest empty slot; a full board asks for a slot."""
        def next_card(s):
            empty = s.slot_top[s.current] < 0
            return lax.cond(empty.any(), lambda s: self.put_on_slot(s, jnp.argmax(empty)),
                            lambda s: s._replace(phase=jnp.int32(Phase.SLOT), stage=jnp.int32(STAGE_NONE)), s)

        return lax.cond(s.placed < s.n_bought, next_card,
                        lambda s: s._replace(stage=jnp.int32(STAGE_SUPPLY_BONUS_MONKEY)), s)

    def stage_supply_bonus_monkey(self, s: State) -> State:
        return self.monkey_step(self.bonus_step(self.take_recurring_supply(s)))

    def take_recurring_supply(self, s: State) -> State:
        t = self.tables
        tops = s.slot_top[s.current]
        need = t.board_recurring[s.current] + jnp.sum(jnp.where(tops[:, None] >= 0, t.card_recurring[tops], 0), 0)
        for kind in range(3):
            s = self.take(s, kind, need[kind])
        return s

    # step 7
    def bonus_step(self, s: State) -> State:
        earn = (s.max_stack >= self.static.bonus_min_stack) & (s.bonus_left > 0)
        return s._replace(bonus_left=s.bonus_left - earn, bonus_cards=s.bonus_cards.at[s.current].add(earn.astype(jnp.int32)))

    # step 8
    def monkey_step(self, s: State) -> State:
        gold = s.colour == Colour.GOLD
        return s._replace(holders=jnp.where(gold, s.holders.at[MONKEY].set(s.current), s.holders),
                          phase=jnp.where(gold, jnp.int32(Phase.MONKEY), s.phase),
                          stage=jnp.where(gold, STAGE_NONE, STAGE_BUTTERFLY).astype(jnp.int32))

    def move_monkey(self, s: State, action) -> State:
        moves = action < NUM_CELLS
        return s._replace(animals=jnp.where(moves, s.animals.at[MONKEY].set(action), s.animals))

    def butterfly_step(self, s: State) -> State:
        o = s.options
        wins = o[OPT_BUTTERFLY] & jnp.where(o[OPT_BUTTERFLY_OVERALL], s.highest_overall, s.highest_of_colour)
        s = s._replace(animals=jnp.where(wins, s.animals.at[BUTTERFLY].set(s.deco_cell), s.animals),
                       holders=jnp.where(wins, s.holders.at[BUTTERFLY].set(s.current), s.holders))
        return self.frog_step(s)

    def frog_target(self, s: State):
        """The lowest open end knob of the staircase just built, or -1."""
        open_ends = self.open_arch_ends(s)
        ends = s.arch_ends
        ok = (ends >= 0) & open_ends[jnp.maximum(ends, 0)]
        h = jnp.where(ok, s.height.reshape(-1)[jnp.maximum(ends, 0)].astype(jnp.int32), 10_000)
        return jnp.where(ok.any(), ends[jnp.argmin(h)], -1)

    def frog_step(self, s: State) -> State:
        offer = s.options[OPT_FROG] & (s.holders[FROG] != s.current) & (self.frog_target(s) >= 0)
        s = s._replace(stage=jnp.int32(STAGE_NONE))
        return lax.cond(offer, lambda s: s._replace(phase=jnp.int32(Phase.FROG)), self.end_turn, s)

    def take_frog(self, s: State) -> State:
        # The frog's column comes only if one is left and never triggers the end (French FAQ).
        col = s.tray[COLUMN] > 0
        return s._replace(holders=s.holders.at[FROG].set(s.current), animals=s.animals.at[FROG].set(self.frog_target(s)),
                          tray=s.tray.at[COLUMN].add(-col.astype(jnp.int32)),
                          supply=s.supply.at[s.current, COLUMN].add(col.astype(jnp.int32)))

    # ------------------------------------------------------------ running to the next decision
    def n_legal_and_first(self, s: State):
        """How many actions are legal now, and the first legal one: what `settle` needs,
        without building the whole mask (the settle loop asks at every iteration)."""
        L, p = self.layout, s.phase
        cells = jnp.where(p == Phase.ANCHOR, s.anchor_mask, self.open_arch_ends(s))
        n_cells = jnp.sum(cells)
        buyable = self.buyable(s)
        n_buy = jnp.sum(buyable)
        stay = ~s.options[OPT_MONKEY_MANDATORY] | (n_cells == 0)
        n = jnp.select(
            [p == Phase.ANCHOR, p == Phase.SHAPE, p == Phase.BUY, p == Phase.INSTANT, p == Phase.SLOT,
             p == Phase.MONKEY, p == Phase.FROG],
            [n_cells, jnp.sum(s.shape_mask), n_buy + 1, 2, N_SLOTS, n_cells + stay, 2], 0)
        first = jnp.select(
            [p == Phase.ANCHOR, p == Phase.SHAPE, p == Phase.BUY, p == Phase.INSTANT, p == Phase.SLOT,
             p == Phase.MONKEY, p == Phase.FROG],
            [L.cell + jnp.argmax(cells), L.shape + jnp.argmax(s.shape_mask),
             jnp.where(n_buy > 0, L.buy_pile + jnp.argmax(buyable), L.buy_end), L.instant_arch, L.slot,
             jnp.where(n_cells > 0, L.cell + jnp.argmax(cells), L.monkey_stay), L.frog_take], 0)
        return n, first.astype(jnp.int32)

    def settle(self, s: State, with_pending: bool = True, max_iterations: int | None = None,
               first_action=None) -> State:
        """Run to the next real decision: the stages that follow a decision, pending work,
        and every decision with a single legal option (taken, never asked).

        With ``with_pending=False`` it stops at pending work instead (the batched driver
        does that work only for the games that need it). With ``max_iterations`` it stops
        after that many steps and marks an unfinished game PENDING_SETTLE: under vmap every
        game runs as many steps as the slowest, so the batched driver finishes the few slow
        ones in compact groups. With ``first_action`` ((action, apply) traced: apply the
        action first when ``apply``) it is ``settle(apply(s, action))`` with one copy of
        ``apply`` in the program, not two (the single-game step compiles a second faster)."""
        stages = [None, self.stage_instant, self.stage_place, self.stage_supply_bonus_monkey, self.butterfly_step]
        action, first = (None, False) if first_action is None else first_action

        def more(s):
            idle = s.stage == STAGE_NONE
            forced = idle & (s.pending == PENDING_NONE) & (self.n_legal_and_first(s)[0] == 1)
            pending = with_pending & idle & (s.pending != PENDING_NONE)
            return ~s.terminated & (~idle | forced | pending)

        def body(s, first=False):
            def single(s):
                forced = self.n_legal_and_first(s)[1]
                return self.apply(s, forced if action is None else jnp.where(first, action, forced))

            def idle(s):
                if not with_pending:
                    return single(s)
                return lax.switch(jnp.where(first, PENDING_NONE, s.pending),
                                  [single, self.start_turn, self.compute_shape_mask, self.resume], s)

            return lax.switch(jnp.where(first, STAGE_NONE, s.stage), [idle] + stages[1:], s)

        if first_action is not None:
            assert max_iterations is None
            s, _ = lax.while_loop(lambda c: c[1] | more(c[0]), lambda c: (body(*c), jnp.asarray(False)),
                                  (s, jnp.asarray(first)))
            return s
        if max_iterations is None:
            return lax.while_loop(more, body, s)
        s, _ = lax.while_loop(lambda c: more(c[0]) & (c[1] < max_iterations), lambda c: (body(c[0]), c[1] + 1), (s, 0))
        unfinished = more(s) & (s.pending == PENDING_NONE)
        return s._replace(pending=jnp.where(unfinished, PENDING_SETTLE, s.pending).astype(jnp.int32))

    def pending_work(self) -> list[PendingWork]:
        """The batched driver's pending work: the complete build's masks once per size of tables
        (complete_masks.tiers), so that each group of games runs only the tables its supplies
        need, and the automatic steps the batched step stopped early."""
        if not self.static.complete:
            return [PendingWork(PENDING_TURN_START, None, self.start_turn),
                    PendingWork(PENDING_SHAPE_MASK, None, self.compute_shape_mask),
                    PendingWork(PENDING_SETTLE, None, self.resume)]
        work = []
        for kind, fn in ((PENDING_TURN_START, self.start_turn), (PENDING_SHAPE_MASK, self.compute_shape_mask)):
            for tier in range(len(complete_masks.tiers(self.static.caps))):
                # Measured at batch 1,024 of random 2-player play (docs/ENVIRONMENTS.md, (h)): about
                # half the games wait for a next-step mask from the smallest tables (groups of a 32nd
                # to an 8th of the batch ran alike), a fifth for more automatic steps, a twentieth or
                # fewer for the rest, which stays 4 at a time (a wide group of the biggest tables
                # for one game that needs them costs more than it saves).
                share = 1 / 16 if (kind, tier) == (PENDING_SHAPE_MASK, 0) else None
                work.append(PendingWork(kind, lambda s, tier=tier: complete_build.tier_of(s, self.static) == tier,
                                        partial(fn, tier=tier), share))
        return work + [PendingWork(PENDING_SETTLE, None, self.resume, 1 / 4)]

    def resume(self, s: State) -> State:
        """Go on with automatic steps the batched step stopped early."""
        return s._replace(pending=jnp.int32(PENDING_NONE))
