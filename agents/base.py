"""The agent interface every player of monkey-palace implements.

Two forms, one agent may offer both:

- ``act(game, mask) -> int``: one decision of one game of the reference engine. ``game`` is
  the :class:`monkey_env.monkey_palace.engine.Game` being played (an agent must read only public
  information from it: never the order of the cards inside the piles), ``mask`` its legal
  actions, a ``(2438,)`` bool array indexed as :class:`monkey_env.monkey_palace.actions.ActionLayout`.
- ``act_batch(jax_game, states, masks, key) -> (B,) int32``: one decision for each game of a
  batch of the JAX engine (:class:`monkey_env.monkey_palace.jaxgame.JaxGame`); ``masks`` is ``(B, 2438)``
  bool and ``key`` a JAX PRNG key. It may run on the host (a torch policy does), but batched
  arenas and the training env call it once per step for the whole batch.

Every random choice comes from the seed given at construction (``act``) or from ``key``
(``act_batch``): same seed, same games.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Chooses an action index given the current reference game and its legal-action mask."""

    name: str

    def act(self, game, mask: np.ndarray) -> int: ...


@runtime_checkable
class BatchAgent(Protocol):
    """Chooses one action per game of a batch of JAX states."""

    name: str

    def act_batch(self, jax_game, states, masks, key): ...
