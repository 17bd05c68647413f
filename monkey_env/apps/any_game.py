"""Playing any registered game through its parts (monkey_env.games), for the applications.

A game with a ``play_games`` part keeps its own, richer pipeline (Monkey Palace's, with cards,
colours, trophies: monkey_palace/apps/play_games.py); every other game is played here from what
monkey_env.core.protocol asks of a game, and gives the same results_table.GameResults:

- the reference engine: ``Game.from_options(options)``, ``legal_mask``, ``apply``, ``current``,
  ``game_over``, ``scores()``, ``places()``; optionally ``round`` (rounds played), ``end_reason``
  (why it ended) and ``stats()`` (a dict of per-game figures, the ``stats`` of the table);
- the JAX engine: ``params(options)``, ``batch_init(keys, params)``, ``batch_step``,
  ``batch_legal_mask``, ``batch_scores``, ``batch_places`` and the state fields ``current`` (B,)
  and ``terminated`` (B,); optionally ``illegal`` (B,), ``round`` (B,) and ``batch_stats(states)``
  (the same dict as the reference engine's ``stats()``, one row per game).

The winners are the game's own (its ``places()``: 1 = winner); a win shared by k seats counts
1/k to each.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from monkey_env.games import GameSpec, spec_for_options


def with_seed(options, seed: int):
    """A copy of any game's options with another seed."""
    return type(options)(**{**options.model_dump(), "seed": int(seed)})


def new_options(game: str, *, players: int, seed: int = 0, map=None, **options):
    """A game's options object from what every command knows: the player count, the seed, the
    map where the game's options have one (ignored otherwise), and the game's own options."""
    from monkey_env.games import game_spec

    model = game_spec(game).load("options")
    fields = dict(players=players, seed=seed, **options)
    if map is not None and "map" in model.model_fields:
        fields["map"] = str(map)
    return model(**fields)


def players_of(options) -> int:
    return int(getattr(options, "players", 2))


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
    if hasattr(game, "stats"):
        out["stats"] = {k: np.asarray(v).tolist() for k, v in game.stats().items()}
    return out


def play_reference(agents: Sequence | Callable, options, seeds, names=None, on_game=None, progress=None):
    """The games of these seeds on the reference engine: results_table.GameResults (engine "reference")."""
    from monkey_env.apps.results_table import GameResults, agent_names, options_hash, shares_from_places

    spec = spec_for_options(options)
    h = options_hash(options)
    rows, stats = [], []
    for i, seed in enumerate(seeds):
        seated = list(agents(i, int(seed)) if callable(agents) else agents)
        t0 = time.perf_counter()
        game, decisions = play_one(spec, with_seed(options, seed), seated)
        duration = time.perf_counter() - t0
        s = summary(game, decisions)
        rows.append((list(names) if names is not None else agent_names(seated), s, duration))
        stats.append(game.stats() if hasattr(game, "stats") else {})
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
                       duration=np.asarray([d for _, _, d in rows], float), monkey_holder=np.full(g, -1, np.int64),
                       stats=_stack(stats))


def _stack(stats: list[dict]) -> dict | None:
    if not stats or not stats[0]:
        return None
    return {k: np.stack([np.asarray(s[k]) for s in stats]) for k in stats[0]}


def play_batch(engine, agents: Sequence, options, seeds, *, agent_key: int = 0, max_decisions: int = 5000) -> dict:
    """One batch of games (one per seed) on a JAX engine to their end; agents[s] plays seat s."""
    import jax
    import jax.numpy as jnp

    from monkey_env.apps.batch_play import game_keys

    for a in agents:
        if not hasattr(a, "act_batch"):
            raise ValueError(f"agent {getattr(a, 'name', a)!r} has no act_batch; play it on the reference engine")
    seeds = np.asarray(seeds, np.int64)
    t0 = time.perf_counter()
    states = engine.batch_init(game_keys(seeds), engine.params(options))
    key = jax.random.PRNGKey(agent_key)
    decisions = np.zeros(len(seeds), np.int64)
    for _ in range(max_decisions):
        done = np.asarray(states.terminated)
        if done.all():
            break
        masks = engine.batch_legal_mask(states)
        current = states.current
        actions = jnp.zeros(len(seeds), jnp.int32)
        for seat, agent in enumerate(agents):
            key, sub = jax.random.split(key)
            chosen = jnp.asarray(agent.act_batch(engine, states, masks & (current == seat)[:, None], sub), jnp.int32)
            actions = jnp.where(current == seat, chosen, actions)
        states = engine.batch_step(states, actions)
        decisions += ~done
    else:
        raise RuntimeError(f"games not finished after {max_decisions} decisions")
    out = {"states": states, "decisions": decisions, "seconds": time.perf_counter() - t0,
           "scores": np.asarray(engine.batch_scores(states)).astype(np.int64),
           "places": np.asarray(engine.batch_places(states)).astype(np.int64),
           "illegal": np.asarray(getattr(states, "illegal", np.zeros(len(seeds), bool))),
           "rounds": np.asarray(getattr(states, "round", np.zeros(len(seeds)))).astype(np.int64)}
    out["stats"] = ({k: np.asarray(v) for k, v in engine.batch_stats(states).items()}
                    if hasattr(engine, "batch_stats") else None)
    return out


def play_jax(agents: Sequence, options, seeds, names=None, batch: int = 256, pad: bool | None = None,
             agent_key: int | Callable = 0, max_decisions: int = 5000, engine=None, progress=None):
    """The games of these seeds in JAX batches: results_table.GameResults (engine "jax")."""
    from monkey_env.apps.results_table import GameResults, agent_names, options_hash, shares_from_places

    spec = spec_for_options(options)
    engine = engine or spec.load("jax_engine")(options)
    names = list(names) if names is not None else agent_names(agents)
    seeds = np.asarray(seeds, np.int64)
    pad = len(seeds) > batch if pad is None else pad
    parts = []
    for start in range(0, len(seeds), batch):
        chunk = seeds[start:start + batch]
        padded = np.concatenate([chunk, np.full(batch - len(chunk), chunk[-1])]) if pad else chunk
        key = agent_key(chunk) if callable(agent_key) else int(agent_key)
        r = play_batch(engine, agents, options, padded, agent_key=int(key), max_decisions=max_decisions)
        n = len(chunk)
        g = np.arange(n)
        parts.append(GameResults(
            seed=chunk.copy(), options_hash=np.full(n, options_hash(options), dtype=object),
            engine=np.full(n, "jax", dtype=object), agents=np.asarray([names] * n, dtype=object),
            scores=r["scores"][g], places=r["places"][g], win_shares=shares_from_places(r["places"][g]), rounds=r["rounds"][g],
            end_trigger=np.asarray(["illegal action" if r["illegal"][i] else "" for i in g], dtype=object),
            decisions=r["decisions"][g], duration=np.full(n, r["seconds"] / len(padded)),
            monkey_holder=np.full(n, -1, np.int64),
            stats=None if r["stats"] is None else {k: v[g] for k, v in r["stats"].items()}))
        if progress:
            progress(n)
    return GameResults.concat(parts) if len(parts) > 1 else parts[0]
