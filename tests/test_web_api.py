"""The browser app's JSON API (FastAPI's test client): a new game, its legal decisions, an illegal
move explained with the state unchanged, saving and resuming across an app restart, refused
path traversal, refused malformed or oversized uploads, stale moves, bots, replays and pages."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from monkey_env.apps.web.app import MAX_UPLOAD_BYTES, create_app
from monkey_env.monkey_palace.engine import Game


@pytest.fixture
def games_dir(tmp_path):
    return tmp_path / "games"


@pytest.fixture
def client(games_dir):
    return TestClient(create_app(games_dir))


def new_game(client, seats=None, **options) -> dict:
    body = {"game": "monkey_palace", "options": {"players": 2, "seed": 4, **options}}
    if seats is not None:
        body["seats"] = seats
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


HUMANS = [{"kind": "human"}, {"kind": "human"}]


def test_meta_lists_the_games_options_and_the_registry_agents(client):
    from monkey_env.agents.registry import known_names

    meta = client.get("/api/meta").json()
    assert meta["agents"] == known_names() and "ppo" in meta["agents"]
    game = meta["games"][0]
    assert game["name"] == "monkey_palace"
    assert game["options"]["map"]["choices"] == ["1", "2", "3", "4"]
    assert "config_dir" not in game["options"]           # no file paths from a browser


def test_new_game_offers_the_engines_legal_anchors(client):
    g = new_game(client, HUMANS)
    st = g["state"]
    assert st["game"] == "monkey_palace" and st["phase"] == "ANCHOR" and st["decisions"] == 0
    engine = Game.new(2, 1, seed=4)
    legal = {int(a) for a in engine.legal_actions()}
    assert {s["action"] for s in st["decision"]["studs"]} == legal
    assert all(s["z"] == 0 for s in st["decision"]["studs"])        # anchors are ground studs
    assert len(st["palace"]["elements"]) == 4                       # the starting staircase: 2 arches, brick, gold
    assert g["to_move"] == "human"


def test_a_shape_preview_is_what_the_engine_builds(client):
    """The catalogue's whole-shape previews (the complete action's arch previews: test_web_2d_api)."""
    g = new_game(client, HUMANS, build_action="catalogue")
    gid = g["id"]
    # An anchor with several staircases, so the engine asks for the shape.
    engine = Game.new(2, 1, seed=4, build_action="catalogue")
    for stud in g["state"]["decision"]["studs"]:
        probe = Game.from_dict(engine.to_dict())
        probe.apply(stud["action"])
        if probe.phase.name == "SHAPE":
            break
    r = client.post(f"/api/games/{gid}/move", json={"action": stud["action"], "expect": 0}).json()
    d = r["state"]["decision"]
    assert d["phase"] == "SHAPE" and d["anchor"] == [stud["x"], stud["y"]] and len(d["shapes"]) > 1
    shape = d["shapes"][0]
    before = len(r["state"]["palace"]["elements"])
    after = client.post(f"/api/games/{gid}/move", json={"action": shape["action"], "expect": 1}).json()
    placed = after["state"]["palace"]["elements"][before:]
    strip = lambda e: {k: v for k, v in e.items() if k != "turn"}
    assert sorted(map(json.dumps, map(strip, placed))) == sorted(map(json.dumps, map(strip, shape["elements"])))
    assert after["state"]["turn"]["credits"] == shape["credits"]


def test_an_illegal_move_is_explained_and_changes_nothing(client):
    g = new_game(client, HUMANS)
    gid = g["id"]
    legal = {s["action"] for s in g["state"]["decision"]["studs"]}
    illegal = next(a for a in range(1024) if a not in legal)
    r = client.post(f"/api/games/{gid}/move", json={"action": illegal, "expect": 0})
    assert r.status_code == 422
    body = r.json()
    engine = Game.new(2, 1, seed=4)
    assert body["error"] == "illegal" and body["detail"] == engine.explain(illegal)
    assert "no staircase can start" in body["detail"]
    assert body["game"]["state"] == g["state"]
    assert client.get(f"/api/games/{gid}").json()["state"] == g["state"]
    for bad in ("12", None, True, 10 ** 9):
        r = client.post(f"/api/games/{gid}/move", json={"action": bad})
        assert r.status_code == 422
    assert client.get(f"/api/games/{gid}").json()["state"] == g["state"]


def test_a_move_from_a_stale_tab_is_refused(client):
    g = new_game(client, HUMANS)
    gid = g["id"]
    a = g["state"]["decision"]["studs"][0]["action"]
    assert client.post(f"/api/games/{gid}/move", json={"action": a, "expect": 0}).status_code == 200
    r = client.post(f"/api/games/{gid}/move", json={"action": a, "expect": 0})
    assert r.status_code == 409 and r.json()["error"] == "stale"


def test_bots_move_one_decision_at_a_time_and_only_on_their_turn(client):
    g = new_game(client, [{"kind": "bot", "agent": "random"}, {"kind": "bot", "agent": "greedy"}])
    gid = g["id"]
    assert g["to_move"] == "bot"
    r = client.post(f"/api/games/{gid}/move", json={"action": 0})
    assert r.status_code == 409 and r.json()["error"] == "not_your_turn"
    n = 0
    while not g["state"]["game_over"]:
        r = client.post(f"/api/games/{gid}/bot", json={"expect": g["state"]["decisions"]})
        assert r.status_code == 200, r.text
        g = r.json()
        assert g["state"]["decisions"] == n + 1 and g["move"]["label"]
        n += 1
    assert g["state"]["places"] and len(g["state"]["scores"]) == 2
    assert client.post(f"/api/games/{gid}/bot", json={}).status_code == 409


def test_bad_seats_and_options_are_refused(client):
    for body, word in [
        ({"options": {"players": 2}, "seats": [{"kind": "human"}]}, "2 seats"),
        ({"options": {"players": 2}, "seats": [{"kind": "human"}, {"kind": "bot", "agent": "os:system"}]}, "unknown agent"),
        ({"options": {"players": 2, "config_dir": "/etc"}}, "not allowed"),
        ({"options": {"players": 2, "map": "../../etc/passwd"}}, "map must be"),
        ({"options": {"players": 7}}, "bad options"),
        ({"game": "chess"}, "unknown game"),
    ]:
        r = client.post("/api/games", json=body)
        assert r.status_code == 422 and word in r.json()["detail"], (body, r.text)


def test_every_move_is_saved_and_a_restarted_app_resumes(games_dir):
    first = TestClient(create_app(games_dir))
    g = new_game(first, [{"kind": "human"}, {"kind": "bot", "agent": "random"}])
    gid = g["id"]
    for _ in range(3):                              # a few of the person's decisions, and the bot's
        st = g["state"]
        if g["to_move"] == "bot":
            g = first.post(f"/api/games/{gid}/bot", json={"expect": st["decisions"]}).json()
            continue
        d = st["decision"]
        a = (d["studs"] or d["shapes"] or [p for p in st["piles"] if p["legal"]] or d["buttons"])[0]["action"]
        g = first.post(f"/api/games/{gid}/move", json={"action": a, "expect": st["decisions"]}).json()
    saved = json.loads((games_dir / f"{gid}.json").read_text())
    assert len(saved["record"]["actions"]) == g["state"]["decisions"] >= 3
    assert not list(games_dir.glob(".tmp-*"))       # atomic writes leave no temporary file
    second = TestClient(create_app(games_dir))      # a new app: nothing in memory
    resumed = second.get(f"/api/games/{gid}").json()
    assert resumed["state"] == g["state"] and resumed["seats"] == g["seats"]
    assert gid in [x["id"] for x in second.get("/api/games").json()["games"]]


def test_games_dropped_from_memory_reload_from_their_files_without_losing_moves(games_dir):
    app = create_app(games_dir)
    app.state.store._cache_size = 1                 # every other request reloads a game from its file
    client = TestClient(app)
    bots = [{"kind": "bot", "agent": "random"}, {"kind": "bot", "agent": "random"}]
    games = [new_game(client, bots), new_game(client, bots)]
    for _ in range(15):
        for i, g in enumerate(games):
            r = client.post(f"/api/games/{g['id']}/bot", json={"expect": g["state"]["decisions"]})
            assert r.status_code == 200, r.text
            games[i] = r.json()
    for g in games:
        assert client.get(f"/api/games/{g['id']}").json()["state"]["decisions"] == 15


def test_path_traversal_is_refused(client, games_dir, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"id": "TOPSECRET"}))
    for bad in ("..%2Fsecret", "..", "%2e%2e%2fsecret", "secret", "0" * 31 + "g", "../games/" + "0" * 32):
        r = client.get(f"/api/games/{bad}")
        assert r.status_code in (400, 404) and "TOPSECRET" not in r.text, (bad, r.status_code)
    for bad in ("..%2F..%2Fsecret", "0" * 31 + "z"):
        assert client.get(f"/api/replays/record/{bad}").status_code in (400, 404)
    assert client.get("/api/replays/file/etc%2Fpasswd").status_code == 404
    assert client.get("/static/..%2F..%2Fapp.py").status_code == 404
    assert client.get("/static/../app.py").status_code == 404


def test_a_record_uploads_and_replays_every_decision(client):
    game = Game.new(2, 2, seed=9)
    from monkey_env.agents.registry import make_agent
    agents = [make_agent("random", 1), make_agent("random", 2)]
    while not game.game_over:
        game.apply(agents[game.current].act(game, game.legal_mask()))
    r = client.post("/api/records", content=json.dumps(game.record()))
    assert r.status_code == 200, r.text
    key = r.json()["id"]
    first = client.get(f"/api/replays/record/{key}?step=0").json()
    assert first["steps"] == len(game.history) and first["frame"]["decisions"] == 0
    last = client.get(f"/api/replays/record/{key}").json()
    assert last["frame"]["scores"] == game.scores() and last["frame"]["game_over"]
    assert [m["action"] for m in last["moves"]] == game.history
    # Each position shows its own palace, not the last one's (the frames once shared one element list).
    for k in (0, len(game.history) // 2):
        frame = client.get(f"/api/replays/record/{key}?step={k}").json()["frame"]
        assert frame["palace"]["elements"] == Game.replay({**game.record(), "actions": game.history[:k]}).palace.elements
    # A save file (with its history) opens as the same game.
    r = client.post("/api/records", content=json.dumps(game.to_dict()))
    assert r.status_code == 200 and r.json()["id"]


@pytest.mark.parametrize("content, word", [
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "JSON object"),
    (json.dumps({"version": 1, "options": {}}).encode(), "neither a game record"),
    (json.dumps({"version": 1, "data_fingerprint": "x", "options": {"players": 9}, "actions": []}).encode(), "malformed"),
    (json.dumps({"version": 1, "data_fingerprint": "x", "options": {"config_dir": "/etc"}, "actions": []}).encode(),
     "edited game data"),
    (json.dumps({"version": 1, "data_fingerprint": "x", "options": {"map": "/etc/passwd"}, "actions": []}).encode(),
     "map"),
])
def test_a_malformed_upload_is_refused(client, content, word):
    r = client.post("/api/records", content=content)
    assert r.status_code == 422 and word in r.json()["detail"], r.text


def test_a_record_whose_actions_do_not_replay_is_refused(client):
    record = Game.new(2, 1, seed=0).record()
    record["actions"] = [5]                          # not a legal anchor
    r = client.post("/api/records", content=json.dumps(record))
    assert r.status_code == 422 and "does not replay" in r.json()["detail"]


def test_an_oversized_upload_is_refused(client):
    r = client.post("/api/records", content=b" " * (MAX_UPLOAD_BYTES + 1))
    assert r.status_code == 413


def test_pages_and_the_vendored_three_js_are_served(client):
    for page in ("/", "/play", "/replay", "/results"):
        r = client.get(page)
        assert r.status_code == 200 and "<html" in r.text
        assert "cdn" not in r.text.lower() and "https://" not in r.text
    r = client.get("/static/vendor/three/three.module.js")
    assert r.status_code == 200 and "REVISION" in client.get("/static/vendor/three/three.core.js").text
    assert "MIT License" in client.get("/static/vendor/three/LICENSE").text


def test_the_arena_results_and_a_replay_of_an_arena_game(tmp_path):
    from monkey_env.apps.arena.results import Results
    from monkey_env.apps.arena.runner import plan_tournament, run_tournament

    db_path = tmp_path / "arena.sqlite"
    db = Results(db_path)
    plan = plan_tournament(["random", "greedy"], players=2, map="1", options={}, games=1, seed=3, engine="reference")
    tour, added = run_tournament(db, plan, workers=1, progress=False)
    rows = db.games(tour.id)
    db.close()
    client = TestClient(create_app(tmp_path / "games", db=db_path))
    report = client.get("/api/arena").json()["tournaments"][0]
    assert {r["agent"] for r in report["leaderboard"]} == {"random", "greedy"}
    assert report["score_name"] == "Banana Points"     # the page's column says what mean_score counts
    assert report["win_rates"]["random"]["greedy"]["games"] == added == len(rows)
    row = rows[-1]
    replay = client.get(f"/api/replays/arena/{tour.id}-{row['game_index']}").json()
    assert replay["frame"]["scores"] == row["scores"] and replay["seats"] == row["seats"]
    assert client.get(f"/api/replays/arena/{tour.id}-999").status_code == 404
    assert client.get("/api/replays/arena/x-y").status_code == 400


def test_the_arena_and_balance_pages_say_when_they_have_no_data(client):
    assert client.get("/api/arena").status_code == 404
    assert client.get("/api/balance").status_code == 404
