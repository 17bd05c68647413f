"""A tune trial's games: batched JAX games whose numbers under search are traced parameters.

One :class:`TrialPlan` lays out every game a trial plays (the same for every trial: the same
deals, seats and agent keys, so candidates are compared on common random numbers). Games are
played in a few fixed batches, one per line-up kind, each mixing player counts and maps in one
batch (Params with a batch axis); the candidate's values (Params.with_values) are traced too,
so the engine and the agents compile once for the whole tune, whatever the candidate.

* ``seats:<agent>``: the agent in every seat, each (players, map) ``games`` times;
* ``skill``: greedy against random in two players, both seat orders, on every map.

"Map" is the game's own setting varied by the tune where it has one (its tune part's
``has_maps``); a game without maps plays one setting, map 0. What the game's params of a
(players, map) are, and which items its seats held (the item term's table), the tune part says.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from monkey_env.apps.batch_play import game_keys
from monkey_env.apps.tune.objective import GameTable, SeatGames, SkillGames

SKILL_PAIR = ("greedy", "random")


@dataclass(frozen=True)
class Batch:
    """One batch of a trial: every game's settings and line-up (agent index per seat)."""

    name: str
    agents: tuple[str, ...]
    players: np.ndarray     # (B,) int
    maps: np.ndarray        # (B,) int
    lineup: np.ndarray      # (B, 4) int index into agents, -1 for an empty seat
    seeds: np.ndarray       # (B,) int deal of each game

    @property
    def size(self) -> int:
        return len(self.seeds)


