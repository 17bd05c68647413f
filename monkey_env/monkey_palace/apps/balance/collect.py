"""Play the games of a balance report on the JAX engine, in batches, and keep what each game did.

A :class:`Cell` is one setting (data variant, player count, map, options, agents per seat); its
games are one :class:`Records` (numpy arrays, one row per game). Every batch has the same size,
so the engine (and the agents) compile once per game data: a cell's last batch is filled with
extra seeds and the extra games are dropped.

The deal of game `seed` is the same in every cell (``batch_play.game_keys``): cells that differ
only by their data (what-ifs) or options are played on the same deals. The games are played by
:func:`monkey_env.apps.results_table.play_games` (on the JAX engine).

Who won is the rulebook's (monkey_env.core.outcome): the most Banana Points, a tie going to the
Monkey trophy's holder (``holders[:, 0]``); a win still shared by k seats counts 1/k to each.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from monkey_env.core.outcome import batch_places
from monkey_env.monkey_palace.apps.play_games import END_KIND_NAMES, BatchResult
from monkey_env.monkey_palace.options import DEFAULT_BUILD_ACTION

OPTION_SETS = {"none": {}, "butterfly": {"butterfly": True}, "frog": {"frog": True},
               "both": {"butterfly": True, "frog": True}}


@dataclass(frozen=True)
class Cell:
    """One setting of the report. `lineup` is the agent of each seat (already rotated)."""

    kind: str            # "seats" (same agent in every seat), "options", "skill"
    players: int
    map: str             # "1".."4"; a what-if map keeps the number of the map it replaces
    options: str = "none"
    lineup: tuple[str, ...] = ()
    variant: str = "default"

    @property
    def key(self) -> str:
        return f"{self.variant}|{self.kind}|{self.players}p|map{self.map}|{self.options}|{','.join(self.lineup)}"


@dataclass
class Records:
    """What the games of one cell did; axis 0 = game."""

    seeds: np.ndarray           # (G,)
    scores: np.ndarray          # (G, P)
    rounds: np.ndarray          # (G,)
    end_kind: np.ndarray        # (G,) index into END_KIND_NAMES, -1 none
    illegal: np.ndarray         # (G,) bool
    decisions: np.ndarray       # (G,)
    card_owner: np.ndarray      # (G, C) seat, -1 never bought
    card_round: np.ndarray      # (G, C) round bought, -1
    card_top_turns: np.ndarray  # (G, C) turns the card paid its recurring supply
    colour_builds: np.ndarray   # (G, P, 3) staircases on light / dark / gold studs
    holders: np.ndarray         # (G, 3) monkey, butterfly, frog trophy holder at the end, -1
    bonus_cards: np.ndarray     # (G, P)
    seconds: float = 0.0

    FIELDS = ("seeds", "scores", "rounds", "end_kind", "illegal", "decisions", "card_owner", "card_round",
              "card_top_turns", "colour_builds", "holders", "bonus_cards")

    @property
    def n(self) -> int:
        return len(self.seeds)

    @property
    def players(self) -> int:
        return self.scores.shape[1]

    def places(self) -> np.ndarray:
        """(G, P) the rulebook's place of each seat, 1 = winner: more Banana Points, or as many and
        the Monkey trophy (holders[:, 0], -1 nobody); seats still tied share the better place."""
        return np.asarray(batch_places(self.scores, np.full(self.n, self.players), self.holders[:, 0]))

    def winners(self) -> np.ndarray:
        """(G, P) bool: the rulebook's winners (several only on a tie the Monkey does not settle)."""
        return self.places() == 1

    def win_shares(self) -> np.ndarray:
        """(G, P) share of the win of each seat: 1 for a sole winner, 1/k for each of k tied winners."""
        w = self.winners().astype(float)
        return w / np.maximum(w.sum(1, keepdims=True), 1)

    def sole_winner(self) -> np.ndarray:
        """(G,) the seat that won alone, -1 on a shared win."""
        w = self.winners()
        return np.where(w.sum(1) == 1, w.argmax(1), -1)

    @classmethod
    def from_batch(cls, r: BatchResult, keep: int | None = None) -> Records:
        sl = slice(None, keep)
        n_cards = r.card_owner.shape[1]
        get = lambda v, shape: (np.zeros(shape, np.int64) if v is None else v)[sl]
        b = len(r.seeds)
        return cls(seeds=r.seeds[sl], scores=r.scores[sl], rounds=r.rounds[sl], end_kind=r.end_kind[sl],
                   illegal=r.illegal[sl], decisions=r.decisions[sl], card_owner=r.card_owner[sl],
                   card_round=r.card_round[sl], card_top_turns=get(r.card_top_turns, (b, n_cards)),
                   colour_builds=r.colour_builds[sl], holders=get(r.holders, (b, 3)) if r.holders is not None
                   else np.full((b, 3), -1)[sl], bonus_cards=get(r.bonus_cards, r.scores.shape), seconds=r.seconds)

    @classmethod
    def concat(cls, parts: list[Records]) -> Records:
        return cls(**{f: np.concatenate([getattr(p, f) for p in parts]) for f in cls.FIELDS},
                   seconds=sum(p.seconds for p in parts))

    def save(self, path: Path, prefix: str) -> dict:
        return {f"{prefix}{f}": getattr(self, f) for f in self.FIELDS}


