"""How well the shipped PPO's value predicts the searching seat's future, by player count: the
value calibration of the search agent (agents/mcts.py, ``value=fitted``).

    python -m experiments.value_calibration --games 512 --out agents/checkpoints/ppo_jax.calibration.json
    python -m experiments.value_calibration --build-action complete --games 128 \
        --out agents/checkpoints/ppo_jax_complete.calibration.json

The search needs, at every tree node, the searching seat's future zero-sum Banana Points u (its
points from now on minus the mean of the other seats', plus ``win_points`` x (its share of the
win - 1 / players)). The network gives one number, v, the value of the seat *to move*. Where the
searching seat moves, u is estimated from v; where another seat moves, the search used to take
u = -v x (players - 1), exact with 2 players only if v is exact. This script measures both
readings on real games and fits E[u | v] = slope x v + intercept for each:

- ``own``: u of the seat to move, from its own v;
- ``other``: u of another seat (a PPO seat), from the mover's v.

Games: every player count of ``--players``, seats drawn from the lineup of a tournament against
the shipped agents (two PPO seats, then greedy and random: PPO stands for the search agent, whose
prior it is), the PPO deciding by its argmax; only PPO seats' futures are fitted. Deals come
from ``--seed`` (the tournaments' deals are 0 to 99; the default seed 10,000 stays clear of them).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from monkey_env.monkey_palace.options import DEFAULT_BUILD_ACTION

LINEUPS = {2: ["ppo", "ppo"], 3: ["ppo", "ppo", "greedy"], 4: ["ppo", "ppo", "greedy", "random"]}
AGENT_CODES = {"ppo": 0, "greedy": 1, "random": 2}


def future_utility(final, now, shares, players: int, win_points: float) -> np.ndarray:
    """(N, players) each seat's u from the state whose points are ``now`` (see the docstring)."""
    gained = final - now
    total = gained.sum(1, keepdims=True)
    return gained - (total - gained) / (players - 1) + win_points * (shares - 1.0 / players)


def fit(v, u) -> dict:
    v, u = np.asarray(v, float), np.asarray(u, float)
    slope, intercept = np.polyfit(v, u, 1)
    residual = u - (slope * v + intercept)
    return {"slope": float(slope), "intercept": float(intercept), "n": int(len(u)),
            "corr": float(np.corrcoef(v, u)[0, 1]), "mean_v": float(v.mean()), "mean_u": float(u.mean()),
            "mse_raw_reading": None, "mse_fitted": float(np.mean(residual ** 2)), "var_u": float(u.var())}


def play(players: int, games: int, seed: int, win_points: float, build_action: str = DEFAULT_BUILD_ACTION):
    """Play the games (the shipped PPO of the build action); returns the (v, u) pairs of the two readings."""
    import jax
    import jax.numpy as jnp

    from monkey_env.agents.ppo_jax import JaxPPOAgent
    from monkey_env.apps.batch_play import game_keys
    from monkey_env.monkey_palace.agents.greedy import batch_scores, greedy_choice
    from monkey_env.monkey_palace.jaxgame.env import jax_game_for
    from monkey_env.monkey_palace.options import GameOptions

    jg = jax_game_for(GameOptions(players=players, map="1", build_action=build_action))
    prior_value = JaxPPOAgent(jax_game=jg).prior_value(jg)
    scores_of = batch_scores(jg)

    @jax.jit
    def decide(states, codes, key):
        masks = jg.batch_legal_mask(states)
        logits, value = prior_value(states)
        noise = jax.random.uniform(key, masks.shape)
        choice = jnp.stack([jnp.argmax(logits, -1), greedy_choice(scores_of(states, masks), masks),
                            jnp.argmax(jnp.where(masks, noise, -1.0), -1)], 1).astype(jnp.int32)
        agent = jnp.take_along_axis(codes, states.current[:, None], 1)[:, 0]
        return jnp.take_along_axis(choice, agent[:, None], 1)[:, 0], value

    rng = np.random.default_rng(seed)
    codes = np.stack([rng.permutation([AGENT_CODES[a] for a in LINEUPS[players]]) for _ in range(games)])
    params = jg.params(players=players, map="1")
    states = jg.batch_init(game_keys(seed + np.arange(games)), params)
    key = jax.random.PRNGKey(seed)
    steps = []
    for _ in range(2000):
        done = np.asarray(states.terminated)
        if done.all():
            break
        key, sub = jax.random.split(key)
        action, value = decide(states, jnp.asarray(codes), sub)
        steps.append((~done, np.asarray(states.current), np.asarray(value),
                      np.asarray(jg.batch_scores(states))[:, :players].astype(float)))
        states = jg.batch_step(states, action)
    final = np.asarray(jg.batch_scores(states))[:, :players].astype(float)
    first = np.asarray(jg.batch_places(states))[:, :players] == 1
    shares = first / first.sum(1, keepdims=True)
    own_v, own_u, other_v, other_u = [], [], [], []
    ppo_seat = codes == AGENT_CODES["ppo"]
    for live, current, value, now in steps:
        u = future_utility(final, now, shares, players, win_points)
        rows = np.flatnonzero(live)
        mover = current[rows]
        mine = ppo_seat[rows, mover]
        own_v.append(value[rows][mine])
        own_u.append(u[rows, mover][mine])
        for seat in range(players):
            pick = (mover != seat) & ppo_seat[rows, seat]
            other_v.append(value[rows][pick])
            other_u.append(u[rows, seat][pick])
    cat = np.concatenate
    return cat(own_v), cat(own_u), cat(other_v), cat(other_u)


def main(argv=None) -> int:
    from monkey_env.agents.mcts import MCTSAgent, MCTSSettings
    from monkey_env.agents.ppo_jax import checkpoint_hash, default_checkpoint
    from monkey_env.monkey_palace.jaxgame.env import jax_game_for
    from monkey_env.monkey_palace.options import GameOptions

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", default="2,3,4")
    p.add_argument("--games", type=int, default=512)
    p.add_argument("--seed", type=int, default=10_000)
    p.add_argument("--build-action", choices=("catalogue", "complete"), default=DEFAULT_BUILD_ACTION,
                   help="the build action, and so the shipped checkpoint measured (one per action space)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)

    win_points = MCTSAgent(MCTSSettings()).win_points()   # the shipped PPO's win_bonus / reward_scale
    checkpoint = default_checkpoint("monkey_palace", jax_game_for(GameOptions(build_action=args.build_action)))
    report = {"checkpoint": checkpoint_hash(checkpoint), "build_action": args.build_action, "games": args.games,
              "seed": args.seed, "win_points": win_points, "lineups": {str(k): v for k, v in LINEUPS.items()}, "players": {}}
    for players in (int(x) for x in args.players.split(",")):
        t0 = time.perf_counter()
        own_v, own_u, other_v, other_u = play(players, args.games, args.seed, win_points, args.build_action)
        own, other = fit(own_v, own_u), fit(other_v, other_u)
        own["mse_raw_reading"] = float(np.mean((own_v - own_u) ** 2))
        other["mse_raw_reading"] = float(np.mean((-(players - 1) * other_v - other_u) ** 2))
        report["players"][str(players)] = {"own": own, "other": other, "seconds": time.perf_counter() - t0}
        for name, f in (("own", own), ("other", other)):
            print(f"{players} players {name:5s}: u = {f['slope']:+.3f} v {f['intercept']:+.3f}  corr {f['corr']:+.3f}  "
                  f"mse raw {f['mse_raw_reading']:.1f} fitted {f['mse_fitted']:.1f} var {f['var_u']:.1f}  n {f['n']}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
