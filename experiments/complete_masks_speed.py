"""How long the JAX complete build action's masks take (jaxgame/complete_masks.py), jit-compiled
and vmapped: the anchor mask (once per turn) and the next-step mask (once per arch decision),
at batch 1 and 256, on turn starts and mask-guided prefixes of the 12 positions of
tests/games/monkey_palace/test_complete_staircases.py (the players' own supplies), cycled to fill the batch.
Prints the compile time, the best and median of a few calls, per mask, and the load.

    python experiments/complete_masks_speed.py [--max-units 16] [--max-columns 3] [--batches 1 256]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

# The tests' positions and helpers, imported once their folder is on the path (hence E402 below).
sys.path[:0] = [str(Path(__file__).resolve().parent.parent / "tests" / "games" / "monkey_palace")]
from test_complete_staircases import POSITIONS  # noqa: E402
from test_jax_complete_masks import N_RISES, prefix_fields  # noqa: E402

from monkey_env.monkey_palace.jaxgame import complete_masks as cm  # noqa: E402
from monkey_env.monkey_palace.staircases import BuildSearch  # noqa: E402


def timed(f, args, repeats: int) -> tuple[float, float, float]:
    t0 = time.perf_counter()
    jax.block_until_ready(f(*args))
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        jax.block_until_ready(f(*args))
        times.append(time.perf_counter() - t)
    return first, min(times), sorted(times)[len(times) // 2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-units", type=int, default=16)
    ap.add_argument("--max-columns", type=int, default=cm.Caps().max_columns, help="-1: as many as max_units allows")
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 256])
    args = ap.parse_args()
    caps = cm.Caps(args.max_units, max_columns=None if args.max_columns < 0 else args.max_columns)
    anchors, prefixes = [], []
    rng = np.random.default_rng(0)
    for palace, held, _ in POSITIONS:
        s = BuildSearch(palace, *held)
        planes = (s.height.astype(np.int8), s.clearance.astype(np.int8), s.rest_ok, np.asarray(held, np.int32))
        anchors.append(planes + (s.anchor_ok,))
        legal = np.argwhere(s.legal_anchors())
        y, x = legal[rng.integers(len(legal))]
        p = s.start((int(x), int(y)))     # an anchor, then one more arch when one keeps it unattached
        more = [q for q in (s.extend(p, h, r) for h, r in s.next_steps(p)) if not q.attached]
        p = more[0] if more else p
        prefixes.append(planes + ({k: np.asarray(v) for k, v in prefix_fields(p).items()},))
    anchor = jax.jit(jax.vmap(lambda h, c, r, s, a: cm.anchor_mask(h, c, r, a, s, caps)))
    step = jax.jit(jax.vmap(lambda h, c, r, s, p: cm.next_step_mask(h, c, r, s, p, N_RISES, caps)))
    print(f"caps: max_units {caps.max_units}, levels {caps.levels}, columns {caps.columns}, depth {caps.depth}; "
          f"backend {jax.default_backend()}; load {os.getloadavg()}", flush=True)
    for batch in args.batches:
        for name, f, cases in (("anchor", anchor, anchors), ("next step", step, prefixes)):
            pick = [cases[i % len(cases)] for i in range(batch)]
            stacked = jax.tree_util.tree_map(lambda *xs: jnp.asarray(np.stack(xs)), *pick)
            first, best, median = timed(f, stacked, 5 if batch == 1 else 3)
            print(f"{name:9s} batch {batch:4d}: compile + first {first:.1f} s; per call best {best * 1e3:.1f} ms, "
                  f"median {median * 1e3:.1f} ms; per mask {best / batch * 1e3:.2f} ms", flush=True)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
