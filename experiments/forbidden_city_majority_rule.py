"""Forbidden City: is greedy's blind spot the majorities of open rooms? A hand-made rule, greedy's
one-turn value plus ``alpha`` × the majority potential (monkey_env/forbidden_city/agents/majority.py), plays
greedy on the JAX engine, seats alternated; win rate with its 95% Wilson interval, mean coins.

    nice -n 10 .venv/bin/python experiments/forbidden_city_majority_rule.py --games 400 --alpha 0.5 0.2 0

``--alpha 0`` is greedy against itself (about 0.5). Ties (both rules) are broken at random; a
shared win counts 1/2. The JAX PPO takes the same potential as a per-action input whose logit
weight it learns (``majority_inputs: 1``, configs/train/ppo_jax_forbidden_city.yaml).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def match(alpha: float, games: int, seed: int) -> dict:
    import jax
    import jax.numpy as jnp

    from monkey_env.apps.balance.stats import wilson
    from monkey_env.forbidden_city.agents.greedy import action_values, greedy_from_values
    from monkey_env.forbidden_city.agents.majority import majority_potential
    from monkey_env.forbidden_city.jaxgame.env import jax_game_for

    jg = jax_game_for()
    values, potential = action_values(jg), majority_potential(jg)

    def choose(state, mask, key, rule):
        v = values(state, mask).astype(jnp.float32)
        return greedy_from_values(v + rule * alpha * potential(state, mask), mask, key)

    choose_batch = jax.jit(jax.vmap(choose))
    params = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (games,)), jg.params(players=2))
    states = jg.batch_init(jax.random.split(jax.random.PRNGKey(seed), games), params)
    seat = jnp.arange(games) % 2                       # the rule's seat
    key = jax.random.PRNGKey(seed + 1)
    t0 = time.perf_counter()
    while not bool(states.terminated.all()):
        key, k = jax.random.split(key)
        masks = jg.batch_legal_mask(states)
        actions = choose_batch(states, masks, jax.random.split(k, games), (states.current == seat).astype(jnp.float32))
        states = jg.batch_step(states, actions)
    coins = np.asarray(states.coins)[:, :2]
    rows = np.arange(games)
    mine, theirs = coins[rows, np.asarray(seat)], coins[rows, 1 - np.asarray(seat)]
    wins = (mine > theirs) + 0.5 * (mine == theirs)
    ci = wilson(float(wins.sum()), games)
    return {"alpha": alpha, "games": games, "seed": seed, "win_rate": float(wins.mean()), "ci95": [ci.lo, ci.hi],
            "coins_rule": float(mine.mean()), "coins_greedy": float(theirs.mean()),
            "seconds": round(time.perf_counter() - t0, 1)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--alpha", type=float, nargs="+", default=[0.5])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="a JSON file for the results")
    args = ap.parse_args(argv)
    results = []
    for alpha in args.alpha:
        r = match(alpha, args.games, args.seed)
        print(f"alpha {alpha}: {r['win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] over {r['games']} games, "
              f"coins {r['coins_rule']:.1f} vs {r['coins_greedy']:.1f} ({r['seconds']} s)", flush=True)
        results.append(r)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": "experiments/forbidden_city_majority_rule.py", "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
