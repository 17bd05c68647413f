"""Running a tournament: check the agents, find or create it in the database, play the chunks
not yet recorded on local worker processes (or Ray), and record each chunk as it finishes.

Only this process writes the database; workers return rows. Stopping at any moment loses at
most the chunks in flight, which are played again on the next run (each game is identified by
its index, so nothing is counted twice).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context

from monkey_env.agents.base import check_plays, plays_batched
from monkey_env.agents.registry import make_agent
from monkey_env.apps.arena.games import ChunkPlayer
from monkey_env.apps.arena.results import Results, Tournament
from monkey_env.apps.arena.schedule import Chunk, Schedule, seatings, until
from monkey_env.apps.arena.versions import agent_version, config_hash
from monkey_env.core.options import jax_plays
from monkey_env.games import DEFAULT_GAME, game_spec

DEFAULT_CHUNK = {"jax": 256, "reference": 4}


@dataclass
class TournamentPlan:
    """Everything that decides a tournament's games."""

    schedule: Schedule
    spec: dict           # what a worker needs: players, map, options, engine, seed, config_hash
    versions: dict       # agent name -> version
    key: str             # the tournament's identity in the database


def plan_tournament(agents: list[str], players: int, map: str, options: dict, games: int, seed: int,
                    engine: str = "auto", chunk: int | None = None, game: str = DEFAULT_GAME) -> TournamentPlan:
    """Check the inputs and fix the tournament; raises ValueError naming what is wrong. ``game``:
    any registered game (another game's ``map`` is "-" when its options have none)."""
    from monkey_env.apps.results_table import new_options
    from monkey_env.core.options import for_the_record

    agents = [a.strip() for a in agents]
    if any(not a for a in agents):
        raise ValueError("--agents has an empty name (two commas, or a comma at an end?)")
    seatings(agents, players)        # checks the number and repetition of agents
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    game_options = new_options(game, players=players, map=map, seed=seed, **options)   # validates the options
    options = for_the_record(game_options, options)      # a default that changed is named (core.options)
    built = {}
    for name in agents:
        built[name] = make_agent(name, 0, game=game)   # unknown names raise ValueError with the known ones
    check_plays(built, game_options)
    batchable = (all(plays_batched(a, game_options) for a in built.values()) and game_spec(game).has("jax_engine")
                 and jax_plays(game_options))
    if engine == "auto":
        engine = "jax" if batchable else "reference"
    if engine == "jax" and not jax_plays(game_options):
        raise ValueError("--engine jax: these game options are played by the reference engine only; use --engine reference")
    if engine == "jax" and not batchable:
        lacking = [n for n, a in built.items() if not plays_batched(a, game_options)]
        raise ValueError(f"--engine jax needs agents with act_batch for these options; {', '.join(lacking)} "
                         "only offer act here")
    if engine == "reference" and not all(hasattr(a, "act") for a in built.values()):
        lacking = [n for n, a in built.items() if not hasattr(a, "act")]
        raise ValueError(f"--engine reference needs agents with act; {', '.join(lacking)} only offer act_batch")
    chunk = chunk or DEFAULT_CHUNK[engine]
    if chunk < 1:
        raise ValueError(f"--chunk must be at least 1, got {chunk}")
    # the options' own game data (--config-dir, --catalogue); a game without data files has none
    fingerprint = game_options.game_data().fingerprint if hasattr(game_options, "game_data") else None
    game_config = {"players": players, "map": str(map), "options": options, "data": fingerprint}
    spec = {"players": players, "map": str(map), "options": options, "engine": engine, "seed": seed,
            "chunk": chunk, "config_hash": config_hash(game_config)}
    if not game_spec(game).identity_without_game:   # the first game's identities stay as they were
        game_config["game"] = spec["game"] = game
        spec["config_hash"] = config_hash(game_config)
    versions = {n: agent_version(a) for n, a in built.items()}
    schedule = Schedule(tuple(agents), players, games, seed, chunk)
    # The number of games is left out of the identity: asking for more continues the tournament.
    key = config_hash({"agents": agents, "versions": versions, "spec": spec})
    return TournamentPlan(schedule, spec, versions, key)


