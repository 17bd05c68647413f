"""One way to play many games of any registered game, and one table of what they gave.

    results = play_games([make_agent("greedy"), make_agent("random")], options, seeds=range(1000))
    results.win_shares.sum(0) / results.n          # each seat's win rate

:func:`play_games` plays the games on the game's batched JAX engine when every agent offers
``act_batch``, and on its reference engine otherwise, and returns a :class:`GameResults`: numpy
columns, one row per game (``to_frame()`` gives a pandas DataFrame). ``simulate``, ``evaluate``,
the arena and the balance lab play through it. A game with a ``play_games`` part (monkey_env.games)
plays its games there (Monkey Palace: with the cards, colours and trophies its balance lab reads);
every other game through its protocol (monkey_env.apps.any_game).

Who won is the game's rule, one definition for every command (monkey_env.core.outcome): a seat's
place is 1 + the seats that beat it (more points, or as many and the game's tie-break); the
winners are the seats in place 1, and a win shared by k seats counts 1/k to each of them
(:func:`shared_win_rule`). Win rates are sums of ``win_shares``.

The two engines deal differently from the same seed (numpy vs ``jax.random``), so the engine is
a column of the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel

from monkey_env.agents.base import plays_batched
from monkey_env.core.options import jax_plays
from monkey_env.games import DEFAULT_GAME, game_spec, spec_for_options


def shared_win_rule(game: str = DEFAULT_GAME) -> str:
    """How a game's reports count wins: its win rule, and shared wins."""
    return f"{game_spec(game).win_rule}; a win still shared by k seats counts 1/k to each"


SHARED_WIN = shared_win_rule()    # the default game's


def shares_from_places(places: np.ndarray) -> np.ndarray:
    """(G, P) win shares from (G, P) places: 1/k to each of the k seats in place 1, else 0."""
    first = (np.asarray(places) == 1).astype(float)
    return first / np.maximum(first.sum(1, keepdims=True), 1)


def options_hash(options, data_fingerprint: str = "") -> str:
    """A short hash of what decides the games' rules (not the seed): comparable games share it."""
    from monkey_env.apps.arena.versions import config_hash

    rules = options.model_dump(exclude={"seed", "reward_mode"})
    return config_hash({"options": rules, "data": data_fingerprint})


@dataclass
class GameResults:
    """What each game did; axis 0 = game, axis 1 = seat."""

    seed: np.ndarray            # (G,) seed of the deal
    options_hash: np.ndarray    # (G,) str: options (without the seed) and game data, see options_hash()
    engine: np.ndarray          # (G,) str: "jax" or "reference" (their deals differ for a seed)
    agents: np.ndarray          # (G, P) str: the agent of each seat
    scores: np.ndarray          # (G, P) final Banana Points
    places: np.ndarray          # (G, P) rulebook place, 1 = winner (monkey_env.core.outcome)
    win_shares: np.ndarray      # (G, P) 1 for a sole winner, 1/k for each of k tied winners, else 0
    rounds: np.ndarray          # (G,)
    end_trigger: np.ndarray     # (G,) str: what ran out ("arches", ...), "illegal action", "" none
    decisions: np.ndarray       # (G,)
    duration: np.ndarray        # (G,) seconds of play (a JAX batch's time shared by its games)
    monkey_holder: np.ndarray   # (G,) seat holding the Monkey trophy at the end (the tie-break), -1 none
    batch: object | None = None  # a game's own details of JAX games, by its play_games part (Monkey Palace's
    #                               BatchResult: cards, colours, trophies); with take(rows) and concat(parts)
    stats: dict | None = None   # a game's own per-game figures, name -> (G, ...) (apps.any_game)

    COLUMNS = ("seed", "options_hash", "engine", "agents", "scores", "places", "win_shares", "rounds",
               "end_trigger", "decisions", "duration", "monkey_holder")
    shared_win = SHARED_WIN

    @property
    def n(self) -> int:
        return len(self.seed)

    @property
    def players(self) -> int:
        return self.scores.shape[1]

    def winners(self) -> np.ndarray:
        """(G, P) bool: the seats in first place."""
        return self.places == 1

    def take(self, rows) -> GameResults:
        rows = np.arange(self.n)[rows]
        return GameResults(**{c: getattr(self, c)[rows] for c in self.COLUMNS},
                           batch=None if self.batch is None else self.batch.take(rows),
                           stats=None if self.stats is None else {k: v[rows] for k, v in self.stats.items()})

    @classmethod
    def concat(cls, parts: Sequence[GameResults]) -> GameResults:
        parts = list(parts)
        batches = [p.batch for p in parts]
        stats = [p.stats for p in parts]
        return cls(**{c: np.concatenate([getattr(p, c) for p in parts]) for c in cls.COLUMNS},
                   batch=None if any(b is None for b in batches) else type(batches[0]).concat(batches),
                   stats=None if any(s is None for s in stats) else
                   {k: np.concatenate([s[k] for s in stats]) for k in stats[0]})

    def row(self, i: int) -> dict:
        """Game i as plain JSON-able values."""
        out = {}
        for c in self.COLUMNS:
            v = getattr(self, c)[i]
            out[c] = v.tolist() if isinstance(v, np.ndarray) else v.item() if hasattr(v, "item") else v
        return out

    def rows(self) -> list[dict]:
        return [self.row(i) for i in range(self.n)]

    def by_agent(self) -> dict[str, dict]:
        """Per agent, over every seat it sat in: seat games, wins (sum of win shares), scores."""
        out: dict[str, dict] = {}
        for name in dict.fromkeys(self.agents.reshape(-1).tolist()):
            sat = self.agents == name
            out[name] = {"seat_games": int(sat.sum()), "wins": float(self.win_shares[sat].sum()),
                         "scores": self.scores[sat].astype(int).tolist()}
        return out

    def to_frame(self):
        """A pandas DataFrame, one row per game, seat columns as agent_1, score_1, place_1, win_share_1, ..."""
        import pandas as pd

        cols = {c: getattr(self, c) for c in self.COLUMNS if getattr(self, c).ndim == 1}
        for s in range(self.players):
            for name, c in (("agent", "agents"), ("score", "scores"), ("place", "places"), ("win_share", "win_shares")):
                cols[f"{name}_{s + 1}"] = getattr(self, c)[:, s]
        return pd.DataFrame(cols)


