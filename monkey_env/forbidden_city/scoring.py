"""A closed room's value and who is paid for it: the rulebook's majority payout, exactly.

- value: 1 coin per tile of the room and 3 more per dragon, plus the same for every room
  linked to it directly by a door (closed or not, each once);
- the player with the most advisors in the closed room takes the whole value; the sole
  second half of it, rounded down;
- two or more tied for most: each of them half (rounded down), and nobody is second;
- two or more tied for second: they get nothing;
- nobody has an advisor in the room: nobody is paid (the rulebook pays "the player with the
  most advisors"; with none there is no such player).
"""

from __future__ import annotations

from dataclasses import dataclass

from monkey_env.forbidden_city.city import City, Room, room_index
from monkey_env.forbidden_city.game_data import CoinsConfig


def payout(value: int, advisors: list[int]) -> list[int]:
    """Coins for each seat from a closed room of ``value`` with these advisors per seat."""
    coins = [0] * len(advisors)
    most = max(advisors, default=0)
    if most == 0:
        return coins
    first = [s for s, a in enumerate(advisors) if a == most]
    if len(first) > 1:
        for s in first:
            coins[s] = value // 2
        return coins
    coins[first[0]] = value
    rest = [a for a in advisors if 0 < a < most]
    if rest:
        second = max(rest)
        seconds = [s for s, a in enumerate(advisors) if a == second]
        if len(seconds) == 1:
            coins[seconds[0]] = value // 2
    return coins


@dataclass(frozen=True)
class RoomScore:
    """One closed room's scoring, for people and tests."""

    room: Room
    own: int                      # the room's own coins (tiles + dragons)
    linked: tuple[tuple[Room, int], ...]   # each linked room and its coins
    advisors: tuple[int, ...]
    coins: tuple[int, ...]        # paid to each seat

    @property
    def value(self) -> int:
        return self.own + sum(v for _, v in self.linked)


def room_coins(city: City, room: Room, coins: CoinsConfig) -> int:
    return coins.tile * city.tiles(room) + coins.dragon * city.dragons(room)


def score_room(city: City, room: Room, rooms: list[Room], coins: CoinsConfig, players: int) -> RoomScore:
    links = city.linked(room, room_index(rooms))
    linked = tuple((r, room_coins(city, r, coins)) for r in links)
    own = room_coins(city, room, coins)
    advisors = city.advisors(room, players)
    return RoomScore(room, own, linked, tuple(advisors), tuple(payout(own + sum(v for _, v in linked), advisors)))
