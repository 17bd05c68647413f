"""Edge cases of the browser app, in headless Chromium with WebGL switched off.

Without WebGL, Monkey Palace's 3-D view cannot draw: the page says so and draws the palace from
above (an SVG map), where a person still plays by clicking studs. The other cases: a finished game
shows no "the end is near" or "exhausted" warning, the final scores table fits its panel, and a
replay of an uploaded record (whose seats have no names) says "seat 2", not "seat 2 (seat 2)".

The finished games are played by bots through the JSON API (a second each); the pages show them.
Without Chromium these tests are skipped, saying so (see test_web_browser.py).
"""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
import test_web_browser
from test_web_browser import CHROMIUM, _page, _shot

server = test_web_browser.server            # the app on a free port (a module-scoped fixture)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (apt-get install chromium)")
# No WebGL at all: neither the GPU nor SwiftShader's software WebGL (test_web_browser.py's GL_FLAGS).
NO_WEBGL_FLAGS = ["--disable-webgl", "--disable-3d-apis", "--no-sandbox", "--disable-dev-shm-usage"]
BOTS = [{"kind": "bot", "agent": "random"}] * 2


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=NO_WEBGL_FLAGS)
        yield b
        b.close()


def _api(base: str, path: str, body=None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


@pytest.fixture(scope="module")
def finished(server):
    """A game of Monkey Palace and one of The Shadow Theater played to their ends by two random bots:
    {game name: game id}. The Shadow Theater's seed 5 exhausts the reserve in mid-turn before the end
    (step 31), so its replay shows the warning there."""
    ids = {}
    for game, options in (("monkey_palace", {"players": 2, "seed": 3}), ("shadow_theater", {"seed": 5})):
        g = _api(server, "/api/games", {"game": game, "options": options, "seats": BOTS})
        while not g["state"]["game_over"]:
            g = _api(server, f"/api/games/{g['id']}/bot", {"expect": g["state"]["decisions"]})
        ids[game] = g["id"]
    return ids


def test_without_webgl_the_palace_is_drawn_from_above_and_played_by_clicks(server, browser):
    g = _api(server, "/api/games", {"options": {"players": 2, "seed": 3},
                                    "seats": [{"kind": "human"}, {"kind": "bot", "agent": "random"}]})
    page, errors = _page(browser)
    page.goto(f"{server}/play?id={g['id']}&botDelay=0")
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("!document.createElement('canvas').getContext('webgl2')"), "this browser has WebGL"
    notice = page.locator("#view .no-webgl")
    assert notice.is_visible() and "no WebGL" in notice.inner_text() and "from above" in notice.inner_text()
    assert page.locator("#view canvas").count() == 0
    board = page.locator("svg.palace-map")
    assert board.locator("g > rect").count() >= 32 * 32
    # The anchor decision: the legal studs are discs to click, one per legal anchor.
    page.wait_for_function("document.body.dataset.phase === 'ANCHOR'")
    studs = page.evaluate("window.mp.game.state.decision.studs")
    assert board.locator(".stud.target").count() == len(studs) > 0
    board.locator(".stud.target").nth(len(studs) // 2).click()
    page.wait_for_function("document.body.dataset.decisions === '1'")
    assert page.evaluate("document.body.dataset.phase") == "SHAPE"
    assert page.evaluate("window.mp.game.state.turn.anchor") == [studs[len(studs) // 2]["x"], studs[len(studs) // 2]["y"]]
    # A staircase's preview on the map, then built.
    shape = page.locator("#shapes button.shape").first
    shape.hover()
    page.wait_for_function("window.mp.view.preview.children.length > 0")
    _shot(page.locator("#view"), "no_webgl_preview")
    elements = len(page.evaluate("window.mp.game.state.palace.elements"))
    shape.click()
    page.wait_for_function("document.body.dataset.decisions === '2'")
    assert len(page.evaluate("window.mp.game.state.palace.elements")) > elements
    assert _shot(page.locator("#view"), "no_webgl_built") > 100
    assert not errors, errors
    page.close()


def _last_step_where(server: str, game_id: str, warned) -> int | None:
    """The last replay step before the end whose frame satisfies ``warned`` (None if there is none)."""
    r = _api(server, f"/api/replays/game/{game_id}")
    for step in range(r["steps"] - 1, 0, -1):
        if warned(_api(server, f"/api/replays/game/{game_id}?step={step}")["frame"]):
            return step
    return None


@pytest.mark.parametrize("game, warning, warned", [
    ("monkey_palace", "The end is near", lambda f: f["end_triggered"]),
    ("shadow_theater", "Exhausted:", lambda f: f["exhausted"]),
], ids=["monkey_palace", "shadow_theater"])
def test_a_finished_game_no_longer_warns_that_its_end_is_near(server, browser, finished, game, warning, warned):
    gid = finished[game]
    page, errors = _page(browser)
    page.goto(f"{server}/play?id={gid}")
    page.wait_for_selector("#final-scores")
    state = page.evaluate("window.mp.game.state")
    assert state["game_over"] and warned(state), "the game's last state keeps the warning's cause"
    assert warning not in page.locator("#tray").inner_text()
    # Its replay: the warning while the end is near, none once the game is over.
    step = _last_step_where(server, gid, warned)
    assert step is not None
    page.goto(f"{server}/replay?source=game&id={gid}&step={step}")
    page.wait_for_selector("body[data-ready='1']")
    assert warning in page.locator("#tray").inner_text()
    page.keyboard.press("End")
    page.wait_for_selector("#final-scores")
    assert warning not in page.locator("#tray").inner_text()
    assert not errors, errors
    page.close()


def test_a_replay_names_a_seat_with_no_name_once(server, browser, finished):
    """An uploaded record names no one: "seat 2", not "seat 2 (seat 2)"; a game's replay keeps the names."""
    gid = finished["monkey_palace"]
    record = _api(server, f"/api/games/{gid}/record")
    uploaded = _api(server, "/api/records", record)
    page, errors = _page(browser)
    page.goto(f"{server}/replay?source=record&id={uploaded['id']}&step=3")
    page.wait_for_selector("body[data-ready='1']")
    texts = lambda: " | ".join(page.locator(sel).inner_text() for sel in ("#move", "#status", "#players"))
    assert re.match(r"Last decision: seat \d: ", page.locator("#move").inner_text())
    assert re.search(r"· seat \d must ", page.locator("#status").inner_text())
    assert "(seat" not in texts() and "null" not in texts() and "Seat 1: " not in texts()
    page.keyboard.press("End")
    page.wait_for_selector("#final-scores")
    assert re.match(r"Game over after \d+ rounds: seat \d wins", page.locator("#status").inner_text())
    assert "(seat" not in texts() + page.locator("#final-scores").inner_text()
    page.goto(f"{server}/replay?source=game&id={gid}&step=3")
    page.wait_for_selector("body[data-ready='1']")
    assert re.match(r"Last decision: seat \d \(random\): ", page.locator("#move").inner_text())
    assert not errors, errors
    page.close()


def test_the_final_scores_fit_their_panel(server, browser, finished):
    page, errors = _page(browser)
    page.goto(f"{server}/play?id={finished['monkey_palace']}")
    page.wait_for_selector("#final-scores")
    final = page.locator("#final")
    _shot(final, "final_scores")
    box, table = final.bounding_box(), page.locator("#final-scores").bounding_box()
    assert table["x"] >= box["x"] and table["x"] + table["width"] <= box["x"] + box["width"], (table, box)
    assert table["y"] >= box["y"] and table["y"] + table["height"] <= box["y"] + box["height"], (table, box)
    assert page.evaluate("(() => { const f = document.getElementById('final'); return f.scrollWidth <= f.clientWidth; })()")
    assert not errors, errors
    page.close()
