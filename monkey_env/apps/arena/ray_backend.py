"""The same schedule on a Ray cluster: one actor per CPU keeps its compiled game and plays
chunks; this process writes every result to the database as it arrives, as the local backend
does. A tournament stopped on Ray continues locally or on Ray alike.

Without ``--ray-address`` a local Ray instance is started (and stopped at the end); with one,
the cluster's machines need this package (and any user agent's module) installed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from monkey_env.apps.arena.games import ChunkPlayer
from monkey_env.apps.arena.schedule import Chunk, until


class _Player:
    """A Ray actor around a ChunkPlayer (defined undecorated so importing needs no Ray)."""

    def __init__(self, spec: dict):
        self.player = ChunkPlayer(spec)

    def play(self, chunk: Chunk, skip: frozenset[int]) -> list[dict]:
        return self.player.play(chunk, skip)


def run_on_ray(spec: dict, chunks: list[Chunk], skip: frozenset[int], record: Callable[[list[dict]], None],
               workers: int | None = None, address: str | None = None, deadline: float | None = None) -> None:
    import ray

    started = False
    if not ray.is_initialized():
        # A local instance sees the modules this process sees (user agents given by import path).
        path = os.pathsep.join([os.getcwd(), *[p for p in sys.path if p]])
        runtime_env = None if address else {"env_vars": {"PYTHONPATH": path}}
        ray.init(address=address, num_cpus=None if address else (workers or os.cpu_count()),
                 include_dashboard=False, runtime_env=runtime_env, logging_level="ERROR")
        started = True
    try:
        n = workers or int(ray.cluster_resources().get("CPU", 1))
        n = max(1, min(n, len(chunks)))
        remote_player = ray.remote(num_cpus=1)(_Player)
        actors = [remote_player.remote(spec) for _ in range(n)]
        queue = until(chunks, deadline)
        pending: dict = {}

        def submit(actor) -> None:
            c = next(queue, None)
            if c is not None:
                pending[actor.play.remote(c, skip & frozenset(c.indices))] = actor

        for actor in actors:          # two chunks each: an actor never waits for the driver
            submit(actor)
            submit(actor)
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            actor = pending.pop(ready[0])
            record(ray.get(ready[0]))
            submit(actor)
        for actor in actors:
            ray.kill(actor)
    finally:
        if started:
            ray.shutdown()
