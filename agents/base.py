"""The agent interface every player of monkey-palace implements."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Agent(Protocol):
    """Chooses an action index given the current game and its legal-action mask."""

    name: str

    def act(self, game, mask: np.ndarray) -> int: ...
