"""Benchmarks (not tests): decisions per second of both engines on full random games.

``monkey-palace bench`` prints a table, ``--json`` one JSON object. Figures from one run
are comparable with each other only: the machines are noisy. Every game is measured here from
its parts (``run_any_game``: its reference engine, its JAX engine in batches); a game with a
``bench`` part (monkey_env.games) runs its own bench instead, with flags of its own (Monkey
Palace's: both build actions, the Pgx yardstick, --train, --envs, --startup).
"""

from __future__ import annotations

import statistics
import time

import numpy as np


def _random_policy():
    """The batched random agent's policy, the same for this engine and for Pgx."""
    from monkey_env.agents.random_agent import random_legal_actions

    return random_legal_actions()


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


# ------------------------------------------------------------------ any registered game
def run_any_game(spec, options, batches=(1, 256, 1024), reference_games: int = 20, seed: int = 0,
                 max_seconds: float = 60.0) -> dict:
    """Decisions per second of a game's reference engine (random games, one at a time) and of its
    JAX engine (random games in batches), in the same run (apps.results_table's protocol pipeline)."""
    from monkey_env.agents.random_agent import RandomAgent
    from monkey_env.apps.results_table import play_one, players_of, with_seed

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


def bench_any_jax(engine, options, batch: int, seed: int, max_seconds: float = 60.0, chunk: int = 16,
                  min_seconds: float = 5.0) -> dict:
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

    # The batch's games are played to their end, then again from the same deals with other keys,
    # until min_seconds have passed: a batch of short games ends within a second, too short a
    # time to measure on a shared machine.
    t0, decisions, steps, rounds = time.perf_counter(), 0, 0, 0   # the timed chunks only
    while True:
        states, key = start, jax.random.fold_in(key0, rounds)
        while time.perf_counter() - t0 < max_seconds and not bool(np.asarray(states.terminated).all()):
            states, key, live = run_chunk(states, key)
            decisions += int(live)
            steps += chunk
        rounds += 1
        if time.perf_counter() - t0 >= min(min_seconds, max_seconds):
            break
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
            "decisions_per_second": decisions / seconds, "chunk": chunk, "rounds": rounds,
            "step_loop": {"decisions": loop_decisions, "steps": loop_steps, "seconds": loop_seconds,
                          "decisions_per_second": loop_decisions / loop_seconds},
            "compile_and_first_step_seconds": compile_and_first,
            "state_bytes_per_game": sum(x.nbytes for x in jax.tree_util.tree_leaves(states)) / batch}
