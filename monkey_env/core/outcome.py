"""Who won: places from final scores and a game's tie-break, the one definition every
command, report and environment uses.

A seat's place is 1 plus the number of seats that beat it; a seat beats another with more
points, or with equal points when it holds the tie-break (in Monkey Palace the Monkey trophy).
Tied seats with no tie-break share a place. The winners are the seats in place 1; a shared
win counts ``1 / len(winners)`` for each of them (``win_shares``): that is how every win rate
of the product counts a tie.

Seats have two numberings, each in its place. In code (lists, ``winners()``, ``places()``,
``current``, ``player_0``, JSON fields holding a seat) a seat is an index from 0, so that
``scores[w]`` is a winner's score. Wherever people read a seat (screens, prompts, reports, and
the ``seat`` field of a report's per-seat rows) it is counted from 1, "seat 1" playing first;
``seat_label`` and ``winners_label`` give that form.
"""

from __future__ import annotations

import numpy as np


def places(scores, tie_break_seat: int = -1) -> list[int]:
    """Each seat's place (1 = winner) from its score; ``tie_break_seat`` wins ties (-1: nobody)."""
    s = [int(v) for v in scores]
    out = []
    for i, mine in enumerate(s):
        beaten_by = sum(1 for j, theirs in enumerate(s)
                        if j != i and (theirs > mine or (theirs == mine and j == tie_break_seat)))
        out.append(1 + beaten_by)
    return out


def winners(scores, tie_break_seat: int = -1) -> list[int]:
    """The seats in first place (several only for a tie that the tie-break does not settle)."""
    return [seat for seat, place in enumerate(places(scores, tie_break_seat)) if place == 1]


def win_shares(scores, tie_break_seat: int = -1) -> list[float]:
    """Each seat's share of the win: 1 for a sole winner, 1/k for each of k tied winners, else 0."""
    w = winners(scores, tie_break_seat)
    return [1.0 / len(w) if seat in w else 0.0 for seat in range(len(scores))]


def batch_places(scores: np.ndarray, players: np.ndarray, tie_break_seat: np.ndarray) -> np.ndarray:
    """``places`` for a batch: scores (B, S), players (B,), tie_break_seat (B,) -> (B, S) int,
    seats past a game's player count get place 0. Works on numpy and jax.numpy arrays alike."""
    xp = np if isinstance(scores, np.ndarray) else __import__("jax.numpy", fromlist=["numpy"])
    n_seats = scores.shape[-1]
    seat = xp.arange(n_seats)
    in_game = seat[None, :] < players[:, None]                                    # (B, S)
    mine = scores[:, :, None]                                                     # (B, i, 1)
    theirs = scores[:, None, :]                                                   # (B, 1, j)
    holder = (seat[None, None, :] == tie_break_seat[:, None, None])               # j holds the tie-break
    beats = (theirs > mine) | ((theirs == mine) & holder)
    beats = beats & in_game[:, None, :] & (seat[:, None] != seat[None, :])[None]
    return xp.where(in_game, 1 + beats.sum(axis=-1), 0)


def seat_label(seat: int) -> str:
    """A seat index (0 plays first) as people read it: ``seat_label(0) == "seat 1"``."""
    return f"seat {int(seat) + 1}"


def winners_label(winner_seats) -> str:
    """Winner indices as people read them: "seat 2", or "seats 1 and 3 (a shared win)"."""
    numbers = [str(int(s) + 1) for s in winner_seats]
    if len(numbers) == 1:
        return f"seat {numbers[0]}"
    return f"seats {', '.join(numbers[:-1])} and {numbers[-1]} (a shared win)"