def tournament_config(plan: TournamentPlan) -> dict:
    s = plan.schedule
    return {"agents": list(s.agents), "versions": plan.versions, "players": s.players, "seed": s.seed,
            "chunk": s.chunk_size, **{k: plan.spec[k] for k in ("map", "options", "engine", "config_hash", "game")
                                      if k in plan.spec}}


def run_tournament(db: Results, plan: TournamentPlan, *, workers: int | None = None, backend: str = "local",
                   ray_address: str | None = None, progress: bool = True,
                   time_limit: float | None = None) -> tuple[Tournament, int]:
    """Play every game of the plan not yet in the database; returns the tournament and the
    number of games this run added. After `time_limit` seconds no new chunk is started (those
    running are finished and recorded): the same call later continues."""
    deadline = None if time_limit is None else time.monotonic() + time_limit
    tour = db.tournament(plan.key, tournament_config(plan))
    done = db.done_indices(tour.id)
    todo = [c for c in plan.schedule.chunks() if not set(c.indices) <= done]
    total = plan.schedule.total_games
    skip = frozenset(done)
    bar = _progress(total, len(done), progress)
    added = 0

    def record(rows: list[dict]) -> None:
        nonlocal added
        n = db.add_games(tour.id, rows)
        added += n
        bar.update(n)

    try:
        if not todo:
            pass
        elif backend == "ray":
            from monkey_env.apps.arena.ray_backend import run_on_ray
            run_on_ray(plan.spec, todo, skip, record, workers=workers, address=ray_address, deadline=deadline)
        elif backend == "local":
            run_local(plan.spec, todo, skip, record, workers=workers, deadline=deadline)
        else:
            raise ValueError(f"unknown backend {backend!r}: local or ray")
    finally:
        bar.close()
    return tour, added


def _progress(total: int, done: int, enabled: bool):
    from tqdm import tqdm
    return tqdm(total=total, initial=done, desc="games", unit="game", file=sys.stderr, disable=not enabled,
                smoothing=0.05)


# ------------------------------------------------------------------------------------ local backend
_worker_player: ChunkPlayer | None = None


def _init_worker(spec: dict, parent: int) -> None:
    global _worker_player
    _worker_player = ChunkPlayer(spec)
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the tournament process's to handle

    # A worker whose tournament process was killed (kill -9) stops instead of playing on.
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()


def _play_in_worker(chunk: Chunk, skip: frozenset[int]) -> list[dict]:
    return _worker_player.play(chunk, skip)


def run_local(spec: dict, chunks: list[Chunk], skip: frozenset[int], record: Callable[[list[dict]], None],
              workers: int | None = None, deadline: float | None = None) -> None:
    """Play the chunks on `workers` processes (default: every core), record each as it finishes."""
    workers = max(1, min(workers or os.cpu_count() or 1, len(chunks)))
    chunks = until(chunks, deadline)
    if workers == 1:
        player = ChunkPlayer(spec)
        for c in chunks:
            record(player.play(c, _relevant(skip, c)))
        return
    pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=_init_worker,
                               initargs=(spec, os.getpid()))
    try:
        for rows in _bounded(pool, chunks, skip, 2 * workers):
            record(rows)
    except BaseException:
        # Stopped (Ctrl-C) or failed: end the workers now rather than after their current chunk.
        for p in list(getattr(pool, "_processes", {}).values()):
            p.terminate()
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _relevant(skip: frozenset[int], chunk: Chunk) -> frozenset[int]:
    return skip & frozenset(chunk.indices)


def _bounded(pool, chunks: Iterable[Chunk], skip: frozenset[int], in_flight: int):
    """Results as they come, with at most `in_flight` chunks submitted (a stop loses few)."""
    it = iter(chunks)
    running = set()
    while True:
        while len(running) < in_flight:
            c = next(it, None)
            if c is None:
                break
            running.add(pool.submit(_play_in_worker, c, _relevant(skip, c)))
        if not running:
            return
        finished, running = wait(running, return_when=FIRST_COMPLETED)
        for f in finished:
            yield f.result()
