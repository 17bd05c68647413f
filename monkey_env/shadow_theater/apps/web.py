"""The Shadow Theater in the browser: its reference engine seen as JSON (state, decision, replay frames).

The pages draw it in 2-D (web_static/shadow_theater_2d.js): the three locations with their
spaces, the Monkey King and the monkeys; the reserve; each seat's supply, hand, scroll, points if
the round ended now and Lanterns. A person's decision is offered where it is drawn: a free space
of a location (place a monkey there, or send the King there), a location's monkeys (collect
them), a weapon card of the hand (play it), one of the two Scroll tiles drawn (keep it); pass is
a button. Every choice comes from ``legal_mask``, its words from ``action_name``, and a refusal
from ``explain``.

A seat's page gets only what that seat may know (``state(game, viewer=seat)``): the other hand
as that many face-down cards, its points without them, the other's drawn Scroll tiles and
decision left out; a replay (``viewer`` None) and a finished game show both hands.
Only the seed may be chosen from a browser (the game is a duel; the game data are the shipped
ones: never a ``config_dir``, neither in a new game nor in an uploaded record).
"""

from __future__ import annotations

from pathlib import Path

from monkey_env.apps.web.web_options import WebInputError, make_options, replay_record, schema_of
from monkey_env.shadow_theater.actions import (
    COLLECT,
    DRAFT,
    KEEP,
    KING,
    KING_MOVE,
    N_CARDS,
    NUM_ACTIONS,
    OVER,
    PASS,
    PLACE,
    PLAY,
    TURN,
)
from monkey_env.shadow_theater.engine import JADE, MONKEYS, PEACHES, Game, describe_card, describe_scroll
from monkey_env.shadow_theater.game_data import LOCATION_NAMES, LOCATIONS, load_game_data
from monkey_env.shadow_theater.options import ShadowTheaterOptions

NAME = "shadow_theater"
TITLE = "The Shadow Theater"
# The browser's view of the game (its board in 2-D SVG): scripts of web_static/, which the generic app serves
# at /games/shadow_theater/ (its /api/views/shadow_theater names them; static/js/common.js viewsFor loads them).
STATIC_DIR = Path(__file__).parent / "web_static"
VIEW = {"flat": True, "board": "shadow_theater_2d.js", "panel": "shadow_theater_panel.js"}
WEB_OPTIONS = ("players", "seed")
PHASES = {DRAFT: "DRAFT", TURN: "TURN", KING_MOVE: "KING_MOVE", OVER: "GAME_OVER"}
PHASE_WORDS = {DRAFT: "keep one of your two Scroll tiles", TURN: "play cards (if any), then place or collect",
               KING_MOVE: "move the Monkey King", OVER: "nothing: the game is over"}
TITLES = {"lair": "Dragon's Lair", "palace": "Emperor's Palace", "garden": "Celestial Garden"}


# ------------------------------------------------------------------------------------ options
def options_schema() -> dict:
    """The start form's options: the seed (and the players, always 2)."""
    return schema_of(ShadowTheaterOptions, WEB_OPTIONS)


def new_game(raw_options: dict) -> Game:
    return Game.from_options(make_options(ShadowTheaterOptions, raw_options, WEB_OPTIONS))


def players_of(game: Game) -> int:
    return 2


# ------------------------------------------------------------------------------------ records
def record_of_upload(raw) -> dict:
    """A game record from an uploaded JSON object: a record (options, deal, actions) or a save
    (``to_dict``: its history becomes the actions), of the shipped game data; every action must
    replay. Raises WebInputError naming the problem."""
    if not isinstance(raw, dict):
        raise WebInputError("a game record is a JSON object")
    if "actions" not in raw and "history" not in raw:
        raise WebInputError("neither a game record (no 'actions') nor a saved game (no 'history')")
    record = {"game": NAME, "options": raw.get("options", {}), "data": raw.get("data"), "deal": raw.get("deal"),
              "actions": raw["actions"] if "actions" in raw else raw["history"]}
    if not isinstance(record["actions"], list) or not all(type(a) is int for a in record["actions"]):
        raise WebInputError("the record is malformed: actions: must be a list of integers")
    replay(record)                                   # every action must replay
    return record


def replay(record: dict) -> Game:
    return replay_record(Game, record, data=load_game_data().fingerprint)


# ------------------------------------------------------------------------------------ state
def _card(game: Game, card: int) -> dict:
    c = game.data.cards[card]
    return {"id": c.id, "name": c.name, "location": LOCATIONS[c.location], "effect": c.effect,
            "words": describe_card(c), "points": c.points}


def _scroll(game: Game, index: int | None) -> dict | None:
    if index is None:
        return None
    s = game.data.scrolls[index]
    return {"id": index, "name": s.name, "words": describe_scroll(s)}


