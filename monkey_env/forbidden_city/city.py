"""The city on the table: a grid of laid tiles, its rooms, their closure, links and value.

The rooms are found by flood fill over the nodes (a node is one part of one cell, geometry.py):
two nodes are in the same room when their quarters meet across a side that is open on both
tiles. A room is *closed* when no open side of it faces an empty cell (or the table's edge):
every side is a wall, a door, or open floor against a neighbour's wall. Two rooms are *linked*
when a door stands between them and the other tile's side is not a plain wall (a door blocked
by a wall links nothing; the rulebook's "porte bloquée par un mur").

The rulebook's table has no edge. The grid here is finite (the JAX engine's fixed shapes), so
the engine moves the whole city one cell away whenever a tile lies on the grid's border
(``follow_shift``, ``translate``): only a city size - 1 cells wide or tall meets the edge.
"""

from __future__ import annotations

from dataclasses import dataclass

from monkey_env.forbidden_city.game_data import TileFace
from monkey_env.forbidden_city.geometry import (
    COLOURS,
    DIRECTION_NAMES,
    DIRECTIONS,
    DOOR,
    OPEN,
    PARTS,
    STEP,
    WALL,
    node_cell,
    node_id,
    opposite,
)


@dataclass(frozen=True)
class Laid:
    """A tile on the table: its face as laid, whose it is, and which tile it was."""

    face: TileFace
    owner: int          # seat (from 0); -1 for the start tile's cells
    tile: int           # index of the tile kind (GameData.kinds); for start cells the cell's number
    rotation: int       # clockwise quarter turns


@dataclass(frozen=True)
class Room:
    nodes: frozenset[int]

    @property
    def id(self) -> int:
        """The smallest node number of the room (the JAX engine's room label)."""
        return min(self.nodes)


