"""The Shadow Theater on JAX: Pgx-like pure functions over one game's State, and their batches.

    engine = jax_engine_for(options)               # one per set of game data (compiled in)
    state = engine.init(key)                       # one game; engine.batch_init(keys) for a batch
    mask = engine.legal_action_mask(state)         # (29,) bool, the reference engine's indices
    state = engine.step(state, action)             # pure, jittable, vmappable
    obs = engine.observe(state, player)            # {"planes": (2, 3, 3), "vector": (V,)} float32

Rules of the step: stepping a finished game changes nothing; an illegal action ends the game,
``illegal`` set, with ``illegal_penalty`` to the seat that made it (the reference engine raises
instead). Rewards: +1 to a seat when it takes a Lantern and -1 to the other (zero-sum). Every
branch is computed and selected with ``jnp.where`` (no Python branching on traced values); a
decision's own step says whether it ends the turn (``_act``); the rare parts of a step (the
first turn after the draft; scoring the round and the next set-up) are ``_rare``, once per step.
Updates at traced indices are one-hot arithmetic, not scatters.

Speed: under ``vmap`` every branch runs for every game, and the rare parts were most of a step's
time. ``batch_step`` of 128 games or more therefore runs ``_act`` on the whole batch and ``_rare``
only on the games that need it this step (gathered into a batch an eighth as big; the whole batch
when more need it, as when every game leaves its draft at once): the same results as
``vmap(step)``, checked by the differential test and tests/games/shadow_theater/test_shadow_theater_rules.py.
"""

from __future__ import annotations

from functools import lru_cache, partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from monkey_env.core.jax_cache import on_device
from monkey_env.core.protocol import ILLEGAL_PENALTY
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
    PLACE,
    PLAY,
    TURN,
)
from monkey_env.shadow_theater.game_data import CARD_EFFECTS, LOCATIONS, RESOURCES, SCROLL_EFFECTS, GameData
from monkey_env.shadow_theater.jaxgame.state import State
from monkey_env.shadow_theater.options import ShadowTheaterOptions

GAIN, STEAL, MOVE_KING, RECALL, TREASURE = range(5)
PLACE_BONUS, FEED, JADE_SET, START, CARD_POINTS, JADE_MAJORITY = range(6)
# A batch of RARE_MIN_BATCH games or more computes the rare parts of a step on a batch//RARE_FRACTION.
RARE_MIN_BATCH, RARE_FRACTION = 128, 8
CARDS_RESOURCE = 3                 # a scroll's resource "cards" (after monkeys, jade, peaches)
# Observation scaling: counts divided by about their largest values.
MONKEY_SCALE, ITEM_SCALE = 25.0, 9.0


def _hot(i, n: int) -> jnp.ndarray:
    """(n,) int32 one-hot of a traced index: updates without scatters (slow on CPU under vmap)."""
    return (jnp.arange(n) == i).astype(jnp.int32)


def _hot2(i, j, n: int, m: int) -> jnp.ndarray:
    """(n, m) int32 one-hot of a traced pair of indices."""
    return _hot(i, n)[:, None] * _hot(j, m)[None, :]


class Tables(NamedTuple):
    """The game data as arrays (compiled into the engine; the values a tune changes are Params)."""

    card_kind: jnp.ndarray       # (C,) int32
    card_location: jnp.ndarray   # (C,) int32
    card_effect: jnp.ndarray     # (C,) int32 index into CARD_EFFECTS
    card_resource: jnp.ndarray   # (C,) int32 index into RESOURCES (0 where none)
    scroll_effect: jnp.ndarray   # (S,) int32 index into SCROLL_EFFECTS
    scroll_location: jnp.ndarray  # (S,) int32 (-1 none)
    scroll_resource: jnp.ndarray  # (S,) int32 index into RESOURCES + cards (-1 none)


# The scoring numbers of game.yaml the engines read, in the order of Params.scoring / State.scoring.
SCORING_FIELDS = ("monkeys_fed_per_peach", "points_per_fed_monkey", "jade_per_set", "points_per_jade_set",
                  "jade_majority_points")
FED_PER_PEACH, POINTS_PER_FED, JADE_PER_SET, POINTS_PER_SET, MAJORITY_POINTS = range(5)


