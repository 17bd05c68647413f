"""The Shadow Theater's own reward mode ``round_points``; the others are every game's
(monkey_env.envs.rewards): ``lanterns`` (default, +1 to a seat at the step it takes a Lantern, -1
to the other) and ``terminal``."""

from __future__ import annotations

import numpy as np

POINT_SCALE = 10.0


def round_points_rewards(before, after, players: int) -> np.ndarray:
    """(B, 2): the Lantern rewards plus, at each round's end, (my points - the opponent's) / 10."""
    lantern = np.asarray(after.rewards, np.float32)[:, :2]
    scored = (np.asarray(before.round_winner) == -2) & (np.asarray(after.round_winner) != -2)   # (B, rounds)
    points = np.asarray(after.round_points, np.float32)                                         # (B, rounds, 2)
    margin = ((points - points[..., ::-1]) * scored[..., None]).sum(1) / POINT_SCALE
    return lantern + margin
