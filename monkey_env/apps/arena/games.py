"""Playing one chunk of a schedule (a seating and a block of deals) and describing each game as
a database row. This is the code every worker runs, local or on Ray.

Two engines:

- ``jax``: the whole chunk is one batch of :func:`monkey_env.apps.batch_play.play_batch`; every agent
  must offer ``act_batch``. The batch's agent key comes from the tournament seed and the chunk,
  so the same chunk always plays the same games.
- ``reference``: game by game on :class:`monkey_env.monkey_palace.engine.Game`; each seat's agent is built
  afresh for each game with a seed drawn from (tournament seed, game index, seat).

The two engines deal differently from the same seed (numpy vs ``jax.random``), so the engine
is part of each row and of the tournament's identity.
"""

from __future__ import annotations

import time

import numpy as np

from monkey_env.agents.registry import make_agent
from monkey_env.apps.arena.schedule import Chunk
from monkey_env.apps.arena.versions import agent_version


def ranks_of(scores) -> list[int]:
    """1 = best; tied seats share the better rank (the rating models take ties as ties)."""
    return [1 + sum(o > s for o in scores) for s in scores]


def derived_seed(*parts: int) -> int:
    """A 32-bit seed from integers, well mixed (neighbouring games get unrelated agent seeds)."""
    return int(np.random.SeedSequence([int(p) & 0xFFFFFFFF for p in parts]).generate_state(1)[0])


def use_jax_cache() -> None:
    """Keep compiled JAX programs on disk, so a worker after the first one starts in seconds."""
    from monkey_env.core.jax_cache import enable_compilation_cache
    enable_compilation_cache()


def shared_jax_game():
    """One JaxGame per process: its compiled programs serve every tournament played here."""
    use_jax_cache()
    from monkey_env.monkey_palace.jaxgame.env import shared_jax_game as shared
    return shared()


class ChunkPlayer:
    """Plays chunks of one tournament; keeps the compiled JAX game and the batch agents."""

    def __init__(self, spec: dict):
        self.spec = spec                      # players, map, options, engine, seed, config_hash
        self._jax_game = None
        self._batch_agents: dict[str, object] = {}
        self._versions: dict[str, str] = {}
        self._data = None

    def version(self, name: str) -> str:
        if name not in self._versions:
            self._versions[name] = agent_version(make_agent(name, 0))
        return self._versions[name]

    def play(self, chunk: Chunk, skip: frozenset[int] = frozenset()) -> list[dict]:
        """The rows of the chunk's games, less those whose index is in `skip` (already recorded)."""
        todo = [i for i, index in enumerate(chunk.indices) if index not in skip]
        if not todo:
            return []
        if self.spec["engine"] == "jax":
            return self._play_jax(chunk, todo)
        return [self._play_reference(chunk, i) for i in todo]

    def _row(self, chunk: Chunk, i: int, scores, rounds: int, end_trigger: str, decisions: int,
             duration: float) -> dict:
        s = self.spec
        scores = [int(v) for v in scores]
        return {"game_index": chunk.indices[i], "deal": chunk.deals[i], "seed": chunk.seeds[i],
                "config_hash": s["config_hash"], "map": str(s["map"]), "players": s["players"],
                "options": s["options"], "engine": s["engine"], "seats": list(chunk.seating),
                "versions": [self.version(n) for n in chunk.seating], "scores": scores, "ranks": ranks_of(scores),
                "rounds": int(rounds), "end_trigger": end_trigger, "decisions": int(decisions),
                "duration": float(duration)}

    def _play_reference(self, chunk: Chunk, i: int) -> dict:
        from monkey_env.monkey_palace.engine import GameOptions
        from monkey_env.monkey_palace.game_data import load_game_data
        from monkey_env.apps.simulate import play_game

        s = self.spec
        if self._data is None:
            self._data = load_game_data(s["map"])
        index = chunk.indices[i]
        agents = [make_agent(name, seed=derived_seed(s["seed"], index, seat)) for seat, name in enumerate(chunk.seating)]
        options = GameOptions(players=s["players"], map=str(s["map"]), seed=chunk.seeds[i], **s["options"])
        t0 = time.perf_counter()
        game, summary = play_game(options, agents, self._data)
        return self._row(chunk, i, summary["scores"], summary["rounds"], summary["end_trigger"],
                         summary["decisions"], time.perf_counter() - t0)

    def _play_jax(self, chunk: Chunk, todo: list[int]) -> list[dict]:
        from monkey_env.apps.batch_play import END_KIND_NAMES, play_batch

        s = self.spec
        if self._jax_game is None:
            self._jax_game = shared_jax_game()
        for name in chunk.seating:
            if name not in self._batch_agents:
                self._batch_agents[name] = make_agent(name, 0)   # act_batch draws from the key
        agents = [self._batch_agents[name] for name in chunk.seating]
        # Always the whole chunk, padded to the chunk size with its last deal: one compiled shape
        # for every chunk, and a game plays the same whether or not its neighbours were recorded.
        seeds = list(chunk.seeds) + [chunk.seeds[-1]] * (s["chunk"] - len(chunk.seeds))
        key = derived_seed(s["seed"], chunk.deals[0], chunk.seating_index)
        r = play_batch(self._jax_game, agents, players=s["players"], map=s["map"], seeds=seeds,
                       options=s["options"], agent_key=key)
        per_game = r.seconds / len(todo)
        rows = []
        for i in todo:
            end = "illegal action" if r.illegal[i] else (END_KIND_NAMES[r.end_kind[i]] if r.end_kind[i] >= 0 else "")
            rows.append(self._row(chunk, i, r.scores[i], r.rounds[i], end, r.decisions[i], per_game))
        return rows