# ------------------------------------------------------------------------------------ timing
class TimedAgent:
    """An agent whose decisions are timed: the same ``act`` / ``act_batch`` as the agent it wraps
    (only those it has), counting seconds and decisions (a batch call makes one decision for
    each game with a legal action). The first call is counted apart: it includes compiling."""

    def __init__(self, agent):
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)
        self.calls = 0
        self.seconds = 0.0            # after the first call
        self.decisions = 0            # after the first call
        self.first_call_seconds = 0.0
        self.all_decisions = 0        # the first call's too
        if hasattr(agent, "act"):
            self.act = self._act
        if hasattr(agent, "act_batch"):
            self.act_batch = self._act_batch

    def __getattr__(self, attr):      # version and the rest, from the agent
        if attr == "agent":
            raise AttributeError(attr)
        return getattr(self.agent, attr)

    def _count(self, seconds: float, decisions: int) -> None:
        self.all_decisions += decisions
        if self.calls == 0:
            self.first_call_seconds = seconds
        else:
            self.seconds += seconds
            self.decisions += decisions
        self.calls += 1

    def _act(self, game, mask):
        t0 = time.perf_counter()
        action = self.agent.act(game, mask)
        self._count(time.perf_counter() - t0, 1)
        return action

    def _act_batch(self, jax_game, states, masks, key):
        t0 = time.perf_counter()
        actions = np.asarray(self.agent.act_batch(jax_game, states, masks, key))   # waits for the result
        self._count(time.perf_counter() - t0, int(np.asarray(masks).any(-1).sum()))
        return actions

    @property
    def seconds_per_decision(self) -> float | None:
        """Mean seconds per decision after the first call (None before a second call)."""
        return self.seconds / self.decisions if self.decisions else None


# ------------------------------------------------------------------------------------ playing
def agent_names(agents: Sequence) -> list[str]:
    return [str(getattr(a, "name", None) or type(a).__name__) for a in agents]


def play_games(agents: Sequence | Callable[[int, int], Sequence], options, seeds, *,
               names: Sequence[str] | None = None,
               engine: str = "auto", batch: int = 256, pad: bool | None = None, agent_key: int | Callable = 0,
               share_agents: bool = False, max_decisions: int = 2000, jax_game=None, data=None,
               on_game: Callable | None = None, progress: Callable[[int], None] | None = None) -> GameResults:
    """Play one game per seed (seat s played by agents[s]) and return the table of results.

    agents: the agent of each seat, or (reference engine only) a function ``(game number, seed) ->
    agents`` that builds fresh, seeded agents for each game. options: any registered game's options
    object (its seed is replaced by each game's), or a dict of the default game's fields. engine:
    "jax", "reference" or "auto" (JAX when every agent has ``act_batch`` and the game a JAX engine
    that plays these options). JAX games run in batches of ``batch``; with ``pad`` (default: when
    there is more than one batch) every batch is filled to that size with its last seed, so one
    compiled shape serves them all, and the extra games are dropped. agent_key: the batch agents'
    PRNG key, an int or a function of a batch's seeds. on_game(game, summary): called after each
    reference game (save it, print it). progress(k): called with the number of games just played.
    share_agents, data (the game data object) and max_decisions go to a game's own ``play_games``
    part; the protocol's pipeline allows at least 5000 decisions."""
    if not isinstance(options, BaseModel):
        options = game_spec(DEFAULT_GAME).load("options")(**dict(options))
    spec = spec_for_options(options)
    seeds = np.asarray(list(seeds), np.int64)
    if len(seeds) == 0:
        raise ValueError("no games to play (no seeds)")
    if engine == "auto":
        batchable = not callable(agents) and all(plays_batched(a, options) for a in agents)
        engine = "jax" if batchable and spec.has("jax_engine") and jax_plays(options) else "reference"
    if engine not in ("jax", "reference"):
        raise ValueError(f"unknown engine {engine!r}: jax, reference or auto")
    if engine == "jax" and callable(agents):
        raise ValueError("the JAX engine plays one agent object per seat, not an agent factory")
    if spec.has("play_games"):
        return spec.load("play_games")(engine, agents, options, seeds, names=names, batch=batch, pad=pad,
                                       agent_key=agent_key, share_agents=share_agents, max_decisions=max_decisions,
                                       jax_game=jax_game, data=data, on_game=on_game, progress=progress)
    from monkey_env.apps import any_game

    if engine == "jax":
        return any_game.play_jax(list(agents), options, seeds, names, batch, pad, agent_key,
                                 max(max_decisions, 5000), jax_game, progress)
    return any_game.play_reference(agents, options, seeds, names, on_game, progress)


__all__ = ["GameResults", "SHARED_WIN", "shared_win_rule", "TimedAgent", "play_games", "shares_from_places", "options_hash"]
