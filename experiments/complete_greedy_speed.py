"""How long the batched greedy's walk over every staircase takes (agents/complete_values.py) at
anchor decisions of the complete build action: positions from random play on the JAX engine
(2 players, maps 1-4 in turn), one batched call of greedy's scores per group size. Prints one
JSON object: per group size the best and median seconds of a call and per anchor decision,
with the provenance (commit, load).

    python -m experiments.complete_greedy_speed [--positions 64] [--groups 1 4 16] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from monkey_env.core.provenance import load_average, provenance
from monkey_env.monkey_palace.actions import Phase
from monkey_env.monkey_palace.agents import greedy
from monkey_env.monkey_palace.jaxgame import JaxGame
from monkey_env.monkey_palace.options import GameOptions


def anchor_positions(jg, count: int, seed: int):
    """(states, masks) of ``count`` anchor decisions met in random games (about one in twenty taken)."""
    rng = np.random.default_rng(seed)
    batch = 64
    params = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *[jg.params(players=2, map=1 + i % 4) for i in range(batch)])
    states = jg.batch_init(jax.random.split(jax.random.PRNGKey(seed), batch), params)
    pool = []
    for _ in range(2000):
        masks = np.asarray(jg.batch_legal_mask(states))
        at_anchor = (np.asarray(states.phase) == Phase.ANCHOR) & masks.any(-1)
        for i in np.flatnonzero(at_anchor & (rng.random(batch) < 0.05)):
            pool.append((jax.tree_util.tree_map(lambda x, i=i: x[i], states), masks[i]))
        if len(pool) >= count:
            break
        states = jg.batch_step(states, np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]))
    pool = pool[:count]
    return (jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *[p[0] for p in pool]),
            jnp.asarray(np.stack([p[1] for p in pool])))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=64)
    ap.add_argument("--groups", type=int, nargs="+", default=[1, 4, 16], help="games a group of the walk (vmapped)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args()
    started, load_before = time.perf_counter(), load_average()
    jg = JaxGame(GameOptions(build_action="complete"))
    states, masks = anchor_positions(jg, args.positions, args.seed)
    n = int(masks.shape[0])
    rows = []
    for group in args.groups:
        jg.group_size = group          # the walk takes the engine's group size where it is set
        greedy.batch_scores.cache_clear()
        scores = greedy.batch_scores(jg)
        t0 = time.perf_counter()
        jax.block_until_ready(scores(states, masks))
        compile_s = time.perf_counter() - t0
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            jax.block_until_ready(scores(states, masks))
            times.append(time.perf_counter() - t)
        best, median = min(times), sorted(times)[len(times) // 2]
        rows.append({"group": group, "first_call_s": round(compile_s, 2), "best_s": round(best, 4),
                     "median_s": round(median, 4), "ms_per_anchor_decision": round(1000 * median / n, 2)})
        print(json.dumps(rows[-1]), flush=True)
    report = {"positions": n, "rows": rows, "provenance": provenance(started=started, load_before=load_before)}
    print(json.dumps(report, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
