"""One way to play many games of any registered game, and one table of what they gave.

    results = play_games([make_agent("greedy"), make_agent("random")], options, seeds=range(1000))
    results.win_shares.sum(0) / results.n          # each seat's win rate

:func:`play_games` plays the games on the game's batched JAX engine when every agent offers
``act_batch``, and on its reference engine otherwise, and returns a :class:`GameResults`: numpy
columns, one row per game (``to_frame()`` gives a pandas DataFrame). ``simulate``, ``evaluate``,
the arena and the balance lab play through it. A game with a ``play_games`` part (monkey_env.games)
plays its games there (Monkey Palace: with the cards, colours and trophies its balance lab reads;
that part builds on this module's table, and this module reaches it only through the registry);
every other game is played here from what monkey_env.core.protocol asks of a game:

- the reference engine: ``Game.from_options(options)``, ``legal_mask``, ``apply``, ``current``,
  ``game_over``, ``scores()``, ``places()``, ``round``, ``end_reason`` (why it ended) and
  ``stats()`` (a dict of per-game figures, the ``stats`` of the table; {} for none);
- the JAX engine: ``params(options)``, ``batch_init(keys, params)``, ``batch_step``,
  ``batch_legal_mask``, ``batch_scores``, ``batch_places``, ``batch_rounds`` and
  ``batch_stats(states)`` (the same dict as the reference engine's ``stats()``, one row per game),
  and the state fields ``current``, ``terminated`` and ``illegal`` (B,);
- the options' ``players``.

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
from monkey_env.games import DEFAULT_GAME, GameSpec, game_spec, spec_for_options


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
    scores: np.ndarray          # (G, P) final scores (the game's score_name)
    places: np.ndarray          # (G, P) rulebook place, 1 = winner (monkey_env.core.outcome)
    win_shares: np.ndarray      # (G, P) 1 for a sole winner, 1/k for each of k tied winners, else 0
    rounds: np.ndarray          # (G,)
    end_trigger: np.ndarray     # (G,) str: what ran out ("arches", ...), "illegal action", "" none
    decisions: np.ndarray       # (G,)
    duration: np.ndarray        # (G,) seconds of play (a JAX batch's time shared by its games)
    monkey_holder: np.ndarray   # (G,) seat holding the Monkey trophy at the end (the tie-break), -1 none
    batch: object | None = None  # a game's own details of JAX games, by its play_games part (Monkey Palace's
    #                               BatchResult: cards, colours, trophies); with take(rows) and concat(parts)
    stats: dict | None = None   # a game's own per-game figures, name -> (G, ...) (its stats())

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
def with_seed(options, seed: int):
    """A copy of any game's options with another seed."""
    return type(options)(**{**options.model_dump(), "seed": int(seed)})


def new_options(game: str, *, players: int, seed: int = 0, map=None, recorded: bool = False, **options):
    """A game's options object from what every command knows: the player count, the seed, the
    map where the game's options have one (ignored otherwise), and the game's own options.
    ``recorded``: the options come from a record, which may predate a changed default (as_recorded)."""
    from monkey_env.core.options import as_recorded

    model = game_spec(game).load("options")
    fields = dict(players=players, seed=seed, **(as_recorded(model, options) if recorded else options))
    if map is not None and "map" in model.model_fields:
        fields["map"] = str(map)
    return model(**fields)


def players_of(options) -> int:
    return int(options.players)        # every game's options have it (core.protocol.GameOptions)


def play_one(spec: GameSpec, options, agents: Sequence) -> tuple[object, int]:
    """One game on the reference engine to its end, seat s played by agents[s]: (game, decisions)."""
    game = spec.load("reference").from_options(options)
    decisions = 0
    while not game.game_over:
        game.apply(agents[game.current].act(game, game.legal_mask()))
        decisions += 1
    return game, decisions


def summary(game, decisions: int | None = None) -> dict:
    """One finished game as plain JSON-able values (simulate --json, saves' companions)."""
    places = [int(p) for p in game.places()]
    first = [s for s, p in enumerate(places) if p == 1]
    out = {"seed": int(game.options.seed), "players": len(places), "scores": [int(v) for v in game.scores()],
           "places": places, "winners": first,
           "win_shares": [1.0 / len(first) if s in first else 0.0 for s in range(len(places))],
           "rounds": int(game.round), "end_trigger": str(game.end_reason or ""),
           "decisions": decisions}
    stats = game.stats()
    if stats:
        out["stats"] = {k: np.asarray(v).tolist() for k, v in stats.items()}
    return out


