"""The browser app: pages (play, replay, results) and a JSON API over the reference engines.

``create_app(games_dir, db=None, reports_dir=None)`` returns the FastAPI application;
``monkey-palace serve`` runs it under uvicorn (monkey_env.apps.web.cli). docs/WEB.md describes
every route. Each game is handled by its web module, the registry's ``web`` part, in the game's
folder (monkey_env/<game>/apps/web.py; same functions: options schema, new game, state with the
decision, records, replay frames); a page draws a game with the view its web module names
(``VIEW``: scripts of its folder, served at /games/<game>/, named by /api/views/<game>).
Any other registered game with a ``text`` part is shown by generic_web: its text and its legal
actions as buttons. A bot seat takes the agents the registry has for that game.

Requests for one game are served one at a time (its session lock); a move carries the number of
decisions the client has seen (``expect``), so a move made from a stale tab is refused rather
than applied to a position its player never saw. Every move is saved before the reply.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np
from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from monkey_env.agents.registry import known_names, make_agent
from monkey_env.apps.saves import load_game, open_doc, record_of
from monkey_env.apps.web.generic_web import for_game, replay_frames
from monkey_env.apps.web.store import GameStore, Session, StoreError, UnknownGame, new_id, now, write_json_atomic
from monkey_env.games import DEFAULT_GAME

STATIC = Path(__file__).parent / "static"
MAX_UPLOAD_BYTES = 2 * 1024 * 1024          # a record is a few kB, a save some tens of kB
RECORD_ID_CHARS = 32
PAGES = ("play", "replay", "results")


class Json(JSONResponse):
    """A JSON reply of plain data, written with json.dumps (FastAPI's encoder is slow on big states)."""

    def render(self, content) -> bytes:
        return json.dumps(content, separators=(",", ":")).encode("utf-8")


class ApiError(Exception):
    def __init__(self, status: int, error: str, detail: str, **extra):
        self.status, self.error, self.detail, self.extra = status, error, detail, extra


GENERIC_VIEW = {"flat": True, "board": "/static/js/views/generic_view.js", "panel": "/static/js/views/generic_panel.js"}


def web_games() -> list[str]:
    """The games the browser app shows, in the registry's order: those with a ``web`` part (a web
    module of their own) or a ``text`` part (the generic view, generic_web)."""
    from monkey_env.games import game_names, game_spec

    return [n for n in game_names() if game_spec(n).has("web") or game_spec(n).has("text")]


def game_module(name: str):
    """A game's web module: its own (the registry's ``web`` part), or the generic one made from its parts."""
    from monkey_env.games import game_spec

    if name not in web_games():
        raise ApiError(422, "unknown_game", f"unknown game {name!r}; the browser app has {', '.join(web_games())}")
    spec = game_spec(name)
    if spec.has("web"):
        return spec.load("web")
    return for_game(name)


def view_of(name: str) -> dict:
    """The scripts of a game's browser view: its own (its web module's VIEW, served at /games/<name>/)
    or the generic ones."""
    module = game_module(name)
    view = getattr(module, "VIEW", None)
    if view is None:
        return dict(GENERIC_VIEW)
    return {"flat": bool(view["flat"]), "board": f"/games/{name}/{view['board']}", "panel": f"/games/{name}/{view['panel']}"}


def view_script(name: str, file: str) -> Path:
    """One script of a game's own view (a plain file of its STATIC_DIR), or a 404 naming what is missing."""
    if name not in web_games():
        raise ApiError(404, "unknown_game", f"unknown game {name!r}; the browser app has {', '.join(web_games())}")
    folder = getattr(game_module(name), "STATIC_DIR", None)
    path = Path(folder) / file if folder is not None else None
    if path is None or "/" in file or "\\" in file or file.startswith(".") or not path.is_file():
        raise ApiError(404, "no_file", f"the game {name!r} has no view file {file!r}")
    return path


def agent_names(game: str = DEFAULT_GAME) -> list[str]:
    """The agents a bot seat of ``game`` may be: the registry's built-in names for that game
    (never an import path)."""
    return known_names(game)


class _LRU:
    """A small thread-safe cache of computed replays."""

    def __init__(self, size: int):
        self.size, self.items, self.lock = size, OrderedDict(), threading.Lock()

    def get(self, key, make):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        value = make()
        with self.lock:
            self.items[key] = value
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return value


def create_app(games_dir: str | Path = "web_games", db: str | Path | None = None,
               reports_dir: str | Path | None = None) -> FastAPI:
    app = FastAPI(title="Monkey Palace", docs_url="/api/docs", redoc_url=None, openapi_url="/api/openapi.json")
    store = GameStore(games_dir)
    records_dir = Path(games_dir) / "records"
    records_dir.mkdir(parents=True, exist_ok=True)
    replays = _LRU(16)
    db_path = Path(db) if db else None
    reports = Path(reports_dir) if reports_dir else None
    app.state.store = store

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, e: ApiError):
        return Json({"error": e.error, "detail": e.detail, **e.extra}, status_code=e.status)

    @app.exception_handler(StoreError)
    async def _store_error(request: Request, e: StoreError):
        status = 404 if isinstance(e, UnknownGame) else 400
        return JSONResponse({"error": "unknown_game" if status == 404 else "bad_id", "detail": str(e)},
                            status_code=status)

    # ------------------------------------------------------------------ sessions
    def load_session(raw: dict) -> Session:
        try:
            module = game_module(raw["game"])
            game = module.replay(raw["record"])
            seats = raw["seats"]
        except (KeyError, TypeError, ValueError) as e:
            raise StoreError(f"game {raw.get('id')}: the file cannot be resumed ({e})") from None
        return Session(id=raw["id"], game_name=raw["game"], seats=seats, game=game, created=raw.get("created", now()))

    def viewer_of(s: Session) -> int | None:
        """Whose page this game's is: the person to play, else the first person seated; None
        (a spectator sees everything) for a game of bots only. The page gets only what that
        seat may know (each game's ``state(..., viewer=)``)."""
        people = [i for i, seat in enumerate(s.seats) if seat["kind"] == "human"]
        if not people:
            return None
        return s.game.current if s.game.current in people else people[0]

    def view(s: Session) -> dict:
        module = game_module(s.game_name)
        st = module.state(s.game, viewer=viewer_of(s))
        seat = st["current"]
        return {"id": s.id, "game": s.game_name, "seats": s.seats, "created": s.created,
                "to_move": None if st["game_over"] else s.seats[seat]["kind"], "state": st}

    def bot(s: Session, seat: int):
        if seat not in s.bots:
            spec = s.seats[seat]
            s.bots[seat] = make_agent(spec["agent"], seed=int(spec["seed"]) + 1000 * len(s.game.history),
                                      game=s.game_name)
        return s.bots[seat]

    # ------------------------------------------------------------------ meta
    @app.get("/api/meta")
    def meta():
        games = []
        for name in web_games():
            m = game_module(name)
            games.append({"name": name, "title": m.TITLE, "options": m.options_schema(), "agents": agent_names(name)})
        return {"games": games, "agents": agent_names(), "arena": db_path is not None,
                "balance": bool(reports and (reports / "balance" / "report.html").is_file())}

    # ------------------------------------------------------------------ games
    @app.get("/api/games")
    def list_games():
        return {"games": store.list()}

    @app.post("/api/games")
    async def create_game(request: Request):
        return await run_in_threadpool(do_create, await _json_body(request))

    def do_create(body: dict):
        name = body.get("game", DEFAULT_GAME)
        module = game_module(name)
        try:
            game = module.new_game(body.get("options", {}))
        except ValueError as e:
            raise ApiError(422, "bad_options", str(e)) from None
        players = module.players_of(game)
        raw_seats = body.get("seats") or [{"kind": "human"}] + [{"kind": "bot", "agent": "random"}] * (players - 1)
        if not isinstance(raw_seats, list) or len(raw_seats) != players:
            raise ApiError(422, "bad_seats", f"seats must list {players} seats, one per player")
        seats = []
        known = agent_names(name)
        for i, seat in enumerate(raw_seats):
            kind = seat.get("kind") if isinstance(seat, dict) else None
            if kind == "human":
                seats.append({"kind": "human"})
            elif kind == "bot":
                agent = seat.get("agent")
                if agent not in known:
                    raise ApiError(422, "bad_seats", f"seat {i + 1}: unknown agent {agent!r}; known: {', '.join(known)}")
                seats.append({"kind": "bot", "agent": agent, "seed": int(game.options.seed) * 10 + i})
            else:
                raise ApiError(422, "bad_seats", f"seat {i + 1}: kind must be 'human' or 'bot'")
        s = store.add(Session(id=new_id(), game_name=name, seats=seats, game=game, created=now()))
        with s.lock:
            return Json(view(s))

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str):
        with store.locked(game_id, load_session) as s:
            return Json(view(s))

    @app.get("/api/games/{game_id}/record")
    def get_record(game_id: str):
        with store.locked(game_id, load_session) as s:
            return JSONResponse(s.game.record(),
                                headers={"Content-Disposition": f'attachment; filename="game_{s.id}.json"'})

    def check_expect(s: Session, body: dict) -> None:
        expect = body.get("expect")
        if expect is not None and expect != len(s.game.history):
            raise ApiError(409, "stale", f"the game has moved on: {len(s.game.history)} decisions made, "
                           f"the request expected {expect}; reload the position", game=view(s))

    def seat_to_play(s: Session, body: dict) -> int:
        """The seat to play, once the game is known not to be over and the request not stale."""
        if s.game.game_over:
            raise ApiError(409, "game_over", "the game is over", game=view(s))
        check_expect(s, body)
        return s.game.current

    def played(s: Session, seat: int, action: int) -> Json:
        """A legal action of ``seat`` applied and the game saved: its view with the move."""
        label = s.game.action_name(action)
        s.game.apply(action)
        store.save(s)
        return Json({**view(s), "move": {"seat": seat, "action": action, "label": label}})

    @app.post("/api/games/{game_id}/move")
    async def move(game_id: str, request: Request):
        return await run_in_threadpool(do_move, game_id, await _json_body(request))

    def do_move(game_id: str, body: dict):
        action = body.get("action")
        if isinstance(action, bool) or not isinstance(action, int):
            raise ApiError(422, "bad_action", "action must be an integer index of the action space")
        with store.locked(game_id, load_session) as s:
            seat = seat_to_play(s, body)
            if s.seats[seat]["kind"] != "human":
                raise ApiError(409, "not_your_turn", f"seat {seat + 1} is a bot ({s.seats[seat]['agent']}): "
                               "ask it to move (POST .../bot)", game=view(s))
            problem = s.game.explain(action)
            if problem != "legal":
                raise ApiError(422, "illegal", problem, game=view(s))
            return played(s, seat, action)

    @app.post("/api/games/{game_id}/bot")
    async def bot_move(game_id: str, request: Request):
        return await run_in_threadpool(do_bot, game_id, await _json_body(request, allow_empty=True))

    def do_bot(game_id: str, body: dict):
        with store.locked(game_id, load_session) as s:
            seat, g = seat_to_play(s, body), s.game
            if s.seats[seat]["kind"] != "bot":
                raise ApiError(409, "not_a_bot", f"seat {seat + 1} is played by a person", game=view(s))
            action = int(bot(s, seat).act(g, g.legal_mask()))
            if g.explain(action) != "legal":
                raise ApiError(500, "bot_illegal", f"the bot {s.seats[seat]['agent']} chose an illegal action: "
                               f"{g.explain(action)}", game=view(s))
            return played(s, seat, action)

    # ------------------------------------------------------------------ replays
    @app.post("/api/records")
    async def upload_record(request: Request):
        return await run_in_threadpool(do_upload, await _read_limited(request))

    def do_upload(raw: bytes):
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ApiError(422, "bad_record", f"not valid JSON: {e}") from None
        if isinstance(data, dict) and isinstance(data.get("record"), dict) and "seats" not in data:
            data = {**data, "seats": []}       # a games-folder file of this server, its seats left out
        try:
            # Any file show and play --resume open (apps.saves): the game is read from the file.
            opened = open_doc(data, "the upload")
            name, module = opened.spec.name, game_module(opened.spec.name)
            record = module.record_of_upload(record_of(opened))   # shipped data only; every action replays
            if opened.kind == "save":
                load_game(opened)              # its position must be the one its history leads to
        except ValueError as e:
            raise ApiError(422, "bad_record", str(e).removeprefix("the upload: ")) from None
        blob = json.dumps({"game": name, "record": record}, sort_keys=True)
        key = hashlib.sha256(blob.encode()).hexdigest()[:RECORD_ID_CHARS]
        path = records_dir / f"{key}.json"
        if not path.exists():
            write_json_atomic(path, {"game": name, "record": record})
        return {"source": "record", "id": key}

    def frames_of(source: str, key: str) -> dict:
        if source == "game":
            with store.locked(key, load_session) as s:
                name, record = s.game_name, s.game.record()
            cache_key = (source, key, len(record["actions"]))
            title = f"game {key[:8]}"
            seats = [seat.get("agent", "you") if seat["kind"] == "bot" else "person" for seat in s.seats]
        elif source == "record":
            if len(key) != RECORD_ID_CHARS or any(c not in "0123456789abcdef" for c in key):
                raise ApiError(400, "bad_id", "a record id is 32 hexadecimal digits")
            path = records_dir / f"{key}.json"
            if not path.is_file():
                raise ApiError(404, "unknown_record", f"no record {key}")
            stored = json.loads(path.read_text(encoding="utf-8"))
            name, record, cache_key, title, seats = stored["game"], stored["record"], (source, key), \
                f"record {key[:8]}", None
        elif source == "arena":
            name, record, title, seats = arena_record(key)
            cache_key = (source, key)
        else:
            raise ApiError(404, "unknown_source", "a replay comes from a game, a record or the arena")
        module = game_module(name)
        return replays.get(cache_key, lambda: {"game": name, "title": title, "seats": seats, "record": record,
                                                "frames": replay_frames(module, record)})

    @app.get("/api/replays/{source}/{key}")
    def replay_frame(source: str, key: str, step: int | None = None):
        r = frames_of(source, key)
        frames = r["frames"]
        n = len(frames) - 1
        k = n if step is None else max(0, min(int(step), n))
        return Json({"game": r["game"], "title": r["title"], "seats": r["seats"], "step": k, "steps": n,
                     "moves": [f["move"] for f in frames[1:]], "frame": frames[k]})

    @app.get("/api/replays/{source}/{key}/record")
    def replay_record(source: str, key: str):
        return frames_of(source, key)["record"]

    # ------------------------------------------------------------------ arena and balance
    def open_db():
        from monkey_env.apps.arena.results import Results, ResultsError

        if db_path is None:
            raise ApiError(404, "no_database", "the server was started without --db")
        try:
            return Results(db_path, create=False)
        except ResultsError as e:
            raise ApiError(404, "no_database", str(e)) from None

    def arena_record(key: str):
        """Replay an arena game of the reference engine: the same agents, seeds and deal."""
        try:
            tid, index = (int(p) for p in key.split("-"))
        except ValueError:
            raise ApiError(400, "bad_id", "an arena game is TOURNAMENT-INDEX, two integers") from None
        results = open_db()
        try:
            tour = results.find(id=tid)
            row = next((g for g in results.games(tid) if g["game_index"] == index), None)
        except Exception as e:                                # ResultsError: no such tournament
            raise ApiError(404, "unknown_arena_game", str(e)) from None
        finally:
            results.close()
        if row is None:
            raise ApiError(404, "unknown_arena_game", f"tournament {tid} has no game {index}")
        if row["engine"] != "reference":
            raise ApiError(422, "not_replayable", "this game was played on the JAX engine, whose deals and batched "
                           "agents the reference engine does not reproduce; replays are of reference-engine games")
        name = tour.config.get("game", DEFAULT_GAME)   # tournaments of old builds
        return arena_game_again(name, tour, tid, index, row)

    def arena_game_again(name: str, tour, tid: int, index: int, row: dict):
        """An arena game played again on its game's reference engine (as arena.games does)."""
        from monkey_env.apps.arena.games import derived_seed
        from monkey_env.apps.results_table import new_options, play_one
        from monkey_env.games import game_spec

        game_module(name)                                     # a game this app shows
        if row["options"].get("config_dir") is not None:
            raise ApiError(422, "not_replayable", "this tournament used edited game data (config_dir)")
        spec = game_spec(name)
        try:
            options = new_options(name, players=row["players"], map=row.get("map"), seed=int(row["seed"]),
                                  recorded=True, **row["options"])
            agents = [make_agent(agent, seed=derived_seed(tour.config["seed"], index, seat), game=name)
                      for seat, agent in enumerate(row["seats"])]
        except ValueError as e:                                # options or an agent this build lacks
            raise ApiError(422, "not_replayable", f"this game cannot be played again here: {e}") from None
        game, _ = play_one(spec, options, agents)
        if game.scores() != row["scores"]:
            raise ApiError(422, "not_replayable", f"replaying gives scores {game.scores()}, the database says "
                           f"{row['scores']} (another agent version?)")
        return name, game.record(), f"arena game {tid}-{index}", list(row["seats"])

    @app.get("/api/arena")
    def arena():
        from monkey_env.apps.arena.report import build_report

        results = open_db()
        try:
            out = []
            for tour, n in results.tournaments():
                if n == 0:
                    continue
                report = build_report(results, tour.id)
                games = [{k: g[k] for k in ("game_index", "seed", "seats", "scores", "ranks", "rounds", "engine")}
                         for g in results.games(tour.id)[:500]]
                out.append({**_jsonable(report), "games": games})
            return {"database": str(db_path), "tournaments": out}
        finally:
            results.close()

    @app.get("/api/balance")
    def balance():
        if not reports or not (reports / "balance" / "figures.json").is_file():
            raise ApiError(404, "no_report", "no balance report (start with --reports DIR holding balance/)")
        return json.loads((reports / "balance" / "figures.json").read_text(encoding="utf-8"))

    # ------------------------------------------------------------------ pages and files
    @app.get("/api/views/{name}")
    def views(name: str):
        return view_of(name)

    @app.get("/games/{name}/{file}", include_in_schema=False)
    def game_file(name: str, file: str):
        return FileResponse(view_script(name, file))

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon():
        return Response(status_code=204)

    @app.get("/")
    def index():
        return FileResponse(STATIC / "index.html")

    for page in PAGES:
        app.add_api_route(f"/{page}", _page(page), methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    if reports and reports.is_dir():
        app.mount("/reports", StaticFiles(directory=reports, html=True), name="reports")
    return app


def _page(name: str):
    def page():
        return FileResponse(STATIC / f"{name}.html")
    return page


async def _read_limited(request: Request, limit: int = MAX_UPLOAD_BYTES) -> bytes:
    """The request body, refused (413) as soon as it passes ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise ApiError(413, "too_large", f"uploads are limited to {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, "too_large", f"uploads are limited to {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _json_body(request: Request, allow_empty: bool = False) -> dict:
    raw = await _read_limited(request, 64 * 1024)
    if not raw.strip():
        if allow_empty:
            return {}
        raise ApiError(422, "bad_request", "the request needs a JSON object body")
    try:
        body = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ApiError(422, "bad_request", f"not valid JSON: {e}") from None
    if not isinstance(body, dict):
        raise ApiError(422, "bad_request", "the body must be a JSON object")
    return body


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float) and x != x:
        return None
    return x