@dataclass(frozen=True)
class TrialPlan:
    batches: tuple[Batch, ...]
    agent_key: int

    @classmethod
    def make(cls, agents, players, maps, games: int, seed: int, skill_games: int | None = None,
             max_players: int = 4) -> TrialPlan:
        """games per (agent, players, map) in the seat batches; skill_games per (map, seat order)
        (default: a quarter of games, at least 4; 0 for none); max_players: the engine's seats."""
        if games < 1:
            raise ValueError("--games must be at least 1")
        players, maps = [int(p) for p in players], [int(m) for m in maps]
        skill_games = max(4, games // 4) if skill_games is None else skill_games
        batches = []
        for a, agent in enumerate(agents):
            ps = np.repeat([p for p in players for _ in maps], games)
            ms = np.repeat([m for _ in players for m in maps], games)
            lineup = np.where(np.arange(max_players)[None, :] < ps[:, None], 0, -1)
            # Each cell's own deals: the seeds of (players, map) differ, and differ from the other agents'.
            seeds = seed + np.arange(len(ps)) + a * 1_000_003
            batches.append(Batch(f"seats:{agent}", (agent,), ps, ms, lineup, seeds))
        if skill_games and 2 in players and all(x in agents for x in ("greedy",)):
            n = len(maps) * 2 * skill_games
            ms = np.repeat([m for m in maps for _ in range(2)], skill_games)
            order = np.tile(np.repeat([0, 1], skill_games), len(maps))
            lineup = np.full((n, max_players), -1)
            lineup[:, 0], lineup[:, 1] = order, 1 - order     # 0 = greedy, 1 = random
            batches.append(Batch("skill", SKILL_PAIR, np.full(n, 2), ms, lineup, seed + 7_000_001 + np.arange(n)))
        return cls(tuple(batches), agent_key=seed)

    def with_seed(self, seed: int) -> TrialPlan:
        """The same plan on other deals (fresh seeds for validation)."""
        shift = seed - self.agent_key
        return TrialPlan(tuple(Batch(b.name, b.agents, b.players, b.maps, b.lineup, b.seeds + shift)
                               for b in self.batches), agent_key=seed)

    @property
    def games(self) -> int:
        return sum(b.size for b in self.batches)


@dataclass
class BatchGames:
    batch: Batch
    places: np.ndarray       # (B, 4) 1 = winner, 0 = no such seat
    rounds: np.ndarray       # (B,)
    card_owner: np.ndarray | None   # (B, C) owner, or (B, P, C) bool held: the items (None: the game has none)
    scores: np.ndarray       # (B, 4)
    seconds: float


class TrialRunner:
    """Plays a TrialPlan for any candidate on one JaxGame; agents and params are built once."""

    def __init__(self, jg, plan: TrialPlan, part, game: str, max_decisions: int = 2000, options: dict | None = None):
        """part: the game's tune part (its params of a (players, map), the items its seats held);
        game: its --game name (whose agents play); options: the game's options that differ from
        its defaults, for every game."""
        from monkey_env.agents.registry import make_batch_agent

        self.jg, self.plan, self.max_decisions, self.part = jg, plan, max_decisions, part
        self.options = options or {}
        self.agents = {name: make_batch_agent(name, seed=plan.agent_key, game=game)
                       for b in plan.batches for name in b.agents}
        self._params = {b.name: self._batch_params(b) for b in plan.batches}
        self.games_played = 0

    def _batch_params(self, b: Batch):
        cache = {}
        rows = []
        for p, m in zip(b.players.tolist(), b.maps.tolist()):
            if (p, m) not in cache:
                cache[(p, m)] = self.part.params(self.jg, p, m, self.options)
            rows.append(cache[(p, m)])
        return jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *rows)

    def play(self, values: dict | None = None, plan: TrialPlan | None = None) -> list[BatchGames]:
        """Every batch of the plan with these traced values (Params.with_values)."""
        plan = plan or self.plan
        out = []
        for b in plan.batches:
            params = self._params[b.name]
            if values:
                # One value for every game of the batch (the leading batch axis added).
                params = params.with_values(**{k: jnp.broadcast_to(jnp.asarray(v), (b.size,) + np.shape(v))
                                               for k, v in values.items()})
            out.append(self._play_batch(b, params, plan.agent_key))
        return out

    def _play_batch(self, b: Batch, params, agent_key: int) -> BatchGames:
        jg = self.jg
        t0 = time.perf_counter()
        states = jg.batch_init(game_keys(b.seeds), params)
        key = jax.random.PRNGKey(agent_key)
        lineup = jnp.asarray(b.lineup, jnp.int32)
        rows = jnp.arange(b.size)
        agents = [self.agents[a] for a in b.agents]
        for _ in range(self.max_decisions):
            if bool(states.terminated.all()):
                break
            masks = jg.batch_legal_mask(states)
            who = lineup[rows, states.current]
            actions = jnp.zeros(b.size, jnp.int32)
            for i, agent in enumerate(agents):
                key, sub = jax.random.split(key)
                mine = who == i
                chosen = jnp.asarray(agent.act_batch(jg, states, masks & mine[:, None], sub), jnp.int32)
                actions = jnp.where(mine, chosen, actions)
            states = jg.batch_step(states, actions)
        else:
            raise RuntimeError(f"games not finished after {self.max_decisions} decisions")
        if bool(states.illegal.any()):
            raise RuntimeError(f"batch {b.name}: an agent played an illegal action")
        scores = np.asarray(jg.batch_scores(states))
        places = np.asarray(jg.batch_places(states))          # the game's own win rule
        items = self.part.held_items(states)
        items = None if items is None else np.asarray(items)
        self.games_played += b.size
        return BatchGames(b, places, np.asarray(states.round), items, scores, time.perf_counter() - t0)


def shares(places: np.ndarray, players: int) -> np.ndarray:
    first = (places[:, :players] == 1).astype(float)
    return first / np.maximum(first.sum(1, keepdims=True), 1)


def game_table(results: list[BatchGames]) -> GameTable:
    """The objective's table: seat games per (agent, players), skill games."""
    table = GameTable()
    for r in results:
        b = r.batch
        if b.name.startswith("seats:"):
            for p in sorted(set(b.players.tolist())):
                rows = b.players == p
                table.seat_games.append(SeatGames(b.agents[0], p, shares(r.places[rows], p), r.rounds[rows],
                                                  None if r.card_owner is None else r.card_owner[rows], b.maps[rows]))
        elif b.name == "skill":
            w = shares(r.places, 2)
            strong_seat = (b.lineup[:, :2] == 0).argmax(1)
            table.skill_games.append(SkillGames(b.agents[0], b.agents[1], w[np.arange(b.size), strong_seat]))
    return table
