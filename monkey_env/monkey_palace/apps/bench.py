"""Monkey Palace's ``monkey-palace bench`` (the ``bench`` part): decisions per second of both engines
on full random games (the reference engine with both build actions, maps 1-4 in turn; the JAX
engine at each batch size, beside Pgx's go_19x19), and its extras: ``--train`` (the two trainers,
monkey_palace/apps/bench_train.py), ``--envs`` (the SB3 VecEnv beside the AEC loop) and
``--startup`` (import to the AEC env's first step, cold and warm).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

from monkey_env.apps.bench import _random_policy, bench_pgx_go
from monkey_env.monkey_palace.options import DEFAULT_BUILD_ACTION


def add_flags(bench) -> None:
    """The flags of Monkey Palace's bench beside every game's (--games, --batches, --max-seconds,
    --reference-only, --seed, --json)."""
    bench.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    bench.add_argument("--pgx-steps", type=int, default=20, help="batched steps of Pgx go_19x19")
    bench.add_argument("--train", action="store_true",
                       help="learner decisions per second of the JAX and SB3 trainers (shipped configs, same games)")
    bench.add_argument("--train-iterations", type=int, default=10,
                       help="--train: the JAX trainer's iterations timed per repeat, after compilation")
    bench.add_argument("--train-sb3-updates", type=int, default=None,
                       help="--train: the SB3 trainer's updates timed per repeat, after the first (default: "
                            "--train-iterations; an update is 4,096 learner decisions, a JAX iteration about 1,000)")
    bench.add_argument("--train-repeats", type=int, default=3, help="--train: repeats of the three timings (median reported)")
    bench.add_argument("--train-complete", action="store_true",
                       help="the JAX trainer on each build action, its shipped configs on the same games "
                            "(learner decisions and games per second; --train-iterations, --train-repeats)")
    bench.add_argument("--envs", action="store_true",
                       help="learner steps per second of the SB3 VecEnv (64, 256 games) beside the AEC env loop")
    bench.add_argument("--ratio-repeats", type=int, default=1,
                       help="the JAX complete/catalogue games-per-second ratio at the largest batch, measured again "
                            "this many times on fresh deals, the two engines alternated (median and range reported)")
    bench.add_argument("--startup", action="store_true",
                       help="seconds from import to the AEC env's first reset and step, in fresh processes, cold and warm")


def bench_reference(games: int, players: int, seed: int, build_action: str = DEFAULT_BUILD_ACTION) -> dict:
    """Whole random games of the reference engine, maps 1-4 in turn. The two build actions take
    different numbers of decisions per turn, so whole games per second compare them fairly."""
    from monkey_env.agents.random_agent import RandomAgent
    from monkey_env.monkey_palace.apps.play_games import play_game
    from monkey_env.monkey_palace.game_data import load_game_data
    from monkey_env.monkey_palace.options import GameOptions

    data = {m: load_game_data(m) for m in (1, 2, 3, 4)}
    times, decisions = [], 0
    for i in range(games):
        m = 1 + i % 4
        options = GameOptions(players=players, map=str(m), seed=seed + i, build_action=build_action)
        t0 = time.perf_counter()
        _, result = play_game(options, [RandomAgent(seed + i)] * players, data[m])
        times.append(time.perf_counter() - t0)
        decisions += result["decisions"]
    return {"engine": "reference", "build_action": build_action, "players": players, "games": games, "batch": 1,
            "decisions_per_second": decisions / sum(times), "games_per_second": games / sum(times),
            "decisions_per_game": decisions / games, "mean_game_seconds": statistics.mean(times),
            "max_game_seconds": max(times)}


def bench_jax(jg, batch: int, players: int, seed: int, max_seconds: float = 120.0) -> dict:
    """Random games of the JAX engine at one batch size, played until all end (or time runs out)."""
    import jax

    policy = _random_policy()
    mask_fn = jax.jit(jax.vmap(jg.legal_action_mask))
    keys = jax.random.split(jax.random.PRNGKey(seed), batch)
    params = jg.params(players=players, map=1)
    t0 = time.perf_counter()
    states = jax.block_until_ready(jg.batch_init(keys, params))
    key = jax.random.PRNGKey(seed + 1)
    warm = jg.batch_step(states, policy(key, mask_fn(states)))
    jax.block_until_ready(warm)
    compile_and_first = time.perf_counter() - t0
    t0, decisions, steps, ended = time.perf_counter(), 0, 0, 0
    while time.perf_counter() - t0 < max_seconds:
        live = int((~np.asarray(states.terminated)).sum())
        if live == 0:
            break
        key, k = jax.random.split(key)
        states = jg.batch_step(states, policy(k, mask_fn(states)))
        decisions += live
        steps += 1
    jax.block_until_ready(states)
    ended = int(np.asarray(states.terminated).sum())
    seconds = time.perf_counter() - t0
    state_bytes = sum(x.nbytes for x in jax.tree_util.tree_leaves(states)) / batch
    return {"engine": "jax", "players": players, "batch": batch, "decisions": decisions, "steps": steps,
            "seconds": seconds, "decisions_per_second": decisions / seconds, "build_action": jg.build_action,
            # whole games: the batch plays from its deal to the end, every game at once
            "games_per_second": ended / seconds if ended == batch else None,
            "compile_and_first_step_seconds": compile_and_first, "state_bytes_per_game": state_bytes}


def alternated_ratios(first, second, repeats: int) -> dict:
    """``second(r) / first(r)`` for r in range(repeats), called first, second, first, second, ...
    so that a drift of the machine's speed falls on both sides: the median ratio, its range and
    every pair (one batch of whole games is a few seconds, and its figure moves by a fifth)."""
    pairs = []
    for r in range(repeats):
        a, b = first(r), second(r)
        pairs.append({"first": a, "second": b, "ratio": b / a})
    ratios = [p["ratio"] for p in pairs]
    return {"median": statistics.median(ratios), "spread": [min(ratios), max(ratios)], "pairs": pairs}


def compile_seconds(jg, batch: int) -> float:
    """Time to compile the batched step (apart from running it)."""
    import jax
    import jax.numpy as jnp

    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    params = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (batch,) + x.shape), jg.default_params)
    dealt = jax.vmap(jg._deal)(keys, params)
    actions, legal = jnp.zeros(batch, jnp.int32), jnp.ones(batch, bool)
    t0 = time.perf_counter()
    jax.jit(jg._act).lower(dealt, actions).compile()
    jax.jit(jg._resolve_and_finish).lower(dealt, dealt, legal).compile()
    jax.jit(jax.vmap(jg._deal)).lower(keys, params).compile()
    return time.perf_counter() - t0


def bench_vec_env(batch: int, steps: int, players: int, seed: int) -> dict:
    """Learner steps per second of the batched SB3 VecEnv (random legal learner and opponents)."""
    from monkey_env.monkey_palace.envs.vec_env import MonkeyPalaceVecEnv

    venv = MonkeyPalaceVecEnv(batch, players=players, map=1, opponents="random", seed=seed)
    rng = np.random.default_rng(seed)

    def random_actions():
        masks = venv.action_masks()
        return np.argmax(np.where(masks, rng.gumbel(size=masks.shape), -np.inf), axis=1)

    t0 = time.perf_counter()
    venv.reset()
    venv.step(random_actions())  # compiles
    warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(steps):
        venv.step(random_actions())
    seconds = time.perf_counter() - t0
    return {"env": "JaxVecEnv", "batch": batch, "steps": steps * batch, "seconds": seconds,
            "steps_per_second": steps * batch / seconds, "compile_and_first_step_seconds": warm}


def bench_aec_loop(steps: int, players: int, seed: int) -> dict:
    """The same, one game at a time through the AEC env (as PettingZoo's SB3 tutorial trains):
    the Gymnasium view over the AEC env, a learner step plus the opponents' decisions."""
    from monkey_env.monkey_palace.envs.gym_env import MonkeyPalaceGymEnv

    env = MonkeyPalaceGymEnv(players=players, map=1, opponents="random", learner_seat=None)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))  # compiles
    t0, done, game = time.perf_counter(), False, 0
    for _ in range(steps):
        if done:
            game += 1
            env.reset(seed=seed + game)
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        done = term or trunc
    seconds = time.perf_counter() - t0
    return {"env": "AEC loop", "batch": 1, "steps": steps, "seconds": seconds, "steps_per_second": steps / seconds}


