"""Benchmarks (not tests): decisions per second of both engines on full random games.

``monkey-palace bench`` prints a table, ``--json`` one JSON object. Figures from one run
are comparable with each other only: the machines are noisy.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from monkey_env.apps.simulate import play_game
from monkey_env.monkey_palace.game_data import load_game_data
from monkey_env.monkey_palace.options import GameOptions


def bench_reference(games: int, players: int, seed: int, build_action: str = "catalogue") -> dict:
    """Whole random games of the reference engine, maps 1-4 in turn. The two build actions take
    different numbers of decisions per turn, so whole games per second compare them fairly."""
    from monkey_env.agents.random_agent import RandomAgent

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


def _random_policy():
    """The batched random agent's policy, the same for this engine and for Pgx."""
    from monkey_env.agents.random_agent import random_legal_actions

    return random_legal_actions()


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


def bench_pgx_go(batch: int, steps: int, seed: int) -> dict | None:
    """Pgx's go_19x19 with random legal moves, the yardstick of the JAX engine (optional extra)."""
    try:
        import pgx
    except ImportError:
        return None
    import jax

    env = pgx.make("go_19x19")
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    policy = _random_policy()
    key = jax.random.PRNGKey(seed)
    state = init(jax.random.split(key, batch))
    state = step(state, policy(key, state.legal_action_mask))
    jax.block_until_ready(state)
    t0 = time.perf_counter()
    for _ in range(steps):
        key, k = jax.random.split(key)
        state = step(state, policy(k, state.legal_action_mask))
    jax.block_until_ready(state)
    seconds = time.perf_counter() - t0
    return {"engine": "pgx go_19x19", "batch": batch, "steps": steps, "decisions_per_second": batch * steps / seconds}


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
        pgx_steps: int = 20, max_seconds: float = 120.0) -> dict:
    from monkey_env.monkey_palace.jaxgame import JaxGame

    reference = bench_reference(reference_games, players, seed)
    reference_complete = bench_reference(reference_games, players, seed, build_action="complete")
    from monkey_env.monkey_palace.options import GameOptions

    jg = JaxGame()
    compile_s = compile_seconds(jg, 64)
    rows = [bench_jax(jg, b, players, seed, max_seconds) for b in batches]
    # The complete build action on the JAX engine: whole games per second are the fair figure
    # (a build takes one decision per arch there, one in all with the catalogue).
    complete = JaxGame(GameOptions(build_action="complete"))
    rows_complete = [bench_jax(complete, b, players, seed, max_seconds) for b in batches]
    both = [(a, c) for a, c in zip(rows, rows_complete) if a["games_per_second"] and c["games_per_second"]]
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
        "devices": [str(d) for d in __import__("jax").devices()],
    }


# The start-up probe, run in a fresh interpreter: seconds from `import monkey_env` to the AEC
# env's first reset() and first step().
_STARTUP_PROBE = """
import json, time
t0 = time.perf_counter()
import monkey_env
env = monkey_env.make("monkey_palace_v0", players=2)
t_made = time.perf_counter()
env.reset(seed=0)
t_reset = time.perf_counter()
obs, *_ = env.last()
env.step(int(obs["action_mask"].nonzero()[0][0]))
t_step = time.perf_counter()
print(json.dumps({"import_and_make": t_made - t0, "first_reset": t_reset - t0, "first_step": t_step - t0}))
"""


def startup_once(cache_dir: str) -> dict:
    """One fresh process's start-up figures with the compilation cache in ``cache_dir``."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, MONKEY_PALACE_JAX_CACHE=cache_dir)
    for name in ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"):
        env.pop(name, None)
    out = subprocess.run([sys.executable, "-c", _STARTUP_PROBE], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_startup(warm_runs: int = 3) -> dict:
    """Cold (an empty compilation cache) and warm (the cache the cold run filled) start-up."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="monkey-palace-startup-") as cache:
        cold = startup_once(cache)
        warm = [startup_once(cache) for _ in range(warm_runs)]
    best_warm = min(warm, key=lambda r: r["first_step"])
    return {"first_reset_seconds_cold": cold["first_reset"], "first_step_seconds_cold": cold["first_step"],
            "first_reset_seconds_warm": best_warm["first_reset"], "first_step_seconds_warm": best_warm["first_step"],
            "cold": cold, "warm": warm}


