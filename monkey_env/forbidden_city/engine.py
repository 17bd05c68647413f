"""The reference engine of Forbidden City: readable, the specification the JAX engine follows.

A turn, as the rulebook (seed 004): the player lays the tile in hand face up, next to at least
one tile, never joining two rooms of different colours without a wall between (``lay_tile``);
every room the tile closes is scored (``score_closed_rooms``); the player draws the top tile of
their stack (``draw``); the next player clockwise plays. A tile that fits nowhere is set aside
(``set_aside``; a reading, the rulebook does not say). The game ends as the ``ending`` option
says (``end_of_game``): by default, when every player has two tiles left, which are then
revealed and paid for their advisors and dragons (the publisher's ending as reviews describe it).

The rulebook's table has no edge. The grid is finite, so after a tile is laid the whole city
moves one cell away from the grid's border whenever a tile lies on it (``recentre``): a room
never faces the edge unless the city is ``size - 1`` cells wide or tall. The grid is 27 x 27
(``table.yaml``), wider than any measured city; a game that lays a tile on its border (where the
city has to move) is flagged, ``edge_reached`` (in ``stats()``). Action numbers refer to the grid
as it is at that decision (records replay the moves too).

Actions: ``((y * size + x) * 4 + turns)`` lays the tile in hand at (x, y) turned ``turns``
quarter turns clockwise; ``size * size * 4`` sets it aside (legal only when it fits nowhere).
"""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np

from monkey_env.core import outcome
from monkey_env.forbidden_city.city import City, Laid, Room
from monkey_env.forbidden_city.game_data import GameData
from monkey_env.forbidden_city.geometry import DIRECTIONS
from monkey_env.forbidden_city.options import ForbiddenCityOptions
from monkey_env.forbidden_city.scoring import RoomScore, score_room

ROTATIONS = 4
EARLY_TILES = 6                 # the balance lab's "early" tiles: the first six a seat holds
TILE_FEATURES = ("dragon", "blank", "advisors-1", "advisors-2", "diagonal", "door")


def tile_features(kind) -> list[str]:
    """The balance lab's kinds of a tile: its content, and whether it has a diagonal or a door."""
    out = [kind.content]
    if kind.diagonal != "none":
        out.append("diagonal")
    if 2 in kind.face.sides:
        out.append("door")
    return out
TILES_LEFT_AT_END = {"last_two": 2, "all_placed": 0}


class ActionLayout:
    def __init__(self, size: int):
        self.size = size
        self.set_aside = size * size * ROTATIONS
        self.num_actions = self.set_aside + 1

    def encode(self, x: int, y: int, turns: int) -> int:
        return (y * self.size + x) * ROTATIONS + turns

    def decode(self, action: int) -> tuple[int, int, int]:
        cell, turns = divmod(action, ROTATIONS)
        y, x = divmod(cell, self.size)
        return x, y, turns


