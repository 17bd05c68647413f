"""The JAX engine's public face: Pgx-like pure functions over a Forbidden City state.

    game = jax_game_for(options)                 # one per set of game data
    state = game.init(key, game.params(options))
    mask = game.legal_action_mask(state)         # (A,) bool, the reference engine's action indices
    state = game.step(state, action)             # pure, jittable, vmappable
    obs = game.observe(state, player)            # {"planes": (30, H, W), "vector": (45,)}
    states = game.batch_step(states, actions)    # jit(vmap(step))

As in Pgx: stepping a finished game changes nothing and gives zero rewards; an illegal action
ends the game for everyone with ``illegal_penalty`` to the player who made it (the reference
engine raises instead). Rewards: each seat's change of coins at that step.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from monkey_env.core.jax_cache import on_device
from monkey_env.core.outcome import batch_places
from monkey_env.core.protocol import ILLEGAL_PENALTY
from monkey_env.forbidden_city.engine import TILES_LEFT_AT_END, ActionLayout
from monkey_env.forbidden_city.game_data import START_SIDES, GameData
from monkey_env.forbidden_city.jaxgame.observe import observe
from monkey_env.forbidden_city.jaxgame.rules import Rules
from monkey_env.forbidden_city.jaxgame.state import MAX_PLAYERS, State, empty_state
from monkey_env.forbidden_city.jaxgame.tables import build_tables
from monkey_env.forbidden_city.options import ForbiddenCityOptions

ENDINGS = ("last_two", "all_placed")


class Params(NamedTuple):
    """The traced settings of one game; a batch may mix them. The game's values (VALUE_FIELDS)
    are the game data's unless a balance tune traces others (:meth:`with_values`): one compiled
    engine plays every candidate."""

    players: jnp.ndarray     # () int32
    start_side: jnp.ndarray  # () int32 0 beginner, 1 advanced
    ending: jnp.ndarray      # () int32 index in ENDINGS
    coin_values: jnp.ndarray  # (4,) int32 tables.COIN_FIELDS: coins per tile, dragon, end advisor, end dragon
    tile_advisors: jnp.ndarray  # (T, 2) int8 advisors on each part of each table id (tables.py)
    tile_dragons: jnp.ndarray  # (T, 2) int8 dragons on each part of each table id

    def with_values(self, **values) -> Params:
        """These settings with other values (VALUE_FIELDS), same shapes and dtypes (a batch axis may lead)."""
        from monkey_env.core.tuning import replace_values

        return replace_values(self, VALUE_FIELDS, values)


VALUE_FIELDS = ("coin_values", "tile_advisors", "tile_dragons")


class JaxGame:
    def __init__(self, options: ForbiddenCityOptions | None = None, *, data: GameData | None = None,
                 illegal_penalty: float = ILLEGAL_PENALTY):
        options = options or ForbiddenCityOptions()
        self.data = data or options.game_data()
        self.tables, self.static = build_tables(self.data)
        self.layout = ActionLayout(self.static.size)
        self.rules = Rules(self.tables, self.static)
        self.illegal_penalty = float(illegal_penalty)
        self.default_options = options
        self._values = (on_device(self.static.coins, np.int32), self.tables.advisors, self.tables.dragons)
        self.default_params = self.params(options)
        self._init = jax.jit(self._init_impl)
        self._step = jax.jit(self._step_impl)
        self._observe = jax.jit(partial(observe, self.rules))
        self._batch_init = jax.jit(jax.vmap(self._init_impl))
        self.batch_step = jax.jit(jax.vmap(self._step_impl))
        self.batch_legal_mask = jax.jit(jax.vmap(self.legal_action_mask))
        self._batch_places = jax.jit(self.seat_places)
        self._features = self._tile_features()
        self._stats = jax.jit(self._batch_stats)

    @property
    def num_actions(self) -> int:
        return self.layout.num_actions

    def params(self, options: ForbiddenCityOptions | None = None, /, **values) -> Params:
        if options is None:
            options = self.default_options.replace(**values) if values else self.default_options
        elif values:
            options = options.replace(**values)
        return Params(on_device(options.players, np.int32), on_device(START_SIDES.index(options.start_side), np.int32),
                      on_device(ENDINGS.index(options.ending), np.int32), *self._values)

    # ------------------------------------------------------------------ init / step
    def init(self, key: jax.Array, params: Params | None = None) -> State:
        return self._init(key, self.default_params if params is None else params)

    def step(self, state: State, action) -> State:
        return self._step(state, jnp.asarray(action, jnp.int32))

    def batch_init(self, keys: jax.Array, params: Params | None = None) -> State:
        """A batch of new games, one per key; ``params`` of one game (shared) or one per game."""
        params = self.default_params if params is None else params
        if jnp.ndim(params.players) == 0:
            params = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (keys.shape[0],) + jnp.shape(x)), params)
        return self._batch_init(keys, params)

    def _init_impl(self, key: jax.Array, params: Params) -> State:
        st, t = self.static, self.tables
        s = empty_state(st.size, st.n_kinds, st.door_capacity, st.part_capacity, t.sides.shape[0])
        s = s._replace(**{f: getattr(params, f) for f in VALUE_FIELDS})
        size = jnp.where(params.players == 2, st.n_kinds, st.base_size).astype(jnp.int32)
        noise = jax.random.uniform(key, (MAX_PLAYERS, st.n_kinds))
        noise = jnp.where(jnp.arange(st.n_kinds)[None, :] < size, noise, 2.0)
        stacks = jnp.argsort(noise, axis=1).astype(jnp.int16)
        seated = jnp.arange(MAX_PLAYERS) < params.players
        stacks = jnp.where(seated[:, None] & (jnp.arange(st.n_kinds)[None, :] < size), stacks, -1)
        left = jnp.asarray([TILES_LEFT_AT_END[e] for e in ENDINGS], jnp.int32)[params.ending]
        s = s._replace(stacks=stacks, held=jnp.where(seated, stacks[:, 0], -1).astype(jnp.int16),
                       drawn=jnp.where(seated, 1, 0).astype(jnp.int32), players=params.players,
                       stack_size=size, turns_total=params.players * (size - left), ending=params.ending,
                       start_side=params.start_side)
        def lay_start_cell(i, s):                     # the start tile, chosen side up (a loop: one lay compiled)
            y, x = jnp.divmod(i, st.span)
            return self.rules.lay(s, st.origin + x, st.origin + y, t.start_ids[params.start_side, i], 0, -1)
        s = jax.lax.fori_loop(0, st.n_start, lay_start_cell, s)
        return s._replace(closed=self.rules.closed_rooms(s))

    def legal_action_mask(self, state: State) -> jnp.ndarray:
        return self.rules.legal_action_mask(state)

    def _step_impl(self, state: State, action) -> State:
        action = jnp.asarray(action, jnp.int32)
        legal = self.rules.action_is_legal(state, action)
        after = self.rules.apply(state, jnp.clip(action, 0, self.num_actions - 1))
        # A finished game stays as it was, an illegal action changes nothing but the ending: every
        # field but these three is the turn's or the old one's, by one select (not two: the
        # whole-state selects are a large share of a step).
        moved = legal & ~state.terminated
        out = jax.tree_util.tree_map(lambda a, b: jnp.where(moved, a, b), after, state)
        penalty = jnp.zeros((MAX_PLAYERS,), jnp.float32).at[state.current].set(self.illegal_penalty)
        rewards = jnp.where(moved, (after.coins - state.coins).astype(jnp.float32),
                            jnp.where(state.terminated, 0.0, penalty))
        return out._replace(terminated=jnp.where(moved, after.terminated, True),
                            illegal=jnp.where(moved, after.illegal, state.illegal | ~state.terminated),
                            rewards=rewards)

    # ------------------------------------------------------------------ observation and outcome
    def observe(self, state: State, player) -> dict:
        return self._observe(state, player)

    def seat_places(self, states: State) -> jnp.ndarray:
        """(B, 4) int32 places (1 = winner, 0 = no such seat); ties share (monkey_env.core.outcome)."""
        return batch_places(states.coins, states.players, -jnp.ones_like(states.players))

    def batch_places(self, states: State) -> np.ndarray:
        """(B, P) places of a batch of games of P players (1 = winner)."""
        return np.asarray(self._batch_places(states))[:, :int(np.max(np.asarray(states.players)))]

    def batch_rounds(self, states: State) -> np.ndarray:
        """(B,) rounds played (every player one turn), as the reference's Game.round."""
        return np.asarray(states.turns) // np.asarray(states.players)

    def batch_scores(self, states: State) -> np.ndarray:
        """(B, P) coins of a batch of games of P players."""
        return np.asarray(states.coins)[:, :int(np.max(np.asarray(states.players)))]

    def places(self, state: State) -> list[int]:
        b = jax.tree_util.tree_map(lambda x: jnp.asarray(x)[None], state)
        return [int(p) for p in np.asarray(self.batch_places(b))[0, :int(state.players)]]

    def _tile_features(self) -> np.ndarray:
        from monkey_env.forbidden_city.engine import TILE_FEATURES, tile_features
        f = np.zeros((self.static.n_kinds, len(TILE_FEATURES)), np.int32)
        for k in self.data.kinds:
            for name in tile_features(k):
                f[k.index, TILE_FEATURES.index(name)] = 1
        return f

    def _batch_stats(self, states: State) -> dict:
        from monkey_env.forbidden_city.engine import EARLY_TILES, TILE_FEATURES
        early = jnp.asarray(self._features)[jnp.maximum(states.stacks[:, :, :EARLY_TILES], 0).astype(jnp.int32)]
        early = jnp.where((states.stacks[:, :, :EARLY_TILES] >= 0)[..., None], early, 0).sum(2)   # (B, 4, F)
        start_closed = jnp.where(states.start_side == 0, self._start_closed[0], self._start_closed[1])
        out = {f"early_{k}": early[..., i] for i, k in enumerate(TILE_FEATURES)}
        return {**out, "end_coins": states.end_coins, "rooms_scored": states.closed.sum(-1) - start_closed,
                "edge_reached": states.edge_reached.astype(jnp.int32)}

    def batch_stats(self, states: State) -> dict:
        """The reference engine's stats() for a batch (one row per game)."""
        if not hasattr(self, "_start_closed"):
            self._start_closed = [int(self.init(jax.random.PRNGKey(0), self.params(start_side=s)).closed.sum())
                                  for s in START_SIDES]
        p = int(np.max(np.asarray(states.players)))
        return {k: np.asarray(v)[:, :p] if np.ndim(v) == 2 else np.asarray(v) for k, v in self._stats(states).items()}

    def scores(self, state: State) -> np.ndarray:
        return np.asarray(state.coins)[:int(state.players)]

    def deal(self, state: State) -> list[list[int]]:
        """Each seat's stack order of a (single) state, to start the reference engine alike."""
        stacks = np.asarray(state.stacks)
        n, size = int(state.players), int(state.stack_size)
        return [[int(t) for t in stacks[s, :size]] for s in range(n)]


_BY_DATA: dict[tuple, JaxGame] = {}


def jax_game_for(options: ForbiddenCityOptions | None = None, *, illegal_penalty: float = ILLEGAL_PENALTY) -> JaxGame:
    """The process's one JaxGame for the options' game data (player count, start side and ending
    are traced parameters)."""
    options = options or ForbiddenCityOptions()
    key = (options.config_dir, float(illegal_penalty))
    if key not in _BY_DATA:
        _BY_DATA[key] = JaxGame(options, illegal_penalty=illegal_penalty)
    return _BY_DATA[key]