@dataclass
class Dataset:
    """Every cell of a report with its games, and how they were made."""

    cells: list[Cell] = field(default_factory=list)
    records: list[Records] = field(default_factory=list)
    meta: dict = field(default_factory=dict)

    def add(self, cell: Cell, rec: Records) -> None:
        for i, c in enumerate(self.cells):
            if c == cell:
                self.records[i] = Records.concat([self.records[i], rec])
                return
        self.cells.append(cell)
        self.records.append(rec)

    def select(self, **want) -> list[tuple[Cell, Records]]:
        return [(c, r) for c, r in zip(self.cells, self.records)
                if all(getattr(c, k) == v for k, v in want.items())]

    def get(self, **want) -> Records | None:
        found = self.select(**want)
        if not found:
            return None
        return found[0][1] if len(found) == 1 else Records.concat([r for _, r in found])

    def save(self, path: str | Path) -> None:
        arrays = {}
        for i, r in enumerate(self.records):
            arrays.update(r.save(Path(path), f"c{i}_"))
        meta = dict(self.meta, cells=[asdict(c) for c in self.cells], seconds=[r.seconds for r in self.records])
        np.savez_compressed(path, meta=np.asarray(json.dumps(meta)), **arrays)

    @classmethod
    def load(cls, path: str | Path) -> Dataset:
        z = np.load(path, allow_pickle=False)
        meta = json.loads(str(z["meta"]))
        ds = cls(meta={k: v for k, v in meta.items() if k not in ("cells", "seconds")})
        for i, c in enumerate(meta["cells"]):
            c["lineup"] = tuple(c["lineup"])
            rec = Records(**{f: z[f"c{i}_{f}"] for f in Records.FIELDS}, seconds=meta["seconds"][i])
            ds.cells.append(Cell(**c))
            ds.records.append(rec)
        return ds