def run_envs(batches=(64, 256), players: int = 2, seed: int = 0, vec_steps: int = 30, aec_steps: int = 600) -> dict:
    aec = bench_aec_loop(aec_steps, players, seed)
    rows = [bench_vec_env(b, vec_steps, players, seed) for b in batches]
    top = next((r for r in rows if r["batch"] == 256), rows[-1])
    return {"vec_env_speedup_vs_aec_at_256": top["steps_per_second"] / aec["steps_per_second"],
            "aec_loop": aec, "vec_env": rows}


def run(batches=(1, 64, 256, 1024), players: int = 2, reference_games: int = 20, seed: int = 0,
        pgx_steps: int = 20, max_seconds: float = 120.0, ratio_repeats: int = 1) -> dict:
    from monkey_env.monkey_palace.jaxgame import JaxGame
    from monkey_env.monkey_palace.options import GameOptions

    # "reference"/"jax": the catalogue; "*_complete": the complete action (the default)
    reference = bench_reference(reference_games, players, seed, build_action="catalogue")
    reference_complete = bench_reference(reference_games, players, seed, build_action="complete")
    jg = JaxGame(GameOptions(build_action="catalogue"))
    compile_s = compile_seconds(jg, 64)
    rows = [bench_jax(jg, b, players, seed, max_seconds) for b in batches]
    # The complete build action on the JAX engine: whole games per second are the fair figure
    # (a build takes one decision per arch there, one in all with the catalogue).
    complete = JaxGame(GameOptions(build_action="complete"))
    rows_complete = [bench_jax(complete, b, players, seed, max_seconds) for b in batches]
    both = [(a, c) for a, c in zip(rows, rows_complete) if a["games_per_second"] and c["games_per_second"]]
    repeats = None
    if both and ratio_repeats > 1:
        batch = both[-1][0]["batch"]
        games = lambda engine: lambda r: bench_jax(engine, batch, players, seed + 1 + r, max_seconds)["games_per_second"]
        repeats = dict(alternated_ratios(games(jg), games(complete), ratio_repeats), batch=batch)
    pgx = bench_pgx_go(1024, pgx_steps, seed)
    top = next((r for r in rows if r["batch"] == 1024), rows[-1])
    return {
        "speedup_vs_reference_at_1024": top["decisions_per_second"] / reference["decisions_per_second"],
        "ratio_vs_pgx_go_at_1024": top["decisions_per_second"] / pgx["decisions_per_second"] if pgx else None,
        "state_bytes_per_game": top["state_bytes_per_game"],
        "compile_seconds": compile_s,
        "reference": reference, "jax": rows, "pgx_go": pgx,
        # The complete build action (every staircase the rules allow), on both engines.
        "reference_complete": reference_complete,
        "complete_vs_catalogue_games_per_second_reference": reference_complete["games_per_second"]
        / reference["games_per_second"],
        "jax_complete": rows_complete,
        # At the largest batch where both played whole games within max_seconds.
        "complete_vs_catalogue_games_per_second_jax": both[-1][1]["games_per_second"] / both[-1][0]["games_per_second"]
        if both else None,
        # The same ratio measured again on fresh deals, the engines alternated (--ratio-repeats).
        "complete_vs_catalogue_games_per_second_jax_repeats": repeats,
        "devices": [str(d) for d in __import__("jax").devices()],
    }


