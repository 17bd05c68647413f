"""The browser app end to end in a real headless Chromium (Debian's package, driven by Playwright).

One test plays a whole 2-player game of Monkey Palace against ``random`` through clicks only (the
home page's form, studs in the 3-D view, shapes, piles, buttons) to the final scores; one opens
the replay of that game and steps through it with the buttons and the arrow keys. Two more do the
same for The Shadow Theater and Forbidden City on their 2-D (SVG) boards, each a whole game by
clicks and then its replay, on the same server and browser. Each screenshots the board and checks
that it is not blank. WebGL runs on SwiftShader (software), so no GPU is needed.

Chromium comes from ``apt-get install chromium`` (``.ci/run`` installs it when it is missing);
without it these tests are skipped, saying so.
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (apt-get install chromium)")
GL_FLAGS = ["--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
            "--no-sandbox", "--disable-dev-shm-usage"]
SHOTS = Path(os.environ.get("WEB_SCREENSHOTS", "out/web_test_screenshots"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import uvicorn

    from monkey_env.apps.web.app import create_app

    games = tmp_path_factory.mktemp("web_games")
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app(games), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=GL_FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def played(server, browser):
    """The game the play test finished: its id (the replay test opens it)."""
    return {}


def _page(browser):
    page = browser.new_page(viewport={"width": 1100, "height": 700})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, errors


def _shot(locator, name: str) -> float:
    """Screenshot an element; the variance of its pixels' brightness (a blank one gives ~0)."""
    from PIL import Image

    SHOTS.mkdir(parents=True, exist_ok=True)
    png = locator.screenshot(path=str(SHOTS / f"{name}.png"))
    return float(np.asarray(Image.open(io.BytesIO(png)).convert("L"), float).var())


def _not_blank(page, name: str) -> float:
    """Screenshot the 3-D view; the variance of its pixels' brightness (a blank view gives ~0)."""
    return _shot(page.locator("#view"), name)


def test_play_a_whole_game_against_random_by_clicks(server, browser, played):
    page, errors = _page(browser)
    page.goto(f"{server}/?botDelay=0&aa=0")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#opt-players", "2")
    page.fill("#opt-seed", "3")
    page.select_option("#seat-0", "human")
    page.select_option("#seat-1", "bot:random")
    page.click("#start")
    page.wait_for_url("**/play?*")
    page.wait_for_selector("body[data-ready='1']")
    game_id = page.evaluate("new URLSearchParams(location.search).get('id')")
    clicks = {"stud": 0, "shape": 0, "pile": 0, "button": 0}
    for _ in range(400):                          # a 2-player game is about 50 decisions per seat
        try:
            page.wait_for_function("['ANCHOR','SHAPE','BUY','INSTANT','SLOT','MONKEY','FROG','GAME_OVER']"
                                   ".includes(document.body.dataset.phase)", timeout=20000)
        except Exception:
            raise AssertionError(f"the bots did not hand the game back ({clicks}); the page says "
                                 f"{page.locator('#message').inner_text()!r}; errors {errors}") from None
        phase = page.evaluate("document.body.dataset.phase")
        if phase == "GAME_OVER":
            break
        before = page.evaluate("document.body.dataset.decisions")
        if phase in ("ANCHOR", "MONKEY"):
            # Click a highlighted stud where the 3-D view draws it.
            stud = page.evaluate("(() => { const s = window.mp.game.state.decision.studs; const t = s[s.length >> 1];"
                                 " const p = window.mp.view.screenOf(t.x, t.y, t.z); return {...p, action: t.action}; })()")
            assert stud["visible"], stud
            page.mouse.click(stud["x"], stud["y"])
            clicks["stud"] += 1
        elif phase == "SHAPE":
            shape = page.locator("#shapes button.shape").first
            shape.hover()                          # the preview of the staircase in place
            page.wait_for_function("window.mp.view.preview.children.length > 0")
            shape.click()
            clicks["shape"] += 1
        elif phase == "BUY" and page.locator("#piles button.pile:not([disabled])").count():
            page.locator("#piles button.pile:not([disabled])").first.click()
            clicks["pile"] += 1
        else:
            page.locator("#buttons button.decision-button").first.click()
            clicks["button"] += 1
        try:
            page.wait_for_function(f"document.body.dataset.decisions !== '{before}'", timeout=20000)
        except Exception:
            raise AssertionError(f"no move after a click in phase {phase} ({clicks}); the page says "
                                 f"{page.locator('#message').inner_text()!r}; errors {errors}") from None
    else:
        pytest.fail("the game did not end within 400 clicks")
    page.wait_for_selector("#final-scores")
    shown = [int(v) for v in page.locator("#final-scores td[data-final-score]").all_inner_texts()]
    state = page.evaluate("window.mp.game.state")
    assert sorted(shown, reverse=True) == sorted(state["scores"], reverse=True)
    assert state["game_over"] and clicks["stud"] > 5 and clicks["shape"] >= 1, clicks
    assert _not_blank(page, "play_final") > 100
    assert not errors, errors
    played["id"] = game_id
    page.close()


