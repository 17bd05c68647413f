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

import dataclasses
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from monkey_env.core.jax_cache import exported_function, prng_key, source_fingerprint
from monkey_env.core.outcome import batch_places
from monkey_env.core.protocol import ILLEGAL_PENALTY
from monkey_env.monkey_palace.actions import N_PILES, ActionLayout
from monkey_env.monkey_palace.game_data import GameData
from monkey_env.monkey_palace.jaxgame.batch import BatchedPlay
from monkey_env.monkey_palace.jaxgame.complete_masks import Caps
from monkey_env.monkey_palace.jaxgame.observe import observe
from monkey_env.monkey_palace.jaxgame.params import Params, ParamsMaker
from monkey_env.monkey_palace.jaxgame.rules import Rules
from monkey_env.monkey_palace.jaxgame.state import MAX_PLAYERS, PENDING_TURN_START, State, empty_state
from monkey_env.monkey_palace.jaxgame.tables import build_tables
from monkey_env.monkey_palace.options import GameOptions


class JaxGame(BatchedPlay):
    """The JAX engine over one set of game data (cards, boards, tray, catalogue from configs/).

    The constructor's players, map and options are the defaults of :meth:`params`; pass
    other params to :meth:`init` to mix games in one batch."""

    def __init__(self, options: GameOptions | None = None, *, data: GameData | None = None,
                 illegal_penalty: float = ILLEGAL_PENALTY, group_size: int | None = None, settle_steps: int = 3):
        """``options`` give the default game (and, with no ``data``, the game data); ``data``
        alone plays its own map with default options."""
        if options is None:
            options = GameOptions() if data is None else GameOptions(
                map=data.map_id, config_dir=data.config_dir, catalogue=data.catalogue_path)
        self.data = data or options.game_data()
        self.tables, self.static = build_tables(self.data)
        # The build action is static: it sets the action space (catalogue shapes, or arches and finish).
        self.build_action = options.build_action
        if self.build_action == "complete":
            tray = self.data.tray
            self.static = dataclasses.replace(self.static, complete=True, n_rises=tray.max_units + 1,
                                              caps=Caps(column_units=tray.column_units))
            self.layout = ActionLayout(0, self.static.n_rises)
        else:
            self.layout = ActionLayout(self.static.n_shapes)
        self.illegal_penalty = illegal_penalty
        # Games whose pending work the batched step does together. On a CPU small groups keep
        # the work in cache (16 ran 2.3 times faster than a quarter of 1024); a GPU wants wide ones.
        self.group_size = group_size
        # Automatic steps after a decision done for the whole batch; most games need one or
        # two, a few need up to ten, and those finish in groups (PENDING_SETTLE).
        self.settle_steps = settle_steps
        self.rules = Rules(self.tables, self.static, self.layout)
        self._params = ParamsMaker(self.data)
        self._observe = jax.jit(partial(observe, self.tables, self.rules))
        self.default_options = options
        self.default_params = self.params(options)
        self.players = options.players
        self._queue_size = N_PILES * self.static.max_icons
        self._blank: State | None = None
        # One compiled program for a single game's reset and step: they share the expensive
        # part (settling the automatic steps), so a new process compiles and traces it once.
        self._advance = jax.jit(self._reset_or_step)
        self._advance_exported = None
        # The batched path in three compiled pieces; the expensive one (resolving pending work
        # with compaction) is shared by batch_init and batch_step, so it compiles once.
        self._batch_deal = jax.jit(jax.vmap(self._deal))
        self._batch_act = jax.jit(self._act)
        self._batch_resolve = jax.jit(self._resolve_and_finish)
        self.batch_legal_mask = jax.jit(jax.vmap(self.legal_action_mask))
        self.batch_scores = jax.jit(jax.vmap(self.rules.bananas))
        self.batch_places = jax.jit(self.seat_places)
        self._bananas = jax.jit(self.rules.bananas)

    def params(self, options: GameOptions | None = None, /, **values) -> Params:
        """The traced settings of one game, from an options object or its fields as keywords
        (see jaxgame.params: the map comes from the options' game data)."""
        if options is not None and options.build_action != self.build_action:
            raise ValueError(f"these options build with {options.build_action!r}, this JaxGame with "
                             f"{self.build_action!r}: the build action sets the action space (use jax_game_for(options))")
        return self._params(options, **values)

    def init(self, key: jax.Array, params: Params | None = None) -> State:
        """A new game dealt from ``key`` (pure, jittable, vmappable)."""
        # NumPy constants: a jnp scalar made outside a trace compiles a small program.
        return self._reset_or_step_call(self.blank_state(), np.int32(0), key,
                                        self.default_params if params is None else params, np.bool_(True))

    def step(self, state: State, action) -> State:
        """One decision (pure, jittable, vmappable); see the module docstring for its rules."""
        action = action if isinstance(action, jax.core.Tracer) else np.asarray(action, np.int32)
        return self._reset_or_step_call(state, action, prng_key(0), self.default_params, np.bool_(False))

    def _reset_or_step_call(self, *args) -> State:
        """Called on concrete arrays (an environment's reset or step), the program exported to
        the compilation cache, which a new process loads without tracing; inside a trace
        (jit, vmap), the function itself."""
        if any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(args)):
            return self._advance(*args)
        if self._advance_exported is None:
            fingerprint = "-".join((source_fingerprint("monkey_env.monkey_palace"), self.data.fingerprint_without_map,
                                    f"{self.illegal_penalty:g}", self.build_action))
            self._advance_exported = exported_function(self._reset_or_step, args, "reset_or_step", fingerprint)
        # Committed inputs, like the outputs fed back at the next step: one executable for both.
        args = jax.device_put(args, jax.devices()[0])
        try:
            return self._advance_exported(*args)
        except (TypeError, ValueError):   # arguments unlike the exported ones (another key type)
            return self._advance(*args)

    def _reset_or_step(self, state: State, action, key: jax.Array, params: Params, reset) -> State:
        """A new game (reset) or one decision on ``state``, through one settle of automatic steps."""
        action, legal = self._check(state, action)
        # A reset settles the dealt game; a step settles after applying the action (one copy of
        # apply in the program; the deal only runs on a reset, outside vmap).
        start = lax.cond(reset, lambda: self._deal(key, params), lambda: state)
        settled = self.rules.settle(start, first_action=(jnp.where(legal, action, 0), ~reset))
        pick = lambda a, b: jax.tree_util.tree_map(lambda x, y: jnp.where(reset, x, y), a, b)
        return pick(settled, self._finish(state, settled, legal | reset))

    def _empty_state(self, xp=jnp) -> State:
        st, L = self.static, self.layout
        if st.complete:   # the build decision's mask holds the arches and finish; a staircase up to the caps' arches
            return empty_state(st.n_cards, L.buy_pile - L.shape, st.caps.max_arches, st.max_pile, self._queue_size,
                               covered_size=32, xp=xp)
        return empty_state(st.n_cards, st.n_shapes, st.max_arches, st.max_pile, self._queue_size, xp=xp)

    @property
    def num_actions(self) -> int:
        return self.layout.size

    def blank_state(self) -> State:
        """An empty State with this game data's shapes (every field at its default)."""
        if self._blank is None:   # built on the host and moved in one transfer: no JAX op to trace or compile
            # Concrete even when first asked inside a trace (jit(init)): a cached tracer would leak.
            with jax.ensure_compile_time_eval():
                self._blank = jax.device_put(self._empty_state(xp=np))
        return self._blank

    # ------------------------------------------------------------------ init
    def _deal(self, key: jax.Array, params: Params) -> State:
        """Set-up up to the first turn's start (left pending)."""
        st, t = self.static, self.tables
        s = self._empty_state()
        # Shuffle each pile: sort random keys, padding last.
        noise = jax.random.uniform(key, (N_PILES, st.max_pile))
        noise = jnp.where(t.pile_cards >= 0, noise, 2.0)
        order = jnp.argsort(noise, axis=1)
        pile_cards = jnp.take_along_axis(t.pile_cards, order, axis=1)
        tray = t.tray_total - jnp.asarray([2, 1, 0], jnp.int32)  # the starting staircase
        supply = jnp.zeros((MAX_PLAYERS, 3), jnp.int32)
        for seat in range(MAX_PLAYERS):
            got = jnp.where(seat < params.players, jnp.minimum(params.board_start[seat], tray), 0)
            tray = tray - got
            supply = supply.at[seat].set(got)
        s = s._replace(height=params.start_height, knob=params.start_knob, deco_max=params.start_deco_max,
                       players=params.players, options=params.options, card_bananas=params.card_bananas,
                       bonus_points=params.bonus_points, trophy_points=params.trophy_points,
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

    # ------------------------------------------------------------------ observation
    def observe(self, state: State, player) -> dict:
        """What `player`'s seat sees (jaxgame.observe): planes (20, 32, 32) and a vector."""
        return self._observe(state, player)

    # ------------------------------------------------------------------ helpers
    def pile_orders(self, state: State) -> list[list[int]]:
        """The deal of a (single) state, for starting the reference engine on the same game."""
        cards = np.asarray(state.pile_cards)
        sizes = np.asarray(self.tables.pile_size)
        return [[int(c) for c in cards[p, :sizes[p]]] for p in range(N_PILES)]

    def scores(self, state: State) -> np.ndarray:
        return np.asarray(self._bananas(state))[:int(state.players)]

    def seat_places(self, states: State) -> jnp.ndarray:
        """(B, 4) int32 each seat's place (1 = winner, 0 = no such seat) by the rulebook's
        tie-break (the Monkey trophy's holder wins a tie), as monkey_env.core.outcome."""
        scores = jax.vmap(self.rules.bananas)(states)
        return batch_places(scores, states.players, states.holders[:, 0])

    def batch_rounds(self, states: State) -> np.ndarray:
        """(B,) the round being played, 1-based, as the reference's Game.round."""
        return np.asarray(states.round)

    def batch_stats(self, states: State) -> dict:
        """None of its own: Monkey Palace's figures come with its play_games part (cards, colours, trophies)."""
        return {}

    def places(self, state: State) -> list[int]:
        """A single game's places, as Game.places() on the reference engine."""
        batched = jax.tree_util.tree_map(lambda x: jnp.asarray(x)[None], state)
        return [int(p) for p in np.asarray(self.batch_places(batched))[0, :int(state.players)]]


_BY_DATA: dict[tuple, JaxGame] = {}


def jax_game_for(options: GameOptions | None = None, *, illegal_penalty: float = ILLEGAL_PENALTY) -> JaxGame:
    """The process's one JaxGame for the options' game data (and penalty).

    A JaxGame compiles its functions on first use (tens of seconds); maps, player counts and
    rule options are traced parameters, so every game of one set of cards, boards, tray and
    catalogue shares one, whatever its map; the build action sets the action space, so each has its own."""
    options = options or GameOptions()
    key = (options.config_dir, options.catalogue, options.build_action, float(illegal_penalty))
    if key not in _BY_DATA:
        _BY_DATA[key] = JaxGame(options, illegal_penalty=illegal_penalty)
    return _BY_DATA[key]
