"""Games in play, kept as one JSON file each in the games folder and saved after every move.

A file holds who sits where (a person or a bot by agent name) and the game's record (options,
deal, every decision); loading replays the record with the reference engine, so a reload or a
server restart resumes exactly where the game was. Writes are atomic (a temporary file in the
same folder, then ``os.replace``): a crash leaves the old file or the new one, never half of one.

Every game has its own lock: one game's requests are served one at a time, different games in
parallel. A game's id is 32 hex digits made here (``uuid4``); any other id is refused before
it comes near the file system, so no request can name a path.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
import time
import uuid
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

GAME_ID = re.compile(r"^[0-9a-f]{32}$")
FILE_VERSION = 1
MAX_FILE_BYTES = 4 * 1024 * 1024        # a finished 4-player game's record is a few kB


class StoreError(ValueError):
    """A game id or a games file that cannot be used; the message says why."""


class UnknownGame(StoreError):
    """No game has this id."""


def check_id(game_id: str) -> str:
    """The id if it is one this store makes (32 hex digits), else StoreError."""
    if not isinstance(game_id, str) or not GAME_ID.match(game_id):
        raise StoreError("a game id is 32 hexadecimal digits")
    return game_id


def new_id() -> str:
    return uuid.uuid4().hex


def write_json_atomic(path: Path, data: dict) -> None:
    """Write JSON to ``path`` through a temporary file in the same folder and a rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


@dataclass
class Session:
    """One game being played: its seats, its engine object, and per-seat bots (made on demand)."""

    id: str
    game_name: str
    seats: list[dict]                   # {"kind": "human"} or {"kind": "bot", "agent": NAME, "seed": INT}
    game: object                        # the game's reference engine object
    created: str
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)   # the store's lock of this id
    bots: dict[int, object] = field(default_factory=dict, repr=False)


class GameStore:
    """The games folder: create, load (replaying the record), save after each move."""

    def __init__(self, folder: str | Path, *, cache_size: int = 256):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._cache: OrderedDict[str, Session] = OrderedDict()
        self._cache_size = cache_size
        self._locks: dict[str, threading.RLock] = {}    # one per game id, kept while the server runs
        self._guard = threading.Lock()

    def path(self, game_id: str) -> Path:
        return self.folder / f"{check_id(game_id)}.json"

    def lock_for(self, game_id: str) -> threading.RLock:
        """The game's lock: loading it and every change to it happen under this one lock."""
        with self._guard:
            return self._locks.setdefault(game_id, threading.RLock())

    @contextmanager
    def locked(self, game_id: str, load):
        """The game's session, its lock held; never a copy the cache has since replaced (a
        session dropped from the cache and loaded again is the one that counts)."""
        while True:
            s = self.get(game_id, load)
            with s.lock:
                with self._guard:
                    current = self._cache.get(game_id)
                if current is s:
                    yield s
                    return

    def add(self, session: Session) -> Session:
        session.lock = self.lock_for(session.id)
        self.save(session)
        with self._guard:
            self._remember(session)
        return session

    def get(self, game_id: str, load) -> Session:
        """The session of ``game_id``; ``load(file_dict) -> Session`` rebuilds one from its file."""
        check_id(game_id)
        with self._guard:
            s = self._cache.get(game_id)
            if s is not None:
                self._cache.move_to_end(game_id)
                return s
        with self.lock_for(game_id):              # two first requests for a game load it once
            with self._guard:
                s = self._cache.get(game_id)
                if s is not None:
                    return s
            path = self.path(game_id)
            if not path.is_file():
                raise UnknownGame(f"no game {game_id}")
            if path.stat().st_size > MAX_FILE_BYTES:
                raise StoreError(f"game {game_id}: the file is larger than {MAX_FILE_BYTES} bytes")
            try:
                raw = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as e:
                raise StoreError(f"game {game_id}: the file cannot be read ({e})") from None
            if not isinstance(raw, dict) or raw.get("id") != game_id:
                raise StoreError(f"game {game_id}: the file is not a game of this server")
            s = load(raw)
            s.lock = self.lock_for(game_id)
            with self._guard:
                self._remember(s)
            return s

    def _remember(self, s: Session) -> None:
        self._cache[s.id] = s
        self._cache.move_to_end(s.id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)       # a request holding it finishes; the next reloads the file

    def save(self, s: Session) -> None:
        write_json_atomic(self.path(s.id), {
            "version": FILE_VERSION, "id": s.id, "game": s.game_name, "seats": s.seats,
            "created": s.created, "updated": now(), "record": s.game.record(),
            "game_over": bool(s.game.game_over),
        })

    def list(self) -> list[dict]:
        """The saved games, newest first: id, game, seats, created, updated, decisions, over."""
        out = []
        for p in self.folder.glob("*.json"):
            if not GAME_ID.match(p.stem) or p.stat().st_size > MAX_FILE_BYTES:
                continue
            try:
                raw = json.loads(p.read_text(encoding="utf-8"))
                out.append({"id": raw["id"], "game": raw["game"], "seats": raw["seats"], "created": raw["created"],
                            "updated": raw["updated"], "decisions": len(raw["record"]["actions"]),
                            "game_over": bool(raw.get("game_over"))})
            except (OSError, ValueError, KeyError, TypeError):
                continue                           # a file being replaced or not ours: skip it
        return sorted(out, key=lambda g: g["updated"], reverse=True)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