def test_replay_steps_through_the_game(server, browser, played):
    if "id" not in played:
        pytest.skip("needs the game of the play test")
    page, errors = _page(browser)
    page.goto(f"{server}/replay?source=game&id={played['id']}&step=0&aa=0")
    page.wait_for_selector("body[data-ready='1']")
    steps = int(page.evaluate("document.body.dataset.steps"))
    assert steps > 20
    for k in range(1, 6):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"document.body.dataset.step === '{k}'")
    page.click("#prev")
    page.wait_for_function("document.body.dataset.step === '4'")
    assert "step=4" in page.url and "step=4" in page.locator("#permalink").get_attribute("href")
    page.keyboard.press("End")
    page.wait_for_function(f"document.body.dataset.step === '{steps}'")
    page.wait_for_selector("#final-scores")
    assert _not_blank(page, "replay_final") > 100
    # A position's link opens that position.
    page.goto(f"{server}/replay?source=game&id={played['id']}&step=7")
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("document.body.dataset.step") == "7"
    assert not errors, errors
    page.close()


# ------------------------------------------------------------------ the 2-D games (same server and browser)
def _start_game(page, server, game: str, seed: int) -> str:
    """The home page's form: the game, 2 players, a seed, you against random; the play page opens."""
    page.goto(f"{server}/?botDelay=0")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#opt-game", game)
    page.select_option("#opt-players", "2")
    page.fill("#opt-seed", str(seed))
    page.select_option("#seat-0", "human")
    page.select_option("#seat-1", "bot:random")
    page.click("#start")
    page.wait_for_url("**/play?*")
    page.wait_for_selector("body[data-ready='1']")
    return page.evaluate("new URLSearchParams(location.search).get('id')")


def _wait_for_person(page, errors, clicks) -> str:
    try:
        page.wait_for_function("document.body.dataset.phase && document.body.dataset.phase !== 'WAIT'", timeout=20000)
    except Exception:
        raise AssertionError(f"the bot did not hand the game back ({clicks}); the page says "
                             f"{page.locator('#message').inner_text()!r}; errors {errors}") from None
    return page.evaluate("document.body.dataset.phase")


def _clicked(page, errors, clicks, before: str, what: str) -> None:
    clicks[what] = clicks.get(what, 0) + 1
    try:
        page.wait_for_function(f"document.body.dataset.decisions !== '{before}'", timeout=20000)
    except Exception:
        raise AssertionError(f"no move after clicking {what} ({clicks}); the page says "
                             f"{page.locator('#message').inner_text()!r}; errors {errors}") from None


def _finish(page, errors, name: str) -> None:
    page.wait_for_selector("#final-scores")
    shown = [int(v) for v in page.locator("#final-scores td[data-final-score]").all_inner_texts()]
    state = page.evaluate("window.mp.game.state")
    assert state["game_over"] and sorted(shown) == sorted(state["scores"])
    assert page.locator("svg.board2d").count() == 1
    assert _not_blank(page, name) > 100
    assert not errors, errors


def _replay(page, server, game_id: str, name: str) -> None:
    page.goto(f"{server}/replay?source=game&id={game_id}&step=0")
    page.wait_for_selector("body[data-ready='1']")
    steps = int(page.evaluate("document.body.dataset.steps"))
    assert steps > 20
    for k in range(1, 4):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"document.body.dataset.step === '{k}'")
    page.click("#prev")
    page.wait_for_function("document.body.dataset.step === '2'")
    assert "step=2" in page.locator("#permalink").get_attribute("href")
    page.locator("#moves div[data-step='10']").click()
    page.wait_for_function("document.body.dataset.step === '10'")
    assert _not_blank(page, f"{name}_step10") > 100
    page.keyboard.press("End")
    page.wait_for_function(f"document.body.dataset.step === '{steps}'")
    page.wait_for_selector("#final-scores")
    assert page.locator("#players .player").count() == 2
    assert _not_blank(page, name) > 100


