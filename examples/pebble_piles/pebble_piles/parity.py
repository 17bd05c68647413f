"""The differential test: random games on both engines, compared decision by decision.

The reference engine deals from numpy; its deal is given to the JAX engine (``from_deal``), then
both play the same random legal decisions, and at every decision the state, the legal mask, the
scores and the places are compared. The first difference raises AssertionError naming the game,
the decision and the field.
"""

from __future__ import annotations

import numpy as np

from pebble_piles.engine import Game
from pebble_piles.options import PebblePilesOptions

COMPARED = ("piles", "current", "last_taker", "round")


def _compare(game: Game, states, i: int, masks, places, where: str) -> None:
    players = game.options.players
    for name in COMPARED:
        ref, jax_value = np.asarray(getattr(game, name)), np.asarray(getattr(states, name)[i])
        if not np.array_equal(ref, jax_value):
            raise AssertionError(f"{where}: {name} differs: reference {ref.tolist()} vs JAX {jax_value.tolist()}")
    if game.scores() != np.asarray(states.points[i][:players]).tolist() or any(states.points[i][players:]):
        raise AssertionError(f"{where}: points differ: reference {game.scores()} vs JAX {states.points[i].tolist()}")
    if game.game_over != bool(states.terminated[i]):
        raise AssertionError(f"{where}: the end differs: reference {game.game_over} vs JAX {bool(states.terminated[i])}")
    if not np.array_equal(game.legal_mask(), masks[i]):
        raise AssertionError(f"{where}: legal masks differ: reference {np.flatnonzero(game.legal_mask()).tolist()} "
                             f"vs JAX {np.flatnonzero(masks[i]).tolist()}")
    if game.places() != places[i][:players].tolist():
        raise AssertionError(f"{where}: places differ: reference {game.places()} vs JAX {places[i].tolist()}")


def differential_batch(engine, first: int, batch: int, seed: int = 0, options: PebblePilesOptions | None = None) -> dict:
    """Games ``first .. first + batch - 1`` (their seeds; 2, 3 and 4 players in turn unless
    ``options`` says) on both engines with random legal decisions."""
    games = [Game.from_options(options.with_seed(first + g) if options else
                               PebblePilesOptions(players=2 + (first + g) % 3, seed=first + g)) for g in range(batch)]
    rngs = [np.random.default_rng([seed, first + g]) for g in range(batch)]
    # the player count is traced, one per game: one compiled program per batch size
    states = engine.batch_from_deal(np.asarray([g.deal["piles"] for g in games], np.int32),
                                    np.asarray([g.options.players for g in games], np.int32))
    decisions, step = 0, 0
    while True:
        masks = np.asarray(engine.batch_legal_mask(states))
        places = np.asarray(engine._batch_places(states))
        on_host = type(states)(*(np.asarray(x) for x in states))      # one transfer, not one per game and field
        for i, g in enumerate(games):
            _compare(g, on_host, i, masks, places, f"game {first + i}, decision {step}")
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
