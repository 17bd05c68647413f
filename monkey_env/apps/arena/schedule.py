"""Fair tournament schedules: every agent in every seat equally often, each deal replayed for
every seating, so the luck of the deal cancels out.

A *seating* (lineup) gives an agent name per seat. The seatings of a tournament are all the
ordered tuples of its agents that are invariant under relabelling the agents:

- as many agents as seats or more: every ordered choice of distinct agents (2 agents, 2 seats:
  AB, BA; 3 agents, 2 seats: AB, AC, BA, BC, CA, CB);
- fewer agents than seats: every tuple in which each agent sits at least once (2 agents,
  4 seats: 14 seatings).

Because the set is symmetric, each agent sits in each seat equally often. A *deal* is a game
seed; deal d has seed ``seed + d`` and is played once with every seating. Games are numbered
``index = deal * n_seatings + seating``; that number identifies a game in the database.

Work is cut into *chunks*: one seating and a block of consecutive deals, played together (one
JAX batch, or a few reference games) and committed to the database in one transaction.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable
from dataclasses import dataclass


def seatings(agents: list[str], players: int) -> list[tuple[str, ...]]:
    """The seatings of a tournament between these agents (names must be distinct)."""
    if len(set(agents)) != len(agents):
        raise ValueError(f"an agent is named twice in {', '.join(agents)}; give each agent once")
    if not agents:
        raise ValueError("no agents given")
    if len(agents) == 1:
        raise ValueError(f"a tournament needs at least 2 different agents, got only {agents[0]!r}")
    if len(agents) >= players:
        return list(itertools.permutations(agents, players))
    return [t for t in itertools.product(agents, repeat=players) if set(t) == set(agents)]


@dataclass(frozen=True)
class Chunk:
    """One seating playing a block of consecutive deals."""

    seating_index: int
    seating: tuple[str, ...]
    deals: tuple[int, ...]          # deal numbers (seed = tournament seed + deal)
    indices: tuple[int, ...]        # game indices, one per deal
    seeds: tuple[int, ...]          # game seeds, one per deal


@dataclass(frozen=True)
class Schedule:
    agents: tuple[str, ...]
    players: int
    games: int           # asked for; rounded up to whole deals (a deal is played with every seating)
    seed: int
    chunk_size: int

    @property
    def seatings(self) -> list[tuple[str, ...]]:
        return seatings(list(self.agents), self.players)

    @property
    def deals(self) -> int:
        n = len(self.seatings)
        return -(-self.games // n)

    @property
    def total_games(self) -> int:
        return self.deals * len(self.seatings)

    def game(self, index: int) -> tuple[int, tuple[str, ...], int]:
        """(deal, seating, seed) of game `index`."""
        n = len(self.seatings)
        deal, s = divmod(index, n)
        return deal, self.seatings[s], self.seed + deal

    def chunks(self) -> list[Chunk]:
        """Every chunk, in playing order: a block of deals for each seating, then the next block,
        so a tournament stopped early has every seating about equally played."""
        seats, n = self.seatings, len(self.seatings)
        out = []
        for start in range(0, self.deals, self.chunk_size):
            deals = tuple(range(start, min(start + self.chunk_size, self.deals)))
            for s, seating in enumerate(seats):
                out.append(Chunk(s, seating, deals, tuple(d * n + s for d in deals),
                                 tuple(self.seed + d for d in deals)))
        return out


def until(chunks: Iterable[Chunk], deadline: float | None):
    """The chunks, as long as the deadline (time.monotonic) has not passed."""
    for c in chunks:
        if deadline is not None and time.monotonic() > deadline:
            return
        yield c
