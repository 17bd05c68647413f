"""The saved games a user meets, for every game: one way to open them, with the game read from the file.

``monkey-palace play`` saves ``{"game": NAME, "human": SEAT, "opponents": [...], "state": SAVE}``,
where SAVE is the engine's own ``to_dict()``; ``show``, ``play --resume`` and the browser's
upload open that file, and also an engine save (``Game.save``, ``simulate --out``), a game record
(``Game.record()``: options, deal, actions), a file of the browser's games folder, and the first
Monkey Palace play saves (``{"monkey_palace_play": 1, ..., "game": SAVE}``).

Every loader replays the file's decisions from its deal (``load_game``), and a save whose stored
position is not the one its history leads to is refused, naming the first field where the two
disagree (a save edited by hand, or damaged). Errors are SaveError (a ValueError), one line each.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from monkey_env.games import DEFAULT_GAME, game_names, game_spec

FINGERPRINT_KEYS = ("data_fingerprint", "data", "fingerprint")   # each game's name of its game data's hash
# What a record (``Game.record()``) holds, in every game: a file with actions and nothing else is a
# record; a save holds its position beside them (its decisions as "history", or its record whole).
RECORD_KEYS = frozenset({"version", "game", "options", "deal", "actions", *FINGERPRINT_KEYS})


class SaveError(ValueError):
    """A file that is not a save or record of a game here, or that disagrees with its own history."""


@dataclass
class Opened:
    """A save or record, its game told from the file (nothing replayed yet)."""

    spec: object                    # the game's GameSpec
    kind: str                       # "save" (a position and its history) or "record" (options, deal, actions)
    doc: dict                       # the engine's dict: a save (to_dict) or a record
    where: str                      # the file's name, for messages
    human: int | None = None        # the terminal player's seat, when play saved it
    opponents: list | None = None   # the bots' names, when play or the browser saved it


def play_save(game_name: str, human: int, opponents: list[str], game) -> dict:
    """What ``monkey-palace play`` writes, for every game."""
    return {"game": game_name, "human": int(human), "opponents": list(opponents), "state": game.to_dict()}


def read_json(path: str | Path) -> dict:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise SaveError(f"{path}: cannot read the file ({e.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SaveError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(doc, dict):
        raise SaveError(f"{path}: expected a JSON object")
    return doc


def _titles() -> str:
    titles = [game_spec(n).title for n in game_names()]
    return ", ".join(titles[:-1]) + " or " + titles[-1]


def open_doc(doc, where: str = "the file") -> Opened:
    """Which game a loaded JSON object is of, and what kind of file it is (no replay)."""
    if not isinstance(doc, dict):
        raise SaveError(f"{where}: expected a JSON object")
    human = opponents = None
    if isinstance(doc.get("state"), dict) and isinstance(doc.get("game"), str):      # play's save
        name, inner, human, opponents = doc["game"], doc["state"], doc.get("human"), doc.get("opponents")
    elif first_play := [n for n in game_names() if f"{n}_play" in doc]:              # the first game's first ones
        name, inner, human, opponents = first_play[0], doc.get("game"), doc.get("human"), doc.get("opponents")
    elif isinstance(doc.get("record"), dict) and isinstance(doc.get("seats"), list):  # the browser's games folder
        name, inner = doc.get("game", DEFAULT_GAME), doc["record"]
        seats = [s for s in doc["seats"] if isinstance(s, dict)]
        humans = [i for i, s in enumerate(seats) if s.get("kind") == "human"]
        bots = [s.get("agent") for s in seats if s.get("kind") == "bot"]
        if len(humans) == 1 and len(bots) == len(seats) - 1 and all(isinstance(b, str) for b in bots):
            human, opponents = humans[0], bots
    elif isinstance(doc.get("game"), str):                                           # an engine save or record
        name, inner = doc["game"], doc
    elif "actions" in doc or "history" in doc or "data_fingerprint" in doc:          # the first game's carry no name
        name, inner = DEFAULT_GAME, doc
    else:
        raise SaveError(f"{where}: neither a game record (no 'actions') nor a saved game (no 'history') "
                        f"of {_titles()}")
    if name not in game_names():
        raise SaveError(f"{where}: a file of the game {name!r}, which is not one of {', '.join(game_names())}")
    if not isinstance(inner, dict):
        raise SaveError(f"{where}: the saved game is not a JSON object")
    if human is not None or opponents is not None:
        if type(human) is not int or not isinstance(opponents, list) or not all(isinstance(n, str) for n in opponents):
            raise SaveError(f"{where}: not a saved terminal game (its human seat and opponents are malformed)")
    kind = "record" if "actions" in inner and set(inner) <= RECORD_KEYS else "save"
    return Opened(game_spec(name), kind, inner, where, human, opponents)


def open_file(path: str | Path) -> Opened:
    return open_doc(read_json(path), str(path))


def record_of(opened: Opened) -> dict:
    """The record (options, deal, actions) of a save or record: what a replay needs."""
    d = opened.doc
    if opened.kind == "record" or ("actions" in d and "history" not in d):   # a save holding its record whole
        return d
    if "history" not in d:
        raise SaveError(f"{opened.where}: the save is malformed: history: missing (the decisions that led to it)")
    return {**{k: d[k] for k in RECORD_KEYS - {"actions"} if k in d}, "actions": d["history"]}


def _with_config_dir(d: dict, config_dir: str | None) -> dict:
    if config_dir is None or not isinstance(d.get("options"), dict):
        return d
    return {**d, "options": {**d["options"], "config_dir": str(config_dir)}}


def load_game(opened: Opened, config_dir: str | None = None):
    """The game of a save or record: its decisions replayed from its deal; a save's stored
    position must be the one they lead to. config_dir: where the game data now are (show)."""
    Game = opened.spec.load("reference")
    doc = _with_config_dir(opened.doc, config_dir)
    stored = None
    try:
        if opened.kind == "save" and opened.spec.has("checked_save"):
            stored = opened.spec.load("checked_save")(doc)   # the save format's schema and game data first
        record = record_of(Opened(opened.spec, opened.kind, doc, opened.where))
        game = Game.replay(record)
    except SaveError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
        raise SaveError(f"{opened.where}: {e}") from None
    replayed = game.to_dict() if opened.kind == "save" else game.record()
    for key in FINGERPRINT_KEYS:
        if key in doc and key in replayed and doc[key] != replayed[key]:
            raise SaveError(f"{opened.where}: made with other game data (fingerprint {doc[key]}; "
                            f"these game data: {replayed[key]})")
    if opened.kind == "save":
        if stored is None:
            stored = {**doc, "options": replayed["options"]}     # the options the replay validated
        where = first_difference(stored, replayed)
        if where is not None:
            path, saved, actual = where
            raise SaveError(f"{opened.where}: the save disagrees with its own history: {path} is {saved}, but "
                            f"replaying its {len(game.history)} decisions gives {actual} (edited by hand, or damaged)")
    return game


def load_file(path: str | Path, config_dir: str | None = None):
    """(Opened, game) of a file: ``show`` and ``play --resume``."""
    opened = open_file(path)
    return opened, load_game(opened, config_dir)


def _shown(value) -> str:
    text = json.dumps(value) if not isinstance(value, _Missing) else "missing"
    return text if len(text) <= 60 else text[:57] + "..."


class _Missing:
    pass


def first_difference(saved, actual, path: str = "") -> tuple[str, str, str] | None:
    """(path, saved value, replayed value) of the first place where two JSON values differ, else None."""
    if isinstance(saved, dict) and isinstance(actual, dict):
        for key in list(actual) + [k for k in saved if k not in actual]:
            here = f"{path}.{key}" if path else str(key)
            if key not in saved or key not in actual:
                return here, _shown(saved.get(key, _Missing())), _shown(actual.get(key, _Missing()))
            found = first_difference(saved[key], actual[key], here)
            if found:
                return found
        return None
    if isinstance(saved, (list, tuple)) and isinstance(actual, (list, tuple)):
        for i, (a, b) in enumerate(zip(saved, actual)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(saved) != len(actual):
            return path or "(the save)", f"{len(saved)} entries long", f"{len(actual)} entries"
        return None
    if saved == actual and isinstance(saved, bool) == isinstance(actual, bool):
        return None
    return path or "(the save)", _shown(saved), _shown(actual)


def play_session(path: str | Path) -> tuple[object, object, int, list[str]]:
    """(spec, game, human seat, opponents) of a file to resume in the terminal; a save that play
    did not write gives the human seat 1 and random bots."""
    opened, game = load_file(path)
    players = len(game.scores())
    human = 0 if opened.human is None else opened.human
    opponents = opened.opponents if opened.opponents is not None else ["random"] * (players - 1)
    if not 0 <= human < players or len(opponents) != players - 1:
        raise SaveError(f"{path}: the seats of the saved game do not match its {players} players")
    return opened.spec, game, human, [str(n) for n in opponents]
