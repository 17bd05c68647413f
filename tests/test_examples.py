"""The examples/ scripts (one per RL client) run a few iterations and print sane figures.

Each runs in a fresh process, as a user would run it, with the test run's environment (the
JAX compilation cache of conftest.py included). RLlib and TorchRL are the ``clients`` extra:
their tests are skipped without it.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_example(script: str, *args: str) -> str:
    proc = subprocess.run([sys.executable, f"examples/{script}", *args], cwd=ROOT, env=dict(os.environ),
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{script} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def figures(pattern: str, out: str) -> list[float]:
    found = [float(x) for x in re.findall(pattern, out)]
    assert found, f"no {pattern!r} in the output:\n{out}"
    return found


def test_sb3_maskable_ppo():
    out = run_example("sb3_maskable_ppo.py", "--iterations", "1", "--envs", "16", "--steps", "64")
    assert all(math.isfinite(x) for x in figures(r"last loss (\S+),", out))
    # Banana Points of a 2-player game: every game finished ends with a score in a sane range.
    assert all(0 <= x <= 100 for x in figures(r"mean episode reward (\S+),", out))


def test_cleanrl_ppo():
    out = run_example("cleanrl_ppo.py", "--iterations", "1", "--steps", "128")
    assert all(math.isfinite(x) for x in figures(r"loss (\S+),", out))
    assert all(0 <= x <= 100 for x in figures(r"mean episode reward \(last 10\) (\S+)", out))


def test_rllib_ppo():
    pytest.importorskip("ray.rllib")
    pytest.importorskip("tree")   # dm-tree: RLlib imports it (in the clients extra)
    out = run_example("rllib_ppo.py", "--iterations", "1", "--steps", "256")
    assert figures(r"env steps (\S+),", out) == [256.0]
    # The return of an episode summed over both seats: the two final scores.
    assert all(0 <= x <= 200 for x in figures(r"mean episode return \(all seats\) (\S+),", out))
    assert all(math.isfinite(x) for x in figures(r"policy loss (\S+)", out))


def test_torchrl_rollout():
    pytest.importorskip("torchrl")
    out = run_example("torchrl_rollout.py", "--iterations", "1", "--steps", "128")
    assert "check_env_specs passed" in out
    assert "every acting player's action legal: True" in out
    assert all(math.isfinite(x) for x in figures(r"loss (\S+)", out))
    assert all(0 <= x <= 400 for x in figures(r"reward \(all seats\) (\S+),", out))
