"""Ratings and statistics of a tournament's games (rows of the results database).

A game's ranks are the rulebook's places (monkey_env.core.outcome, written by arena.games): more
Banana Points, and on equal points the Monkey trophy's holder ranks first; seats still tied
share a place.

- openskill's Plackett-Luce model rates 2-4-player games from each game's ranks, with an
  uncertainty (sigma); the leaderboard sorts by the conservative ``ordinal = mu - 3 sigma``.
  Games are rated in schedule order, so the same games give the same ratings.
- Pairwise win rates: in every game where A and B both played, A beat B if A placed better;
  a shared place counts half (the win shared by the two, 1/k with k = 2); 95% Wilson intervals.
- First place per agent: its share of the wins (a win shared by k seats counts 1/k), as every
  win rate of the package counts it.
- Mean Banana Points per agent with a 95% t interval.

Intervals come from the one statistics module, monkey_env.apps.balance.stats.
"""

from __future__ import annotations

from collections import defaultdict

from openskill.models import PlackettLuce

from monkey_env.apps.balance.stats import mean_ci, wilson


def openskill_ratings(games: list[dict], agents: list[str]) -> dict[str, dict]:
    model = PlackettLuce()
    ratings = {a: model.rating(name=a) for a in agents}
    for g in games:
        seats = g["seats"]
        new = model.rate([[ratings[a]] for a in seats], ranks=list(g["ranks"]))
        # An agent sitting in several seats (fewer agents than seats) takes the mean of its updates.
        updates = defaultdict(list)
        for a, team in zip(seats, new):
            updates[a].append(team[0])
        for a, rs in updates.items():
            ratings[a] = model.rating(mu=sum(r.mu for r in rs) / len(rs), sigma=sum(r.sigma for r in rs) / len(rs),
                                      name=a)
    return {a: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma} for a, r in ratings.items()}


def win_matrix(games: list[dict], agents: list[str]) -> dict[str, dict[str, dict]]:
    """matrix[a][b]: how a did against b, over the games where both played."""
    counts = {a: {b: [0, 0, 0] for b in agents if b != a} for a in agents}     # wins, ties, losses
    for g in games:
        best: dict[str, int] = {}
        for a, r in zip(g["seats"], g["ranks"]):
            best[a] = min(r, best.get(a, r))          # an agent in two seats counts its better one
        for a in best:
            for b in best:
                if a != b:
                    counts[a][b][0 if best[a] < best[b] else 1 if best[a] == best[b] else 2] += 1
    out: dict[str, dict[str, dict]] = {}
    for a, row in counts.items():
        out[a] = {}
        for b, (w, t, lost) in row.items():
            n = w + t + lost
            e = wilson(w + t / 2, n)
            out[a][b] = {"games": n, "wins": w, "ties": t, "losses": lost,
                         "win_rate": (w + t / 2) / n if n else None, "ci95": [e.lo, e.hi] if n else [0.0, 1.0]}
    return out


def agent_stats(games: list[dict], agents: list[str]) -> dict[str, dict]:
    """Games played, win rate ("first_place": a win shared by k seats counts 1/k) with its 95%
    Wilson interval, mean Banana Points with a 95% t interval."""
    points = {a: [] for a in agents}
    firsts = {a: 0.0 for a in agents}
    seat_games = {a: 0 for a in agents}
    for g in games:
        k = sum(r == 1 for r in g["ranks"])
        for a, s, r in zip(g["seats"], g["scores"], g["ranks"]):
            points[a].append(s)
            seat_games[a] += 1
            firsts[a] += 1.0 / k if r == 1 else 0.0
    out = {}
    for a in agents:
        n = len(points[a])
        m, w = mean_ci(points[a]), wilson(firsts[a], n)
        out[a] = {"seat_games": seat_games[a], "first_place": firsts[a] / n if n else None,
                  "first_place_ci95": [w.lo, w.hi] if n else None, "mean_score": m.value if n else None,
                  "score_ci95": ([m.lo, m.hi] if n > 1 else [m.value, m.value]) if n else None}
    return out


def seat_stats(games: list[dict]) -> list[dict]:
    """Mean score (the game's own: Banana Points, Lanterns, coins) and win rate (a win shared by k
    counts 1/k) of each seat, whoever sat there."""
    if not games:
        return []
    players = len(games[0]["seats"])
    out = []
    for seat in range(players):
        scores = [g["scores"][seat] for g in games]
        out.append({"seat": seat + 1, "mean_score": sum(scores) / len(scores),
                    "first_place": sum((g["ranks"][seat] == 1) / sum(r == 1 for r in g["ranks"])
                                       for g in games) / len(games)})
    return out
