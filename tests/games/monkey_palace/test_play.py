"""`monkey-palace play` driven through a pseudo-terminal: a whole game with a mistyped and an
illegal answer, a save, quitting, resuming, and the end (scores and a picture of the palace)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


class Terminal:
    """A child process on a pseudo-terminal; read up to each question, answer it."""

    def __init__(self, *args: str, columns: int = 80):
        self.master, slave = os.openpty()
        env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS=str(columns))
        self.proc = subprocess.Popen([sys.executable, "-m", "monkey_env.apps.cli", "play", *args], stdin=slave,
                                     stdout=slave, stderr=slave, cwd=ROOT, env=env, close_fds=True)
        os.close(slave)
        self.transcript = ""
        self.eof = False

    def question(self, timeout: float = 60) -> str:
        """Everything printed up to the next prompt ("> "); '' once the program has ended."""
        buf, deadline = "", time.time() + timeout
        while not buf.endswith("> "):
            ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.time()))
            if not ready:
                raise TimeoutError(f"no prompt after {timeout} s; last output:\n{buf[-3000:]}")
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:                 # EIO: the child closed the terminal
                data = b""
            if not data:
                self.eof = True
                break
            buf += data.decode(errors="replace").replace("\r\n", "\n")
        self.transcript += buf
        return buf

    def answer(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        code = self.proc.wait(timeout=30)
        os.close(self.master)
        return code


def generic_answer(q: str, state: dict) -> str:
    """A plain player: the first stud and staircase, one card a turn, arches, slot 1, no frog."""
    lines = [line for line in q.splitlines() if line.strip() not in ("", ">")]
    last = lines[-1] if lines else ""
    if "Type the number of a stud" in q:
        state["bought"] = False
        return "1"
    if "Type the number of a staircase" in last:
        return "1"
    if "Type the number of a card" in last:
        if state.get("bought") or "1)" not in q.split("Cards you can buy:")[-1]:
            return "0"
        state["bought"] = True
        return "1"
    if "a or b?" in last:
        return "a"
    if "Which slot" in last:
        return "1"
    if "knob's x and y" in last:
        return "1"
    if "Take the Frog" in last:
        return "n"
    raise AssertionError(f"unexpected question:\n{q[-1500:]}")


def test_a_whole_game_in_the_terminal_with_mistakes_save_and_resume(tmp_path):
    save, png = tmp_path / "game.json", tmp_path / "palace.png"
    t = Terminal("--save", str(save), "--png", str(png), "--seed", "5", "--build-action", "catalogue",
                 columns=64)   # the catalogue's whole shapes (arch by arch: the tests below)
    # Set-up, with a map that does not exist and an unknown bot.
    assert "Map: 1" in t.question()
    t.answer("9")
    assert "there is no map 9" in t.question()
    t.answer("1")
    assert "Players" in t.question()
    t.answer("2")
    assert "Butterfly" in t.question()
    t.answer("maybe")
    assert "'maybe': type y or n" in t.question()
    t.answer("y")
    assert "Frog" in t.question()
    t.answer("y")
    assert "Opponents" in t.question()
    t.answer("nobody")
    assert "unknown agent 'nobody'" in t.question()
    t.answer("random")
    assert "Your seat" in t.question()
    t.answer("1")
    q = t.question()
    assert "Round 1: your turn" in q and "Piles (top cards)" in q and "Your supply" in q
    assert "Type the number of a stud" in q
    studs = q.split("Legal studs (x y):\n")[1].split("\nType the number")[0].splitlines()
    assert 1 < len(studs) and all(len(line) <= 64 and line.count(")") % 2 == 0 for line in studs)  # whole entries
    # Mistyped, out of the list, then an illegal stud: explained, asked again.
    t.answer("banana")
    assert "I did not understand 'banana'" in t.question()
    t.answer("999")
    assert "999 is not in the list" in t.question()
    t.answer("0 0")
    assert "no staircase can start at (0, 0)" in t.question()
    t.answer("1")
    q = t.question()
    assert "decoration reaches height" in q and "credit" in q and "arch (" in q and "top" in q
    t.answer("preview 1")                   # the palace around staircase 1, as it would stand
    q = t.question()
    assert "built ('*' marks the cells it changes)" in q and "A1*" in q and "Type the number of a staircase" in q
    t.answer("1")
    q = t.question()
    state: dict = {}
    # Play a few turns, then save, then quit (which saves too) and resume.
    turns = 0
    while turns < 3:
        if "Type the number of a stud" in q:
            turns += 1
        t.answer(generic_answer(q, state))
        q = t.question()
    t.answer(f"save {tmp_path / 'copy.json'}")
    q = t.question()
    assert f"game saved to {tmp_path / 'copy.json'}" in q
    t.answer("quit")
    q = t.question()
    assert t.eof and "game saved to" in q and "Stopped: you stopped" in q
    assert t.close() == 0
    saved = json.loads(save.read_text())
    assert saved["opponents"] == ["random"] and saved["human"] == 0 and saved["state"]["round"] >= 3
    assert saved["game"] == "monkey_palace"

    t = Terminal("--resume", str(save), "--png", str(png))
    q = t.question()
    assert f"Resuming {save}" in q
    answers = 0
    while not t.eof:
        t.answer(generic_answer(q, state))
        answers += 1
        assert answers < 400, "the game does not end"
        q = t.question()
    assert t.close() == 0
    end = t.transcript.split("=== Game over ===")[-1]
    assert "Banana Points" in end and ("You win!" in end or "You lose." in end)
    assert "WINNER" in end and "y\\x" in end                  # scores and the palace as text
    assert f"A picture of the palace: {png}" in end and png.stat().st_size > 10_000


# ------------------------------------------------------------------------------------ in process
def _session(answers: str, seed: int = 5, build_action: str = "complete"):
    import io

    from monkey_env.monkey_palace.apps.play import Session
    from monkey_env.monkey_palace.engine import Game
    from monkey_env.monkey_palace.options import GameOptions

    game = Game.from_options(GameOptions(players=2, seed=seed, build_action=build_action))
    out = io.StringIO()
    return Session(game, 0, ["random"], Path("unused.json"), out, io.StringIO(answers)), out


def test_shapes_that_differ_in_bricks_say_where_the_bricks_go(monkeypatch):
    """Stud 8 of this deal, (9, 13), offers 'east, turning right, 2 arches' twice: without bricks,
    and raised by a brick on each of arch 2's legs. The choice says which cells, in building
    order; 'preview 2' draws it on the palace; the staircase chosen is the one built."""
    monkeypatch.setenv("COLUMNS", "100")
    session, out = _session("8\npreview 2\n2\n", build_action="catalogue")   # whole shapes
    session.staircase()
    text = out.getvalue()
    one, two = text.split("  1) ")[2].split("  2) ")[0], text.split("  2) ")[2].split("  3) ")[0]
    assert one.startswith("east, turning right, 2 arches; uses 2 arches;") and "brick" not in one
    assert two.startswith("east, turning right, 2 arches; uses 2 arches, 2 bricks;")
    assert ("arch (9, 13)-(12, 13) top 1; 1 brick at (12, 13) height 1->2; 1 brick at (12, 16) height 1->2;"
            in " ".join(two.split()))
    assert "arch (12, 13)-(12, 16) top 3; decoration at (12, 16) top 4" in " ".join(two.split())
    grid = text.split("Staircase 2 from (9, 13), built ('*' marks the cells it changes):\n")[1]
    rows = {int(line.split()[0]): line.split()[1:] for line in grid.splitlines()[1:7]}
    header = [int(x) for x in grid.splitlines()[0].split()[1:]]
    cell = {(x, y): tok for y, toks in rows.items() for x, tok in zip(header, toks)}
    assert cell[(9, 13)] == "A1*" and cell[(12, 13)] == "A3*" and cell[(12, 14)] == "m3*"
    assert cell[(12, 16)] == "D4*" and cell[(13, 16)] == "m1"          # the start staircase, unchanged
    game = session.game
    assert int(game.palace.height[16, 12]) == 4 and int(game.palace.height[13, 12]) == 3


def test_a_stack_of_columns_and_bricks_is_described():
    """With columns in the supply, a stack of 3 units or more takes a column (3 units) first."""
    from monkey_env.monkey_palace.apps.play import build_steps

    session, _ = _session("")
    game = session.game
    game.player.supply.columns, game.player.supply.bricks = 1, 10
    for shape in range(len(game.data.shapes)):
        plan = game.palace.check_staircase((9, 13), game.data.shapes[shape], game.player.supply,
                                           game.data.tray.column_units)
        mixed = [s for s in plan.stacks if s.columns and s.bricks] if plan.legal else []
        if mixed:
            break
    s = mixed[0]
    steps = build_steps(game, 9 + 13 * 32, shape)
    plural = "s" if s.bricks > 1 else ""
    assert f"1 column and {s.bricks} brick{plural} at ({s.x}, {s.y}) height {s.bottom}->{s.bottom + s.units}" in steps
    assert sum("column" in step for step in steps) == 1                # one column in the supply


def test_lists_fit_the_terminal_without_cutting_an_entry():
    from monkey_env.monkey_palace.apps.play import in_columns
    from monkey_env.monkey_palace.geometry import cell_xy

    session, _ = _session("")
    g = session.game
    m = g.build_matrix()
    entries = [f"{i + 1}) {cell_xy(c)} [{int(m[:, c].sum())}]" for i, c in enumerate(m.any(axis=0).nonzero()[0])]
    for width in (40, 80, 132):
        lines = in_columns(entries, width)
        assert all(len(line) <= width for line in lines)
        found = [e.strip() for line in lines for e in line.strip().split("   ") if e.strip()]
        assert sorted(found) == sorted(entries)                     # each entry whole, once
        first_column = [line[2:].split("   ")[0].strip() for line in lines]
        assert first_column == entries[:len(lines)]                 # numbered down the columns
    assert len(in_columns(entries, 132)) < len(in_columns(entries, 40))
    assert in_columns(["x" * 90], 40) == ["  " + "x" * 90]          # too long: a line of its own