class Game:
    """One game of Forbidden City on the reference engine."""

    def __init__(self, options: ForbiddenCityOptions, deal: list[list[int]] | None = None,
                 data: GameData | None = None):
        self.options = options
        self.data = data or options.game_data()
        self.players = options.players
        self.layout = ActionLayout(self.data.size)
        self.coins = self.data.table.coins
        self.deal = [list(s) for s in (deal if deal is not None else self.shuffled_stacks())]
        self._check_deal(self.deal)
        self.city = City(self.data.size)
        self.set_up_start_tile()
        # Each player takes the top tile of their stack and holds it, hidden.
        self.stacks = [list(s[1:]) for s in self.deal]
        self.held: list[int | None] = [s[0] for s in self.deal]
        self.current = 0
        self.turns_played = 0
        self.purse = [0] * self.players                        # coins of each seat
        self.history: list[int] = []
        self.set_aside_tiles: list[tuple[int, int]] = []        # (seat, tile)
        self.last_scores: list[RoomScore] = []                  # the rooms the last turn closed
        self.end_coins = [0] * self.players
        self.game_over = False
        self.shift = (0, 0)                                     # (dx, dy) the city moved since set-up (recentre)
        self.edge_reached = False                               # a tile was laid on the grid's border (lay_tile)
        self._closed = {r.id for r in self.city.rooms() if self.city.is_closed(r)}

    # ------------------------------------------------------------------ set-up
    @classmethod
    def from_options(cls, options: ForbiddenCityOptions, **kwargs) -> Game:
        return cls(options, **kwargs)

    def shuffled_stacks(self) -> list[list[int]]:
        """Each player's tiles, shuffled (from the options' seed): the 24 of a colour, with the
        six tiles marked "2" for purple and yellow in a two-player game."""
        rng = np.random.default_rng(self.options.seed)
        n = self.data.stack_size(self.players)
        return [[int(t) for t in rng.permutation(n)] for _ in range(self.players)]

    def _check_deal(self, deal) -> None:
        n = self.data.stack_size(self.players)
        if len(deal) != self.players or any(sorted(s) != list(range(n)) for s in deal):
            raise ValueError(f"a deal is {self.players} stacks, each an order of the tiles 0..{n - 1}")

    def set_up_start_tile(self) -> None:
        """The start tile, chosen side up, in the middle of the table; the palace on it."""
        side = self.options.start_side
        origin = self.data.start_origin(side)
        for y, row in enumerate(self.data.start_cells(side)):
            for x, face in enumerate(row):
                self.city.lay(origin + x, origin + y, Laid(face, -1, y * len(row) + x, 0))

    # ------------------------------------------------------------------ legality
    def held_face(self, seat: int | None = None):
        tile = self.held[self.current if seat is None else seat]
        return None if tile is None else self.data.kinds[tile].face

    def placements(self) -> list[tuple[int, int, int]]:
        """Every (x, y, turns) where the tile in hand may be laid."""
        face = self.held_face()
        if self.game_over or face is None:
            return []
        out = []
        turned = [face.turned(turns) for turns in range(ROTATIONS)]     # once, not once per cell
        for (x, y) in self.frontier():
            for turns in range(ROTATIONS):
                if self.city.placement_problem(turned[turns], x, y) is None:
                    out.append((x, y, turns))
        return out

    def frontier(self) -> list[tuple[int, int]]:
        """The empty cells on the table next to a tile, in action order."""
        cells = set()
        for (x, y) in self.city.cells:
            for d in DIRECTIONS:
                nx, ny, other = self.city.neighbour(x, y, d)
                if other is None and self.city.inside(nx, ny):
                    cells.add((nx, ny))
        return sorted(cells, key=lambda c: (c[1], c[0]))

    def legal_mask(self) -> np.ndarray:
        key = (len(self.history), self.turns_played)
        if getattr(self, "_mask_for", None) != key:       # one computation per decision
            mask = np.zeros(self.layout.num_actions, bool)
            if not self.game_over:
                places = self.placements()
                for x, y, turns in places:
                    mask[self.layout.encode(x, y, turns)] = True
                if not places:
                    mask[self.layout.set_aside] = True
            self._mask, self._mask_for = mask, key
        return self._mask.copy()

    def explain(self, action: int) -> str:
        """"legal", or why not, in a player's words."""
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
            return f"an action is an integer, not {action!r}"
        if not 0 <= action < self.layout.num_actions:
            return f"action {action} is not one of 0..{self.layout.num_actions - 1}"
        if self.game_over:
            return "the game is over"
        if action == self.layout.set_aside:
            return "legal" if self.legal_mask()[action] else "the tile in hand fits somewhere, so it must be laid"
        x, y, turns = self.layout.decode(int(action))
        problem = self.city.placement_problem(self.held_face().turned(turns), x, y)
        return "legal" if problem is None else problem

    def action_name(self, action: int) -> str:
        if action == self.layout.set_aside:
            return "set the tile aside (it fits nowhere)"
        x, y, turns = self.layout.decode(int(action))
        face = self.held_face()
        if face is None:
            return f"lay the tile at ({x}, {y}) turned {turns * 90}°"
        return f"lay the tile at ({x}, {y}) turned {turns * 90}° ({face.turned(turns).words()})"

    # ------------------------------------------------------------------ a turn
    def apply(self, action: int) -> None:
        """One turn; an illegal action raises ValueError and changes nothing."""
        why = self.explain(action)
        if why != "legal":
            known = isinstance(action, (int, np.integer)) and 0 <= action < self.layout.num_actions
            raise ValueError(f"illegal action {action} ({self.action_name(action) if known else '?'}): {why}")
        action = int(action)
        seat = self.current
        self.last_scores = []
        if action == self.layout.set_aside:
            self.set_aside(seat)
        else:
            x, y, turns = self.layout.decode(action)
            self.lay_tile(seat, x, y, turns)
            self.score_closed_rooms()
            self.recentre()
        self.draw(seat)
        self.history.append(action)
        self.turns_played += 1
        self.current = (seat + 1) % self.players
        self.end_of_game()

    def lay_tile(self, seat: int, x: int, y: int, turns: int) -> None:
        tile = self.held[seat]
        self.city.lay(x, y, Laid(self.data.kinds[tile].face.turned(turns), seat, tile, turns))
        self.edge_reached |= self.city.on_border(x, y)
        self.held[seat] = None

    def set_aside(self, seat: int) -> None:
        self.set_aside_tiles.append((seat, self.held[seat]))
        self.held[seat] = None

    def score_closed_rooms(self) -> None:
        """Every room closed by this tile is valued and paid by majority of advisors."""
        self.last_scores = []
        rooms = self.rooms()
        for room in rooms:
            if room.id in self._closed or not self.city.is_closed(room):
                continue
            self._closed.add(room.id)
            scored = score_room(self.city, room, rooms, self.coins, self.players)
            self.last_scores.append(scored)
            for s, c in enumerate(scored.coins):
                self.purse[s] += c

    def recentre(self) -> None:
        """The rules have no table edge: when a tile lies on the grid's border, the whole city
        moves one cell away from it (City.follow_shift). Room ids are node numbers, which all
        grow by the same offset, so they keep their order."""
        dx, dy = self.city.follow_shift()
        if dx == 0 and dy == 0:
            return
        self.city.translate(dx, dy)
        offset = self.city.node_offset(dx, dy)
        moved = lambda room: Room(frozenset(n + offset for n in room.nodes))
        self._closed = {r + offset for r in self._closed}
        self.last_scores = [replace(s, room=moved(s.room), linked=tuple((moved(r), v) for r, v in s.linked))
                            for s in self.last_scores]
        self._rooms_for = None
        self.shift = (self.shift[0] + dx, self.shift[1] + dy)

    def draw(self, seat: int) -> None:
        if self.stacks[seat]:
            self.held[seat] = self.stacks[seat].pop(0)

    def tiles_left(self, seat: int) -> int:
        return len(self.stacks[seat]) + (self.held[seat] is not None)

    def end_of_game(self) -> None:
        """The game ends when every player is down to the tiles the ending leaves; with
        ``last_two`` those are revealed and paid: coins per advisor and per dragon on them."""
        left = TILES_LEFT_AT_END[self.options.ending]
        if any(self.tiles_left(s) > left for s in range(self.players)):
            return
        self.game_over = True
        if self.options.ending == "last_two":
            for s in range(self.players):
                kept = self.stacks[s] + ([self.held[s]] if self.held[s] is not None else [])
                faces = [self.data.kinds[t].face for t in kept]
                self.end_coins[s] = (self.coins.end_advisor * sum(sum(f.advisors) for f in faces)
                                     + self.coins.end_dragon * sum(sum(f.dragons) for f in faces))
                self.purse[s] += self.end_coins[s]

    # ------------------------------------------------------------------ outcome
    @property
    def round(self) -> int:
        """Rounds played (every player one turn)."""
        return self.turns_played // self.players

    @property
    def end_reason(self) -> str:
        if not self.game_over:
            return ""
        return "two tiles left each" if self.options.ending == "last_two" else "every tile laid"

    def stats(self) -> dict:
        """Per-game figures for the balance lab (the JAX engine's batch_stats, one row):
        each seat's count of each tile kind among its first EARLY_TILES tiles, the coins for
        the kept tiles, the rooms scored, and whether a tile was laid on the grid's border
        (edge_reached: 1 or 0; docs/games/forbidden_city.md, "The table")."""
        early = {f"early_{k}": np.zeros(4, np.int64) for k in TILE_FEATURES}
        for seat, stack in enumerate(self.deal):
            for t in stack[:EARLY_TILES]:
                for k in tile_features(self.data.kinds[t]):
                    early[f"early_{k}"][seat] += 1
        end = np.zeros(4, np.int64)
        end[:self.players] = self.end_coins
        start = len(Game(self.options, deal=self.deal, data=self.data)._closed)   # closed at set-up, never scored
        return {**early, "end_coins": end, "rooms_scored": np.int64(len(self._closed) - start),
                "edge_reached": np.int64(self.edge_reached)}

    def places(self) -> list[int]:
        """1 = winner: the most coins (monkey_env.core.outcome; no tie-break: ties share)."""
        return outcome.places(self.purse)

    def winners(self) -> list[int]:
        return outcome.winners(self.purse)

    def scores(self) -> list[int]:
        """Every seat's coins."""
        return list(self.purse)

    # ------------------------------------------------------------------ rooms, for views and agents
    def rooms(self) -> list[Room]:
        key = len(self.city.cells)
        if getattr(self, "_rooms_for", None) != key:       # the city only grows: one flood fill per tile
            self._rooms, self._rooms_for = self.city.rooms(), key
        return list(self._rooms)

    def closed_room_ids(self) -> set[int]:
        return set(self._closed)

    def room_labels(self) -> np.ndarray:
        """(size, size, 2) int: each node's room label (its smallest node number), -1 where no node."""
        n = self.data.size
        labels = -np.ones((n, n, 2), np.int64)
        for room in self.rooms():
            for node in room.nodes:
                cell, part = divmod(node, 2)
                labels[cell // n, cell % n, part] = room.id
        return labels

    # ------------------------------------------------------------------ saves and records
    def to_dict(self) -> dict:
        from monkey_env.forbidden_city.save_format import game_to_dict
        return game_to_dict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Game:
        from monkey_env.forbidden_city.save_format import game_from_dict
        return game_from_dict(d, cls)

    def record(self) -> dict:
        from monkey_env.forbidden_city.save_format import game_record
        return game_record(self)

    @classmethod
    def replay(cls, record: dict) -> Game:
        from monkey_env.forbidden_city.save_format import replay_record
        return replay_record(record, cls)

    def save(self, path) -> None:
        """The game as a JSON save (show reads it)."""
        import json
        from pathlib import Path
        Path(path).write_text(json.dumps(self.to_dict()), encoding="utf-8")

    def redraw_hidden(self, seat: int, rng: np.random.Generator) -> Game:
        """The same game as ``seat`` has seen it, with what it cannot see drawn anew from ``rng``
        (a determinization, for search and for the information-set tests): every stack's order
        and the tiles the other players hold, shuffled within each player's unseen tiles (the
        tiles laid or set aside, and the tile ``seat`` holds, keep their places). The turns are
        replayed. A finished game hides nothing that matters and is replayed as it is."""
        deal = [list(order) for order in self.deal]
        if not self.game_over:
            for o, order in enumerate(deal):
                unseen = len(self.stacks[o]) if o == seat else self.tiles_left(o)
                if unseen:
                    order[-unseen:] = [int(t) for t in rng.permutation(order[-unseen:])]
        return Game.replay({**self.record(), "deal": deal})

    def clone(self) -> Game:
        return copy.deepcopy(self)
