"""What a game gives the search agent (agents/mcts.py), as its ``search`` part (monkey_env.games).

    SEARCH = SearchHooks(redraw=redraw_hidden)            # in monkey_env/<game>/search.py

The search runs on the game's JAX engine and reads the rest through the game's PPO's PolicyGame
(agents/ppo_games.py: seats, players, places, score change); what only the game knows is here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SearchHooks:
    # redraw(state, seat, key) -> state: one game's JAX state with everything ``seat`` cannot see
    # drawn anew from ``key``, as a function of the seat's view and the key only (a
    # determinization); the seat's ``observe`` must not change (tests/test_mcts_games.py). Jittable.
    redraw: Callable
    # A prior and value with no network, if the game has one: (jax_engine, **settings) ->
    # prior_value(states) -> (logits (B, A), value (B,)); None: ``mcts:prior=greedy`` is refused.
    greedy_prior_value: Callable | None = None
