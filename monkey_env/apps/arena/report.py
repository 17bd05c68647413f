"""Reports of a tournament, read from the results database only: a leaderboard in the terminal,
the same as JSON, and a plot (ratings with their uncertainty, win-rate matrix)."""

from __future__ import annotations

from collections import Counter

from monkey_env.apps.arena.ratings import agent_stats, openskill_ratings, seat_stats, win_matrix
from monkey_env.apps.arena.results import Results
from monkey_env.apps.arena.schedule import Schedule
from monkey_env.apps.results_table import SHARED_WIN, shared_win_rule
from monkey_env.core.figures import save_figure
from monkey_env.games import DEFAULT_GAME


def _where_and_score(t: dict) -> tuple[str, str]:
    """'map N' and Banana Points for Monkey Palace; another game's title and score name."""
    if "game" not in t:
        return f"map {t['map']}", "Banana Points"
    from monkey_env.games import game_spec
    spec = game_spec(t["game"])
    return spec.title, spec.score_name


def build_report(db: Results, tournament_id: int | None = None) -> dict:
    tour = db.find(id=tournament_id)
    cfg = tour.config
    games = db.games(tour.id)
    agents = cfg["agents"]
    ratings = openskill_ratings(games, agents)
    stats = agent_stats(games, agents)
    board = []
    for a in sorted(agents, key=lambda a: -ratings[a]["ordinal"]):
        board.append({"agent": a, "version": cfg["versions"][a], **ratings[a], **stats[a]})
    for i, row in enumerate(board):
        row["place"] = i + 1
    rounds = [g["rounds"] for g in games]
    return {
        "database": str(db.path), "tournament": {"id": tour.id, "created": tour.created, **cfg},
        "games_recorded": len(games),
        "games_per_deal": len(Schedule(tuple(agents), cfg["players"], 1, cfg["seed"], cfg["chunk"]).seatings),
        "leaderboard": board,
        "win_rates": win_matrix(games, agents),
        "seats": seat_stats(games),
        "rounds_mean": sum(rounds) / len(rounds) if rounds else None,
        "end_triggers": dict(Counter(g["end_trigger"] for g in games)),
        "seconds_played": sum(g["duration"] for g in games),
        "shared_win": shared_win_rule(cfg.get("game", DEFAULT_GAME)) + " (pairwise: a shared place counts half)",
        "score_name": _where_and_score(cfg)[1],   # what mean_score counts
    }


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def print_report(report: dict, console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    if console is None:
        console = Console()
        if not console.is_terminal:      # a file or a pipe: wide enough for the tables
            console = Console(width=150)
    t = report["tournament"]
    opts = ", ".join(f"{k}={v}" for k, v in t["options"].items())
    where, score = _where_and_score(t)
    console.print(f"[bold]Tournament {t['id']}[/bold] in {report['database']}: {report['games_recorded']} games, "
                  f"{t['players']} players, {where}, {t['engine']} engine, seed {t['seed']} ({opts})")
    board = Table(title="Leaderboard (openskill Plackett-Luce, sorted by mu - 3 sigma)")
    for col in ("#", "agent", "version", "mu", "sigma", "mu-3σ", "games", "win share", f"mean {score} (95% CI)"):
        board.add_column(col, justify="left" if col in ("agent", "version") else "right")
    for r in board_rows(report):
        board.add_row(*r)
    console.print(board)
    agents = [r["agent"] for r in report["leaderboard"]]
    matrix = Table(title="Win rate of row against column (a shared place counts half), 95% CI")
    matrix.add_column("")
    for a in agents:
        matrix.add_column(a, justify="center")
    for a in agents:
        cells = []
        for b in agents:
            if a == b:
                cells.append("-")
                continue
            c = report["win_rates"][a][b]
            cells.append("-" if not c["games"] else
                         f"{_pct(c['win_rate'])} [{100 * c['ci95'][0]:.1f}-{100 * c['ci95'][1]:.1f}] n={c['games']}")
        matrix.add_row(a, *cells)
    console.print(matrix)
    monkey_palace = "game" not in t
    unit = "BP" if monkey_palace else _where_and_score(t)[1]
    seats = ", ".join(f"seat {s['seat']}: {s['mean_score']:.1f} {unit}, 1st {_pct(s['first_place'])}"
                      for s in report["seats"])
    if seats:
        console.print(f"by seat: {seats}")
    if report["rounds_mean"] is not None:
        ends = ", ".join(f"{k or 'none'} {v}" for k, v in sorted(report["end_triggers"].items()))
        console.print(f"rounds: mean {report['rounds_mean']:.1f}" + (f"; end triggered by: {ends}" if monkey_palace else ""))
    if monkey_palace:
        console.print(f"win: {report.get('shared_win', SHARED_WIN)}")
    else:
        console.print(f"win: the places of {_where_and_score(t)[0]}'s own rules; a shared place counts half")


def board_rows(report: dict) -> list[list[str]]:
    rows = []
    for r in report["leaderboard"]:
        bp = "-" if r["mean_score"] is None else \
            f"{r['mean_score']:.2f} ({r['score_ci95'][0]:.2f}-{r['score_ci95'][1]:.2f})"
        rows.append([str(r["place"]), r["agent"], r["version"], f"{r['mu']:.2f}", f"{r['sigma']:.2f}",
                     f"{r['ordinal']:.2f}", str(r["seat_games"]), _pct(r["first_place"]), bp])
    return rows


def plot_report(report: dict, path: str) -> None:
    """Ratings (mu with a 3-sigma bar) and the win-rate matrix, side by side, in one PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    board = report["leaderboard"]
    agents = [r["agent"] for r in board]
    labels = short_labels(agents)
    n = len(agents)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 2.5 + 0.7 * n), width_ratios=(1, 1))
    y = np.arange(n)[::-1]
    ax1.errorbar([r["mu"] for r in board], y, xerr=[3 * r["sigma"] for r in board], fmt="o", capsize=4)
    ax1.set_yticks(y, labels)
    ax1.set_ylim(-0.6, n - 0.4)
    ax1.set_xlabel("openskill mu (bars: ±3 sigma)")
    ax1.set_title("Ratings")
    ax1.grid(axis="x", alpha=0.3)
    m = np.full((n, n), np.nan)
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            if a != b and report["win_rates"][a][b]["games"]:
                m[i, j] = report["win_rates"][a][b]["win_rate"]
    im = ax2.imshow(m, vmin=0, vmax=1, cmap="RdYlGn")
    ax2.set_xticks(range(n), labels, rotation=30, ha="right")
    ax2.set_yticks(range(n), labels)
    for i in range(n):
        for j in range(n):
            if not np.isnan(m[i, j]):
                lo, hi = report["win_rates"][agents[i]][agents[j]]["ci95"]
                ax2.text(j, i, f"{100 * m[i, j]:.0f}%\n[{100 * lo:.0f}-{100 * hi:.0f}]", ha="center", va="center",
                         fontsize=8)
    ax2.set_title("Win rate, row vs column")
    fig.colorbar(im, ax=ax2, fraction=0.046)
    t = report["tournament"]
    fig.suptitle(f"Tournament {t['id']}: {report['games_recorded']} games, {t['players']} players, "
                 f"{_where_and_score(t)[0]}")
    save_figure(fig, path, dpi=110)


def short_labels(agents: list[str]) -> list[str]:
    """Class names for import paths (package.module:Class -> Class) when that stays unambiguous."""
    short = [a.rsplit(":", 1)[-1] for a in agents]
    return short if len(set(short)) == len(short) else agents