def _count(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def location_effects(game: Game) -> dict[str, str]:
    """What placing a monkey on each location gives, in words, from the game data."""
    e = game.data.game.place_effects
    garden = f"take {_count(int(e.garden.get('peaches', 0)), 'peach', 'peaches')}"
    return {"lair": f"take {_count(e.lair.get('cards', 0), 'weapon card')}",
            "palace": f"take {e.palace.get('jade', 0)} jade and {_count(e.palace.get('monkeys', 0), 'monkey')}",
            "garden": garden + (", then move the King" if e.garden.get("move_king") else "")}


def state(game: Game, *, decision: bool = True, viewer: int | None = None) -> dict:
    """Everything the pages draw: locations, reserve, players, round log, and (if asked, and
    ``viewer`` is to play or None) the decision; as seat ``viewer`` sees it (everything when None)."""
    g = game
    over = g.game_over
    sees = [viewer is None or viewer == seat or over for seat in (0, 1)]
    spaces = g.data.game.spaces_per_location
    effects = location_effects(g)
    locations = [{"name": name, "title": TITLES[name], "words": LOCATION_NAMES[name], "effect": effects[name],
                  "spaces": spaces, "monkeys": g.board[loc], "king": g.king == loc, "free": g.free_spaces(loc)}
                 for loc, name in enumerate(LOCATIONS)]
    players = []
    for seat in (0, 1):
        s = g.supply[seat]
        points = g.round_points(seat)
        if not sees[seat]:          # the hand is face down: its cards' points are unknown
            points = {**points, "cards": None, "total": None, "without_cards": points["total"] - points["cards"]}
        drafting = g.phase == DRAFT and g.scroll[seat] is None
        players.append({
            "seat": seat, "supply": {"monkeys": s[MONKEYS], "jade": s[JADE], "peaches": s[PEACHES]},
            "hand": [_card(g, c) if sees[seat] else {"id": None, "hidden": True} for c in g.hands[seat]],
            "scroll": _scroll(g, g.scroll[seat]),
            "drawn": [_scroll(g, i) if sees[seat] else {"hidden": True} for i in g.drawn.get(seat, [])] if drafting else [],
            "points": points, "lanterns": g.lanterns[seat], "starter": g.starter == seat,
        })
    r = g.reserve
    out = {
        "game": NAME, "phase": PHASES[g.phase], "phase_words": PHASE_WORDS[g.phase], "current": g.current,
        "round": g.round, "decisions": len(g.history), "game_over": over, "end_reason": g.end_reason,
        "lanterns_to_win": g.data.game.lanterns_to_win, "locations": locations,
        "reserve": {"monkeys": r[MONKEYS], "jade": r[JADE], "peaches": r[PEACHES], "cards": len(g.deck)},
        "discard": [_card(g, c) for c in g.discard], "exhausted": g.exhausted(), "players": players,
        "round_log": [dict(e) for e in g.round_log], "scores": g.scores(),
        # Where each kind of action starts in the flat action space (the board marks a move's location).
        "layout": {"play": PLAY, "place": PLACE, "collect": COLLECT, "king": KING, "keep": KEEP, "pass": PASS},
    }
    if over:
        out["places"] = g.places()
        out["winners"] = g.winners()
    elif decision and viewer in (None, g.current):
        out["decision"] = decision_view(g)
    return out


def decision_view(game: Game) -> dict:
    """The legal choices, grouped where the board draws them: cards of the hand, locations
    (place, collect, the King's move), the scrolls drawn, and the rest as buttons."""
    mask = game.legal_mask()
    d = {"phase": PHASES[game.phase], "words": PHASE_WORDS[game.phase], "seat": game.current,
         "cards": [], "place": [], "collect": [], "king": [], "scrolls": [], "buttons": []}
    for a in range(NUM_ACTIONS):
        if not mask[a]:
            continue
        choice = {"action": a, "label": game.action_name(a)}
        if PLAY <= a < PLAY + N_CARDS:
            d["cards"].append({**choice, "card": a - PLAY})
        elif PLACE <= a < COLLECT:
            d["place"].append({**choice, "location": LOCATIONS[a - PLACE]})
        elif COLLECT <= a < KING:
            d["collect"].append({**choice, "location": LOCATIONS[a - COLLECT], "monkeys": game.board[a - COLLECT]})
        elif KING <= a < KEEP:
            d["king"].append({**choice, "location": LOCATIONS[a - KING]})
        elif KEEP <= a < PASS:
            d["scrolls"].append({**choice, "choice": a - KEEP,
                                 "scroll": _scroll(game, game.drawn[game.current][a - KEEP])})
        else:
            d["buttons"].append(choice)
    return d


