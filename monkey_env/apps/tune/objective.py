"""The objective of a balance tune: a weighted distance to targets, as in the balancing track of
TAG at IEEE CoG 2025 (tune a game's parameters so that win rates between agents and seats hit
targets), computed from a table of played games. Smaller is better; 0 hits every target.

Four terms, each in percentage points (so their weights compare like with like), each
reported apart:

* ``seat``: for each agent and player count, the root mean square of every seat's win rate
  minus ``1/players`` (pooled over the maps), averaged over those groups. A game fair to its
  seats has 0. (The goal's own figure, the seat spread = largest minus smallest seat win rate,
  is reported beside it; the RMS uses every seat, so it is less noisy than a max minus a min.)
* ``skill``: the skill order kept: the stronger agent (greedy) must win at least
  ``0.5 + skill_margin`` of its two-player games against the weaker one (random), both seat
  orders; the term is how far below that it falls (0 when above).
* ``length``: the mean number of rounds of each player count must stay within the band
  calibrated on the starting data (its mean ± ``length_tolerance``, a fraction); the term is
  how far outside the band it falls, as a percentage of the band's centre, averaged over the
  player counts.
* ``cards``: no card's purchase lift stands out: a card's lift is its buyers' win rate minus
  its non-buyers' (seat-games of the same agent and player count); the term is, averaged over
  the groups, the largest amount by which a card's lift departs from the median lift of the
  cards by more than ``card_threshold``. Cards bought in fewer than ``card_min_games``
  seat-games, or left in more than all but that many, are skipped (their lift is noise).

``total = Σ weight[term] · term``. Multi-objective samplers (NSGA-II) minimise the four terms.
A win is the rulebook's: a shared first place counts 1/k to each of k seats (monkey_env.core.outcome).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from monkey_env.core.tuning import TERMS, ObjectiveConfig  # noqa: F401  (re-exported)


@dataclass
class SeatGames:
    """Games of one agent in every seat, at one player count (any maps): the seat term's table."""

    agent: str
    players: int
    win_shares: np.ndarray       # (G, P) float: 1 sole winner, 1/k for k tied, 0
    rounds: np.ndarray           # (G,) int
    card_owner: np.ndarray | None = None  # (G, C) seat owning each card at the end, -1 none
    maps: np.ndarray | None = None        # (G,) map of each game (reports only)

    @property
    def n(self) -> int:
        return len(self.rounds)


@dataclass
class SkillGames:
    """Two-player games of a strong agent against a weak one (either seat)."""

    strong: str
    weak: str
    strong_wins: np.ndarray      # (G,) float: the strong agent's win share


@dataclass
class GameTable:
    seat_games: list[SeatGames] = field(default_factory=list)
    skill_games: list[SkillGames] = field(default_factory=list)

    def rounds_by_players(self) -> dict[int, np.ndarray]:
        out: dict[int, list] = {}
        for g in self.seat_games:
            out.setdefault(g.players, []).append(g.rounds)
        return {p: np.concatenate(v) for p, v in sorted(out.items())}


@dataclass(frozen=True)
class Bands:
    """Game-length bands (mean rounds) per player count, calibrated on the starting data."""

    rounds: dict[int, tuple[float, float]]

    @classmethod
    def calibrate(cls, table: GameTable, tolerance: float) -> Bands:
        return cls({p: (float(r.mean() * (1 - tolerance)), float(r.mean() * (1 + tolerance)))
                    for p, r in table.rounds_by_players().items()})


def seat_win_rates(g: SeatGames) -> np.ndarray:
    return g.win_shares.sum(0) / max(g.n, 1)


def seat_term(table: GameTable) -> tuple[float, dict]:
    rms, detail = [], {}
    for g in table.seat_games:
        w = seat_win_rates(g)
        r = float(np.sqrt(np.mean((w - 1 / g.players) ** 2)) * 100)
        rms.append(r)
        detail[f"{g.agent} {g.players}p"] = dict(win_rates=w.tolist(), rms_points=r,
                                                 spread_points=float((w.max() - w.min()) * 100), games=g.n)
    return (float(np.mean(rms)) if rms else 0.0), detail


