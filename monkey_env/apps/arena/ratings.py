"""Ratings and statistics of a tournament's games (rows of the results database).

- openskill's Plackett-Luce model rates 2-4-player games from each game's ranks, with an
  uncertainty (sigma); the leaderboard sorts by the conservative ``ordinal = mu - 3 sigma``.
  Games are rated in schedule order, so the same games give the same ratings.
- Pairwise win rates: in every game where A and B both played, A beat B if A ranked better,
  a tie counts half; 95% Wilson intervals.
- Mean Banana Points per agent with a 95% normal interval.
"""

from __future__ import annotations

import math
from collections import defaultdict

from openskill.models import PlackettLuce

Z95 = 1.959964


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


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (successes may be fractional: ties count half)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


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
        for b, (w, t, l) in row.items():
            n = w + t + l
            low, high = wilson(w + t / 2, n)
            out[a][b] = {"games": n, "wins": w, "ties": t, "losses": l,
                         "win_rate": (w + t / 2) / n if n else None, "ci95": [low, high]}
    return out


def agent_stats(games: list[dict], agents: list[str]) -> dict[str, dict]:
    """Games played, share of first places (ties included), mean Banana Points with a 95% interval."""
    points = {a: [] for a in agents}
    firsts = {a: 0 for a in agents}
    seat_games = {a: 0 for a in agents}
    for g in games:
        for a, s, r in zip(g["seats"], g["scores"], g["ranks"]):
            points[a].append(s)
            seat_games[a] += 1
            firsts[a] += r == 1
    out = {}
    for a in agents:
        xs = points[a]
        n = len(xs)
        mean = sum(xs) / n if n else None
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
        out[a] = {"seat_games": seat_games[a], "first_place": firsts[a] / n if n else None,
                  "mean_bananas": mean, "bananas_ci95": [mean - Z95 * sd / math.sqrt(n), mean + Z95 * sd / math.sqrt(n)]
                  if n else None}
    return out


def seat_stats(games: list[dict]) -> list[dict]:
    """Mean Banana Points and first-place share of each seat, whoever sat there (seat advantage)."""
    if not games:
        return []
    players = len(games[0]["seats"])
    out = []
    for seat in range(players):
        scores = [g["scores"][seat] for g in games]
        out.append({"seat": seat + 1, "mean_bananas": sum(scores) / len(scores),
                    "first_place": sum(g["ranks"][seat] == 1 for g in games) / len(games)})
    return out