# ------------------------------------------------------------------ any other registered game
def run_any_game(spec, options, batches=(1, 256, 1024), reference_games: int = 20, seed: int = 0,
                 max_seconds: float = 60.0) -> dict:
    """Decisions per second of a game's reference engine (random games, one at a time) and of its
    JAX engine (random games in batches), in the same run (apps.any_game's protocol)."""
    from monkey_env.agents.random_agent import RandomAgent
    from monkey_env.apps.any_game import play_one, players_of, with_seed

    times, decisions = [], 0
    for i in range(reference_games):
        t0 = time.perf_counter()
        _, n = play_one(spec, with_seed(options, seed + i), [RandomAgent(seed + i)] * players_of(options))
        times.append(time.perf_counter() - t0)
        decisions += n
    reference = {"engine": "reference", "games": reference_games, "batch": 1,
                 "decisions_per_second": decisions / sum(times), "mean_game_seconds": statistics.mean(times),
                 "max_game_seconds": max(times)}
    rows = []
    if batches and spec.has("jax_engine"):
        engine = spec.load("jax_engine")(options)
        rows = [bench_any_jax(engine, options, b, seed, max_seconds) for b in batches]
    top = next((r for r in rows if r["batch"] == 1024), None)
    return {"game": spec.name, "reference": reference, "jax": rows,
            "speedup_vs_reference_at_1024": top["decisions_per_second"] / reference["decisions_per_second"] if top else None,
            "devices": [str(d) for d in __import__("jax").devices()] if rows else []}


def bench_any_jax(engine, options, batch: int, seed: int, max_seconds: float = 60.0, chunk: int = 16) -> dict:
    """Random games of a JAX engine at one batch size, played until all end (or time runs out).

    Each decision is the legal mask, the random policy's choice and the step, on the same games
    from the same keys both ways: ``decisions_per_second`` runs ``chunk`` of them per call (a
    ``lax.scan`` in one compiled program, a host check between chunks whether every game has ended),
    ``step_loop`` one jitted call per step from Python (dispatch and a host transfer each step).
    Only the decisions of games not yet over count; compilation is excluded from both."""
    import jax
    import jax.numpy as jnp

    from monkey_env.apps.batch_play import game_keys

    policy = _random_policy()
    params = engine.params(options)

    def one(carry, _):
        states, key = carry
        key, k = jax.random.split(key)
        live = jnp.sum(~states.terminated).astype(jnp.int32)
        return (engine.batch_step(states, policy(k, engine.batch_legal_mask(states))), key), live

    @jax.jit
    def run_chunk(states, key):
        (states, key), live = jax.lax.scan(one, (states, key), None, length=chunk)
        return states, key, live.sum()

    t0 = time.perf_counter()
    start = jax.block_until_ready(engine.batch_init(game_keys(np.arange(seed, seed + batch)), params))
    key0 = jax.random.PRNGKey(seed + 1)
    jax.block_until_ready(run_chunk(start, key0))                              # compiles the chunk
    k1 = jax.random.split(key0)[1]
    jax.block_until_ready(engine.batch_step(start, policy(k1, engine.batch_legal_mask(start))))  # and the step
    compile_and_first = time.perf_counter() - t0

    states, key = start, key0
    t0, decisions, steps = time.perf_counter(), 0, 0           # the timed chunks only
    while time.perf_counter() - t0 < max_seconds and not bool(np.asarray(states.terminated).all()):
        states, key, live = run_chunk(states, key)
        decisions += int(live)
        steps += chunk
    jax.block_until_ready(states)
    seconds = time.perf_counter() - t0

    loop_states, key = start, key0
    t0, loop_decisions, loop_steps = time.perf_counter(), 0, 0
    while time.perf_counter() - t0 < max_seconds:
        live = int((~np.asarray(loop_states.terminated)).sum())
        if live == 0:
            break
        key, k = jax.random.split(key)
        loop_states = engine.batch_step(loop_states, policy(k, engine.batch_legal_mask(loop_states)))
        loop_decisions += live
        loop_steps += 1
    jax.block_until_ready(loop_states)
    loop_seconds = time.perf_counter() - t0
    return {"engine": "jax", "batch": batch, "decisions": decisions, "steps": steps, "seconds": seconds,
            "decisions_per_second": decisions / seconds, "chunk": chunk,
            "step_loop": {"decisions": loop_decisions, "steps": loop_steps, "seconds": loop_seconds,
                          "decisions_per_second": loop_decisions / loop_seconds},
            "compile_and_first_step_seconds": compile_and_first,
            "state_bytes_per_game": sum(x.nbytes for x in jax.tree_util.tree_leaves(states)) / batch}
