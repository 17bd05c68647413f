"""Playing one chunk of a schedule (a seating and a block of deals) and describing each game as
a database row. This is the code every worker runs, local or on Ray.

Two engines:

- ``jax``: the whole chunk is one batch of the game's JAX engine; every agent must offer
  ``act_batch``. The batch's agent key comes from the tournament seed and the chunk,
  so the same chunk always plays the same games.
- ``reference``: game by game on the game's reference engine; each seat's agent is built
  afresh for each game with a seed drawn from (tournament seed, game index, seat).

The two engines deal differently from the same seed (numpy vs ``jax.random``), so the engine
is part of each row and of the tournament's identity. Both play through
:func:`monkey_env.apps.results_table.play_games`; a row's ``ranks`` are the game's places
(monkey_env.core.outcome: on equal points the game's tie-break, in Monkey Palace the Monkey
trophy's holder, ranks first; seats still tied share the better place).
"""

from __future__ import annotations

import time

import numpy as np

from monkey_env.agents.registry import make_agent
from monkey_env.apps.arena.schedule import Chunk
from monkey_env.apps.arena.versions import agent_version
from monkey_env.core.outcome import places
from monkey_env.games import DEFAULT_GAME, game_spec, spec_for_options


def ranks_of(scores, tie_break_seat: int = -1) -> list[int]:
    """The rulebook's places, 1 = best: more points, or equal points and the tie-break (the Monkey
    trophy's holder, -1 none); seats still tied share the better place (the rating models take
    them as ties). monkey_env.core.outcome.places."""
    return places(scores, tie_break_seat)


def derived_seed(*parts: int) -> int:
    """A 32-bit seed from integers, well mixed (neighbouring games get unrelated agent seeds)."""
    return int(np.random.SeedSequence([int(p) & 0xFFFFFFFF for p in parts]).generate_state(1)[0])


def use_jax_cache() -> None:
    """Keep compiled JAX programs on disk, so a worker after the first one starts in seconds."""
    from monkey_env.core.jax_cache import enable_compilation_cache
    enable_compilation_cache()


def shared_jax_game(options=None, game: str = DEFAULT_GAME):
    """The JAX engine of these options' game (``game``'s without options), one per process and game
    data (the game's ``jax_engine`` part keeps it): its compiled programs serve every tournament."""
    use_jax_cache()
    spec = game_spec(game) if options is None else spec_for_options(options)
    return spec.load("jax_engine")(options)


class ChunkPlayer:
    """Plays chunks of one tournament; keeps the compiled JAX game and the batch agents."""

    def __init__(self, spec: dict):
        self.spec = spec                      # players, map, options, engine, seed, config_hash
        self._jax_game = None
        self._batch_agents: dict[str, object] = {}
        self._versions: dict[str, str] = {}
        self._data = None

    @property
    def game(self) -> str:
        return self.spec.get("game", DEFAULT_GAME)

    def version(self, name: str) -> str:
        if name not in self._versions:
            self._versions[name] = agent_version(make_agent(name, 0, game=self.game))
        return self._versions[name]

    def play(self, chunk: Chunk, skip: frozenset[int] = frozenset()) -> list[dict]:
        """The rows of the chunk's games, less those whose index is in `skip` (already recorded)."""
        todo = [i for i, index in enumerate(chunk.indices) if index not in skip]
        if not todo:
            return []
        if self.spec["engine"] == "jax":
            return self._play_jax(chunk, todo)
        return [self._play_reference(chunk, i) for i in todo]

    def _options(self, seed: int = 0):
        from monkey_env.apps.results_table import new_options

        s = self.spec
        return new_options(self.game, players=s["players"], map=s["map"], seed=int(seed), recorded=True,
                           **s["options"])

    def _row(self, chunk: Chunk, i: int, table, g: int, duration: float) -> dict:
        """Row of the chunk's game i, from game g of a results_table.GameResults."""
        s = self.spec
        return {"game_index": chunk.indices[i], "deal": chunk.deals[i], "seed": chunk.seeds[i],
                "config_hash": s["config_hash"], "map": str(s["map"]), "players": s["players"],
                "options": s["options"], "engine": s["engine"], "seats": list(chunk.seating),
                "versions": [self.version(n) for n in chunk.seating],
                "scores": [int(v) for v in table.scores[g]], "ranks": [int(v) for v in table.places[g]],
                "rounds": int(table.rounds[g]), "end_trigger": str(table.end_trigger[g]),
                "decisions": int(table.decisions[g]), "duration": float(duration)}

    def _play_reference(self, chunk: Chunk, i: int) -> dict:
        from monkey_env.apps.results_table import play_games

        s = self.spec
        options = self._options(chunk.seeds[i])
        if self._data is None and hasattr(options, "game_data"):      # a game without data files has none
            self._data = options.game_data()
        index = chunk.indices[i]
        t0 = time.perf_counter()
        table = play_games(lambda _, __: [make_agent(name, seed=derived_seed(s["seed"], index, seat), game=self.game)
                                          for seat, name in enumerate(chunk.seating)],
                           options, [chunk.seeds[i]], names=list(chunk.seating), engine="reference", data=self._data)
        return self._row(chunk, i, table, 0, time.perf_counter() - t0)

    def _play_jax(self, chunk: Chunk, todo: list[int]) -> list[dict]:
        from monkey_env.apps.results_table import play_games

        s = self.spec
        if self._jax_game is None:
            self._jax_game = shared_jax_game(self._options())
        for name in chunk.seating:
            if name not in self._batch_agents:
                self._batch_agents[name] = make_agent(name, 0, game=self.game)   # act_batch draws from the key
        agents = [self._batch_agents[name] for name in chunk.seating]
        # Always the whole chunk, padded with its last deal to a power of two (at most the chunk
        # size): the batch depends on the chunk alone, so a game plays the same whether or not its
        # neighbours were recorded; a short chunk (a small tournament, the last block of deals) is
        # not played 256 games wide; and the compiled shapes stay few.
        width = min(s["chunk"], 1 << (len(chunk.seeds) - 1).bit_length())
        seeds = list(chunk.seeds) + [chunk.seeds[-1]] * (width - len(chunk.seeds))
        key = derived_seed(s["seed"], chunk.deals[0], chunk.seating_index)
        table = play_games(agents, self._options(), seeds, names=list(chunk.seating), engine="jax",
                           batch=len(seeds), pad=False, agent_key=key, jax_game=self._jax_game)
        per_game = float(table.duration.sum()) / len(todo)
        return [self._row(chunk, i, table, i, per_game) for i in todo]
