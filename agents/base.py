"""The agent interface every player of monkey-palace implements.

Two forms, one agent may offer both:

- ``act(game, mask) -> int``: one decision of one game of the reference engine. ``game`` is
  the game's reference engine being played (its ``reference`` part, monkey_env.games; an agent
  must read only public information from it, never what ``redraw_hidden`` would redraw),
  ``mask`` its legal actions, a bool array over the game's action space.
- ``act_batch(jax_game, states, masks, key) -> (B,) int32``: one decision for each game of a
  batch of the game's JAX engine (its ``jax_engine`` part); ``masks`` is ``(B, actions)``
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


def refusal(agent, options) -> str | None:
    """Why ``agent`` cannot play games with these options at all, or None when it can: an agent
    bound to some options (a network trained for one action space) says so in its optional
    ``cannot_play(options)``."""
    says = getattr(agent, "cannot_play", None)
    return None if says is None else says(options)


def check_plays(agents: dict, options) -> None:
    """Raise a ValueError naming each agent (name -> agent) that cannot play these options, and why."""
    refused = [f"{name}: {why}" for name, a in agents.items() if (why := refusal(a, options))]
    if refused:
        raise ValueError("; ".join(refused))


def plays_batched(agent, options) -> bool:
    """Whether ``agent`` decides batches of the JAX engine for these game options: it has
    ``act_batch``, and its optional ``batches(options)`` does not say otherwise (an agent whose
    batched decisions cover only some options says which)."""
    if not hasattr(agent, "act_batch"):
        return False
    says = getattr(agent, "batches", None)
    return True if says is None else bool(says(options))
