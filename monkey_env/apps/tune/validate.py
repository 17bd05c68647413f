"""Honest validation: the best candidates of the search and the starting data replayed in the
same run on fresh deals that no trial played, with a 95% interval for every target.

The search picks its best on the deals it tuned on, so its own figures flatter it (the winner's
curse); these games are new. Each candidate plays the trial plan ``repeats`` times on shifted
seeds (the same compiled shapes as the search: no new compilation), and every candidate plays
the same fresh deals, so the comparison with the starting data is on equal luck.

Intervals (monkey_env.apps.balance.stats): Wilson for a seat's win rate and for the skill
games, Student t for the mean length, Newcombe for a card's buyers-minus-non-buyers lift and
for a seat's change against the starting data; the seat spread (largest minus smallest seat
win rate, a max minus a min) and its change get percentile bootstrap intervals over the games.
"""

from __future__ import annotations

import numpy as np

from monkey_env.apps.balance import stats as S
from monkey_env.apps.tune.objective import (
    SHARED_TERMS,
    Bands,
    GameTable,
    ObjectiveConfig,
    SeatGames,
    card_lifts,
    evaluate,
    held_items,
)

VALIDATION_OFFSET = 100_000_000    # validation deals start here (search deals stay far below it)
REPEAT_STRIDE = 10_000_000


def fresh_plans(plan, repeats: int):
    """The trial plan on `repeats` sets of fresh deals, and a check that no deal was searched."""
    searched = {int(s) for b in plan.batches for s in b.seeds}
    plans = [plan.with_seed(plan.agent_key + VALIDATION_OFFSET + r * REPEAT_STRIDE) for r in range(repeats)]
    fresh = {int(s) for p in plans for b in p.batches for s in b.seeds}
    if searched & fresh:
        raise AssertionError("validation deals overlap the search's")
    return plans


def concat_tables(tables: list[GameTable]) -> GameTable:
    seat: dict[tuple, list[SeatGames]] = {}
    for t in tables:
        for g in t.seat_games:
            seat.setdefault((g.agent, g.players), []).append(g)
    out = GameTable()
    for (agent, p), gs in seat.items():
        cat = lambda f, gs=gs: None if any(getattr(g, f) is None for g in gs) else np.concatenate([getattr(g, f) for g in gs])
        out.seat_games.append(SeatGames(agent, p, cat("win_shares"), cat("rounds"), cat("card_owner"), cat("maps")))
    skill: dict[tuple, list] = {}
    for t in tables:
        for s in t.skill_games:
            skill.setdefault((s.strong, s.weak), []).append(s)
    from monkey_env.apps.tune.objective import SkillGames
    for (a, b), ss in skill.items():
        out.skill_games.append(SkillGames(a, b, np.concatenate([s.strong_wins for s in ss])))
    return out


def _spread(win_shares: np.ndarray) -> float:
    w = win_shares.mean(0)
    return float(w.max() - w.min())


def bootstrap_spread(x: np.ndarray, y: np.ndarray | None = None, draws: int = 1000, seed: int = 0) -> S.Estimate:
    """The seat spread of win shares x (games × seats), or spread(x) - spread(y), bootstrapped over games."""
    return S.bootstrap(_spread, x, y, draws=draws, seed=seed)


def figures(table: GameTable, config: ObjectiveConfig, bands: Bands, base: GameTable | None = None,
            terms: tuple[str, ...] | None = None) -> dict:
    """Every target with its interval (and, given the starting data's games, the change)."""
    ev = evaluate(table, config, bands, terms)
    item_term = any(t not in SHARED_TERMS for t in ev.terms)
    base_seat = {(g.agent, g.players): g for g in base.seat_games} if base else {}
    seats = []
    for g in table.seat_games:
        k = g.win_shares.sum(0)
        row = dict(agent=g.agent, players=g.players, games=g.n,
                   win=[S.wilson(k[s], g.n).to_dict() for s in range(g.players)],
                   spread=bootstrap_spread(g.win_shares).to_dict(),
                   rounds=S.mean_ci(g.rounds).to_dict())
        b = base_seat.get((g.agent, g.players))
        if b is not None:
            kb = b.win_shares.sum(0)
            row["win_change"] = [S.diff_proportions(k[s], g.n, kb[s], b.n).to_dict() for s in range(g.players)]
            row["spread_change"] = bootstrap_spread(g.win_shares, b.win_shares, seed=1).to_dict()
            row["rounds_change"] = S.diff_means(g.rounds, b.rounds).to_dict()
        if item_term and g.card_owner is not None:
            lift = card_lifts(g, config.card_min_games)
            ok = np.isfinite(lift)
            if ok.any():
                med = float(np.nanmedian(lift))
                top = int(np.nanargmax(np.where(ok, np.abs(lift - med), -1)))
                p = g.players
                bought = held_items(g)[:, :p, top]
                w_buy, w_not = g.win_shares[bought], g.win_shares[~bought]
                row["card"] = dict(card=top, median_lift=med, lift=S.diff_proportions(
                    w_buy.sum(), len(w_buy), w_not.sum(), len(w_not)).to_dict())
        seats.append(row)
    skill = [dict(strong=s.strong, weak=s.weak, win=S.wilson(s.strong_wins.sum(), len(s.strong_wins)).to_dict(),
                  target=0.5 + config.skill_margin) for s in table.skill_games]
    length = []
    for p, r in table.rounds_by_players().items():
        e = S.mean_ci(r)
        lo, hi = bands.rounds.get(p, (float("nan"), float("nan")))
        length.append(dict(players=p, rounds=e.to_dict(), band=[lo, hi], inside=bool(lo <= e.value <= hi)))
    return dict(objective=ev.to_dict(), seats=seats, skill=skill, length=length)


def games_needed(effect: float, p: float = 0.5) -> int:
    """Games for a 95% interval on a win rate near p no wider than ± effect / 2."""
    return S.games_for_halfwidth(p, max(abs(effect) / 2, 1e-3))