# The start-up probe, run in a fresh interpreter: seconds from `import monkey_env` to the AEC
# env's first reset() and first step(); its arguments are the env id and the env's options as JSON.
_STARTUP_PROBE = """
import json, sys, time
t0 = time.perf_counter()
import monkey_env
env = monkey_env.make(sys.argv[1], players=2, **json.loads(sys.argv[2]))
t_made = time.perf_counter()
env.reset(seed=0)
t_reset = time.perf_counter()
obs, *_ = env.last()
env.step(int(obs["action_mask"].nonzero()[0][0]))
t_step = time.perf_counter()
print(json.dumps({"import_and_make": t_made - t0, "first_reset": t_reset - t0, "first_step": t_step - t0}))
"""


def startup_once(cache_dir: str, env_id: str = "monkey_palace_v0", env_options: dict | None = None) -> dict:
    """One fresh process's start-up figures with the compilation cache in ``cache_dir``."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, MONKEY_PALACE_JAX_CACHE=cache_dir)
    for name in ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"):
        env.pop(name, None)
    command = [sys.executable, "-c", _STARTUP_PROBE, env_id, json.dumps(env_options or {})]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_startup(warm_runs: int = 3, env_id: str = "monkey_palace_v0", env_options: dict | None = None) -> dict:
    """Cold (an empty compilation cache) and warm (the cache the cold run filled) start-up of
    the 2-player AEC env ``env_id`` (any registered game's: the probe names no game's parts)
    made with ``env_options``; warm is the best of ``warm_runs`` (and their median)."""
    import statistics
    import tempfile

    with tempfile.TemporaryDirectory(prefix="monkey-palace-startup-") as cache:
        cold = startup_once(cache, env_id, env_options)
        warm = [startup_once(cache, env_id, env_options) for _ in range(warm_runs)]
    best_warm = min(warm, key=lambda r: r["first_step"])
    return {"first_reset_seconds_cold": cold["first_reset"], "first_step_seconds_cold": cold["first_step"],
            "first_reset_seconds_warm": best_warm["first_reset"], "first_step_seconds_warm": best_warm["first_step"],
            "first_step_seconds_warm_median": statistics.median(r["first_step"] for r in warm),
            "cold": cold, "warm": warm}


def time_shares(share: dict) -> str:
    """A trainer's iteration split as ``bench --train`` and ``--train-complete`` print it."""
    return (f"time in environment {share['environment']:.0%}, forward {share['forward']:.0%}, "
            f"update {share['update']:.0%}")


