"""Greedy's batched policy against its exact scores on the complete build action: the policy's
walk prunes for the choice alone (``choice_only`` in agents/complete_values.py), so at every
decision its action must be the one greedy_choice takes from the exact scores of every action.
Greedy self-play on the JAX engine, with a random seat 2 in every other game so the positions
vary; four settings (players, map, Butterfly). Exits 1 at the first difference; prints one JSON
object with the decisions compared per setting and the provenance.

    python -m experiments.complete_greedy_choice [--games 64] [--seed 5000] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from monkey_env.apps.batch_play import game_keys
from monkey_env.core.provenance import load_average, provenance
from monkey_env.monkey_palace.agents.greedy import _batch_policy, batch_scores, greedy_choice
from monkey_env.monkey_palace.jaxgame.env import jax_game_for
from monkey_env.monkey_palace.options import GameOptions

SETTINGS = ((2, 2, False), (4, 3, False), (3, 4, True), (2, 1, False))   # players, map, Butterfly


def compare(players: int, map_: int, butterfly: bool, games: int, seed: int) -> int:
    """Play one batch to its end; return the decisions compared (raise at a difference)."""
    options = GameOptions(players=players, map=map_, build_action="complete", butterfly=butterfly)
    jg = jax_game_for(options)
    policy, exact = _batch_policy(jg), batch_scores(jg)
    states = jg.batch_init(game_keys(np.arange(seed, seed + games, dtype=np.int64)), jg.params(options))
    key = jax.random.PRNGKey(seed)
    compared = 0
    while not bool(np.asarray(states.terminated).all()):
        masks = jg.batch_legal_mask(states)
        chosen = np.asarray(policy(states, masks))
        reference = np.asarray(greedy_choice(exact(states, masks), masks))
        live = np.asarray(masks.any(-1))
        differ = np.flatnonzero(live & (chosen != reference))
        if differ.size:
            raise AssertionError(f"{players} players, map {map_}: games {differ.tolist()} choose "
                                 f"{chosen[differ].tolist()} against the exact scores' {reference[differ].tolist()}")
        compared += int(live.sum())
        key, sub = jax.random.split(key)
        drawn = jnp.argmax(jnp.where(masks, jax.random.uniform(sub, masks.shape), -1.0), -1)
        random_seat = (states.current == 1) & (jnp.arange(games) % 2 == 0)
        states = jg.batch_step(states, jnp.where(random_seat, drawn, jnp.asarray(chosen)))
    return compared


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=64, help="games per setting (one batch)")
    ap.add_argument("--seed", type=int, default=5000)
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args(argv)
    if args.games < 1:   # no games would compare no decision and still report no difference
        ap.error(f"--games must be at least 1, not {args.games}")
    started, load_before = time.perf_counter(), load_average()
    rows = []
    try:
        for players, map_, butterfly in SETTINGS:
            n = compare(players, map_, butterfly, args.games, args.seed)
            rows.append({"players": players, "map": map_, "butterfly": butterfly, "games": args.games, "decisions": n})
            print(json.dumps(rows[-1]), flush=True)
    except AssertionError as e:
        print(f"difference: {e}", file=sys.stderr)
        return 1
    report = {"rows": rows, "decisions": sum(r["decisions"] for r in rows), "differences": 0,
              "provenance": provenance(started=started, load_before=load_before)}
    print(json.dumps(report, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