class Params(NamedTuple):
    """The game's values, traced (copied into every State by init): one compiled engine plays
    every candidate of a balance tune. The game data's own unless :meth:`with_values` changes them."""

    card_amount: jnp.ndarray     # (C,) int32
    card_points: jnp.ndarray     # (C,) int32
    scroll_amount: jnp.ndarray   # (S,) int32
    scoring: jnp.ndarray         # (5,) int32 SCORING_FIELDS
    starting_monkeys: jnp.ndarray  # (2,) int32 starter, other
    lanterns_to_win: jnp.ndarray  # () int32

    def with_values(self, **values) -> Params:
        """These values with some replaced (VALUE_FIELDS), same shapes and dtypes (a batch axis may lead)."""
        from monkey_env.core.tuning import replace_values

        return replace_values(self, VALUE_FIELDS, values)


VALUE_FIELDS = Params._fields


def data_params(data: GameData) -> Params:
    """The game data's own values as Params."""
    g = data.game
    i32 = partial(on_device, dtype=np.int32)
    return Params(i32([c.amount for c in data.cards]), i32([c.points for c in data.cards]),
                  i32([x.amount for x in data.scrolls]), i32([getattr(g.scoring, f) for f in SCORING_FIELDS]),
                  i32([g.starting_monkeys["starter"], g.starting_monkeys["other"]]), on_device(g.lanterns_to_win, np.int32))


def build_tables(data: GameData) -> Tables:
    i32 = partial(on_device, dtype=np.int32)
    c, s = data.cards, data.scrolls
    res = lambda r: -1 if r is None else (RESOURCES + ("cards",)).index(r)
    return Tables(i32([x.kind for x in c]), i32([x.location for x in c]), i32([CARD_EFFECTS.index(x.effect) for x in c]),
                  i32([max(x.resource, 0) for x in c]), i32([SCROLL_EFFECTS.index(x.effect) for x in s]),
                  i32([-1 if x.location is None else LOCATIONS.index(x.location) for x in s]),
                  i32([res(x.resource) for x in s]))