@pytest.fixture(scope="module")
def played_2d():
    return {}


def test_shadow_theater_a_whole_game_by_clicks_and_its_replay(server, browser, played_2d):
    page, errors = _page(browser)
    game_id = _start_game(page, server, "shadow_theater", 3)
    clicks: dict[str, int] = {}
    for turn in range(300):
        phase = _wait_for_person(page, errors, clicks)
        if phase == "GAME_OVER":
            break
        before = page.evaluate("document.body.dataset.decisions")
        board = page.locator("svg.board2d")
        cards, spaces = board.locator(".card.playable"), board.locator(".space.target")
        collect = board.locator(".collect.target")
        if phase == "DRAFT":
            board.locator(".scroll.choosable").nth(turn % 2).click()
            what = "scroll"
        elif phase == "KING_MOVE":
            spaces.first.click()
            what = "king"
        elif cards.count() and turn % 3 == 0:
            cards.first.click()
            what = "card"
        elif collect.count() and (turn % 4 == 1 or not spaces.count()):
            collect.first.click()
            what = "collect"
        elif spaces.count():
            spaces.nth(turn % spaces.count()).click()
            what = "place"
        else:
            page.locator("#buttons button.decision-button").first.click()
            what = "button"
        _clicked(page, errors, clicks, before, what)
        if turn == 12:                                   # a reload resumes where the game is
            page.screenshot(path=str(SHOTS / "st_play_mid.png"))
            decisions = page.evaluate("document.body.dataset.decisions")
            page.reload()
            page.wait_for_selector("body[data-ready='1']")
            assert page.evaluate("document.body.dataset.decisions") == decisions
            page.wait_for_function(f"document.querySelectorAll('#log li').length === {int(decisions)}")
    else:
        pytest.fail(f"the game did not end within 300 clicks ({clicks})")
    assert clicks.get("scroll", 0) >= 1 and clicks.get("place", 0) > 5 and clicks.get("card", 0) >= 1, clicks
    _finish(page, errors, "st_play_final")
    _replay(page, server, game_id, "st_replay")
    assert not errors, errors
    page.close()


def test_forbidden_city_a_whole_game_by_clicks_and_its_replay(server, browser):
    page, errors = _page(browser)
    game_id = _start_game(page, server, "forbidden_city", 2)
    clicks: dict[str, int] = {}
    for turn in range(200):
        phase = _wait_for_person(page, errors, clicks)
        if phase == "GAME_OVER":
            break
        before = page.evaluate("document.body.dataset.decisions")
        if page.locator("#buttons button.decision-button").count():
            page.locator("#buttons button.decision-button").first.click()          # set aside
            _clicked(page, errors, clicks, before, "button")
            continue
        board = page.locator("svg.board2d")
        if turn == 1 and board.locator("rect.target.refused").count():
            # A cell where the tile fits in no rotation: the engine's explanation, nothing changes.
            board.locator("rect.target.refused").first.click()
            page.wait_for_function("document.getElementById('message').textContent.startsWith('Not allowed')")
            assert page.evaluate("document.body.dataset.decisions") == before
            clicks["refused"] = 1
        # Choose a rotation among those that fit somewhere (its button), then a green cell.
        turns = page.evaluate("(() => { const p = window.mp.game.state.decision.placements;"
                              f" return p[({turn} * 7) % p.length].turns; }})()")
        page.locator(f"#extra button.rotation[data-turns='{turns}']").click()
        target = board.locator("rect.target.legal")
        assert target.count() >= 1
        cell = target.nth(turn % target.count())
        cell.hover()                                     # the tile in hand shown in place
        page.wait_for_function("document.querySelector('svg.board2d g.preview').childElementCount > 0")
        if turn == 3:
            page.screenshot(path=str(SHOTS / "fc_play_preview.png"))
        cell.click()
        _clicked(page, errors, clicks, before, "cell")
    else:
        pytest.fail(f"the game did not end within 200 clicks ({clicks})")
    assert clicks.get("cell", 0) > 10, clicks
    _finish(page, errors, "fc_play_final")
    _replay(page, server, game_id, "fc_replay")
    assert not errors, errors
    page.close()
