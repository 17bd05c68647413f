"""Screenshots of the browser app for the README: the play page in the middle of a game (a
staircase previewed in place at a chosen anchor) and the replay page of a finished game.

    python -m experiments.web_screenshots [--out docs/images] [--chromium /usr/bin/chromium]

It starts the app on a free port of 127.0.0.1 with a fresh games folder, plays a few turns through
the API (the person's turns by the first legal choice, the bot's by itself), then opens the pages
in headless Chromium (Debian's package, SwiftShader WebGL) and saves the PNGs.
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


def main() -> int:
    import uvicorn
    from playwright.sync_api import sync_playwright

    from monkey_env.apps.web.app import create_app

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/images")
    ap.add_argument("--chromium", default=shutil.which("chromium"))
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    app = create_app(tempfile.mkdtemp(prefix="web_games_"), reports_dir="reports")
    client = TestClient(app)
    seats = [{"kind": "human"}, {"kind": "bot", "agent": "greedy"}, {"kind": "bot", "agent": "random"}]
    g = client.post("/api/games", json={"options": {"players": 3, "seed": args.seed, "butterfly": True, "frog": True},
                                        "seats": seats}).json()
    gid = g["id"]
    _advance(client, gid, "SHAPE", 22)
    done = client.post("/api/games", json={"options": {"players": 2, "seed": args.seed + 1},
                                           "seats": [{"kind": "bot", "agent": "greedy"}, {"kind": "bot", "agent": "random"}]}).json()
    while not done["state"]["game_over"]:
        done = client.post(f"/api/games/{done['id']}/bot", json={}).json()

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
        browser.close()
    server.should_exit = True
    print(f"saved {out / 'web_play.png'} and {out / 'web_replay.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