class ShadowTheaterJax:
    """The JAX engine over one set of game data (cards, scrolls, figures from configs/)."""

    num_actions = NUM_ACTIONS

    def __init__(self, options: ShadowTheaterOptions | None = None, *, illegal_penalty: float = ILLEGAL_PENALTY,
                 max_start_cards: int | None = None):
        """max_start_cards: the most cards a start scroll may draw (a loop bound, static; default the
        data's): a balance tune that traces larger scroll amounts passes its space's highest."""
        self.options = options or ShadowTheaterOptions()
        self.data = self.options.game_data()
        self.t = build_tables(self.data)
        g = self.data.game
        self.n_kinds, self.n_scrolls = len(self.data.kinds), len(self.data.scrolls)
        self.deck_size = g.weapon_cards_per_round
        self.spaces = g.spaces_per_location
        self.start_reserve = on_device([g.monkeys, g.jade, g.peaches], np.int32)
        self.illegal_penalty = illegal_penalty
        # Static counts from the data (loop bounds, not traced values).
        data_most = max([s.amount for s in self.data.scrolls if s.effect == "start" and s.resource == "cards"], default=0)
        self.max_start_cards = data_most if max_start_cards is None else int(max_start_cards)
        if self.max_start_cards < data_most:
            raise ValueError(f"max_start_cards {self.max_start_cards} is below the data's {data_most}")
        self.default_params = data_params(self.data)
        self._batch_init = jax.jit(jax.vmap(self.init))
        self.batch_step = jax.jit(self._batch_step)
        self.batch_legal_mask = jax.jit(jax.vmap(self.legal_action_mask))
        self.batch_from_deal = jax.jit(jax.vmap(self.from_deal))
        self.batch_from_deal_with = jax.jit(jax.vmap(self.from_deal))   # (cards, scrolls, king, params) per game
        self.batch_points = jax.jit(jax.vmap(self.points))

    # ------------------------------------------------------------------ params, init
    def params(self, options=None, /, **values) -> Params:
        """The traced values of one game: the game data's (a duel of 2 players; the options choose
        nothing else the engine reads). The options' game data must be this engine's."""
        del values
        if options is not None and options.config_dir != self.options.config_dir:
            raise ValueError(f"these options' game data (config_dir={options.config_dir}) are not this engine's "
                             f"(config_dir={self.options.config_dir}): use jax_engine_for(options)")
        return self.default_params

    def batch_init(self, keys: jax.Array, params: Params | None = None) -> State:
        """A batch of new games, one per key; ``params`` of one game (shared) or one per game."""
        params = self.default_params if params is None else params
        if jnp.ndim(params.lanterns_to_win) == 0:
            params = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (keys.shape[0],) + jnp.shape(x)), params)
        return self._batch_init(keys, params)

    def init(self, key: jax.Array, params: Params | None = None) -> State:
        """A new game: every round's chance dealt from ``key``."""
        kc, ks, kk = jax.random.split(key, 3)
        cards = jax.vmap(lambda k: jax.random.permutation(k, N_CARDS))(jax.random.split(kc, MAX_ROUNDS))
        scrolls = jax.vmap(lambda k: jax.random.permutation(k, self.n_scrolls))(jax.random.split(ks, MAX_ROUNDS))
        king = jax.random.randint(kk, (MAX_ROUNDS,), 0, 3)
        return self.from_deal(cards.astype(jnp.int32), scrolls.astype(jnp.int32), king.astype(jnp.int32), params)

    def from_deal(self, cards, scrolls, king, params: Params | None = None) -> State:
        """A new game on a given deal ((R, C), (R, S), (R,)): the reference engine's, for the differential test."""
        p = self.default_params if params is None else params
        z = jnp.int32(0)
        s = State(deal_cards=jnp.asarray(cards, jnp.int32), deal_scrolls=jnp.asarray(scrolls, jnp.int32),
                  deal_king=jnp.asarray(king, jnp.int32), round=z, starter=z, current=z, phase=jnp.int32(DRAFT),
                  king_ends_turn=jnp.bool_(False), reserve=self.start_reserve, supply=jnp.zeros((2, 3), jnp.int32),
                  holder=jnp.full(N_CARDS, -1, jnp.int32), deck_top=z, discarded=jnp.zeros(N_CARDS, bool),
                  board=jnp.zeros(3, jnp.int32), king=z, scroll=jnp.full(2, -1, jnp.int32),
                  lanterns=jnp.zeros(2, jnp.int32), round_points=jnp.zeros((MAX_ROUNDS, 2), jnp.int32),
                  round_winner=jnp.full(MAX_ROUNDS, -2, jnp.int32),
                  kind_played=jnp.zeros((2, self.n_kinds), jnp.int32), kind_held=jnp.zeros((2, self.n_kinds), jnp.int32),
                  scroll_rounds=jnp.zeros((2, self.n_scrolls), jnp.int32), terminated=jnp.bool_(False),
                  illegal=jnp.bool_(False), rewards=jnp.zeros(2, jnp.float32), decisions=z,
                  **{f: jnp.asarray(getattr(p, f), jnp.int32) for f in VALUE_FIELDS})
        return self._start_round(s)

    # ------------------------------------------------------------------ small steps
    def _take(self, s: State, seat, resource, amount) -> State:
        """Take up to ``amount`` of a resource from the reserve (what is left, if less)."""
        n = jnp.minimum(amount, s.reserve[resource])
        return s._replace(reserve=s.reserve - n * _hot(resource, 3), supply=s.supply + n * _hot2(seat, resource, 2, 3))

    def _draw(self, s: State, seat, when=True) -> State:
        """Draw the top card of the round's deck into a hand (nothing if empty or not ``when``)."""
        ok = (s.deck_top < self.deck_size) & when
        card = s.deal_cards[s.round - 1, jnp.minimum(s.deck_top, self.deck_size - 1)]
        return s._replace(holder=jnp.where(ok & (jnp.arange(N_CARDS) == card), seat, s.holder),
                          deck_top=s.deck_top + ok)

    def _free(self, s: State) -> jnp.ndarray:
        """(3,) free spaces of each location (no monkey, no King)."""
        return self.spaces - s.board - (jnp.arange(3) == s.king)

    def _destinations(self, s: State) -> jnp.ndarray:
        """(3,) bool: where the King may go (a free space of another location)."""
        return (jnp.arange(3) != s.king) & (self._free(s) > 0)

    def _exhausted(self, s: State):
        return (s.deck_top >= self.deck_size) | jnp.any(s.reserve == 0)

    def _scroll_is(self, s: State, seat, effect):
        sid = s.scroll[seat]
        return (sid >= 0) & (self.t.scroll_effect[jnp.maximum(sid, 0)] == effect)

    # ------------------------------------------------------------------ round set-up and end
    def _start_round(self, s: State) -> State:
        r = s.round  # index of the new round
        return s._replace(round=s.round + 1, reserve=self.start_reserve, supply=jnp.zeros((2, 3), jnp.int32),
                          holder=jnp.full(N_CARDS, -1, jnp.int32), deck_top=jnp.int32(0),
                          discarded=jnp.zeros(N_CARDS, bool), board=jnp.zeros(3, jnp.int32), king=s.deal_king[r],
                          scroll=jnp.full(2, -1, jnp.int32), current=s.starter, phase=jnp.int32(DRAFT),
                          king_ends_turn=jnp.bool_(False))

    def _starting_monkeys(self, s: State) -> State:
        first, second = s.starter, 1 - s.starter
        s = self._take(s, first, 0, s.starting_monkeys[0])
        s = self._take(s, second, 0, s.starting_monkeys[1])
        for seat in (first, second):
            is_start = self._scroll_is(s, seat, START)
            sid = jnp.maximum(s.scroll[seat], 0)
            res, amount = self.t.scroll_resource[sid], s.scroll_amount[sid]
            for i in range(self.max_start_cards):
                s = self._draw(s, seat, is_start & (res == CARDS_RESOURCE) & (i < amount))
            gets = is_start & (res >= 0) & (res < CARDS_RESOURCE)
            s = self._take(s, seat, jnp.clip(res, 0, 2), jnp.where(gets, amount, 0))
        return s

    def points(self, s: State) -> jnp.ndarray:
        """(2,) int32: each seat's points if the round ended now."""
        sc = s.scoring
        seats = jnp.arange(2)
        sid = jnp.maximum(s.scroll, 0)
        has = s.scroll >= 0
        eff, amt = self.t.scroll_effect[sid], s.scroll_amount[sid]
        per_peach = jnp.where(has & (eff == FEED), amt, sc[FED_PER_PEACH])
        per_set = jnp.where(has & (eff == JADE_SET), amt, sc[POINTS_PER_SET])
        majority = jnp.where(has & (eff == JADE_MAJORITY), amt, sc[MAJORITY_POINTS])
        card_bonus = jnp.where(has & (eff == CARD_POINTS), amt, 0)
        monkeys, jade, peaches = s.supply[:, 0], s.supply[:, 1], s.supply[:, 2]
        fed = jnp.minimum(monkeys, per_peach * peaches) * sc[POINTS_PER_FED]
        in_hand = s.holder[None, :] == seats[:, None]                                  # (2, C)
        cards = (in_hand * (s.card_points[None, :] + card_bonus[:, None])).sum(1)
        sets = (jade // jnp.maximum(sc[JADE_PER_SET], 1)) * per_set
        most = jnp.where(jade > jade[::-1], majority, 0)
        return (fed + cards + sets + most).astype(jnp.int32)

    def unseen_card_value(self, s: State, viewer) -> jnp.ndarray:
        """() float32: the mean points of the cards ``viewer`` has not seen this round (outside
        its hand and the discard): what a hidden card is worth to it (engine.Game's twin)."""
        unseen = (s.holder != viewer) & ~s.discarded
        n = unseen.sum()
        return jnp.where(n > 0, (unseen * s.card_points).sum() / jnp.maximum(n, 1), 0).astype(jnp.float32)

    def public_points(self, s: State, viewer, seen_from: State | None = None) -> jnp.ndarray:
        """(2,) float32: both seats' points if the round ended now, as ``viewer`` knows them at
        ``seen_from`` (default ``s``): the cards it held there at their values, every other card
        in a hand at unseen_card_value there (engine.Game.public_points)."""
        seen_from = s if seen_from is None else seen_from
        known = (seen_from.holder == viewer)[None, :] & (jnp.arange(2) == viewer)[:, None]       # (2, C)
        valued = jnp.where(known, s.card_points[None, :], self.unseen_card_value(seen_from, viewer))
        in_hand = s.holder[None, :] == jnp.arange(2)[:, None]                                   # (2, C)
        true_cards = (in_hand * s.card_points[None, :]).sum(1)
        return (self.points(s) - true_cards + (in_hand * valued).sum(1)).astype(jnp.float32)

    def lookahead(self, s: State, action):
        """(the state after ``action`` with the round's end not scored, whether it would be scored
        now): what a seat may look ahead to without reading the hidden hands (engine.Game.lookahead)."""
        out, begins, scores = self._act(s, action)
        return self._rare(out, begins, jnp.bool_(False)), scores

    def _score_round(self, s: State) -> State:
        """Score the round, give a Lantern; the game ends or the next round starts."""
        pts = self.points(s)
        monkeys = s.supply[:, 0]
        things = (s.holder[None, :] == jnp.arange(2)[:, None]).sum(1) + s.supply[:, 1] + s.supply[:, 2]
        def decide(v):
            return jnp.where(v[0] > v[1], 0, jnp.where(v[1] > v[0], 1, -1))
        w_pts, w_mon, w_things = decide(pts), decide(monkeys), decide(things)
        winner = jnp.where(w_pts >= 0, w_pts, jnp.where(w_mon >= 0, w_mon, w_things))
        gained = (jnp.arange(2) == winner).astype(jnp.int32)
        lanterns = s.lanterns + gained
        r = s.round - 1
        in_hand = (s.holder[None, :] == jnp.arange(2)[:, None]).astype(jnp.int32)                 # (2, C)
        by_kind = (self.t.card_kind[:, None] == jnp.arange(self.n_kinds)[None, :]).astype(jnp.int32)  # (C, K)
        row = jnp.arange(MAX_ROUNDS) == r
        s = s._replace(lanterns=lanterns, round_points=jnp.where(row[:, None], pts[None, :], s.round_points),
                       kind_held=s.kind_held + (in_hand[:, :, None] * by_kind[None, :, :]).sum(1),  # not a dot: tiny under vmap
                       round_winner=jnp.where(row, winner, s.round_winner),
                       rewards=s.rewards + (gained - gained[::-1]).astype(jnp.float32))
        over = (lanterns.max() >= s.lanterns_to_win) | (s.round >= MAX_ROUNDS)
        next_starter = jnp.where(winner >= 0, 1 - winner, 1 - s.starter)
        fresh = self._start_round(s._replace(starter=next_starter.astype(jnp.int32)))
        ended = s._replace(phase=jnp.int32(OVER), terminated=jnp.bool_(True))
        return jax.tree_util.tree_map(lambda a, b: jnp.where(over, a, b), ended, fresh)

    def _begin_turns(self, s: State) -> State:
        """Both scrolls kept: the starting monkeys (and a scroll's start bonus), the starter plays."""
        return self._starting_monkeys(s)._replace(current=s.starter, phase=jnp.int32(TURN))

    def _rare(self, s: State, begins, scores) -> State:
        """The costly parts of a step, needed by few games of a batch each step: the round's first
        turn after the draft (``begins``) or the round's scoring and the next set-up (``scores``)."""
        s = jax.tree_util.tree_map(lambda a, b: jnp.where(begins, a, b), self._begin_turns(s), s)
        return jax.tree_util.tree_map(lambda a, b: jnp.where(scores, a, b), self._score_round(s), s)

    # ------------------------------------------------------------------ decisions
    def _keep_scroll(self, s: State, choice):
        seat = s.current
        pos = jnp.where(seat == s.starter, 0, 2) + choice
        sid = s.deal_scrolls[s.round - 1, pos]
        s = s._replace(scroll=jnp.where(jnp.arange(2) == seat, sid, s.scroll),
                       scroll_rounds=s.scroll_rounds + _hot2(seat, sid, 2, self.n_scrolls))
        both = s.scroll[1 - seat] >= 0                 # the turns begin (in _rare)
        return s._replace(current=jnp.where(both, seat, 1 - seat).astype(jnp.int32)), jnp.bool_(False), both

    def _play_card(self, s: State, card):
        seat, other = s.current, 1 - s.current
        t = self.t
        effect, res, amount = t.card_effect[card], t.card_resource[card], s.card_amount[card]
        this = jnp.arange(N_CARDS) == card
        s = s._replace(holder=jnp.where(this, -1, s.holder), discarded=s.discarded | this,
                       kind_played=s.kind_played + _hot2(seat, t.card_kind[card], 2, self.n_kinds))
        s = self._take(s, seat, res, jnp.where(effect == GAIN, amount, 0))
        stolen = jnp.where(effect == STEAL, jnp.minimum(amount, s.supply[other, res]), 0)
        s = s._replace(supply=s.supply + stolen * (_hot2(seat, res, 2, 3) - _hot2(other, res, 2, 3)))
        recalled = jnp.where(effect == RECALL, jnp.minimum(amount, s.board[s.king]), 0)
        s = s._replace(board=s.board - recalled * _hot(s.king, 3), supply=s.supply + recalled * _hot2(seat, 0, 2, 3))
        moves = effect == MOVE_KING
        return s._replace(phase=jnp.where(moves, KING_MOVE, s.phase).astype(jnp.int32),
                          king_ends_turn=jnp.where(moves, False, s.king_ends_turn)), jnp.bool_(False), jnp.bool_(False)

    def _place(self, s: State, loc):
        seat = s.current
        pe = self.data.game.place_effects
        s = s._replace(supply=s.supply - _hot2(seat, 0, 2, 3), board=s.board + _hot(loc, 3))
        for _ in range(pe.lair.get("cards", 0)):
            s = self._draw(s, seat, loc == 0)
        s = self._take(s, seat, 1, jnp.where(loc == 1, pe.palace.get("jade", 0), 0))
        s = self._take(s, seat, 0, jnp.where(loc == 1, pe.palace.get("monkeys", 0), 0))
        s = self._take(s, seat, 2, jnp.where(loc == 2, int(pe.garden.get("peaches", 0)), 0))
        sid = jnp.maximum(s.scroll[seat], 0)
        bonus = self._scroll_is(s, seat, PLACE_BONUS) & (self.t.scroll_location[sid] == loc)
        s = self._take(s, seat, jnp.clip(self.t.scroll_resource[sid], 0, 2), jnp.where(bonus, s.scroll_amount[sid], 0))
        king_moves = (loc == 2) & bool(pe.garden.get("move_king", False)) & jnp.any(self._destinations(s))
        s = s._replace(phase=jnp.where(king_moves, KING_MOVE, s.phase).astype(jnp.int32),
                       king_ends_turn=jnp.where(king_moves, True, s.king_ends_turn))
        return s, ~king_moves, jnp.bool_(False)

    def _move_king(self, s: State, loc):
        return s._replace(king=loc.astype(jnp.int32), phase=jnp.int32(TURN)), s.king_ends_turn, jnp.bool_(False)

    def _collect(self, s: State, loc):
        s = s._replace(supply=s.supply + s.board[loc] * _hot2(s.current, 0, 2, 3), board=s.board * (1 - _hot(loc, 3)))
        return s, jnp.bool_(True), jnp.bool_(False)

    def legal_action_mask(self, s: State) -> jnp.ndarray:
        """(29,) bool: the reference engine's legal_mask."""
        t = self.t
        mine = s.holder == s.current
        dest = self._destinations(s)
        playable = (mine & (t.card_effect != TREASURE) & (t.card_location == s.king)
                    & ((t.card_effect != MOVE_KING) | jnp.any(dest)))
        place = (s.supply[s.current, 0] > 0) & (self._free(s) > 0)
        collect = s.board > 0
        turn = s.phase == TURN
        mask = jnp.concatenate([playable & turn, place & turn, collect & turn, dest & (s.phase == KING_MOVE),
                                jnp.full(2, s.phase == DRAFT),
                                (turn & ~jnp.any(place) & ~jnp.any(collect))[None]])
        return mask & ~s.terminated

    def step(self, s: State, action) -> State:
        return self._rare(*self._act(s, action))

    def _act(self, s: State, action):
        """A step without its rare parts: (the state, whether the turns begin, whether the round is scored)."""
        action = jnp.asarray(action, jnp.int32)
        legal = self.legal_action_mask(s)[jnp.clip(action, 0, NUM_ACTIONS - 1)] & (action >= 0) & (action < NUM_ACTIONS)
        a = jnp.clip(action, 0, NUM_ACTIONS - 1)
        s0 = s._replace(rewards=jnp.zeros(2, jnp.float32))
        # the action's kind: how many kind boundaries it has reached (searchsorted is a while loop)
        kind = sum((a >= start).astype(jnp.int32) for start in (PLACE, COLLECT, KING, KEEP, PASS))
        branches = [
            lambda st: self._play_card(st, jnp.clip(a - PLAY, 0, N_CARDS - 1)),
            lambda st: self._place(st, jnp.clip(a - PLACE, 0, 2)),
            lambda st: self._collect(st, jnp.clip(a - COLLECT, 0, 2)),
            lambda st: self._move_king(st, jnp.clip(a - KING, 0, 2)),
            lambda st: self._keep_scroll(st, jnp.clip(a - KEEP, 0, 1)),
            lambda st: (st, jnp.bool_(True), jnp.bool_(False)),      # pass
        ]
        # Each decision's own step, whether it ends the turn and whether the turns begin.
        acted, ends, begins = jax.lax.switch(kind, branches, s0)
        # The turn ends: the round ends if a reserve type is exhausted (scored in _rare), else the other plays.
        scores = ends & self._exhausted(acted)
        passed = acted._replace(current=1 - acted.current, phase=jnp.int32(TURN))
        played = jax.tree_util.tree_map(lambda p, q: jnp.where(ends & ~scores, p, q), passed, acted)
        played = played._replace(decisions=s.decisions + 1)
        penalty = jnp.where(jnp.arange(2) == s.current, self.illegal_penalty, 0.0).astype(jnp.float32)
        refused = s0._replace(terminated=jnp.bool_(True), illegal=jnp.bool_(True), phase=jnp.int32(OVER),
                              rewards=penalty, decisions=s.decisions + 1)
        out = jax.tree_util.tree_map(lambda p, r: jnp.where(legal, p, r), played, refused)
        # a finished game does not change, with zero rewards
        out = jax.tree_util.tree_map(lambda o, old: jnp.where(s.terminated, old, o), out, s0)
        live = legal & ~s.terminated
        return out, begins & live, scores & live

    def _batch_step(self, states: State, actions) -> State:
        """vmap(step), with the rare parts computed only on the games that need them: up to
        batch // RARE_FRACTION of a big batch gathered into a small one (all of them if more need it)."""
        out, begins, scores = jax.vmap(self._act)(states, actions)
        batch = begins.shape[0]
        slots = max(batch // RARE_FRACTION, 1)
        if batch < RARE_MIN_BATCH:
            return jax.vmap(self._rare)(out, begins, scores)
        rare = begins | scores
        idx = jnp.nonzero(rare, size=slots, fill_value=batch)[0]
        safe = jnp.minimum(idx, batch - 1)

        def few(_):
            sub = jax.tree_util.tree_map(lambda x: x[safe], out)
            done = jax.vmap(self._rare)(sub, begins[safe] & (idx < batch), scores[safe] & (idx < batch))
            return jax.tree_util.tree_map(lambda x, y: x.at[idx].set(y, mode="drop"), out, done)

        def every(_):
            return jax.vmap(self._rare)(out, begins, scores)

        return jax.lax.cond(rare.sum() <= slots, few, every, None)

    # ------------------------------------------------------------------ observation and results
    def observe(self, s: State, player) -> dict:
        """One seat's view (public information and its own hand and drawn scrolls).

        planes (2, 3, 3) float32: [monkey on space j of location i, the King on it] (spaces filled
        from the first; the King's first). vector (V,) float32, from the player's side ("me" first):
        supplies, reserve, deck left, my hand (C), the opponent's hand size, both kept scrolls
        (one-hot S each), my drawn pair in the draft (one-hot S each), Lanterns, phase (4), the
        King (3), board counts, King move pending, am I the starter, round, cards discarded (C),
        and both seats' round points now as this seat knows them (public_points: the opponent's
        hand at the mean value of the cards this seat has not seen)."""
        me = jnp.asarray(player, jnp.int32)
        opp = 1 - me
        space = jnp.arange(self.spaces)
        king_cell = (jnp.arange(3) == s.king)[:, None] & (space[None, :] == 0)
        monkey_cell = (space[None, :] - (jnp.arange(3) == s.king)[:, None]) < s.board[:, None]
        monkey_cell = monkey_cell & ~king_cell
        planes = jnp.stack([monkey_cell, king_cell]).astype(jnp.float32)
        S = self.n_scrolls
        onehot = lambda i, n: (jnp.arange(n) == i).astype(jnp.float32)
        drafting = (s.phase == DRAFT) & (s.current == me) & (s.scroll[me] < 0)
        pos = jnp.where(me == s.starter, 0, 2)
        pair = jax.lax.dynamic_slice(s.deal_scrolls[s.round - 1], (pos,), (2,))
        scale = jnp.asarray([MONKEY_SCALE, ITEM_SCALE, ITEM_SCALE], jnp.float32)
        vector = jnp.concatenate([
            s.supply[me] / scale, s.supply[opp] / scale, s.reserve / scale,
            ((self.deck_size - s.deck_top) / self.deck_size)[None],
            (s.holder == me).astype(jnp.float32), ((s.holder == opp).sum() / self.deck_size)[None],
            onehot(s.scroll[me], S), onehot(s.scroll[opp], S),
            onehot(pair[0], S) * drafting, onehot(pair[1], S) * drafting,
            jnp.stack([s.lanterns[me], s.lanterns[opp]]) / 2.0, onehot(s.phase, 4), onehot(s.king, 3),
            s.board / self.spaces, s.king_ends_turn[None], (s.starter == me)[None], (s.round / MAX_ROUNDS)[None],
            s.discarded.astype(jnp.float32), self.public_points(s, me)[jnp.stack([me, opp])] / 20.0,
        ]).astype(jnp.float32)
        return {"planes": planes, "vector": vector}

    def observation_sizes(self) -> dict:
        S = self.n_scrolls
        return {"planes": (2, 3, self.spaces), "vector": (3 * 3 + 1 + N_CARDS + 1 + 4 * S + 2 + 4 + 3 + 3 + 3 + N_CARDS + 2,)}

    def batch_scores(self, states: State) -> jnp.ndarray:
        """(B, 2) Lanterns."""
        return states.lanterns

    def batch_places(self, states: State) -> jnp.ndarray:
        """(B, 2) places, 1 = winner (more Lanterns; equal Lanterns share the first place); traceable,
        so it is also the protocol's seat_places (both seats always play)."""
        lan = states.lanterns
        return 1 + (lan[:, ::-1] > lan).astype(jnp.int32)

    seat_places = batch_places

    def batch_rounds(self, states: State) -> np.ndarray:
        """(B,) rounds started (1 during the first), as the reference's Game.round."""
        return np.asarray(states.round)

    def batch_stats(self, states: State) -> dict:
        return {"kind_played": states.kind_played, "kind_held": states.kind_held, "scroll_rounds": states.scroll_rounds}

    def scores(self, state: State) -> np.ndarray:
        return np.asarray(state.lanterns)


@lru_cache(maxsize=8)
def _engine(config_dir: str | None, illegal_penalty: float) -> ShadowTheaterJax:
    return ShadowTheaterJax(ShadowTheaterOptions(config_dir=config_dir), illegal_penalty=illegal_penalty)


def jax_engine_for(options: ShadowTheaterOptions | None = None, *,
                   illegal_penalty: float = ILLEGAL_PENALTY) -> ShadowTheaterJax:
    """The process's engine for these options' game data and penalty (compiled once for each)."""
    return _engine(None if options is None else options.config_dir, float(illegal_penalty))