def play_reference(agents: Sequence | Callable, options, seeds, names=None, on_game=None, progress=None, *,
                   play: Callable | None = None, hashed: str | None = None):
    """The games of these seeds on the reference engine: GameResults (engine "reference").

    play(options, agents) -> (game, its summary): one game to its end (default: play_one and
    summary, the protocol's; a summary has at least scores, places, rounds, end_trigger and
    decisions, and ``monkey_holder``, the tie-break's holder, where the game has one). hashed: the
    table's options hash (default ``options_hash(options)``)."""
    spec = spec_for_options(options)
    if play is None:
        def play(one_options, seated):
            game, decisions = play_one(spec, one_options, seated)
            return game, summary(game, decisions)
    h = options_hash(options) if hashed is None else hashed
    rows, stats = [], []
    for i, seed in enumerate(seeds):
        seated = list(agents(i, int(seed)) if callable(agents) else agents)
        t0 = time.perf_counter()
        game, s = play(with_seed(options, seed), seated)
        duration = time.perf_counter() - t0
        rows.append((list(names) if names is not None else agent_names(seated), s, duration))
        stats.append(game.stats())
        if on_game:
            on_game(game, s)
        if progress:
            progress(1)
    g = len(rows)
    places = np.asarray([s["places"] for _, s, _ in rows], np.int64)
    return GameResults(seed=np.asarray(seeds, np.int64).copy(), options_hash=np.full(g, h, dtype=object),
                       engine=np.full(g, "reference", dtype=object),
                       agents=np.asarray([n for n, _, _ in rows], dtype=object),
                       scores=np.asarray([s["scores"] for _, s, _ in rows], np.int64), places=places,
                       win_shares=shares_from_places(places), rounds=np.asarray([s["rounds"] for _, s, _ in rows], np.int64),
                       end_trigger=np.asarray([s["end_trigger"] for _, s, _ in rows], dtype=object),
                       decisions=np.asarray([s["decisions"] for _, s, _ in rows], np.int64),
                       duration=np.asarray([d for _, _, d in rows], float),
                       monkey_holder=np.asarray([s.get("monkey_holder", -1) for _, s, _ in rows], np.int64),
                       stats=_stack(stats))


def _stack(stats: list[dict]) -> dict | None:
    if not stats or not stats[0]:
        return None
    return {k: np.stack([np.asarray(s[k]) for s in stats]) for k in stats[0]}


def play_batch(engine, agents: Sequence, options, seeds, *, agent_key: int = 0, max_decisions: int = 5000,
               params=None, share_agents: bool = False, on_step: Callable | None = None) -> dict:
    """One batch of games (one per seed) on a JAX engine to their end; agents[s] plays seat s.

    Each step asks every seat's agent for the whole batch, with empty legal masks for the games
    where another seat is to play, and keeps per game the action of the seat to play (an agent
    that skips games without a legal action spends its effort on its own decisions only).
    params: the engine's params (default ``engine.params(options)``). share_agents: when one agent
    object plays several seats, ask it once per step for all of them (a deterministic agent plays
    the same games, faster); off, each seat gets its own call and key. on_step(before, after,
    done): called after every step with the states before and after it and the games done before."""
    import jax
    import jax.numpy as jnp

    from monkey_env.apps.batch_play import game_keys

    for a in agents:
        if not hasattr(a, "act_batch"):
            raise ValueError(f"agent {getattr(a, 'name', a)!r} has no act_batch; play it on the reference engine")
    seeds = np.asarray(seeds, np.int64)
    t0 = time.perf_counter()
    states = engine.batch_init(game_keys(seeds), engine.params(options) if params is None else params)
    key = jax.random.PRNGKey(agent_key)
    decisions = np.zeros(len(seeds), np.int64)
    for _ in range(max_decisions):
        done = np.asarray(states.terminated)
        if done.all():
            break
        masks = engine.batch_legal_mask(states)
        current = states.current
        actions = jnp.zeros(len(seeds), jnp.int32)
        asked: dict[int, jnp.ndarray] = {}
        for seat, agent in enumerate(agents):
            key, sub = jax.random.split(key)
            if share_agents and id(agent) in asked:
                chosen = asked[id(agent)]
            else:
                seats = [s for s, a in enumerate(agents) if a is agent] if share_agents else [seat]
                to_play = jnp.isin(current, jnp.asarray(seats))
                chosen = jnp.asarray(agent.act_batch(engine, states, masks & to_play[:, None], sub), jnp.int32)
                asked[id(agent)] = chosen
            actions = jnp.where(current == seat, chosen, actions)
        before, states = states, engine.batch_step(states, actions)
        decisions += ~done
        if on_step is not None:
            on_step(before, states, done)
    else:
        raise RuntimeError(f"games not finished after {max_decisions} decisions")
    out = {"states": states, "decisions": decisions, "seconds": time.perf_counter() - t0,
           "scores": np.asarray(engine.batch_scores(states)).astype(np.int64),
           "places": np.asarray(engine.batch_places(states)).astype(np.int64),
           "illegal": np.asarray(states.illegal),
           "rounds": np.asarray(engine.batch_rounds(states)).astype(np.int64)}
    out["stats"] = {k: np.asarray(v) for k, v in engine.batch_stats(states).items()} or None
    return out


