"""The differential test: random games on both engines, compared decision by decision."""

from __future__ import annotations

import jax
import numpy as np

from monkey_env.forbidden_city.engine import Game
from monkey_env.forbidden_city.options import ForbiddenCityOptions


def reference_view(game: Game, mask: np.ndarray | None = None) -> dict:
    """What the differential compares, from the reference engine (``mask``: its legal_mask(),
    if already computed: the costliest part of a decision)."""
    n = game.data.size
    side = 0 if game.options.start_side == "beginner" else 1
    n_start = game.data.start_span ** 2
    tile = -np.ones((n, n), int)
    owner = -np.ones((n, n), int)
    rotation = np.zeros((n, n), int)
    for (x, y), laid in game.city.cells.items():
        tile[y, x] = side * n_start + laid.tile if laid.owner < 0 else 2 * n_start + laid.tile
        owner[y, x] = laid.owner
        rotation[y, x] = laid.rotation
    p = game.players
    return {
        "tile": tile, "owner": owner, "rotation": rotation, "label": game.room_labels(),
        "held": np.array([-1 if h is None else h for h in game.held]),
        "tiles_left": np.array([game.tiles_left(s) for s in range(p)]),
        "coins": np.array(game.scores()), "end_coins": np.array(game.end_coins),
        "current": game.current, "turns": game.turns_played, "over": game.game_over, "shift": list(game.shift),
        "edge_reached": game.edge_reached,
        "mask": game.legal_mask() if mask is None else mask, "running_totals_agree": True,
    }


def running_totals_agree(rules, state) -> jax.Array:
    """() bool: the state's running totals per room (value, advisors, open sides), its count of
    door links and its facing keys equal what the whole table gives (rules.room_totals_of_labels,
    rules.facing_keys_of_table)."""

    from monkey_env.forbidden_city.geometry import DOOR, WALL
    from monkey_env.forbidden_city.jaxgame.rules import shift

    own, advisors, open_sides = rules.room_totals_of_labels(state)
    occ, sides, _, _ = rules.faces(state)
    links = 0
    for d in (1, 2):                                  # each shared side once: east and south
        a, b = sides[..., d], shift(sides[..., (d + 2) % 4], d, WALL)
        links += (occ & shift(occ, d, False) & ((a == DOOR) | (b == DOOR)) & (a != WALL) & (b != WALL)).sum()
    return ((state.room_value == own).all() & (state.room_advisors == advisors).all()
            & (state.room_open == open_sides).all() & (state.doors == links)
            & (state.facing == rules.facing_keys_of_table(state)).all())


_CHECKS: dict[int, object] = {}


def host_batch(jg, states) -> dict:
    if id(jg) not in _CHECKS:
        _CHECKS[id(jg)] = jax.jit(jax.vmap(lambda s: running_totals_agree(jg.rules, s)))
    return {"state": jax.device_get(states), "mask": np.asarray(jg.batch_legal_mask(states)),
            "totals": np.asarray(_CHECKS[id(jg)](states))}


def jax_view(host: dict, i: int) -> dict:
    s = jax.tree_util.tree_map(lambda x: x[i], host["state"])
    p = int(s.players)
    left = np.maximum(int(s.stack_size) - s.drawn[:p], 0) + (s.held[:p] >= 0)
    return {
        "tile": s.tile.astype(int), "owner": s.owner.astype(int), "rotation": s.rotation.astype(int),
        "label": node_labels(s), "held": s.held[:p].astype(int), "tiles_left": left.astype(int),
        "coins": s.coins[:p].astype(int), "end_coins": s.end_coins[:p].astype(int),
        "current": int(s.current), "turns": int(s.turns), "over": bool(s.terminated), "shift": s.shift.tolist(),
        "edge_reached": bool(s.edge_reached),
        "mask": host["mask"][i], "running_totals_agree": bool(host["totals"][i]),
    }


def node_labels(s) -> np.ndarray:
    """(H, W, 2) the reference's room labels (Game.room_labels: a room's smallest node number,
    node (x, y, k) = (y * W + x) * 2 + k) from a host state's parts and their rooms."""
    part = s.part.astype(int)
    rooms = np.where(part >= 0, s.room.astype(int)[np.maximum(part, 0)], -1).reshape(-1)
    smallest = np.full(len(s.room), rooms.size)
    inside = rooms >= 0
    np.minimum.at(smallest, rooms[inside], np.flatnonzero(inside))
    return np.where(inside, smallest[np.maximum(rooms, 0)], -1).reshape(part.shape)


def differences(ref: dict, jx: dict) -> list[str]:
    out = []
    for k in ref:
        a, b = np.asarray(ref[k]), np.asarray(jx[k])
        if a.shape != b.shape or not np.array_equal(a, b):
            if a.shape == b.shape and a.ndim >= 1 and a.size > 8:
                where = np.argwhere(a != b)[:5]
                out.append(f"{k} differs at {where.tolist()}: reference {a[tuple(where.T)].tolist()} "
                           f"jax {b[tuple(where.T)].tolist()}")
            else:
                out.append(f"{k}: reference {a.tolist()} jax {b.tolist()}")
    return out


def game_settings(i: int) -> dict:
    """Game i of a run: 2-4 players, both start sides, both endings."""
    return dict(players=2 + i % 3, start_side=("beginner", "advanced")[(i // 3) % 2],
                ending=("last_two", "all_placed")[(i // 6) % 2])


def differential_batch(jg, first: int, batch: int, seed: int, values: dict | None = None, data=None) -> dict:
    """Play ``batch`` random games on both engines and compare them at every decision.

    Game i (from ``first``) has game_settings(i); both engines play the JAX deal; the actions
    are drawn from the reference engine's mask. Raises AssertionError at the first difference.
    values: traced values (env.VALUE_FIELDS) the JAX engine plays instead of its data's, while the
    reference engine plays ``data`` (a balance tune's game data of the same numbers)."""
    settings = [game_settings(first + i) for i in range(batch)]
    one = [jg.params(**st) for st in settings]
    if values is not None:
        one = [p.with_values(**values) for p in one]
    params = jax.tree_util.tree_map(lambda *xs: jax.numpy.stack(xs), *one)
    keys = jax.random.split(jax.random.PRNGKey(seed), batch)
    states = jg.batch_init(keys, params)
    host = host_batch(jg, states)
    games = []
    for i, st in enumerate(settings):
        one = jax.tree_util.tree_map(lambda x, i=i: x[i], host["state"])
        games.append(Game(ForbiddenCityOptions(seed=seed, **st), deal=jg.deal(one), data=data or jg.data))
    rng = np.random.default_rng(seed)
    decisions = 0
    while True:
        actions = np.zeros(batch, np.int32)
        for i, g in enumerate(games):
            mask = g.legal_mask()
            diff = differences(reference_view(g, mask), jax_view(host, i))
            if diff:
                raise AssertionError(f"game {first + i} {settings[i]} seed {seed}, decision {len(g.history)}:\n"
                                     + "\n".join(diff))
            if not g.game_over:
                actions[i] = rng.choice(np.flatnonzero(mask))
                g.apply(int(actions[i]))
                decisions += 1
        if all(g.game_over for g in games):
            break
        states = jg.batch_step(states, actions)
        host = host_batch(jg, states)
    return {"games": batch, "decisions": decisions}
