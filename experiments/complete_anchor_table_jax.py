"""First JAX form of the complete build action's anchor mask: the table F, measured on CPU.

docs/ENVIRONMENTS.md ("A dynamic programme instead of sequence tables"): F[heading, level,
remainder allowance, y, x] = the fewest units of an attaching extension, iterated one arch at a
time on shifted planes in a ``lax.while_loop``; static axes L (levels -1..L-1) and R. This
script checks it against BuildSearch.legal_anchors() on three positions of
tests/test_complete_staircases.py and times it (first call with compilation, then the mean of 3).
A prototype for the next session: not used by the engine.

    python experiments/complete_anchor_table_jax.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent.parent / "tests")]
import test_complete_mask_reduction as reduction  # noqa: E402

from monkey_env.monkey_palace.geometry import heading_step  # noqa: E402

N, SPAN, BIG = 32, 3, 10000
L, R = 40, 17   # level axis (levels -1..L-1), remainder allowance 0..R-1


def _shifted(plane_p, h: int, i: int):
    sx, sy = heading_step(h)
    return jax.lax.dynamic_slice(plane_p, (SPAN + i * sy, SPAN + i * sx), (N, N))


@jax.jit
def anchor_table(clear, height, rest, anchor_ok, arches, bricks, units):
    """(32, 32) bool: some legal staircase starts at the stud, by the table F (exact while
    units + the highest clearance < L and bricks < R)."""
    clear_p = jnp.pad(clear, SPAN, constant_values=BIG)
    height_p = jnp.pad(height, SPAN, constant_values=BIG)
    rest_p = jnp.pad(rest, SPAN, constant_values=False)
    lev = (jnp.arange(L + 1) - 1)[:, None, None]
    rho = jnp.arange(R)[None, :, None, None]
    rows, cols = np.mgrid[0:N, 0:N]

    def one_arch_more(table):
        new = jnp.full_like(table, BIG)
        for h2 in range(4):
            sx, sy = heading_step(h2)
            under = _shifted(height_p, h2, SPAN)
            ok = _shifted(rest_p, h2, SPAN) & (under < BIG)
            need = jnp.maximum(jnp.maximum(_shifted(clear_p, h2, 1), _shifted(clear_p, h2, 2)), under)
            fy, fx = np.clip(rows + SPAN * sy, 0, N - 1), np.clip(cols + SPAN * sx, 0, N - 1)
            landing = table[h2][:, :, fy, fx]
            best = jnp.full(table.shape[1:], BIG)
            for extra in range(3):   # the least level, or one or two above it
                lv = jnp.maximum(lev + 1, need) + extra
                rise, support = lv - lev - 1, lv - under
                cost, rem = rise + support, rise % 3 + support % 3
                after = rho - rem[:, None]
                good = (ok & (lv < L))[:, None] & (after >= 0)
                li = jnp.broadcast_to(jnp.clip(lv + 1, 0, L)[:, None], landing.shape)
                later = jnp.take_along_axis(landing, li, axis=0)
                later = jnp.take_along_axis(later, jnp.clip(jnp.broadcast_to(after, landing.shape), 0, R - 1), axis=1)
                value = jnp.where(good, jnp.where(under > 0, cost[:, None], cost[:, None] + later), BIG)
                best = jnp.minimum(best, value)
            for h in range(5):   # heading 4: none yet (the anchor)
                if h < 4 and (h2 - h) % 4 == 2:
                    continue
                new = new.at[h].min(best)
        return new

    def body(carry):
        i, table, _ = carry
        grown = one_arch_more(table)
        return i + 1, grown, (grown != table).any()

    table = jnp.full((5, L + 1, R, N, N), BIG, jnp.int32)
    _, table, _ = jax.lax.while_loop(lambda c: (c[0] < arches) & c[2], body, (0, table, True))
    return anchor_ok & (table[4, 0, jnp.minimum(bricks, R - 1)] <= units)


def main() -> None:
    for index, supply in [(2, None), (8, (6, 4, 3)), (11, (8, 2, 6))]:
        s = reduction._supply_search(index, supply)
        args = (jnp.asarray(s.clearance, jnp.int32), jnp.asarray(s.height, jnp.int32), jnp.asarray(s.rest_ok),
                jnp.asarray(s.anchor_ok), s.max_arches, s.max_remainder, s.max_units)
        t0 = time.perf_counter()
        mask = np.asarray(anchor_table(*args))
        t1 = time.perf_counter()
        for _ in range(3):
            mask = np.asarray(anchor_table(*args))
        t2 = time.perf_counter()
        print(index, supply, "disagreements", int((mask != s.legal_anchors()).sum()), "anchors", int(mask.sum()),
              f"first call {t1 - t0:.1f} s, then {(t2 - t1) / 3 * 1000:.0f} ms", flush=True)


if __name__ == "__main__":
    main()