def play_jax(agents: Sequence, options, seeds, names=None, batch: int = 256, pad: bool | None = None,
             agent_key: int | Callable = 0, max_decisions: int = 5000, engine=None, progress=None):
    """The games of these seeds in JAX batches: GameResults (engine "jax")."""
    spec = spec_for_options(options)
    engine = engine or spec.load("jax_engine")(options)
    names = list(names) if names is not None else agent_names(agents)

    def chunk_results(padded, key: int, n: int) -> GameResults:
        r = play_batch(engine, agents, options, padded, agent_key=key, max_decisions=max_decisions)
        g = np.arange(n)
        return GameResults(
            seed=padded[:n].copy(), options_hash=np.full(n, options_hash(options), dtype=object),
            engine=np.full(n, "jax", dtype=object), agents=np.asarray([names] * n, dtype=object),
            scores=r["scores"][g], places=r["places"][g], win_shares=shares_from_places(r["places"][g]), rounds=r["rounds"][g],
            end_trigger=np.asarray(["illegal action" if r["illegal"][i] else "" for i in g], dtype=object),
            decisions=r["decisions"][g], duration=np.full(n, r["seconds"] / len(padded)),
            monkey_holder=np.full(n, -1, np.int64),
            stats=None if r["stats"] is None else {k: v[g] for k, v in r["stats"].items()})
    return play_in_batches(seeds, batch, pad, agent_key, chunk_results, progress)


def play_in_batches(seeds, batch: int, pad: bool | None, agent_key: int | Callable, chunk_results: Callable,
                    progress=None) -> GameResults:
    """The games of these seeds, ``batch`` at a time: ``chunk_results(seeds, agent key, n)`` plays a
    batch and gives the GameResults of its first n games. With ``pad`` (default: when there is more
    than one batch) every batch is filled to ``batch`` with its last seed, so one compiled shape
    serves them all. agent_key: an int, or a function of a batch's seeds."""
    seeds = np.asarray(seeds, np.int64)
    pad = len(seeds) > batch if pad is None else pad
    parts = []
    for start in range(0, len(seeds), batch):
        chunk = seeds[start:start + batch]
        padded = np.concatenate([chunk, np.full(batch - len(chunk), chunk[-1])]) if pad else chunk
        key = agent_key(chunk) if callable(agent_key) else int(agent_key)
        parts.append(chunk_results(padded, int(key), len(chunk)))
        if progress:
            progress(len(chunk))
    return GameResults.concat(parts) if len(parts) > 1 else parts[0]


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
    if engine == "jax":
        return play_jax(list(agents), options, seeds, names, batch, pad, agent_key,
                                 max(max_decisions, 5000), jax_game, progress)
    return play_reference(agents, options, seeds, names, on_game, progress)


__all__ = ["GameResults", "SHARED_WIN", "shared_win_rule", "TimedAgent", "play_games", "shares_from_places", "options_hash",
           "new_options", "with_seed", "players_of", "play_one", "summary", "play_reference", "play_batch", "play_jax",
           "play_in_batches"]