class City:
    def __init__(self, size: int):
        self.size = size
        self.cells: dict[tuple[int, int], Laid] = {}

    # ------------------------------------------------------------------ the grid
    def inside(self, x: int, y: int) -> bool:
        return 0 <= x < self.size and 0 <= y < self.size

    def on_border(self, x: int, y: int) -> bool:
        """(x, y) is on the grid's outermost row or column (Game.edge_reached)."""
        return x in (0, self.size - 1) or y in (0, self.size - 1)

    def at(self, x: int, y: int) -> Laid | None:
        return self.cells.get((x, y))

    def neighbour(self, x: int, y: int, d: int) -> tuple[int, int, Laid | None]:
        dx, dy = STEP[d]
        return x + dx, y + dy, self.cells.get((x + dx, y + dy))

    def lay(self, x: int, y: int, laid: Laid) -> None:
        self.cells[(x, y)] = laid

    def follow_shift(self) -> tuple[int, int]:
        """(dx, dy), each -1, 0 or 1: the move that takes the city one cell away from the table's
        border along an axis where a tile lies on the border and the far border stays free after
        the move; else 0. The rules have no edge: moving after every tile keeps an empty ring round
        a city at most size - 2 cells wide and tall (a tile widens the city by one cell, on one
        axis), so no placement is refused and no room faces the edge until the city spans
        size - 1 cells; then it meets the border on one side."""
        def along(values: list[int]) -> int:
            lo, hi = min(values), max(values)
            if lo == 0 and hi <= self.size - 3:
                return 1
            if hi == self.size - 1 and lo >= 2:
                return -1
            return 0
        return along([x for x, _ in self.cells]), along([y for _, y in self.cells])

    def translate(self, dx: int, dy: int) -> None:
        """Move every tile by (dx, dy); a node's number grows by node_offset(dx, dy) (the order
        of the nodes, hence every room's id, keeps: the city stays on the table)."""
        moved = {(x + dx, y + dy): laid for (x, y), laid in self.cells.items()}
        assert all(self.inside(x, y) for x, y in moved), "a translation must keep the city on the table"
        self.cells = moved

    def node_offset(self, dx: int, dy: int) -> int:
        return (dy * self.size + dx) * PARTS

    def copy(self) -> City:
        c = City(self.size)
        c.cells = dict(self.cells)
        return c

    # ------------------------------------------------------------------ placement rules
    def placement_problem(self, face: TileFace, x: int, y: int) -> str | None:
        """Why ``face`` may not be laid at (x, y), or None if it may (the rulebook's two rules)."""
        if not self.inside(x, y):
            return f"({x}, {y}) is off the table"
        if (x, y) in self.cells:
            return f"({x}, {y}) already holds a tile"
        touching = [(d, self.neighbour(x, y, d)) for d in DIRECTIONS]
        if not any(n[2] is not None for _, n in touching):
            return f"({x}, {y}) touches no tile (a tile must be laid next to at least one tile)"
        for d, (nx, ny, other) in touching:
            if other is None:
                continue
            mine, theirs = face.floor_towards(d), other.face.floor_towards(opposite(d))
            if face.sides[d] == OPEN and other.face.sides[opposite(d)] == OPEN and mine != theirs:
                return (f"its {COLOURS[mine]} floor on the {DIRECTION_NAMES[d]} side would join the "
                        f"{COLOURS[theirs]} room of ({nx}, {ny}) with no wall between")
        return None

    # ------------------------------------------------------------------ rooms
    def nodes(self):
        for (x, y), laid in self.cells.items():
            for part in range(laid.face.parts):
                yield node_id(x, y, part, self.size)

    def joined(self, node: int):
        """The nodes a node meets through open floor: across open sides, within the room."""
        x, y, part = node_cell(node, self.size)
        face = self.cells[(x, y)].face
        for d in DIRECTIONS:
            if face.quarter_part[d] != part or face.sides[d] != OPEN:
                continue
            nx, ny, other = self.neighbour(x, y, d)
            if other is not None and other.face.sides[opposite(d)] == OPEN:
                yield node_id(nx, ny, other.face.quarter_part[opposite(d)], self.size)

    def rooms(self) -> list[Room]:
        """Every room of the city, by flood fill."""
        seen: set[int] = set()
        out = []
        for start in sorted(self.nodes()):
            if start in seen:
                continue
            room, todo = {start}, [start]
            while todo:
                for nxt in self.joined(todo.pop()):
                    if nxt not in room:
                        room.add(nxt)
                        todo.append(nxt)
            seen |= room
            out.append(Room(frozenset(room)))
        return out

    def open_sides(self, room: Room) -> int:
        """Sides of the room's floor that face an empty cell or the table's edge."""
        count = 0
        for node in room.nodes:
            x, y, part = node_cell(node, self.size)
            face = self.cells[(x, y)].face
            for d in DIRECTIONS:
                if face.quarter_part[d] == part and face.sides[d] == OPEN and self.neighbour(x, y, d)[2] is None:
                    count += 1
        return count

    def is_closed(self, room: Room) -> bool:
        return self.open_sides(room) == 0

    def linked(self, room: Room, room_of: dict[int, Room]) -> list[Room]:
        """The other rooms a door joins to this one directly, each once (a door facing a plain
        wall links nothing)."""
        found: dict[int, Room] = {}
        for node in room.nodes:
            x, y, part = node_cell(node, self.size)
            face = self.cells[(x, y)].face
            for d in DIRECTIONS:
                if face.quarter_part[d] != part:
                    continue
                nx, ny, other = self.neighbour(x, y, d)
                if other is None:
                    continue
                mine, theirs = face.sides[d], other.face.sides[opposite(d)]
                if DOOR in (mine, theirs) and WALL not in (mine, theirs):
                    there = room_of[node_id(nx, ny, other.face.quarter_part[opposite(d)], self.size)]
                    if there.id != room.id:
                        found[there.id] = there
        return [found[k] for k in sorted(found)]

    # ------------------------------------------------------------------ what a room holds
    def cells_of(self, room: Room) -> set[tuple[int, int]]:
        return {node_cell(n, self.size)[:2] for n in room.nodes}

    def tiles(self, room: Room) -> int:
        """The tiles of the room, each once (a diagonal tile counts for the room on each side;
        the start tile's gardens never count)."""
        return sum(1 for (x, y) in self.cells_of(room) if self.cells[(x, y)].face.counts)

    def dragons(self, room: Room) -> int:
        total = 0
        for node in room.nodes:
            x, y, part = node_cell(node, self.size)
            total += self.cells[(x, y)].face.dragons[part]
        return total

    def advisors(self, room: Room, players: int) -> list[int]:
        """Advisors of each seat in the room."""
        out = [0] * players
        for node in room.nodes:
            x, y, part = node_cell(node, self.size)
            laid = self.cells[(x, y)]
            if laid.owner >= 0:
                out[laid.owner] += laid.face.advisors[part]
        return out

    def floor(self, room: Room) -> int:
        x, y, part = node_cell(room.id, self.size)
        return self.cells[(x, y)].face.floors[part]


def room_index(rooms: list[Room]) -> dict[int, Room]:
    """Each node's room."""
    return {n: r for r in rooms for n in r.nodes}


assert PARTS == 2
