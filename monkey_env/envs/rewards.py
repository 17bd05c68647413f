"""Reward modes of every game's environments, computed for a batch of steps (states before, after).

- the game's own mode, its first (``banana``, ``lanterns``, ``coins``): each seat's score change at
  the step, the engine's ``rewards``, so a seat's rewards over a game sum to its final score;
- ``zero_sum``: the own change minus the mean change of the other seats;
- ``terminal``: 0 until the game ends, then 1/k to each of the k winners (the engine's places, with
  the game's own tie-breaks) and -1 to every other seat;
- a game's extra modes (``EnvHooks.extra_rewards``), e.g. The Shadow Theater's ``round_points``.

An illegal action gives its author the environment's penalty and the others 0, in every mode (the
JAX engine writes it into ``rewards`` as it ends the game).
"""

from __future__ import annotations

import numpy as np


def batch_seat_rewards(hooks, engine, mode: str, before, after, players: int) -> np.ndarray:
    """(B, players) float32 rewards of the steps from batched states ``before`` to ``after``."""
    deltas = np.asarray(after.rewards, np.float32)[:, :players]
    if mode == hooks.reward_modes[0]:
        moded = deltas
    elif mode == "zero_sum":
        moded = deltas - (deltas.sum(1, keepdims=True) - deltas) / (players - 1)
    elif mode == "terminal":
        ended = np.asarray(after.terminated) & ~np.asarray(before.terminated)
        first = np.asarray(engine.batch_places(after))[:, :players] == 1
        win = np.where(first, 1.0 / np.maximum(first.sum(1, keepdims=True), 1), -1.0)
        moded = np.where(ended[:, None], win, 0.0)
    else:
        moded = hooks.extra_rewards[mode](before, after, players)
    illegal = np.asarray(after.illegal) & ~np.asarray(before.illegal)
    return np.where(illegal[:, None], deltas, moded).astype(np.float32)
