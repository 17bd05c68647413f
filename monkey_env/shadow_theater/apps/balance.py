"""The Shadow Theater's own balance sections (its ``balance`` part in monkey_env.games).

- **weapon-card kinds**: for each kind, the win rate of the seats that used at least one card
  of it in the game (played it, or held it at a round's end, when it scores) against the seats
  that used none (a difference of proportions with
  Newcombe's interval and a z test), and how often it was played. A lift is an association, not
  a cause: a seat ahead gets more chances to play cards.
- **scrolls**: for each scroll, the win rate of the seats that kept it in at least one round
  against those that never did.
Holm's correction over each section's tests says which lifts stand.
"""

from __future__ import annotations

import numpy as np

from monkey_env.apps.balance.stats import diff_proportions, holm


def _lift_rows(names: list[str], used: np.ndarray, wins: np.ndarray) -> list[dict]:
    """used (G, 2, N) bool, wins (G, 2) win shares -> one row per item."""
    rows = []
    for i, name in enumerate(names):
        with_it, without = used[:, :, i], ~used[:, :, i]
        k1, n1 = float(wins[with_it].sum()), int(with_it.sum())
        k2, n2 = float(wins[without].sum()), int(without.sum())
        rows.append({"name": name, "estimate": diff_proportions(k1, n1, k2, n2),
                     "win rate with": f"{k1 / n1:.3f}" if n1 else "n/a",
                     "win rate without": f"{k2 / n2:.3f}" if n2 else "n/a", "seat-games with": n1})
    stands = holm([r["estimate"].p_value if r["estimate"].p_value is not None else 1.0 for r in rows])
    for r, s in zip(rows, stands):
        r["stands after Holm"] = "yes" if s else "no"
    return rows


def sections(table) -> list[dict]:
    from monkey_env.shadow_theater.game_data import load_game_data

    if table.stats is None:
        return []
    data = load_game_data()
    kinds = [k.name for k in data.kinds]
    scrolls = [s.name for s in data.scrolls]
    wins = table.win_shares
    played = (table.stats["kind_played"] + table.stats.get("kind_held", 0)) > 0
    kept = table.stats["scroll_rounds"] > 0
    return [
        {"title": "Weapon-card kinds: lift in win rate of the seats that used one (stand-in data)",
         "note": "used = played, or held at a round's end (where it scores); estimate = win rate with - without; "
                 "times played (all seats): " + ", ".join(f"{k} {int(n)}" for k, n in
                                                          zip(kinds, table.stats["kind_played"].sum((0, 1)))),
         "rows": _lift_rows(kinds, played, wins)},
        {"title": "Scrolls: lift in win rate of the seats that kept one (stand-in data)",
         "note": "estimate = win rate with - without (kept in at least one round)", "rows": _lift_rows(scrolls, kept, wins)},
    ]
