"""The uniform random agent: every legal action equally likely, at every decision."""

from __future__ import annotations

import numpy as np


class RandomAgent:
    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def act(self, game, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action to choose from")
        return int(self.rng.choice(legal))
