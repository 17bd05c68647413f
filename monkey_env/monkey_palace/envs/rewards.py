"""Reward modes shared by every environment.

Given each seat's change of Banana Points at a step (``deltas``, shape (players,)), the
reward of each seat is:

- ``"banana"`` (default): its own change. A card counts when bought, a bonus card when
  taken, a trophy when won, and a trophy lost is a negative reward to the loser at once, so
  a seat's rewards over a game sum to its final Banana Points.
- ``"zero_sum"``: its own change minus the mean change of the other seats; the rewards of a
  step sum to zero, and over a game to the seat's score minus the others' mean score.
- ``"terminal"``: 0 until the game ends, then each winner's share of the win (1 for a sole
  winner, 1/k for each of k tied winners; the Monkey trophy's holder wins a tie, as the
  rulebook says, monkey_env.core.outcome) and -1 for every other seat.

An illegal action (the environments end the game on one) gives its player the illegal
penalty and the others 0, whatever the mode.
"""

from __future__ import annotations

import numpy as np

from monkey_env.core.outcome import batch_places

REWARD_MODES = ("banana", "zero_sum", "terminal")


def check_mode(mode: str) -> str:
    if mode not in REWARD_MODES:
        raise ValueError(f"unknown reward mode {mode!r}; choose one of {', '.join(REWARD_MODES)}")
    return mode


def seat_rewards(mode: str, deltas: np.ndarray, scores: np.ndarray, game_over: bool,
                 monkey_holder: int = -1) -> np.ndarray:
    """Rewards of every seat for one step (float32, shape (players,))."""
    n = len(deltas)
    return batch_seat_rewards(mode, np.asarray(deltas)[None], None if scores is None else np.asarray(scores)[None],
                              np.asarray([game_over]), n, np.asarray([monkey_holder]))[0]


def batch_seat_rewards(mode: str, deltas: np.ndarray, scores: np.ndarray, game_over: np.ndarray,
                       players: int, monkey_holder: np.ndarray | None = None) -> np.ndarray:
    """The same for a batch: deltas and scores (B, 4) with seats past `players` ignored.
    Scores are read only by the terminal mode (others may pass None)."""
    deltas = np.asarray(deltas, np.float32)[:, :players]
    if mode == "banana":
        return deltas
    if mode == "zero_sum":
        return deltas - (deltas.sum(1, keepdims=True) - deltas) / (players - 1)
    scores = np.asarray(scores)[:, :players]
    holder = np.full(len(scores), -1) if monkey_holder is None else np.asarray(monkey_holder)
    first = batch_places(scores, np.full(len(scores), players), holder) == 1
    share = 1.0 / first.sum(1, keepdims=True)
    win = np.where(first, share, -1.0).astype(np.float32)
    return np.where(np.asarray(game_over)[:, None], win, 0.0).astype(np.float32)
