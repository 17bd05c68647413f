"""The Shadow Theater's reward modes (the environments' ``reward_mode``).

- ``lanterns`` (default): +1 to a seat at the step it takes a Lantern, -1 to the other (zero-sum);
  a seat's rewards over a game sum to its Lanterns minus the opponent's.
- ``round_points``: as ``lanterns``, plus at each round's end (my points - the opponent's) / 10.
- ``terminal``: at the game's end only, +1 to the winner, -1 to the loser (0 each if shared).
"""

from __future__ import annotations

import numpy as np

MODES = ("lanterns", "round_points", "terminal")
POINT_SCALE = 10.0


def seat_rewards(mode: str, before, after) -> np.ndarray:
    """(2,) rewards of one step from the JAX states before and after it (one game, on the host)."""
    if mode not in MODES:
        raise ValueError(f"reward_mode {mode!r}: one of {', '.join(MODES)}")
    lantern = np.asarray(after.rewards, np.float64)
    if mode == "lanterns":
        return lantern
    if mode == "round_points":
        scored = (np.asarray(before.round_winner) == -2) & (np.asarray(after.round_winner) != -2)
        margin = np.zeros(2)
        for r in np.flatnonzero(scored):
            pts = np.asarray(after.round_points)[r].astype(float)
            margin += (pts - pts[::-1]) / POINT_SCALE
        return lantern + margin
    if not bool(after.terminated) or bool(before.terminated):
        return np.zeros(2)
    lan = np.asarray(after.lanterns)
    return np.sign(lan - lan[::-1]).astype(np.float64)
