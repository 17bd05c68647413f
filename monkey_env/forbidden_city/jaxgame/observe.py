"""What one seat sees: public information and its own hand, as planes over the table and a vector.

planes (N_PLANES, H, W) float32:
  0        a tile lies here
  1-4      a wall (with or without a door) on its north, east, south, west side
  5-8      a door on its north, east, south, west side
  9-20     the floor of its north, east, south, west quarter: green, pink, white (4 x 3, quarter-major)
  21, 22   the Imperial Palace, a garden
  23-26    advisors here of each seat, the observer first (count / ADVISOR_SCALE)
  27       dragons here
  28       part of a closed room
  29       laid by the observer
vector (VECTOR_SIZE,) float32:
  0-11     the tile in the observer's hand: each side (N, E, S, W) one-hot open / wall / door
  12-23    its quarters' floors one-hot green / pink / white
  24-27    it has a diagonal wall, its advisors / ADVISOR_SCALE, a dragon, a tile in hand at all
  28-31    coins of each seat, the observer first (/ COIN_SCALE)
  32-35    tiles left of each seat, the observer first (/ TILE_SCALE)
  36-39    the seat to play, relative to the observer, one-hot
  40-42    2, 3 or 4 players, one-hot
  43, 44   the ending is all_placed, the start side is advanced
Other seats' hands and the order of every stack stay hidden.
"""

from __future__ import annotations

import jax.numpy as jnp

from monkey_env.forbidden_city.geometry import DOOR, GARDEN, OPEN, PALACE
from monkey_env.forbidden_city.jaxgame.rules import Rules
from monkey_env.forbidden_city.jaxgame.state import MAX_PLAYERS, State

N_PLANES = 30
VECTOR_SIZE = 45
ADVISOR_SCALE = 3.0
COIN_SCALE = 50.0
TILE_SCALE = 30.0


def observe(rules: Rules, state: State, player) -> dict:
    t = rules.t
    occ, sides, qpart, qcolour = rules.faces(state)
    tile = jnp.maximum(state.tile, 0).astype(jnp.int32)
    player = jnp.asarray(player, jnp.int32)
    rel = (jnp.arange(MAX_PLAYERS) + player) % jnp.maximum(state.players, 1)      # observer first
    in_game = jnp.arange(MAX_PLAYERS) < state.players
    adv = jnp.where(occ, state.tile_advisors[tile].sum(-1), 0)
    adv_by_seat = jnp.stack([jnp.where((state.owner == rel[k]) & in_game[k], adv, 0) for k in range(MAX_PLAYERS)])
    rooms = rules.node_rooms(state)
    closed = state.closed[jnp.maximum(rooms, 0)] & (rooms >= 0)
    planes = jnp.concatenate([
        occ[None],
        jnp.moveaxis(occ[..., None] & (sides != OPEN), -1, 0),
        jnp.moveaxis(occ[..., None] & (sides == DOOR), -1, 0),
        jnp.moveaxis((qcolour[..., :, None] == jnp.arange(3)).reshape(*qcolour.shape[:2], 12), -1, 0),
        (qcolour[..., 0] == PALACE)[None], (qcolour[..., 0] == GARDEN)[None],
        adv_by_seat / ADVISOR_SCALE,
        jnp.where(occ, state.tile_dragons[tile].sum(-1), 0)[None],
        closed.any(-1)[None],
        (state.owner == player)[None],
    ]).astype(jnp.float32)

    held = state.held[player]
    h = jnp.maximum(held, 0).astype(jnp.int32) + rules.s.n_start * 2
    has = held >= 0
    hs = t.sides[h, 0]
    hq = t.floors[h][t.quarter_part[h, 0].astype(jnp.int32)]
    hand = jnp.concatenate([
        (hs[:, None] == jnp.arange(3)).reshape(-1), (hq[:, None] == jnp.arange(3)).reshape(-1),
        jnp.stack([t.parts[h] == 2, state.tile_advisors[h].sum() / ADVISOR_SCALE, state.tile_dragons[h].sum(), 1.0]),
    ]).astype(jnp.float32) * has
    left = jnp.where(in_game, jnp.maximum(state.stack_size - state.drawn, 0) + (state.held >= 0), 0)
    vector = jnp.concatenate([
        hand,
        jnp.where(in_game, state.coins[rel], 0) / COIN_SCALE,
        jnp.where(in_game, left[rel], 0) / TILE_SCALE,
        (jnp.arange(MAX_PLAYERS) == (state.current - player) % jnp.maximum(state.players, 1)) & ~state.terminated,
        state.players == jnp.arange(2, 5),
        jnp.stack([state.ending == 1, state.start_side == 1]),
    ]).astype(jnp.float32)
    return {"planes": planes, "vector": vector}

