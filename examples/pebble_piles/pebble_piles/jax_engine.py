"""The JAX engine: Pebble Piles as pure functions over a fixed-size state, for jit and vmap.

    engine = jax_engine_for(options)
    states = engine.batch_init(keys, engine.params(options))
    states = engine.batch_step(states, actions)

It agrees with the reference engine (engine.py) decision by decision (parity.py). Seats past the
game's player count are kept at zero. An illegal action ends the game, its author receiving
``illegal_penalty`` in ``rewards`` (monkey_env.core.protocol.ILLEGAL_PENALTY by default).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from monkey_env.core.outcome import batch_places
from monkey_env.core.protocol import ILLEGAL_PENALTY
from pebble_piles.rules import MAX_PEBBLES, MAX_SEATS, MAX_TAKE, MIN_PEBBLES, NUM_ACTIONS, PILES

POINT_SCALE = float(PILES * MAX_PEBBLES)   # observation: points / the most a game can hold


class State(NamedTuple):
    piles: jnp.ndarray        # (PILES,) int32: pebbles left in each pile
    points: jnp.ndarray       # (MAX_SEATS,) int32: pebbles taken by each seat (0 past the player count)
    players: jnp.ndarray      # () int32: seats in this game
    current: jnp.ndarray      # () int32: the seat to decide
    last_taker: jnp.ndarray   # () int32: the seat that took the last pebble taken so far, -1 none (the tie-break)
    decisions: jnp.ndarray    # () int32: decisions made
    round: jnp.ndarray        # () int32: the round being played (every seat one turn), from 1
    terminated: jnp.ndarray   # () bool: the game is over (or ended on an illegal action)
    illegal: jnp.ndarray      # () bool: it ended on an illegal action
    rewards: jnp.ndarray      # (MAX_SEATS,) float32: this step's reward per seat (pebbles taken)


class PebblePilesJax:
    """JaxEngine (monkey_env.core.protocol) of Pebble Piles; ``params`` is the player count."""

    num_actions = NUM_ACTIONS

    def __init__(self, illegal_penalty: float = ILLEGAL_PENALTY):
        self.illegal_penalty = float(illegal_penalty)
        self._batch_init = jax.jit(jax.vmap(self.init))
        self.batch_from_deal = jax.jit(jax.vmap(self.from_deal))    # (B, PILES) piles, (B,) players
        self.batch_step = jax.jit(jax.vmap(self.step))
        self.batch_legal_mask = jax.jit(jax.vmap(self.legal_action_mask))
        self._batch_places = jax.jit(self.seat_places)

    def params(self, options=None, /, **values):
        """The traced setting of one game: its player count (int32)."""
        players = values.get("players", 2 if options is None else options.players)
        return jnp.int32(players)

    def batch_init(self, keys: jax.Array, params=None) -> State:
        """A batch of new games, one per key; ``params`` of one game (shared) or one per game."""
        params = jnp.broadcast_to(self.params() if params is None else jnp.asarray(params, jnp.int32), keys.shape[:1])
        return self._batch_init(keys, params)

    def init(self, key: jax.Array, params=None) -> State:
        """A new game, its piles dealt from ``key``."""
        piles = jax.random.randint(key, (PILES,), MIN_PEBBLES, MAX_PEBBLES + 1)
        return self.from_deal(piles, params)

    def from_deal(self, piles, params=None) -> State:
        players = jnp.int32(2) if params is None else jnp.asarray(params, jnp.int32)
        return State(piles=jnp.asarray(piles, jnp.int32), points=jnp.zeros(MAX_SEATS, jnp.int32), players=players,
                     current=jnp.int32(0), last_taker=jnp.int32(-1), decisions=jnp.int32(0), round=jnp.int32(1),
                     terminated=jnp.bool_(False), illegal=jnp.bool_(False), rewards=jnp.zeros(MAX_SEATS, jnp.float32))

    def legal_action_mask(self, s: State) -> jnp.ndarray:
        """(NUM_ACTIONS,) bool: pile p, k pebbles is legal when p is the first or the last pile
        holding pebbles and it holds k or more."""
        takes = jnp.arange(1, MAX_TAKE + 1)
        held = s.piles > 0
        first, last = jnp.argmax(held), PILES - 1 - jnp.argmax(held[::-1])
        end = (jnp.arange(PILES) == first) | (jnp.arange(PILES) == last)
        return ((end[:, None] & (s.piles[:, None] >= takes[None, :])).reshape(-1)) & ~s.terminated

    def step(self, s: State, action) -> State:
        action = jnp.asarray(action, jnp.int32)
        a = jnp.clip(action, 0, NUM_ACTIONS - 1)
        legal = self.legal_action_mask(s)[a] & (action == a)
        pile, pebbles = a // MAX_TAKE, a % MAX_TAKE + 1
        seat = jnp.arange(MAX_SEATS) == s.current
        piles = s.piles - pebbles * (jnp.arange(PILES) == pile)
        decisions = s.decisions + 1
        played = s._replace(piles=piles, points=s.points + pebbles * seat, current=(s.current + 1) % s.players,
                            last_taker=s.current, decisions=decisions, round=decisions // s.players + 1,
                            terminated=piles.sum() == 0, rewards=(pebbles * seat).astype(jnp.float32))
        refused = s._replace(terminated=jnp.bool_(True), illegal=jnp.bool_(True), decisions=decisions,
                             rewards=jnp.where(seat, self.illegal_penalty, 0.0).astype(jnp.float32))
        out = jax.tree_util.tree_map(lambda p, r: jnp.where(legal, p, r), played, refused)
        # a finished game does not change, with zero rewards
        still = s._replace(rewards=jnp.zeros(MAX_SEATS, jnp.float32))
        return jax.tree_util.tree_map(lambda o, old: jnp.where(s.terminated, old, o), out, still)

    def observe(self, s: State, player) -> dict:
        """One seat's view (everything is public). planes (1, 1, PILES): the piles / MAX_PEBBLES;
        vector (2 * MAX_SEATS + 1,): the points from this seat's side (me first) / POINT_SCALE,
        which of those seats are in the game, whether it is this seat's turn."""
        seats = (jnp.arange(MAX_SEATS) + jnp.asarray(player, jnp.int32)) % s.players
        in_game = jnp.arange(MAX_SEATS) < s.players
        vector = jnp.concatenate([jnp.where(in_game, s.points[seats], 0) / POINT_SCALE, in_game,
                                  (s.current == player)[None]]).astype(jnp.float32)
        return {"planes": (s.piles / MAX_PEBBLES).astype(jnp.float32).reshape(1, 1, PILES), "vector": vector}

    def observation_sizes(self) -> dict:
        return {"planes": (1, 1, PILES), "vector": (2 * MAX_SEATS + 1,)}

    def batch_scores(self, states: State) -> np.ndarray:
        """(B, P) points of a batch of games of P players."""
        return np.asarray(states.points)[:, :int(np.max(np.asarray(states.players)))]

    def seat_places(self, states: State) -> jnp.ndarray:
        """(B, MAX_SEATS) int32 places, traceable: 1 = winner (the most points; a tie to the last
        pebble's taker), 0 past the player count."""
        return batch_places(states.points, states.players, states.last_taker)

    def batch_places(self, states: State) -> np.ndarray:
        """(B, P) places of a batch of games of P players."""
        return np.asarray(self._batch_places(states))[:, :int(np.max(np.asarray(states.players)))]

    def batch_rounds(self, states: State) -> np.ndarray:
        """(B,) the round being played, from 1, as the reference's Game.round."""
        return np.asarray(states.round)

    def batch_stats(self, states: State) -> dict:
        """No figures of its own."""
        return {}

    def scores(self, state: State) -> np.ndarray:
        return np.asarray(state.points)[:int(state.players)]


@lru_cache(maxsize=8)
def _engine(illegal_penalty: float) -> PebblePilesJax:
    return PebblePilesJax(illegal_penalty)


def jax_engine_for(options=None, *, illegal_penalty: float = ILLEGAL_PENALTY) -> PebblePilesJax:
    """The process's engine (one per penalty: compiled once); the options' players are params."""
    del options
    return _engine(float(illegal_penalty))
