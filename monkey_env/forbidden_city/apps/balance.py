"""Forbidden City's own sections of ``monkey-palace balance --game forbidden_city`` (its
``balance`` part): the lift of each tile kind held early, the coins of the kept tiles, the rooms
scored, the share of games flagged edge_reached (a tile laid on the table's border:
docs/games/forbidden_city.md, "The table").

Every seat plays the same 24 (or 30) tiles, so a kind's effect is one of order: a seat that
holds one among its first EARLY_TILES tiles against a seat that does not, in the same games
(the difference of their win rates, Newcombe interval; seats are not independent within a
game, so read it as descriptive).
"""

from __future__ import annotations

import numpy as np

from monkey_env.apps.balance.stats import diff_proportions, mean_ci


def sections(table) -> list[dict]:
    if table.stats is None:
        return []
    from monkey_env.forbidden_city.engine import EARLY_TILES, TILE_FEATURES

    p = table.players
    shares = table.win_shares[:, :p]
    rows = []
    for kind in TILE_FEATURES:
        held = np.asarray(table.stats[f"early_{kind}"])[:, :p] > 0
        k1, n1 = float(shares[held].sum()), int(held.sum())
        k0, n0 = float(shares[~held].sum()), int((~held).sum())
        if n1 == 0 or n0 == 0:
            continue
        rows.append({"name": f"{kind} among the first {EARLY_TILES}", "estimate": diff_proportions(k1, n1, k0, n0),
                     "with": f"{k1 / n1:.3f} of {n1}", "without": f"{k0 / n0:.3f} of {n0}"})
    kept = np.asarray(table.stats["end_coins"])[:, :p].reshape(-1)
    rooms = np.asarray(table.stats["rooms_scored"]).reshape(-1)
    edge = np.asarray(table.stats["edge_reached"]).reshape(-1) if "edge_reached" in table.stats else None
    return [
        {"title": "Tile kinds: win-rate lift of holding one early", "rows": rows,
         "note": "estimate = win rate of seats holding the kind early minus that of seats without it"},
        {"title": "Coins", "note": "",
         "rows": [{"name": "coins for the two kept tiles (ending last_two)", "estimate": mean_ci(kept)},
                  {"name": "rooms scored per game", "estimate": mean_ci(rooms)},
                  {"name": "winner's coins", "estimate": mean_ci(table.scores[:, :p].max(1))}]
                 + ([{"name": f"games that laid a tile on the table's border (edge_reached): {int(edge.sum())} "
                              f"of {len(edge)}", "estimate": mean_ci(edge)}] if edge is not None else [])},
    ]
