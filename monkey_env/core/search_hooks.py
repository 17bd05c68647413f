"""What a game gives the search agent (agents/mcts.py), as its ``search`` part (monkey_env.games).

    SEARCH = SearchHooks(redraw=redraw_hidden)            # in monkey_env/<game>/search.py

The search runs on the game's JAX engine and reads the rest through the game's PPO's PolicyGame
(agents/ppo_games.py: seats, players, places, score change), or, for a game without a JAX PPO,
through the optional hooks below; what only the game knows is here.
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
    # A game without a JAX PPO gives what the search otherwise reads of the PPO's PolicyGame
    # (agents/ppo_games.py), all jittable over a batch: players(states) -> (B,) int32; places(states)
    # -> (B, seats) 1 = winner; score_change(before, after) -> (B, seats) float32; and
    # state_of(jax_engine, game) -> the JAX state of a reference game (for ``act``). Its ``mcts``
    # then searches with ``prior=uniform``: every legal action alike, a value of 0.
    players: Callable | None = None
    places: Callable | None = None
    score_change: Callable | None = None
    state_of: Callable | None = None
    # The game's own defaults for ``mcts``, in the name's syntax ("rollout=99"): what measured best
    # on this game (its doc page says how); a name's own settings override them, and results
    # record the settings played (the agent's version).
    mcts_settings: str = ""