def skill_term(table: GameTable, margin: float) -> tuple[float, dict]:
    gaps, detail = [], {}
    for s in table.skill_games:
        rate = float(np.mean(s.strong_wins)) if len(s.strong_wins) else float("nan")
        gap = max(0.0, 0.5 + margin - rate) * 100 if np.isfinite(rate) else 100.0
        gaps.append(gap)
        detail[f"{s.strong} vs {s.weak}"] = dict(win_rate=rate, target=0.5 + margin, shortfall_points=gap,
                                                 games=len(s.strong_wins))
    return (float(np.mean(gaps)) if gaps else 0.0), detail


def length_term(table: GameTable, bands: Bands) -> tuple[float, dict]:
    outs, detail = [], {}
    for p, r in table.rounds_by_players().items():
        if p not in bands.rounds:
            continue
        lo, hi = bands.rounds[p]
        m = float(r.mean())
        out = max(0.0, lo - m, m - hi) / ((lo + hi) / 2) * 100
        outs.append(out)
        detail[f"{p}p"] = dict(mean_rounds=m, band=[lo, hi], outside_percent=out, games=len(r))
    return (float(np.mean(outs)) if outs else 0.0), detail


def card_lifts(g: SeatGames, min_games: int) -> np.ndarray:
    """(C,) each card's buyers' win rate minus its non-buyers' (seat-games), NaN when too few."""
    owner = g.card_owner
    n, p = g.win_shares.shape
    seat = np.arange(p)[None, :, None]                       # (1, P, 1)
    bought = owner[:, None, :] == seat                       # (G, P, C) this seat-game bought the card
    wins = g.win_shares[:, :, None]                          # (G, P, 1)
    k_buy = bought.sum((0, 1))
    k_not = n * p - k_buy
    w_buy = (wins * bought).sum((0, 1)) / np.maximum(k_buy, 1)
    w_not = (wins * ~bought).sum((0, 1)) / np.maximum(k_not, 1)
    lift = w_buy - w_not
    return np.where((k_buy >= min_games) & (k_not >= min_games), lift, np.nan)


def cards_term(table: GameTable, threshold: float, min_games: int) -> tuple[float, dict]:
    worst, detail = [], {}
    for g in table.seat_games:
        if g.card_owner is None:
            continue
        lift = card_lifts(g, min_games)
        ok = np.isfinite(lift)
        if not ok.any():
            continue
        away = np.abs(lift - np.nanmedian(lift))
        excess = np.where(ok, np.maximum(away - threshold, 0), 0)
        top = int(np.nanargmax(np.where(ok, away, -1)))
        worst.append(float(excess.max()) * 100)
        detail[f"{g.agent} {g.players}p"] = dict(excess_points=float(excess.max()) * 100, most_standing_out=top,
                                                 its_lift=float(lift[top]), median_lift=float(np.nanmedian(lift)),
                                                 cards_rated=int(ok.sum()),
                                                 standing_out=[int(c) for c in np.flatnonzero(excess > 0)])
    return (float(np.mean(worst)) if worst else 0.0), detail


@dataclass
class Evaluation:
    terms: dict[str, float]       # TERMS -> points
    total: float
    detail: dict

    def to_dict(self) -> dict:
        return dict(terms=self.terms, total=self.total, detail=self.detail)


def evaluate(table: GameTable, config: ObjectiveConfig, bands: Bands) -> Evaluation:
    """The four terms and their weighted sum for a table of games."""
    seat, d_seat = seat_term(table)
    skill, d_skill = skill_term(table, config.skill_margin)
    length, d_length = length_term(table, bands)
    cards, d_cards = cards_term(table, config.card_threshold, config.card_min_games)
    terms = dict(seat=seat, skill=skill, length=length, cards=cards)
    total = sum(config.weight(t) * v for t, v in terms.items())
    return Evaluation(terms, float(total), dict(seat=d_seat, skill=d_skill, length=d_length, cards=d_cards))
