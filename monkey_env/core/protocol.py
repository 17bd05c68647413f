"""What a game of the product implements, so that the environments' shared tests, the
arena, the balance lab, ``simulate``, ``evaluate`` and ``play`` can work with any of them.

A game lives in its own subpackage (``monkey_env/<game>/``) and is registered by name in
``monkey_env.games``. It provides:

- an **options** model (pydantic, ``monkey_env.core.options``): every choice made when a game
  is created, declared once; command-line flags and save schemas are made from it;
- a **reference engine** (``ReferenceGame`` below): readable, the specification;
- optionally a **JAX engine** (``JaxEngine`` below) that agrees with it decision by decision;
- a PettingZoo AEC environment (and, where they exist, a Gymnasium view and a batched VecEnv);
- its agents, registered by name for that game (``monkey_env.agents.registry``).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

# What an illegal action costs its author in every game's JAX engine and environments (the game
# ends at once, the others get 0): worse than any legal game's outcome in every reward mode, so
# a policy never prefers it. Agents act through the legal-action masks and never pay it.
ILLEGAL_PENALTY = -10.0


class SaveFileError(ValueError):
    """A save or record file of any game that cannot be read back; the message says what is wrong."""


@runtime_checkable
class GameOptions(Protocol):
    """A game's options object (a pydantic model, ``monkey_env.core.options``) as callers read it."""

    seed: int                     # the game's seed: every random choice of the deal comes from it
    players: int                  # the player count (a field fixed at 2 where the game is a duel)


@runtime_checkable
class ReferenceGame(Protocol):
    """One game on the reference engine. Actions are indices of one flat action space."""

    options: Any                  # the game's options object (GameOptions)
    current: int                  # the seat (from 0) to decide now
    history: list[int]            # the agents' decisions so far
    round: int                    # the game's round (every seat one turn), as the game counts it
    end_reason: str               # why the game ended, in words ("" while it goes on)

    @classmethod
    def from_options(cls, options, **kwargs) -> ReferenceGame: ...

    @property
    def game_over(self) -> bool: ...

    def legal_mask(self) -> np.ndarray: ...            # (num_actions,) bool
    def apply(self, action: int) -> None: ...          # raises on an illegal action, changing nothing
    def explain(self, action: int) -> str: ...         # "legal", or why not, in a player's words
    def action_name(self, action: int) -> str: ...     # the action in words
    def scores(self) -> list[int]: ...
    def places(self) -> list[int]: ...                 # 1 = winner (monkey_env.core.outcome)
    def winners(self) -> list[int]: ...
    def redraw_hidden(self, seat: int, rng) -> ReferenceGame: ...
    # ^ the same game as ``seat`` has seen it, what it cannot see drawn anew from the numpy
    #   Generator ``rng`` (same history): a game's hidden information, declared. Nothing a seat
    #   receives (observation, infos, agents' choices, text, web data) may change under it
    #   (tests/test_information_sets.py).
    def stats(self) -> dict: ...                       # the game's own per-game figures (name -> number or
    #   per-seat array) for the balance report; {} for a game without any
    def to_dict(self) -> dict: ...                     # an independent JSON-able snapshot
    def record(self) -> dict: ...                      # options, deal and actions

    @classmethod
    def from_dict(cls, d: dict) -> ReferenceGame: ...

    @classmethod
    def replay(cls, record: dict) -> ReferenceGame: ...


@runtime_checkable
class JaxEngine(Protocol):
    """Pure, jittable functions over a state pytree, and their batched forms.

    Every state has the fields ``current`` () int32 (the seat to decide), ``terminated`` () bool
    and ``illegal`` () bool (the game ended on an illegal action); a batch adds a leading axis."""

    num_actions: int

    def params(self, options=None, /, **values): ...   # traced settings of one game
    def init(self, key, params=None): ...
    def step(self, state, action): ...
    def legal_action_mask(self, state): ...
    def observe(self, state, player): ...
    def batch_init(self, keys, params=None): ...
    def batch_step(self, states, actions): ...
    def batch_legal_mask(self, states): ...
    def batch_places(self, states): ...                # (B, seats) places, 1 = winner
    def seat_places(self, states): ...                 # the same traceable (inside a caller's jit): (B, S) int32
    #   over the state's whole seat axis S, 0 for a seat not in the game (the JAX PPO, the search)
    def batch_scores(self, states): ...                # (B, seats) each seat's score, as the game counts it
    def batch_rounds(self, states): ...                # (B,) the round of each game, as the reference's ``round``
    def batch_stats(self, states): ...                 # the reference's stats() for a batch, one row per game ({} none)
    def scores(self, state): ...                       # (players,) scores of one game
