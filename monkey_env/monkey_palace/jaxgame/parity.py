"""Comparing a reference Game with a JAX State field by field (the differential test's eye)."""

from __future__ import annotations

import jax
import numpy as np

from monkey_env.monkey_palace.engine import Game

END_KINDS = {"arches": 0, "bricks": 1, "columns": 2, "arches and bricks": 3}


def reference_view(game: Game) -> dict:
    n = game.options.players
    owner = np.full(len(game.data.cards), -1)
    for seat in range(n):
        for c in game.owned_cards(seat):
            owner[c] = seat
    tops = np.full((n, 4), -1)
    depth = np.zeros((n, 4), int)
    for seat, p in enumerate(game.players):
        for i, slot in enumerate(p.slots):
            tops[seat, i] = slot[-1] if slot else -1
            depth[seat, i] = len(slot)
    return {
        "phase": int(game.phase), "current": game.current, "round": game.round, "turns_played": game.turns_played,
        "end_triggered": game.end_triggered,
        "end_kind": END_KINDS.get(game.end_shortage, -1),
        "height": game.palace.height.astype(int), "knob": game.palace.knob.astype(int),
        "animals": np.array(game.palace.animals), "deco_max": np.array(game.palace.deco_max),
        "tray": np.array(game.tray.as_tuple()), "supply": np.array([p.supply.as_tuple() for p in game.players]),
        "pile_len": np.array([len(p) for p in game.piles]),
        "pile_tops": np.array([p[-1] if p else -1 for p in game.piles]),
        "card_owner": owner, "slot_top": tops, "slot_depth": depth,
        "holders": np.array([game.holders[k] for k in ("monkey", "butterfly", "frog")]),
        "bonus_left": game.bonus_left, "bonus_cards": np.array([p.bonus_cards for p in game.players]),
        "scores": np.array(game.scores()), "mask": game.legal_mask(),
        "credits": game.turn.credits if game.phase.name == "BUY" else -1,
    }


def host_batch(jg, states) -> dict:
    """A batch of JAX states on the host, with legal masks and scores computed on the device."""
    return {"state": jax.device_get(states), "mask": np.asarray(jg.batch_legal_mask(states)),
            "bananas": np.asarray(jg.batch_scores(states))}


def jax_view(jg, states, i: int | None = None) -> dict:
    """The same view of a JAX state: one state, or game `i` of a host_batch."""
    if i is None:
        states = host_batch(jg, jax.tree_util.tree_map(lambda x: x[None], states))
        i = 0
    s = jax.tree_util.tree_map(lambda x: x[i], states["state"])
    n = int(s.players)
    pile_len = s.pile_len
    cards = s.pile_cards
    return {
        "phase": int(s.phase), "current": int(s.current), "round": int(s.round), "turns_played": int(s.turns_played),
        "end_triggered": bool(s.end_triggered), "end_kind": int(s.end_kind),
        "height": s.height.astype(int), "knob": s.knob.astype(int),
        "animals": s.animals, "deco_max": s.deco_max,
        "tray": s.tray, "supply": s.supply[:n],
        "pile_len": pile_len, "pile_tops": np.array([cards[p, pile_len[p] - 1] if pile_len[p] else -1 for p in range(12)]),
        "card_owner": s.card_owner.astype(int), "slot_top": s.slot_top[:n],
        "slot_depth": s.slot_depth[:n].astype(int),
        "holders": s.holders, "bonus_left": int(s.bonus_left),
        "bonus_cards": s.bonus_cards[:n], "scores": states["bananas"][i][:n],
        "mask": states["mask"][i],
        "credits": int(s.credits) if int(s.phase) == 2 else -1,
    }


def differences(ref: dict, jx: dict) -> list[str]:
    out = []
    for k in ref:
        a, b = np.asarray(ref[k]), np.asarray(jx[k])
        if a.shape != b.shape or not np.array_equal(a, b):
            if k in ("height", "knob", "mask") and a.shape == b.shape:
                where = np.argwhere(a != b)[:5].tolist()
                out.append(f"{k} differs at {where}: reference {a[tuple(np.array(where).T)]} jax {b[tuple(np.array(where).T)]}")
            else:
                out.append(f"{k}: reference {a.tolist()} jax {b.tolist()}")
    return out


# Settings cycled over the games of a differential run: every map, 2-4 players, and the options.
SETTINGS = [
    dict(butterfly=False, frog=False),
    dict(butterfly=True, frog=True),
    dict(butterfly=True, frog=False, butterfly_rule="highest_of_colour"),
    dict(butterfly=False, frog=True, monkey_move="mandatory"),
    dict(butterfly=True, frog=True, end_trigger="last_taken"),
]


def game_settings(i: int) -> dict:
    return dict(players=2 + i % 3, map=1 + (i // 3) % 4, **SETTINGS[(i // 12) % len(SETTINGS)])


def differential_batch(jg, first: int, batch: int, seed: int, *, config_dir: str | None = None,
                       values: dict | None = None) -> dict:
    """Play `batch` random games on both engines, decision by decision, and compare them.

    Game i (counted from `first`) has the settings game_settings(i); both engines play the
    JAX deal; the actions are drawn from the reference engine's mask. Raises AssertionError
    with the differences at the first decision where the engines disagree.

    config_dir and values: the reference engine reads the game data of ``config_dir`` while the
    JAX engine plays its own data with these traced values (Params.with_values): the check that
    a tune's candidate plays alike on both."""
    from monkey_env.monkey_palace.game_data import load_game_data

    settings = [game_settings(first + i) for i in range(batch)]
    params = [jg.params(**st).with_values(**(values or {})) for st in settings]
    params = jax.tree_util.tree_map(lambda *xs: jax.numpy.stack(xs), *params)
    keys = jax.random.split(jax.random.PRNGKey(seed), batch)
    states = jg.batch_init(keys, params)
    host = host_batch(jg, states)
    data = {}
    games = []
    for i, st in enumerate(settings):
        m = st["map"]
        data.setdefault(m, load_game_data(m, config_dir=config_dir))
        orders = jg.pile_orders(jax.tree_util.tree_map(lambda x, i=i: x[i], host["state"]))
        games.append(Game.new(data=data[m], pile_orders=orders, seed=seed, build_action=jg.build_action, **st))
    rng = np.random.default_rng(seed)
    decisions = 0
    # The complete build's masks are exact up to their caps: a game whose player held more is
    # counted by name and no longer compared (its masks are not guaranteed).
    over_cap = np.zeros(batch, bool)
    held = {}   # the supply that went past the caps, by game
    while True:
        actions = np.zeros(batch, np.int32)
        for i in np.flatnonzero(np.asarray(host["state"].over_cap) & ~over_cap):
            held[first + int(i)] = games[i].player.supply.as_tuple()
        over_cap |= np.asarray(host["state"].over_cap)
        for i, g in enumerate(games):
            diff = [] if over_cap[i] else differences(reference_view(g), jax_view(jg, host, i))
            if diff:
                raise AssertionError(f"game {first + i} {settings[i]} seed {seed}, decision {len(g.history)} "
                                     f"(phase {g.phase.name}, round {g.round}):\n" + "\n".join(diff))
            if not g.game_over:
                actions[i] = rng.choice(np.flatnonzero(g.legal_mask()))
                g.apply(int(actions[i]))
                decisions += 1
        if all(g.game_over for g in games):
            break
        states = jg.batch_step(states, actions)
        host = host_batch(jg, states)
    return {"games": batch, "decisions": decisions, "rounds": [g.round for g in games],
            "over_cap": [first + int(i) for i in np.flatnonzero(over_cap)], "over_cap_supply": held}