def run_command(args: argparse.Namespace) -> int:
    """``monkey-palace bench``: decisions per second of the reference and JAX engines on full random games."""
    from monkey_env.apps.cli import with_provenance

    started = time.perf_counter()
    if args.startup:
        # The default build action's figures at the top level (as before); the catalogue's in the
        # same run beside them, so that the two are compared on one machine at one load.
        report = run_startup()
        report["catalogue"] = run_startup(env_options={"build_action": "catalogue"})
        report["first_step_cold_vs_catalogue"] = (report["first_step_seconds_cold"]
                                                  / report["catalogue"]["first_step_seconds_cold"])
        if args.json:
            print(json.dumps(with_provenance(report, started)))
        else:
            for name, r in ((DEFAULT_BUILD_ACTION, report), ("catalogue", report["catalogue"])):
                print(f"AEC env ({name} build action), first reset: {r['first_reset_seconds_cold']:.1f} s cold, "
                      f"{r['first_reset_seconds_warm']:.1f} s warm; first step: "
                      f"{r['first_step_seconds_cold']:.1f} s cold, {r['first_step_seconds_warm']:.1f} s warm")
        return 0
    if args.train:
        from monkey_env.monkey_palace.apps.bench_train import run_train_bench

        report = run_train_bench(args.train_iterations, args.train_repeats, sb3_updates=args.train_sb3_updates,
                                 log=lambda line: print(line, file=sys.stderr, flush=True))
        if args.json:
            print(json.dumps(with_provenance(report, started)))
        else:
            for name in ("jax", "jax_sb3_sized", "sb3"):
                row, share = report[name], report[name]["share"]
                print(f"{name:>13}: {row['train_decisions_per_second']:7.0f} learner decisions/s, "
                      f"{row['parameters']:,} parameters; {time_shares(share)}")
            lo, hi = report["spread"]["train_ratio_vs_sb3"]
            lo_same, hi_same = report["spread"]["train_ratio_vs_sb3_same_size"]
            print(f"JAX over SB3, median of {len(report['repeats'])}: {report['train_ratio_vs_sb3']:.2f}x "
                  f"[{lo:.2f}, {hi:.2f}] (same network size: {report['train_ratio_vs_sb3_same_size']:.2f}x "
                  f"[{lo_same:.2f}, {hi_same:.2f}])")
        return 0
    if args.train_complete:
        from monkey_env.monkey_palace.apps.bench_train import run_build_action_bench

        report = run_build_action_bench(args.train_iterations, args.train_repeats,
                                        log=lambda line: print(line, file=sys.stderr, flush=True))
        if args.json:
            print(json.dumps(with_provenance(report, started)))
        else:
            for action in ("catalogue", "complete"):
                print(f"{action:>9}: {report[f'train_decisions_per_second_{action}']:5.0f} learner decisions/s, "
                      f"{report[f'games_per_second_{action}']:.2f} games/s (medians); "
                      f"{time_shares(report[action]['share'])}")
            lo, hi = report["spread"]["games_per_second_complete_vs_catalogue"]
            print(f"games per second, complete over catalogue, median of {len(report['repeats'])}: "
                  f"{report['games_per_second_complete_vs_catalogue']:.2f}x [{lo:.2f}, {hi:.2f}]")
        return 0
    if args.envs:
        report = run_envs(players=args.players, seed=args.seed)
        if args.json:
            print(json.dumps(with_provenance(report, started)))
        else:
            a = report["aec_loop"]
            print(f"AEC env loop (one game at a time): {a['steps_per_second']:.0f} learner steps/s")
            for row in report["vec_env"]:
                print(f"JaxVecEnv, {row['batch']:>4} games: {row['steps_per_second']:.0f} learner steps/s")
            print(f"VecEnv over the AEC loop at 256 games: {report['vec_env_speedup_vs_aec_at_256']:.1f}x")
        return 0
    if args.reference_only:
        report = {"reference": bench_reference(args.games, args.players, args.seed, build_action="catalogue"),
                  "reference_complete": bench_reference(args.games, args.players, args.seed, build_action="complete")}
    else:
        batches = tuple(int(b) for b in args.batches.split(","))
        report = run(batches=batches, players=args.players, reference_games=args.games, seed=args.seed,
                     pgx_steps=args.pgx_steps, max_seconds=args.max_seconds, ratio_repeats=args.ratio_repeats)
    if args.json:
        print(json.dumps(with_provenance(report, started)))
        return 0
    for key in ("reference", "reference_complete"):
        if key in report:
            r = report[key]
            print(f"reference engine, {r['build_action']} build, {r['players']} players: "
                  f"{r['decisions_per_second']:.0f} decisions/s, {r['games_per_second']:.2f} games/s, "
                  f"{r['mean_game_seconds']:.2f} s per game (max {r['max_game_seconds']:.2f} s)")
    for row in report.get("jax", []) + report.get("jax_complete", []):
        games = f", {row['games_per_second']:.1f} games/s" if row["games_per_second"] else ""
        print(f"JAX engine, {row['build_action']} build, batch {row['batch']:>5}: {row['decisions_per_second']:.0f} "
              f"decisions/s{games} ({row['decisions']} decisions in {row['seconds']:.1f} s)")
    if "jax" in report:
        pgx = report["pgx_go"]
        print(f"Pgx go_19x19, batch 1024: {pgx['decisions_per_second']:.0f} steps/s" if pgx else
              "Pgx not installed (pip install -e '.[bench]'): no go_19x19 yardstick")
        print(f"speed-up over the reference at 1024: {report['speedup_vs_reference_at_1024']:.1f}x; "
              f"state {report['state_bytes_per_game']:.0f} bytes per game; compile {report['compile_seconds']:.1f} s")
    if report.get("complete_vs_catalogue_games_per_second_jax_repeats"):
        rep = report["complete_vs_catalogue_games_per_second_jax_repeats"]
        print(f"JAX games/s, complete over catalogue at batch {rep['batch']}, median of {len(rep['pairs'])} alternated "
              f"pairs: {rep['median']:.2f} [{rep['spread'][0]:.2f}, {rep['spread'][1]:.2f}]")
    return 0
