"""Reward modes of Forbidden City's environments, from each seat's coin change at a step:
``coins`` (default) the own change (a seat's rewards sum to its final coins); ``zero_sum`` the
own change minus the others' mean; ``terminal`` 0 until the end, then the win share (1/k for k
tied winners, monkey_env.core.outcome) to the winners and -1 to the others."""

from __future__ import annotations

import numpy as np

from monkey_env.core.outcome import batch_places

REWARD_MODES = ("coins", "zero_sum", "terminal")


def batch_seat_rewards(mode: str, deltas, coins, game_over, players: int) -> np.ndarray:
    """(B, players) float32 rewards from (B, 4) deltas and coins and (B,) game_over."""
    deltas = np.asarray(deltas, np.float32)[:, :players]
    if mode == "coins":
        return deltas
    if mode == "zero_sum":
        return deltas - (deltas.sum(1, keepdims=True) - deltas) / (players - 1)
    coins = np.asarray(coins)[:, :players]
    first = batch_places(coins, np.full(len(coins), players), np.full(len(coins), -1)) == 1
    win = np.where(first, 1.0 / first.sum(1, keepdims=True), -1.0)
    return np.where(np.asarray(game_over)[:, None], win, 0.0).astype(np.float32)


def seat_rewards(mode: str, deltas, coins, game_over: bool) -> np.ndarray:
    n = len(deltas)
    return batch_seat_rewards(mode, np.asarray(deltas)[None], np.asarray(coins)[None], np.asarray([game_over]), n)[0]
