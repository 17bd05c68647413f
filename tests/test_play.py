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

ROOT = Path(__file__).resolve().parents[1]


class Terminal:
    """A child process on a pseudo-terminal; read up to each question, answer it."""

    def __init__(self, *args: str):
        self.master, slave = os.openpty()
        env = dict(os.environ, PYTHONPATH=str(ROOT))
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
    t = Terminal("--save", str(save), "--png", str(png), "--seed", "5")
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
    # Mistyped, out of the list, then an illegal stud: explained, asked again.
    t.answer("banana")
    assert "I did not understand 'banana'" in t.question()
    t.answer("999")
    assert "999 is not in the list" in t.question()
    t.answer("0 0")
    assert "no staircase can start at (0, 0)" in t.question()
    t.answer("1")
    q = t.question()
    assert "decoration reaches height" in q and "credit" in q or "Type the number of a card" in q
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
    assert saved["opponents"] == ["random"] and saved["human"] == 0 and saved["game"]["round"] >= 3

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
