"""The browser app's JSON API for the 2-D games, The Shadow Theater and Forbidden City (FastAPI's
test client): a new game and its legal moves (the engine's), an illegal move explained with the
state unchanged, every move saved and resumed by a new app, bots to the end, records and saves
uploaded and replayed, and refused options, seats and uploads (edited game data, other data)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

from monkey_env.apps.web.app import create_app
from monkey_env.forbidden_city.engine import Game as CityGame
from monkey_env.forbidden_city.options import ForbiddenCityOptions
from monkey_env.shadow_theater.engine import Game as TheaterGame
from monkey_env.shadow_theater.options import ShadowTheaterOptions

GAMES = {
    "shadow_theater": (lambda seed: TheaterGame.from_options(ShadowTheaterOptions(seed=seed)), {}),
    "forbidden_city": (lambda seed: CityGame.from_options(ForbiddenCityOptions(players=2, seed=seed)), {"players": 2}),
}
CHOICE_GROUPS = ("cards", "place", "collect", "king", "scrolls", "placements", "buttons")
HUMANS = [{"kind": "human"}, {"kind": "human"}]


@pytest.fixture
def games_dir(tmp_path):
    return tmp_path / "games"


@pytest.fixture
def client(games_dir):
    return TestClient(create_app(games_dir))


def new_game(client, game, seats=None, seed=5) -> dict:
    body = {"game": game, "options": {**GAMES[game][1], "seed": seed}}
    if seats is not None:
        body["seats"] = seats
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def offered(decision: dict) -> list[int]:
    """Every action the decision offers, wherever the page draws it."""
    return sorted(c["action"] for k in CHOICE_GROUPS for c in decision.get(k, []))


def play_out(client, g: dict, pick=lambda acts: acts[0]) -> dict:
    gid = g["id"]
    while not g["state"]["game_over"]:
        st = g["state"]
        if g["to_move"] == "bot":
            r = client.post(f"/api/games/{gid}/bot", json={"expect": st["decisions"]})
        else:
            r = client.post(f"/api/games/{gid}/move", json={"action": pick(offered(st["decision"])), "expect": st["decisions"]})
        assert r.status_code == 200, r.text
        g = r.json()
    return g


def test_meta_lists_the_2d_games_with_their_options_and_agents(client):
    games = {g["name"]: g for g in client.get("/api/meta").json()["games"]}
    assert games["shadow_theater"]["title"] == "The Shadow Theater"
    assert games["shadow_theater"]["options"]["players"]["choices"] == [2]
    assert set(games["forbidden_city"]["options"]) == {"players", "start_side", "ending", "seed"}
    assert games["forbidden_city"]["options"]["players"]["choices"] == [2, 3, 4]
    for g in games.values():
        assert "config_dir" not in g["options"] and "random" in g["agents"] and "greedy" in g["agents"]
    # Each game offers its own agents: its JAX PPO and its search (issue 30), not Monkey Palace's SB3 PPO.
    for name in ("shadow_theater", "forbidden_city"):
        assert "ppo" in games[name]["agents"] and "mcts" in games[name]["agents"]
        assert "ppo-sb3" not in games[name]["agents"]


@pytest.mark.parametrize("game", GAMES)
def test_a_new_game_offers_exactly_the_engines_legal_moves(client, game):
    g = new_game(client, game, HUMANS)
    st = g["state"]
    engine = GAMES[game][0](5)
    assert st["game"] == game and st["decisions"] == 0 and g["to_move"] == "human"
    assert offered(st["decision"]) == [int(a) for a in np.flatnonzero(engine.legal_mask())]
    for k in CHOICE_GROUPS:                                           # the engine's words for each
        for c in st["decision"].get(k, []):
            assert c["label"] == engine.action_name(c["action"])
    # After each of a few moves the offer is still the engine's.
    for _ in range(6):
        a = offered(st["decision"])[-1]
        engine.apply(a)
        st = client.post(f"/api/games/{g['id']}/move", json={"action": a, "expect": st["decisions"]}).json()["state"]
        assert offered(st["decision"]) == [int(x) for x in np.flatnonzero(engine.legal_mask())]


def test_the_shadow_theater_state_is_the_engines(client):
    g = new_game(client, "shadow_theater", HUMANS)
    engine = GAMES["shadow_theater"][0](5)
    st = g["state"]
    assert st["phase"] == "DRAFT" and len(st["decision"]["scrolls"]) == 2
    assert [loc["king"] for loc in st["locations"]] == [engine.king == i for i in range(3)]
    assert st["reserve"] == {"monkeys": 25, "jade": 9, "peaches": 9, "cards": len(engine.deck)}
    for a in (offered(st["decision"])[0], None):                      # both seats keep a scroll
        a = offered(st["decision"])[0] if a is None else a
        engine.apply(a)
        st = client.post(f"/api/games/{g['id']}/move", json={"action": a}).json()["state"]
    assert st["phase"] == "TURN" and st["decision"]["place"]
    # Two people share the screen: the page is the one of the seat to play, the other hand face down.
    for seat, p in enumerate(st["players"]):
        assert p["supply"]["monkeys"] == engine.supply[seat][0] and p["scroll"]["id"] == engine.scroll[seat]
        points = engine.round_points(seat)
        if seat == engine.current:
            assert p["points"] == points and [c["id"] for c in p["hand"]] == engine.hands[seat]
        else:
            assert p["points"]["total"] is None and p["points"]["without_cards"] == points["total"] - points["cards"]
            assert p["hand"] == [{"id": None, "hidden": True}] * len(engine.hands[seat])


def test_the_forbidden_city_state_is_the_engines(client):
    g = new_game(client, "forbidden_city", HUMANS)
    engine = GAMES["forbidden_city"][0](5)
    st = g["state"]
    assert len(st["cells"]) == len(engine.city.cells) and st["size"] == engine.data.size
    d = st["decision"]
    assert len(d["rotations"]) == 4 and {tuple(c) for c in d["frontier"]} == set(engine.frontier())
    face = engine.held_face()
    for t, rot in enumerate(d["rotations"]):                          # the rotations are the engine's
        turned = face.turned(t)
        assert rot["sides"] == [["open", "wall", "door"][s] for s in turned.sides]
        assert rot["quarters"] == list(turned.quarter_part)
    p = d["placements"][0]
    assert p["action"] == (p["y"] * st["size"] + p["x"]) * 4 + p["turns"]     # what the page computes
    after = client.post(f"/api/games/{g['id']}/move", json={"action": p["action"]}).json()["state"]
    laid = next(c for c in after["cells"] if (c["x"], c["y"]) == (p["x"], p["y"]))
    assert laid["owner"] == 0 and laid["rotation"] == p["turns"] and after["last_laid"] == {"x": p["x"], "y": p["y"], "seat": 0}


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_move_is_explained_and_changes_nothing(client, game):
    g = new_game(client, game, HUMANS)
    gid = g["id"]
    engine = GAMES[game][0](5)
    legal = set(offered(g["state"]["decision"]))
    illegal = next(a for a in range(len(engine.legal_mask())) if a not in legal)
    r = client.post(f"/api/games/{gid}/move", json={"action": illegal, "expect": 0})
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "illegal" and body["detail"] == engine.explain(illegal) != "legal"
    assert body["game"]["state"] == g["state"]
    for bad in (-1, 10 ** 6, "3", None, True):
        assert client.post(f"/api/games/{gid}/move", json={"action": bad}).status_code == 422
    assert client.get(f"/api/games/{gid}").json()["state"] == g["state"]


@pytest.mark.parametrize("game", GAMES)
def test_every_move_is_saved_and_a_restarted_app_resumes(games_dir, game):
    first = TestClient(create_app(games_dir))
    g = new_game(first, game, [{"kind": "human"}, {"kind": "bot", "agent": "greedy"}])
    gid = g["id"]
    for _ in range(5):
        st = g["state"]
        if g["to_move"] == "bot":
            g = first.post(f"/api/games/{gid}/bot", json={"expect": st["decisions"]}).json()
        else:
            g = first.post(f"/api/games/{gid}/move", json={"action": offered(st["decision"])[0],
                                                           "expect": st["decisions"]}).json()
    saved = json.loads((games_dir / f"{gid}.json").read_text())
    assert saved["game"] == game and len(saved["record"]["actions"]) == g["state"]["decisions"] >= 5
    second = TestClient(create_app(games_dir))                      # nothing in memory
    resumed = second.get(f"/api/games/{gid}").json()
    assert resumed["state"] == g["state"] and resumed["seats"] == g["seats"]
    done = play_out(second, resumed)                                  # and plays on to the end
    assert done["state"]["game_over"] and done["state"]["decisions"] > resumed["state"]["decisions"]
    assert {x["game"] for x in second.get("/api/games").json()["games"]} == {game}


@pytest.mark.parametrize("game", GAMES)
def test_a_finished_game_replays_and_its_record_and_save_upload(client, game):
    g = play_out(client, new_game(client, game, [{"kind": "bot", "agent": "random"}, {"kind": "bot", "agent": "greedy"}]))
    st = g["state"]
    assert st["game_over"] and st["places"] and len(st["scores"]) == 2 and "decision" not in st
    first = client.get(f"/api/replays/game/{g['id']}?step=0").json()
    assert first["game"] == game and first["steps"] == st["decisions"] and first["frame"]["decisions"] == 0
    last = client.get(f"/api/replays/game/{g['id']}").json()
    assert last["frame"]["scores"] == st["scores"]
    record = client.get(f"/api/games/{g['id']}/record").json()
    r = client.post("/api/records", content=json.dumps(record))
    assert r.status_code == 200, r.text
    up = client.get(f"/api/replays/record/{r.json()['id']}").json()
    assert up["frame"]["scores"] == st["scores"] and [m["action"] for m in up["moves"]] == record["actions"]
    engine_game = (TheaterGame if game == "shadow_theater" else CityGame).replay(record)
    r = client.post("/api/records", content=json.dumps(engine_game.to_dict()))      # a save file
    assert r.status_code == 200, r.text
    assert client.get(f"/api/replays/record/{r.json()['id']}").json()["steps"] == len(record["actions"])


@pytest.mark.parametrize("game", GAMES)
def test_unsafe_or_broken_uploads_are_refused(client, game):
    record = GAMES[game][0](1).record()
    for change, word in [
        ({"options": {**record["options"], "config_dir": "/etc"}}, "edited game data"),
        ({"actions": [10 ** 4]}, "does not replay"),
        ({"actions": "nope"}, ""),
    ]:
        r = client.post("/api/records", content=json.dumps({**record, **change}))
        assert r.status_code == 422 and word in r.json()["detail"], (change, r.text)
    other = {**record, "data" if game == "shadow_theater" else "fingerprint": "0" * 16}
    r = client.post("/api/records", content=json.dumps(other))
    assert r.status_code == 422 and "other game data" in r.json()["detail"]


@pytest.mark.parametrize("game, body, word", [
    ("shadow_theater", {"options": {"players": 3}}, "bad options"),
    ("shadow_theater", {"options": {"config_dir": "/etc"}}, "not allowed"),
    ("shadow_theater", {"options": {"reward_mode": "terminal"}}, "not allowed"),
    ("shadow_theater", {"seats": [{"kind": "human"}, {"kind": "bot", "agent": "ppo-sb3"}]}, "unknown agent"),
    ("forbidden_city", {"options": {"players": 5}}, "bad options"),
    ("forbidden_city", {"options": {"start_side": "../../etc"}}, "bad options"),
    ("forbidden_city", {"options": {"players": 3}, "seats": HUMANS}, "3 seats"),
    ("forbidden_city", {"seats": [{"kind": "human"}, {"kind": "bot", "agent": "os:system"}]}, "unknown agent"),
])
def test_bad_options_and_seats_are_refused(client, game, body, word):
    r = client.post("/api/games", json={"game": game, **body})
    assert r.status_code == 422 and word in r.json()["detail"], r.text


def test_three_and_four_players_of_forbidden_city_and_the_advanced_side(client):
    for players in (3, 4):
        seats = [{"kind": "human"}] + [{"kind": "bot", "agent": "random"}] * (players - 1)
        r = client.post("/api/games", json={"game": "forbidden_city", "seats": seats,
                                            "options": {"players": players, "start_side": "advanced", "seed": 2}})
        assert r.status_code == 200, r.text
        st = r.json()["state"]
        assert [p["colour"] for p in st["players"]] == CityGame.from_options(
            ForbiddenCityOptions(players=players)).data.seat_colours(players)


@pytest.mark.parametrize("game", GAMES)
def test_an_arena_game_of_the_game_replays_to_its_recorded_scores(tmp_path, game):
    from monkey_env.apps.arena.results import Results
    from monkey_env.apps.arena.runner import plan_tournament, run_tournament

    db_path = tmp_path / "arena.sqlite"
    db = Results(db_path)
    plan = plan_tournament(["random", "greedy"], players=2, map="-", options={}, games=1, seed=3,
                           engine="reference", game=game)
    tour, _ = run_tournament(db, plan, workers=1, progress=False)
    row = db.games(tour.id)[-1]
    db.close()
    client = TestClient(create_app(tmp_path / "games", db=db_path))
    replay = client.get(f"/api/replays/arena/{tour.id}-{row['game_index']}")
    assert replay.status_code == 200, replay.text
    r = replay.json()
    assert r["game"] == game and r["frame"]["scores"] == row["scores"] and r["seats"] == row["seats"]
    assert r["steps"] == row["decisions"]
    listed = client.get("/api/arena")                              # the results page lists it
    assert listed.status_code == 200
    assert {g["game_index"]: g["scores"] for g in listed.json()["tournaments"][0]["games"]}[row["game_index"]] == row["scores"]


def test_each_game_view_is_served_from_its_folder_through_the_registry(client):
    from monkey_env.games import GAMES

    for name in ("monkey_palace", "shadow_theater", "forbidden_city"):
        view = client.get(f"/api/views/{name}").json()
        assert view["flat"] is (name != "monkey_palace"), view
        web = GAMES[name].load("web")
        for key in ("board", "panel"):
            assert view[key] == f"/games/{name}/{web.VIEW[key]}"
            r = client.get(view[key])
            assert r.status_code == 200 and r.text == (web.STATIC_DIR / web.VIEW[key]).read_text(encoding="utf-8")
    assert client.get("/games/shadow_theater/nothing.js").status_code == 404
    assert client.get("/games/shadow_theater/..%2Fweb.py").status_code == 404
    assert client.get("/games/no_such_game/x.js").json()["error"] == "unknown_game"


def test_a_game_without_a_web_part_gets_the_generic_view(client, monkeypatch):
    from dataclasses import replace

    from monkey_env import games

    bare = replace(games.GAMES["shadow_theater"], name="bare_theater",
                   parts={k: v for k, v in games.GAMES["shadow_theater"].parts.items() if k != "web"})
    monkeypatch.setitem(games.GAMES, "bare_theater", bare)
    view = client.get("/api/views/bare_theater").json()
    assert view == {"flat": True, "board": "/static/js/views/generic_view.js", "panel": "/static/js/views/generic_panel.js"}
    assert client.get("/games/bare_theater/shadow_theater_2d.js").status_code == 404
