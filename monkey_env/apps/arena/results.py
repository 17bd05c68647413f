"""Tournament results in SQLite: one file, no server, the single source of every report.

Tables (schema version in ``PRAGMA user_version``):

- ``tournaments``: one row per tournament; ``key`` hashes everything that decides its games
  (agents and their versions, players, map, options, seed, engine, chunk size), so running the
  same command again finds it and continues.
- ``games``: one row per finished game, ``UNIQUE(tournament_id, game_index)``. A chunk of games
  is inserted in one transaction: a game is either wholly recorded or not at all, and a game
  played twice (a retried chunk) is never counted twice.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE tournaments (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,       -- hash of the config: the same command finds it again
    config      TEXT NOT NULL,              -- JSON: agents, versions, players, map, options, seed, engine, chunk
    created     TEXT NOT NULL
);
CREATE TABLE games (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    game_index    INTEGER NOT NULL,         -- deal * seatings + seating (see arena.schedule)
    deal          INTEGER NOT NULL,
    seed          INTEGER NOT NULL,         -- the deal's seed: the same for every seating of a deal
    config_hash   TEXT NOT NULL,            -- players, map, options and game data: comparable games
    map           TEXT NOT NULL,
    players       INTEGER NOT NULL,
    options       TEXT NOT NULL,            -- JSON
    engine        TEXT NOT NULL,            -- 'reference' or 'jax' (their deals differ for a seed)
    seats         TEXT NOT NULL,            -- JSON list: agent name per seat
    versions      TEXT NOT NULL,            -- JSON list: agent version / checkpoint / code hash per seat
    scores        TEXT NOT NULL,            -- JSON list: Banana Points per seat
    ranks         TEXT NOT NULL,            -- JSON list: rulebook places, 1 = best (core.outcome: the Monkey wins a tie)
    rounds        INTEGER NOT NULL,
    end_trigger   TEXT NOT NULL,
    decisions     INTEGER NOT NULL,
    duration      REAL NOT NULL,            -- seconds of play (a batch's time shared by its games)
    finished      TEXT NOT NULL,            -- UTC time the game was recorded
    UNIQUE (tournament_id, game_index)
);
CREATE INDEX games_by_config ON games(config_hash);
"""

GAME_FIELDS = ("game_index", "deal", "seed", "config_hash", "map", "players", "options", "engine", "seats",
               "versions", "scores", "ranks", "rounds", "end_trigger", "decisions", "duration", "finished")
JSON_FIELDS = ("options", "seats", "versions", "scores", "ranks")


class ResultsError(Exception):
    """The database file cannot be used; the message names the file and the problem."""


@dataclass
class Tournament:
    id: int
    key: str
    config: dict
    created: str


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Results:
    """An open results database."""

    def __init__(self, path: str | Path, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise ResultsError(f"{self.path}: no such database")
        if self.path.is_dir():
            raise ResultsError(f"{self.path} is a folder, not a database file")
        try:
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)  # explicit transactions
            self.db.execute("PRAGMA foreign_keys = ON")
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as e:
            raise ResultsError(f"{self.path} is not a monkey-palace results database (sqlite: {e})") from None
        if version == 0 and not tables:
            with self.transaction():
                for stmt in SCHEMA.split(";"):
                    if stmt.strip():
                        self.db.execute(stmt)
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif version != SCHEMA_VERSION or not {"tournaments", "games"} <= tables:
            raise ResultsError(f"{self.path} is not a monkey-palace results database of schema version "
                               f"{SCHEMA_VERSION} (it has version {version} and tables {sorted(tables) or 'none'})")

    def transaction(self):
        return _Transaction(self.db)

    def close(self) -> None:
        self.db.close()

    # ---------------------------------------------------------------- tournaments
    def tournament(self, key: str, config: dict) -> Tournament:
        """The tournament with this key, created with `config` if it is new."""
        with self.transaction():
            self.db.execute("INSERT OR IGNORE INTO tournaments (key, config, created) VALUES (?, ?, ?)",
                            (key, json.dumps(config, sort_keys=True), _now()))
        return self.find(key=key)

    def find(self, key: str | None = None, id: int | None = None) -> Tournament:
        if key is not None:
            row = self.db.execute("SELECT id, key, config, created FROM tournaments WHERE key = ?", (key,)).fetchone()
        elif id is not None:
            row = self.db.execute("SELECT id, key, config, created FROM tournaments WHERE id = ?", (id,)).fetchone()
        else:
            row = self.db.execute("SELECT id, key, config, created FROM tournaments ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            what = f"tournament {id}" if id is not None else "tournament"
            raise ResultsError(f"{self.path}: no {what} recorded")
        return Tournament(row[0], row[1], json.loads(row[2]), row[3])

    def tournaments(self) -> list[tuple[Tournament, int]]:
        rows = self.db.execute("SELECT t.id, t.key, t.config, t.created, COUNT(g.id) FROM tournaments t "
                               "LEFT JOIN games g ON g.tournament_id = t.id GROUP BY t.id ORDER BY t.id").fetchall()
        return [(Tournament(r[0], r[1], json.loads(r[2]), r[3]), r[4]) for r in rows]

    # ---------------------------------------------------------------- games
    def done_indices(self, tournament_id: int) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT game_index FROM games WHERE tournament_id = ?", (tournament_id,))}

    def add_games(self, tournament_id: int, games: list[dict]) -> int:
        """Record finished games in one transaction; returns how many were new."""
        finished = _now()
        rows = []
        for g in games:
            g = {**g, "finished": finished}
            rows.append((tournament_id, *[json.dumps(g[f]) if f in JSON_FIELDS else g[f] for f in GAME_FIELDS]))
        with self.transaction():
            before = self.db.total_changes
            self.db.executemany(f"INSERT OR IGNORE INTO games (tournament_id, {', '.join(GAME_FIELDS)}) "
                                f"VALUES ({', '.join('?' * (len(GAME_FIELDS) + 1))})", rows)
            return self.db.total_changes - before

    def games(self, tournament_id: int) -> list[dict]:
        """Every recorded game of a tournament, in schedule order."""
        cur = self.db.execute(f"SELECT {', '.join(GAME_FIELDS)} FROM games WHERE tournament_id = ? "
                              "ORDER BY game_index", (tournament_id,))
        out = []
        for row in cur:
            g = dict(zip(GAME_FIELDS, row))
            for f in JSON_FIELDS:
                g[f] = json.loads(g[f])
            out.append(g)
        return out


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any error: a chunk is all or nothing."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, exc_type, exc, tb):
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
        return False
