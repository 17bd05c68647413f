"""Screenshots of the browser app for the README: for each game the play page in the middle of a
game (Monkey Palace: a staircase previewed in place at a chosen anchor; The Shadow Theater: a turn
with weapon cards to play; Forbidden City: the tile in hand previewed on a cell) and the replay
page of a finished game.

    python -m experiments.web_screenshots [--out docs/images] [--chromium /usr/bin/chromium]
                                          [--games monkey_palace,shadow_theater,forbidden_city]

It starts the app on a free port of 127.0.0.1 with a fresh games folder, plays a few turns through
the API (the person's turns by the first legal choice, the bot's by itself), then opens the pages
in headless Chromium (Debian's package, SwiftShader WebGL) and saves the PNGs: web_play.png and
web_replay.png (Monkey Palace), web_st_play.png, web_st_replay.png, web_fc_play.png, web_fc_replay.png.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

from fastapi.testclient import TestClient


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _advance(client: TestClient, gid: str, until: str, human_decisions: int) -> dict:
    """Play bot turns and the person's first legal choices until the person faces ``until``
    after ``human_decisions`` decisions of theirs."""
    g = client.get(f"/api/games/{gid}").json()
    made = 0
    while not g["state"]["game_over"]:
        st = g["state"]
        if g["to_move"] == "bot":
            g = client.post(f"/api/games/{gid}/bot", json={}).json()
            continue
        d = st["decision"]
        if made >= human_decisions and d["phase"] == until:
            return g
        choices = d["studs"] or d["shapes"] or [p for p in st["piles"] if p["legal"]] or d["buttons"]
        pick = choices[len(choices) // 3] if d["phase"] in ("ANCHOR", "SHAPE") else choices[0]
        g = client.post(f"/api/games/{gid}/move", json={"action": pick["action"]}).json()
        made += 1
    return g


CHOICE_GROUPS = ("scrolls", "cards", "place", "collect", "king", "placements", "buttons")


def _advance_2d(client: TestClient, gid: str, human_decisions: int, wanted=lambda d: True) -> dict:
    """Bot turns and the person's choices (spread over what is offered) until the person has made
    ``human_decisions`` decisions and faces one that ``wanted`` accepts."""
    g = client.get(f"/api/games/{gid}").json()
    made = 0
    while not g["state"]["game_over"]:
        if g["to_move"] == "bot":
            g = client.post(f"/api/games/{gid}/bot", json={}).json()
            continue
        d = g["state"]["decision"]
        if made >= human_decisions and wanted(d):
            return g
        choices = [c for k in CHOICE_GROUPS for c in d.get(k, [])]
        g = client.post(f"/api/games/{gid}/move", json={"action": choices[(made * 5) % len(choices)]["action"]}).json()
        made += 1
    return g


def _finished(client: TestClient, game: str, options: dict) -> dict:
    bots = [{"kind": "bot", "agent": "greedy"}, {"kind": "bot", "agent": "random"}]
    done = client.post("/api/games", json={"game": game, "options": options, "seats": bots}).json()
    while not done["state"]["game_over"]:
        done = client.post(f"/api/games/{done['id']}/bot", json={}).json()
    return done


def shots_2d(client: TestClient, base: str, page, out: Path, seed: int) -> list[Path]:
    saved = []
    human_greedy = [{"kind": "human"}, {"kind": "bot", "agent": "greedy"}]
    # The Shadow Theater: a turn of the person with weapon cards to play and monkeys to collect.
    g = client.post("/api/games", json={"game": "shadow_theater", "options": {"seed": seed}, "seats": human_greedy}).json()
    _advance_2d(client, g["id"], 9, lambda d: bool(d["cards"]) and bool(d["collect"]))
    page.goto(f"{base}/play?id={g['id']}")
    page.wait_for_selector("body[data-ready='1']")
    page.locator("svg.board2d .card.playable").first.hover()
    page.wait_for_timeout(300)
    saved.append(out / "web_st_play.png")
    page.screenshot(path=str(saved[-1]))
    done = _finished(client, "shadow_theater", {"seed": seed + 1})
    page.goto(f"{base}/replay?source=game&id={done['id']}&step={done['state']['decisions'] * 2 // 3}")
    page.wait_for_selector("body[data-ready='1']")
    saved.append(out / "web_st_replay.png")
    page.screenshot(path=str(saved[-1]))
    # Forbidden City: the tile in hand previewed on a legal cell.
    g = client.post("/api/games", json={"game": "forbidden_city", "options": {"players": 2, "seed": seed},
                                        "seats": human_greedy}).json()
    _advance_2d(client, g["id"], 10, lambda d: len(d["placements"]) > 4)
    page.goto(f"{base}/play?id={g['id']}")
    page.wait_for_selector("body[data-ready='1']")
    targets = page.locator("svg.board2d rect.target.legal")
    targets.nth(targets.count() // 2).hover()
    page.wait_for_timeout(300)
    saved.append(out / "web_fc_play.png")
    page.screenshot(path=str(saved[-1]))
    done = _finished(client, "forbidden_city", {"players": 2, "seed": seed + 1})
    page.goto(f"{base}/replay?source=game&id={done['id']}&step={done['state']['decisions'] * 3 // 4}")
    page.wait_for_selector("body[data-ready='1']")
    saved.append(out / "web_fc_replay.png")
    page.screenshot(path=str(saved[-1]))
    return saved


def main() -> int:
    import uvicorn
    from playwright.sync_api import sync_playwright

    from monkey_env.apps.web.app import create_app

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/images")
    ap.add_argument("--chromium", default=shutil.which("chromium"))
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--games", default="monkey_palace,monkey_palace_complete,shadow_theater,forbidden_city",
                    help="which games' pictures (monkey_palace; monkey_palace_complete: a staircase built arch by "
                         "arch; the 2-D games: shadow_theater or forbidden_city, both made)")
    args = ap.parse_args()
    games = set(args.games.split(","))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    app = create_app(tempfile.mkdtemp(prefix="web_games_"), reports_dir="reports")
    client = TestClient(app)
    if "monkey_palace" in games:
        seats = [{"kind": "human"}, {"kind": "bot", "agent": "greedy"}, {"kind": "bot", "agent": "random"}]
        g = client.post("/api/games", json={"options": {"players": 3, "seed": args.seed, "butterfly": True, "frog": True},
                                            "seats": seats}).json()
        gid = g["id"]
        _advance(client, gid, "SHAPE", 22)
        bots = [{"kind": "bot", "agent": "greedy"}, {"kind": "bot", "agent": "random"}]
        done = client.post("/api/games", json={"options": {"players": 2, "seed": args.seed + 1}, "seats": bots}).json()
        while not done["state"]["game_over"]:
            done = client.post(f"/api/games/{done['id']}/bot", json={}).json()

    if "monkey_palace_complete" in games:
        seats = [{"kind": "human"}, {"kind": "bot", "agent": "greedy"}]
        arches = client.post("/api/games", json={"options": {"players": 2, "seed": args.seed, "build_action": "complete"},
                                                 "seats": seats}).json()
        st = _advance(client, arches["id"], "SHAPE", 12)["state"]
        # One arch built, so the picture shows the staircase so far with the next arches offered.
        first = next(s for s in st["decision"]["shapes"] if s["deco_top"] is None)
        client.post(f"/api/games/{arches['id']}/move", json={"action": first["action"], "expect": st["decisions"]})

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=[
            "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--no-sandbox",
            "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": 1440, "height": 860})
        saved = []
        if "monkey_palace" in games:
            page.goto(f"{base}/play?id={gid}")
            page.wait_for_selector("body[data-ready='1']")
            # Turn the camera towards the anchor, as a player would, then hover a shape to preview it.
            page.evaluate("(() => { const v = window.mp.view, a = window.mp.game.state.decision.anchor;"
                          " v.controls.target.set(a[0] + 2, 1.5, a[1] + 1); v.camera.position.set(a[0] + 20, 21, a[1] + 26);"
                          " v.controls.update(); v.requestRender(); })()")
            shapes = page.locator("#shapes button.shape")
            shapes.nth(min(2, shapes.count() - 1)).hover()
            page.wait_for_timeout(1500)
            page.screenshot(path=str(out / "web_play.png"))
            page.goto(f"{base}/replay?source=game&id={done['id']}&step={done['state']['decisions'] * 2 // 3}")
            page.wait_for_selector("body[data-ready='1']")
            page.wait_for_timeout(1500)
            page.screenshot(path=str(out / "web_replay.png"))
            saved += [out / "web_play.png", out / "web_replay.png"]
        if "monkey_palace_complete" in games:
            page.goto(f"{base}/play?id={arches['id']}")
            page.wait_for_selector("body[data-ready='1']")
            page.evaluate("(() => { const v = window.mp.view, a = window.mp.game.state.decision.anchor;"
                          " v.controls.target.set(a[0] + 2, 1.5, a[1] + 1); v.camera.position.set(a[0] + 20, 21, a[1] + 26);"
                          " v.controls.update(); v.requestRender(); })()")
            page.locator("#shapes button.shape").last.hover()
            page.wait_for_timeout(1500)
            page.screenshot(path=str(out / "web_play_complete.png"))
            saved.append(out / "web_play_complete.png")
        if games & {"shadow_theater", "forbidden_city"}:
            saved += shots_2d(client, base, page, out, args.seed)
        browser.close()
    server.should_exit = True
    print("saved " + ", ".join(map(str, saved)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
