"""The differential test: random games on both engines, compared decision by decision.

The reference engine deals from numpy; its deal is given to the JAX engine (``from_deal``), then
both play the same random legal decisions, and at every decision the whole state (as arrays),
the legal mask and the points are compared. The first difference raises AssertionError naming
the game, the decision and the field.
"""

from __future__ import annotations

import numpy as np

from monkey_env.shadow_theater.actions import PHASE_NAMES
from monkey_env.shadow_theater.engine import Game
from monkey_env.shadow_theater.options import ShadowTheaterOptions

COMPARED = ("round", "starter", "current", "phase", "king_ends_turn", "reserve", "supply", "holder", "deck_top",
            "discarded", "board", "king", "scroll", "lanterns", "round_points", "round_winner", "kind_played",
            "kind_held", "scroll_rounds", "terminated")


def reference_arrays(game: Game) -> dict:
    """The reference game's state in the JAX engine's fields (state.py)."""
    from monkey_env.shadow_theater.actions import MAX_ROUNDS, N_CARDS

    holder = np.full(N_CARDS, -1)
    for seat in (0, 1):
        holder[game.hands[seat]] = seat
    discarded = np.zeros(N_CARDS, bool)
    discarded[game.discard] = True
    points, winner = np.zeros((MAX_ROUNDS, 2), int), np.full(MAX_ROUNDS, -2)
    for entry in game.round_log:
        points[entry["round"] - 1] = entry["points"]
        winner[entry["round"] - 1] = entry["winner"]
    return {"round": game.round, "starter": game.starter, "current": game.current,
            "phase": PHASE_NAMES.index(PHASE_NAMES[game.phase]), "king_ends_turn": game.king_ends_turn,
            "reserve": game.reserve, "supply": game.supply, "holder": holder,
            "deck_top": game.data.game.weapon_cards_per_round - len(game.deck), "discarded": discarded,
            "board": game.board, "king": game.king, "scroll": [-1 if s is None else s for s in game.scroll],
            "lanterns": game.lanterns, "round_points": points, "round_winner": winner,
            "kind_played": game.kind_played, "kind_held": game.kind_held, "scroll_rounds": game.scroll_rounds,
            "terminated": game.game_over}


def _compare(game: Game, states, i: int, jax_mask, jax_points, where: str) -> None:
    ref = reference_arrays(game)
    for name in COMPARED:
        a, b = np.asarray(ref[name]), np.asarray(getattr(states, name)[i])
        if a.shape != b.shape or not np.array_equal(a.astype(np.int64), b.astype(np.int64)):
            raise AssertionError(f"{where}: {name} differs: reference {a.tolist()} vs JAX {b.tolist()}")
    if not np.array_equal(game.legal_mask(), np.asarray(jax_mask[i])):
        raise AssertionError(f"{where}: legal masks differ: reference {np.flatnonzero(game.legal_mask()).tolist()} "
                             f"vs JAX {np.flatnonzero(np.asarray(jax_mask[i])).tolist()}")
    if not game.game_over and [game.round_points(s)["total"] for s in (0, 1)] != np.asarray(jax_points[i]).tolist():
        raise AssertionError(f"{where}: points differ")


def differential_batch(engine, first: int, batch: int, seed: int = 0, options: ShadowTheaterOptions | None = None,
                       values: dict | None = None) -> dict:
    """Games ``first .. first + batch - 1`` (their seeds) on both engines with random legal decisions.

    values: traced values (engine.VALUE_FIELDS) the JAX engine plays instead of its data's, while
    the reference engine reads ``options`` (a balance tune's configs folder of the same numbers)."""
    options = options or engine.options
    games = [Game.from_options(options.with_seed(first + g)) for g in range(batch)]
    rngs = [np.random.default_rng([seed, first + g]) for g in range(batch)]
    deal = (np.asarray([g.deal["cards"] for g in games], np.int32), np.asarray([g.deal["scrolls"] for g in games], np.int32),
            np.asarray([g.deal["king"] for g in games], np.int32))
    if values is None:
        states = engine.batch_from_deal(*deal)
    else:
        import jax
        import jax.numpy as jnp

        params = engine.default_params.with_values(**values)
        params = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (batch,) + jnp.shape(x)), params)
        states = engine.batch_from_deal_with(*deal, params)
    decisions, step = 0, 0
    while True:
        masks, points = np.asarray(engine.batch_legal_mask(states)), np.asarray(engine.batch_points(states))
        on_host = type(states)(*(np.asarray(x) for x in states))      # one transfer, not one per game and field
        for i, g in enumerate(games):
            _compare(g, on_host, i, masks, points, f"game {first + i}, decision {step}")
        live = [i for i, g in enumerate(games) if not g.game_over]
        if not live:
            return {"games": batch, "decisions": decisions}
        actions = np.zeros(batch, np.int32)
        for i in live:
            actions[i] = int(rngs[i].choice(np.flatnonzero(games[i].legal_mask())))
            games[i].apply(int(actions[i]))
            decisions += 1
        states = engine.batch_step(states, actions)
        if np.asarray(states.illegal).any():
            raise AssertionError(f"decision {step}: the JAX engine refused a reference-legal action")
        step += 1