def rotations(lineup: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every seat rotation of a lineup (each agent plays every seat equally often)."""
    return [tuple(lineup[(i - r) % len(lineup)] for i in range(len(lineup))) for r in range(len(lineup))]


class Collector:
    """Plays cells in fixed-size batches: one JaxGame (one compilation) per game data variant."""

    def __init__(self, batch: int = 256, seed: int = 0, progress: bool = True, max_decisions: int = 2000,
                 config_dir: str | None = None, build_action: str = DEFAULT_BUILD_ACTION):
        self.batch = batch
        self.build_action = build_action
        self.seed = seed
        self.progress = progress
        self.max_decisions = max_decisions
        self._games: dict[str, object] = {}
        # Every variant starts from the same game data folder (--config-dir; None: the shipped data).
        self._base = {"config_dir": config_dir} if config_dir else {}
        self._data: dict[str, dict] = {"default": dict(self._base)}
        self._map_files: dict[tuple[str, str], str] = {}
        self._agents: dict[tuple[str, int], object] = {}

    def add_variant(self, name: str, *, cards: str | None = None, boards: str | None = None,
                    maps: dict[str, str] | None = None) -> None:
        """A what-if: edited cards / boards files, and/or edited map files replacing map numbers."""
        self._data[name] = {**self._base, **{k: v for k, v in (("cards", cards), ("boards", boards)) if v}}
        for m, f in (maps or {}).items():
            self._map_files[(name, str(m))] = str(f)

    def game(self, variant: str):
        """The JaxGame of a variant's game data; variants with the same data share one (one compilation)."""
        key = repr(sorted(self._data[variant].items()))
        if key not in self._games:
            from monkey_env.apps.arena.games import use_jax_cache
            from monkey_env.monkey_palace.game_data import load_game_data
            from monkey_env.monkey_palace.jaxgame.env import JaxGame
            from monkey_env.monkey_palace.options import GameOptions
            use_jax_cache()   # compiled programs kept on disk: a second report starts in seconds
            self._games[key] = JaxGame(GameOptions(build_action=self.build_action),
                                       data=load_game_data(1, **self._data[variant]))
        return self._games[key]

    def agent(self, name: str, seat: int):
        """One agent object per name: seats played by the same agent are asked once per step
        (``play_batch(share_agents=True)``); batch agents draw from the step's key, not their seed."""
        if name not in self._agents:
            from monkey_env.agents.registry import make_agent
            self._agents[name] = make_agent(name, self.seed)
        return self._agents[name]

    def play(self, cell: Cell, games: int, seed0: int | None = None) -> Records:
        """`games` games of this cell, seeds seed0, seed0+1, ... in batches of self.batch."""
        jg = self.game(cell.variant)
        map_arg = self._map_files.get((cell.variant, cell.map), cell.map)
        if str(map_arg).isdigit():
            map_arg = int(map_arg)
        from monkey_env.apps.results_table import play_games
        from monkey_env.monkey_palace.options import GameOptions

        agents = [self.agent(n, s) for s, n in enumerate(cell.lineup)]
        seed0 = self.seed if seed0 is None else seed0
        t0 = time.perf_counter()
        # Every batch filled to self.batch (pad): one compiled shape; the extra games are dropped.
        options = GameOptions(players=cell.players, map=str(map_arg), build_action=self.build_action,
                              **OPTION_SETS[cell.options])
        table = play_games(agents, options,
                           seed0 + np.arange(games), names=list(cell.lineup), engine="jax", batch=self.batch, pad=True,
                           agent_key=lambda chunk: int(chunk[0]) * 7 + cell.players,
                           max_decisions=self.max_decisions, share_agents=True, jax_game=jg)
        rec = Records.from_batch(table.batch)
        rec.seconds = time.perf_counter() - t0
        if self.progress:
            print(f"  {cell.key}: {games} games in {rec.seconds:.1f} s", file=sys.stderr, flush=True)
        return rec


@dataclass
class BalancePlan:
    """What a report plays. games = games per (players, map) cell of the seat analysis."""

    players: tuple[int, ...] = (2, 4)
    maps: tuple[str, ...] = ("1", "2", "3", "4")
    agents: tuple[str, ...] = ("greedy",)   # the first plays every seat of the main cells
    games: int = 1000
    option_games: int = 0                   # per (players, map, option set); 0 = games // 4
    options: tuple[str, ...] = ("butterfly", "frog", "both")
    skill: tuple[str, ...] = ()             # agents compared per map (2 players, seat-rotated)
    skill_games: int = 0                    # per (map, agent pair); 0 = games // 2
    variants: tuple[str, ...] = ()          # what-if variant names (added to the Collector)
    seed: int = 0
    build_action: str = DEFAULT_BUILD_ACTION   # the game's build action (the Collector's)

    def cells(self) -> list[tuple[Cell, int, int]]:
        """(cell, games, first seed) of every cell of the plan."""
        out = []
        main = self.agents[0]
        og = self.option_games or max(self.games // 4, 1)
        sg = self.skill_games or max(self.games // 2, 2)
        for variant in ("default",) + tuple(self.variants):
            for p in self.players:
                for m in self.maps:
                    out.append((Cell("seats", p, m, "none", (main,) * p, variant), self.games, self.seed))
            if variant != "default":
                continue
            for p in self.players:
                for o in self.options:
                    for m in self.maps:
                        out.append((Cell("options", p, m, o, (main,) * p), og, self.seed))
            names = list(dict.fromkeys(self.skill))
            for i, a in enumerate(names):
                for b in names[i + 1:]:
                    for m in self.maps:
                        for rot in rotations((a, b)):
                            out.append((Cell("skill", 2, m, "none", rot), math.ceil(sg / 2), self.seed))
            # Every agent of the skill profile also plays itself on each map (its score profile).
            for a in names:
                if a != main:
                    for m in self.maps:
                        out.append((Cell("seats", 2, m, "none", (a, a)), sg, self.seed))
        return out


def collect(plan: BalancePlan, collector: Collector, meta: dict | None = None,
            cells: list[tuple[Cell, int, int]] | None = None, save_to: str | Path | None = None) -> Dataset:
    """Play the plan's cells (or these (cell, games, first seed) instead); with `save_to`, the games
    so far are saved after every cell (a stopped run keeps what it played: ``balance --from``)."""
    ds = Dataset(meta=dict(meta or {}))
    t0 = time.perf_counter()
    todo = plan.cells() if cells is None else cells
    for i, (cell, games, seed0) in enumerate(todo):
        if collector.progress:
            print(f"[{i + 1}/{len(todo)}]", end="", file=sys.stderr)
        ds.add(cell, collector.play(cell, games, seed0))
        ds.meta.update(seconds_total=time.perf_counter() - t0, batch=collector.batch, seed=plan.seed,
                       end_kinds=list(END_KIND_NAMES), plan=asdict(plan), complete=i + 1 == len(todo))
        if save_to:
            ds.save(save_to)
    return ds
