"""The JAX engine's public face: Pgx-like pure functions over a batched palace state.

    game = JaxGame(GameOptions(players=2, map=1))  # or jax_game_for(options): one per set of game data
    state = game.init(key)                        # one game; jax.vmap(game.init)(keys) for a batch
    mask = game.legal_action_mask(state)          # (A,) bool, the same indices as the reference engine
    state = game.step(state, action)              # pure, jittable, vmappable
    state.rewards, state.terminated               # (4,) float32 per seat, () bool
    obs = game.observe(state, player)

    states = game.batch_step(states, actions)     # the fast batched step (same result as vmap(step))

Rules of the step (as in Pgx): stepping a finished game changes nothing and gives zero
rewards; an illegal action ends the game for everyone, with ``illegal_penalty`` (−10) as
that step's reward to the player who made it; the reference engine raises instead.
Rewards are the change of every seat's Banana Points at that step (a card counts when
bought), so a seat's rewards over a game sum to its final score.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from monkey_env.core.outcome import batch_places
from monkey_env.monkey_palace.actions import N_PILES, ActionLayout, Phase
from monkey_env.monkey_palace.config import load_map
from monkey_env.monkey_palace.game_data import GameData
from monkey_env.monkey_palace.options import GameOptions
from monkey_env.monkey_palace.geometry import BOARD_SIZE, HEADING_NAMES, NUM_CELLS
from monkey_env.monkey_palace.jaxgame.rules import Rules
from monkey_env.monkey_palace.jaxgame.state import (
    MAX_PLAYERS, PENDING_NONE, PENDING_SETTLE, PENDING_SHAPE_MASK, PENDING_TURN_START, State, empty_state,
)
from monkey_env.monkey_palace.jaxgame.tables import build_tables
from monkey_env.monkey_palace.palace import Palace


class Params(NamedTuple):
    """The per-game settings, traced: a batch may mix maps, player counts and options."""

    players: jnp.ndarray        # () int32
    options: jnp.ndarray        # (5,) bool, see rules.OPT_*
    start_height: jnp.ndarray   # (32, 32) int8 the map with its starting staircase
    start_knob: jnp.ndarray     # (32, 32) int8
    start_deco_max: jnp.ndarray  # (3,) int32


class JaxGame:
    """The JAX engine over one set of game data (cards, boards, tray, catalogue from configs/).

    The constructor's players, map and options are the defaults of :meth:`params`; pass
    other params to :meth:`init` to mix games in one batch."""

    def __init__(self, options: GameOptions | None = None, *, data: GameData | None = None,
                 illegal_penalty: float = -10.0, group_size: int | None = None, settle_steps: int = 3):
        """``options`` give the default game (and, with no ``data``, the game data); ``data``
        alone plays its own map with default options."""
        if options is None:
            options = GameOptions() if data is None else GameOptions(
                map=data.map_id, config_dir=data.config_dir, catalogue=data.catalogue_path)
        self.data = data or options.game_data()
        self.tables, self.static = build_tables(self.data)
        self.layout = ActionLayout(self.static.n_shapes)
        self.illegal_penalty = illegal_penalty
        # Games whose pending work the batched step does together. On a CPU small groups keep
        # the work in cache (16 ran 2.3 times faster than a quarter of 1024); a GPU wants wide ones.
        self.group_size = group_size
        # Automatic steps after a decision done for the whole batch; most games need one or
        # two, a few need up to ten, and those finish in groups (PENDING_SETTLE).
        self.settle_steps = settle_steps
        self.rules = Rules(self.tables, self.static, self.layout)
        self._maps: dict[str, tuple] = {}
        self.default_options = options
        self.default_params = self.params(options)
        self.players = options.players
        self._queue_size = N_PILES * self.static.max_icons
        self._init_jit = jax.jit(lambda key, params: self.rules.settle(self._deal(key, params)))
        self.step = jax.jit(self._step)
        # The batched path in three compiled pieces; the expensive one (resolving pending work
        # with compaction) is shared by batch_init and batch_step, so it compiles once.
        self._batch_deal = jax.jit(jax.vmap(self._deal))
        self._batch_act = jax.jit(self._act)
        self._batch_resolve = jax.jit(self._resolve_and_finish)
        self.batch_legal_mask = jax.jit(jax.vmap(self.legal_action_mask))
        self.batch_bananas = jax.jit(jax.vmap(self.rules.bananas))
        self.batch_places = jax.jit(self._places)
        self._bananas = jax.jit(self.rules.bananas)

    def params(self, options: GameOptions | None = None, /, **values) -> Params:
        """The traced settings of one game, from an options object or its fields as keywords.

        The map is loaded from the options' game data (``config_dir``, or the map's path); the
        cards, boards, tray and catalogue are this JaxGame's, and options naming other ones
        raise a ValueError. Keywords not given take this JaxGame's data source."""
        if options is None:
            values.setdefault("config_dir", self.data.config_dir)
            values.setdefault("catalogue", self.data.catalogue_path)
            options = GameOptions(**values)
        elif values:
            raise TypeError("params() takes an options object or keywords, not both")
        if (options.config_dir, options.catalogue) != (self.data.config_dir, self.data.catalogue_path):
            raise ValueError(f"these options' game data (config_dir={options.config_dir}, catalogue="
                             f"{options.catalogue}) are not this JaxGame's (config_dir={self.data.config_dir}, "
                             f"catalogue={self.data.catalogue_path}): use jax_game_for(options)")
        key = (options.map, options.config_dir)
        if key not in self._maps:
            # The starting palace of the map, built by the reference engine's own code.
            map_config = load_map(options.map, options.config_dir)
            palace = Palace.from_map(map_config, self.data.tray.animal_height)
            palace.place_start_staircase(tuple(map_config.start.anchor), HEADING_NAMES.index(map_config.start.heading))
            self._maps[key] = (jnp.asarray(palace.height, jnp.int8), jnp.asarray(palace.knob, jnp.int8),
                               jnp.asarray(palace.deco_max, jnp.int32))
        height, knob, deco_max = self._maps[key]
        flags = jnp.asarray([options.butterfly, options.frog, options.monkey_move == "mandatory",
                             options.butterfly_rule == "highest_overall", options.end_trigger == "last_taken"])
        return Params(jnp.int32(options.players), flags, height, knob, deco_max)

    def init(self, key: jax.Array, params: Params | None = None) -> State:
        return self._init_jit(key, self.default_params if params is None else params)

    def batch_init(self, keys: jax.Array, params: Params | None = None) -> State:
        """A batch of games; params is one Params (shared) or a Params with a batch axis."""
        params = self.default_params if params is None else params
        if params.players.ndim == 0:
            params = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (keys.shape[0],) + x.shape), params)
        dealt = self._batch_deal(keys, params)
        return self._batch_resolve(dealt, dealt, jnp.ones(keys.shape[0], bool))

    @property
    def num_actions(self) -> int:
        return self.layout.size

    def blank_state(self) -> State:
        """An empty State with this game data's shapes (every field at its default)."""
        st = self.static
        return empty_state(st.n_cards, st.n_shapes, st.max_arches, st.max_pile, self._queue_size)

    # ------------------------------------------------------------------ init
    def _deal(self, key: jax.Array, params: Params) -> State:
        """Set-up up to the first turn's start (left pending)."""
        st, t = self.static, self.tables
        s = empty_state(st.n_cards, st.n_shapes, st.max_arches, st.max_pile, self._queue_size)
        # Shuffle each pile: sort random keys, padding last.
        noise = jax.random.uniform(key, (N_PILES, st.max_pile))
        noise = jnp.where(t.pile_cards >= 0, noise, 2.0)
        order = jnp.argsort(noise, axis=1)
        pile_cards = jnp.take_along_axis(t.pile_cards, order, axis=1)
        tray = t.tray_total - jnp.asarray([2, 1, 0], jnp.int32)  # the starting staircase
        supply = jnp.zeros((MAX_PLAYERS, 3), jnp.int32)
        for seat in range(MAX_PLAYERS):
            got = jnp.where(seat < params.players, jnp.minimum(t.board_start[seat], tray), 0)
            tray = tray - got
            supply = supply.at[seat].set(got)
        s = s._replace(height=params.start_height, knob=params.start_knob, deco_max=params.start_deco_max,
                       players=params.players, options=params.options,
                       pile_cards=pile_cards, pile_len=t.pile_size, tray=tray, supply=supply,
                       bonus_left=jnp.int32(st.bonus_cards), pending=jnp.int32(PENDING_TURN_START))
        return s

    # ------------------------------------------------------------------ step
    def legal_action_mask(self, state: State) -> jnp.ndarray:
        return self.rules.legal_action_mask(state) & ~state.terminated

    def _check(self, state: State, action):
        action = jnp.asarray(action, jnp.int32)
        ok = (action >= 0) & (action < self.layout.size)
        legal = ok & self.rules.legal_action_mask(state)[jnp.clip(action, 0, self.layout.size - 1)]
        return action, legal

    def _finish(self, before: State, after: State, legal) -> State:
        """Rewards, the illegal-action ending, and no change to a finished game."""
        rewards = (self.rules.bananas(after) - self.rules.bananas(before)).astype(jnp.float32)
        done = before.terminated
        penalty = jnp.zeros((MAX_PLAYERS,), jnp.float32).at[before.current].set(self.illegal_penalty)
        illegal_state = before._replace(terminated=jnp.asarray(True), illegal=jnp.asarray(True), rewards=penalty)
        after = after._replace(rewards=rewards)
        out = jax.tree_util.tree_map(lambda a, b: jnp.where(legal, a, b), after, illegal_state)
        return jax.tree_util.tree_map(lambda a, b: jnp.where(done, a, b),
                                      before._replace(rewards=jnp.zeros((MAX_PLAYERS,), jnp.float32)), out)

    def _step(self, state: State, action, key: jax.Array | None = None) -> State:
        del key  # no chance after the deal
        action, legal = self._check(state, action)
        after = self.rules.settle(self.rules.apply(state, jnp.where(legal, action, 0)))
        return self._finish(state, after, legal)

    def group_for(self, batch: int) -> int:
        """How many games of a batch the compaction loops (here and in batched agents) take at once."""
        wide = jax.default_backend() != "cpu"
        return min(batch, self.group_size or (max(1, batch // 4) if wide else 16))

    def batch_step(self, states: State, actions) -> State:
        """vmap(step), with the expensive work (the anchor mask at a turn's start, the shape
        mask at a chosen anchor, long runs of automatic steps) done only for the games that
        need it, in compact groups."""
        after, legal = self._batch_act(states, jnp.asarray(actions, jnp.int32))
        return self._batch_resolve(states, after, legal)

    def _act(self, states: State, actions):
        rules = self.rules
        actions, legal = jax.vmap(self._check)(states, actions)
        after = jax.vmap(lambda s, a: rules.settle(rules.apply(s, a), with_pending=False,
                                                   max_iterations=self.settle_steps))(
            states, jnp.where(legal, actions, 0))
        return after, legal

    def _resolve_and_finish(self, states: State, after: State, legal) -> State:
        rules = self.rules
        batch = legal.shape[0]
        group = self.group_for(batch)

        def run(s, kind, work):
            """Do `work` for up to `group` games pending `kind`, gathered together."""
            need = (s.pending == kind) & ~s.terminated
            idx = jnp.nonzero(need, size=group, fill_value=batch)[0]
            sub = jax.tree_util.tree_map(lambda x: x[jnp.minimum(idx, batch - 1)], s)
            sub = jax.vmap(lambda x: rules.settle(work(x), with_pending=False))(sub)
            return jax.tree_util.tree_map(lambda x, y: x.at[idx].set(y, mode="drop"), s, sub)

        def body(s):
            for kind, work in ((PENDING_TURN_START, rules.start_turn), (PENDING_SHAPE_MASK, rules.compute_shape_mask),
                               (PENDING_SETTLE, rules.resume)):
                s = jax.lax.cond(((s.pending == kind) & ~s.terminated).any(),
                                 lambda s, kind=kind, work=work: run(s, kind, work), lambda s: s, s)
            return s

        def needs(s):
            return ((s.pending != PENDING_NONE) & ~s.terminated).any()

        after = jax.lax.while_loop(needs, body, after)
        return jax.vmap(self._finish)(states, after, legal)

    # ------------------------------------------------------------------ observation
    @partial(jax.jit, static_argnums=0)
    def observe(self, state: State, player) -> dict:
        """Public information from `player`'s seat: planes over the plate and a vector.

        planes (20, 32, 32) float32: height / 16, one-hot knob (13), monkey, butterfly, frog,
        legal anchors (when this player is choosing one), the chosen anchor, the new decoration.
        vector float32: phase one-hot (8), seat to play relative to `player` (4), supplies (4×3, rotated
        so `player` is first), tray (3), pile sizes (12), pile top cards' cost/bananas/recurring (12×5),
        top cards of every seat's slots' recurring supply (4×4×3), bonus cards (4), trophy holders
        relative (3×5), credits, round, end triggered, bonus cards left, Banana Points (4).
        """
        t = self.tables
        player = jnp.asarray(player, jnp.int32)
        # Seats relative to the observer, counted among the players of this game (so the next
        # player is always second, whatever the observer's seat); empty seats stay last.
        seats = jnp.arange(MAX_PLAYERS)
        rot = jnp.where(seats < state.players, (seats + player) % state.players, seats)
        knob = jax.nn.one_hot(state.knob, 13, axis=0)
        animal = jnp.zeros((3, NUM_CELLS), jnp.float32)
        animal = animal.at[jnp.arange(3), jnp.maximum(state.animals, 0)].set((state.animals >= 0).astype(jnp.float32))
        mine = (state.current == player) & (state.phase == Phase.ANCHOR)
        anchor = jnp.zeros((NUM_CELLS,), jnp.float32).at[jnp.maximum(state.anchor, 0)].set((state.anchor >= 0) * 1.0)
        deco = jnp.zeros((NUM_CELLS,), jnp.float32).at[jnp.maximum(state.deco_cell, 0)].set((state.deco_cell >= 0) * 1.0)
        planes = jnp.concatenate([
            state.height[None].astype(jnp.float32) / 16.0, knob,
            animal.reshape(3, BOARD_SIZE, BOARD_SIZE),
            (state.anchor_mask & mine).reshape(1, BOARD_SIZE, BOARD_SIZE).astype(jnp.float32),
            anchor.reshape(1, BOARD_SIZE, BOARD_SIZE), deco.reshape(1, BOARD_SIZE, BOARD_SIZE)])
        top = state.pile_cards[jnp.arange(N_PILES), jnp.maximum(state.pile_len - 1, 0)]
        has = (state.pile_len > 0)[:, None]
        pile_top = jnp.where(has, jnp.concatenate([t.card_cost[top][:, None], t.card_bananas[top][:, None],
                                                    t.card_recurring[top]], 1), 0)
        slot_rec = jnp.where(state.slot_top[..., None] >= 0, t.card_recurring[jnp.maximum(state.slot_top, 0)], 0)
        holders = jax.nn.one_hot(jnp.where(state.holders >= 0, (state.holders - player) % state.players, 4), 5)
        vector = jnp.concatenate([
            jax.nn.one_hot(state.phase, 8), jax.nn.one_hot((state.current - player) % state.players, 4),
            state.supply[rot].reshape(-1) / 10.0, state.tray / 80.0, state.pile_len / 8.0,
            pile_top.reshape(-1) / 8.0, slot_rec[rot].reshape(-1) / 4.0, state.bonus_cards[rot] / 4.0,
            holders.reshape(-1), jnp.stack([state.credits / 6.0, state.round / 16.0,
                                            state.end_triggered * 1.0, state.bonus_left / 14.0]),
            self.rules.bananas(state)[rot] / 40.0,
        ]).astype(jnp.float32)
        return {"planes": planes, "vector": vector}

    # ------------------------------------------------------------------ helpers
    def pile_orders(self, state: State) -> list[list[int]]:
        """The deal of a (single) state, for starting the reference engine on the same game."""
        cards = np.asarray(state.pile_cards)
        sizes = np.asarray(self.tables.pile_size)
        return [[int(c) for c in cards[p, :sizes[p]]] for p in range(N_PILES)]

    def scores(self, state: State) -> np.ndarray:
        return np.asarray(self._bananas(state))[:int(state.players)]

    def _places(self, states: State) -> jnp.ndarray:
        """(B, 4) int32 each seat's place (1 = winner, 0 = no such seat) by the rulebook's
        tie-break (the Monkey trophy's holder wins a tie), as monkey_env.core.outcome."""
        scores = jax.vmap(self.rules.bananas)(states)
        return batch_places(scores, states.players, states.holders[:, 0])

    def places(self, state: State) -> list[int]:
        """A single game's places, as Game.places() on the reference engine."""
        batched = jax.tree_util.tree_map(lambda x: jnp.asarray(x)[None], state)
        return [int(p) for p in np.asarray(self.batch_places(batched))[0, :int(state.players)]]


_BY_DATA: dict[tuple, JaxGame] = {}


def jax_game_for(options: GameOptions | None = None, *, illegal_penalty: float = -10.0) -> JaxGame:
    """The process's one JaxGame for the options' game data (and penalty).

    A JaxGame compiles its functions on first use (tens of seconds); maps, player counts and
    rule options are traced parameters, so every game of one set of cards, boards, tray and
    catalogue shares one, whatever its map."""
    options = options or GameOptions()
    key = (options.config_dir, options.catalogue, float(illegal_penalty))
    if key not in _BY_DATA:
        _BY_DATA[key] = JaxGame(options, illegal_penalty=illegal_penalty)
    return _BY_DATA[key]
