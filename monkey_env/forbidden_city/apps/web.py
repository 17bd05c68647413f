"""Forbidden City in the browser: its reference engine seen as JSON (state, decision, replay frames).

The pages draw the city in 2-D (web_static/forbidden_city_2d.js), as ``render.py`` does:
each laid tile's four quarters tinted by their floor colour (strong once their room is closed),
its walls, doors and diagonal wall, its advisors in the owner's colour and its dragons, the
Imperial Palace and the gardens. A person lays the tile in hand by choosing a rotation (the held
tile is drawn in its four rotations, each as the engine turns it: ``TileFace.turned``) and
clicking a cell; the cell shows the tile in place while hovered. The legal placements come from
``legal_mask``, their words from ``action_name``, a refusal from ``explain``; setting the tile
aside (only when it fits nowhere) is a button.

The state holds every seat's tile in hand (a replay shows them); the play page shows only the
persons'. A browser may choose the players, the start tile's side, the ending and the seed;
never a ``config_dir`` (neither in a new game nor in an uploaded record).
"""

from __future__ import annotations

from pathlib import Path

from monkey_env.apps.web.web_options import WebInputError, make_options, replay_record, schema_of
from monkey_env.forbidden_city.engine import ROTATIONS, Game
from monkey_env.forbidden_city.geometry import COLOURS, SIDE_NAMES, node_id
from monkey_env.forbidden_city.options import ForbiddenCityOptions

NAME = "forbidden_city"
TITLE = "Forbidden City"
# The browser's view of the game (its city in 2-D SVG): scripts of web_static/, which the generic app serves
# at /games/forbidden_city/ (its /api/views/forbidden_city names them; static/js/common.js viewsFor loads them).
STATIC_DIR = Path(__file__).parent / "web_static"
VIEW = {"flat": True, "board": "forbidden_city_2d.js", "panel": "forbidden_city_panel.js"}
WEB_OPTIONS = ("players", "start_side", "ending", "seed")


# ------------------------------------------------------------------------------------ options
def options_schema() -> dict:
    return schema_of(ForbiddenCityOptions, WEB_OPTIONS)


def new_game(raw_options: dict) -> Game:
    return Game.from_options(make_options(ForbiddenCityOptions, raw_options, WEB_OPTIONS))


def players_of(game: Game) -> int:
    return game.players


# ------------------------------------------------------------------------------------ records
def record_of_upload(raw) -> dict:
    """A game record from an uploaded JSON object: a record (options, deal, actions) or a save
    (its position is dropped: the actions replay it), of the shipped game data (the engine checks
    the fingerprint); every action must replay. Raises WebInputError naming the problem."""
    if not isinstance(raw, dict):
        raise WebInputError("a game record is a JSON object")
    if "actions" not in raw:
        raise WebInputError("not a game record or save of Forbidden City (no 'actions')")
    game = replay(raw)
    return game.record()


def replay(record: dict) -> Game:
    return replay_record(Game, record)


# ------------------------------------------------------------------------------------ state
def face_view(face) -> dict:
    """A tile face as laid: per side N E S W open/wall/door, which part each quarter is, and
    per part its floor colour, advisors and dragons."""
    return {"sides": [SIDE_NAMES[s] for s in face.sides], "quarters": list(face.quarter_part),
            "floors": [COLOURS[c] for c in face.floors], "advisors": list(face.advisors),
            "dragons": list(face.dragons), "counts": face.counts}


def state(game: Game, *, decision: bool = True, viewer: int | None = None) -> dict:
    """Everything the pages draw: the city, the rooms closed, the players, and (if asked, and
    ``viewer`` is to play or None) the decision; as seat ``viewer`` sees it: the tiles the
    others hold are hidden (everything when None)."""
    g = game
    size = g.data.size
    rooms = g.rooms()
    room_of = {n: r.id for r in rooms for n in r.nodes}
    closed = g.closed_room_ids()
    cells = []
    for (x, y), laid in sorted(g.city.cells.items(), key=lambda c: (c[0][1], c[0][0])):
        parts = [room_of[node_id(x, y, p, size)] for p in range(laid.face.parts)]
        cells.append({"x": x, "y": y, "owner": laid.owner, "tile": laid.tile, "rotation": laid.rotation,
                      "face": face_view(laid.face), "rooms": parts, "closed": [r in closed for r in parts]})
    colours = g.data.seat_colours(g.players)
    players = []
    for s in range(g.players):
        held = g.held[s] if viewer in (None, s) or g.game_over else None
        players.append({"seat": s, "colour": colours[s], "coins": g.purse[s], "end_coins": g.end_coins[s],
                        "tiles_left": g.tiles_left(s), "stack": len(g.stacks[s]), "holds": g.held[s] is not None,
                        "held": None if held is None else {"tile": held, "words": g.data.kinds[held].describe(),
                                                           "face": face_view(g.data.kinds[held].face)},
                        "set_aside": sum(1 for seat, _ in g.set_aside_tiles if seat == s)})
    last = None
    if g.history and g.history[-1] != g.layout.set_aside:
        x, y, turns = g.layout.decode(g.history[-1])
        last = {"x": x, "y": y, "seat": (g.current - 1) % g.players}
    xs = [x for x, _ in g.city.cells]
    ys = [y for _, y in g.city.cells]
    out = {
        "game": NAME, "phase": "GAME_OVER" if g.game_over else "LAY",
        "phase_words": "nothing: the game is over" if g.game_over else "lay the tile in hand",
        "current": g.current, "round": g.round + 1, "turns_played": g.turns_played, "decisions": len(g.history),
        "game_over": g.game_over, "end_reason": g.end_reason, "size": size,
        "bounds": {"x0": min(xs), "y0": min(ys), "x1": max(xs), "y1": max(ys)},
        "cells": cells, "players": players, "last_laid": last,
        "last_scores": [{"room": sc.room.id, "colour": COLOURS[g.city.floor(sc.room)], "value": sc.value,
                         "own": sc.own, "linked": len(sc.linked), "advisors": list(sc.advisors),
                         "coins": list(sc.coins)} for sc in g.last_scores],
        "scores": g.scores(),
    }
    if g.game_over:
        out["places"] = g.places()
        out["winners"] = g.winners()
    elif decision and viewer in (None, g.current):
        out["decision"] = decision_view(g)
    return out


def decision_view(game: Game) -> dict:
    """The tile in hand in its four rotations, every legal (cell, rotation) with its action and
    words, the empty cells next to the city (where a refusal is explained), and set-aside."""
    g = game
    mask = g.legal_mask()
    face = g.held_face()
    d = {"phase": "LAY", "words": "lay the tile in hand", "seat": g.current, "placements": [], "buttons": [],
         "rotations": [face_view(face.turned(t)) for t in range(ROTATIONS)] if face is not None else [],
         "frontier": [[x, y] for x, y in g.frontier()]}
    for x, y, turns in g.placements():
        a = g.layout.encode(x, y, turns)
        d["placements"].append({"x": x, "y": y, "turns": turns, "action": a, "label": g.action_name(a)})
    if mask[g.layout.set_aside]:
        d["buttons"].append({"action": g.layout.set_aside, "label": g.action_name(g.layout.set_aside)})
    return d

