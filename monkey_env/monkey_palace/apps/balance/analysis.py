"""From the games of a :class:`Dataset` to the figures of the balance report (plain JSON-able dicts).

Every figure carries its sample size and interval (``stats.Estimate.to_dict``) and, for
differences, a p-value and whether it is significant at 5 %.

Conventions
- **Win** = first place by the rulebook (monkey_env.core.outcome): the most Banana Points, a tie
  going to the Monkey trophy's holder; a tie for first the Monkey does not settle, between k
  seats, gives each of them 1/k of a win, so the seats' win rates of a cell sum to 1 and the
  fair rate is exactly 1/players. ``ties`` is the share of games with such a shared win.
- Seat shares of the same games are not independent: differences between seats use
  :func:`stats.multinomial_diff` (win shares) and :func:`stats.paired_diff` (scores), and the
  "no seat advantage at all" test is a chi-square over the seats' wins.
- Cards are pooled over the maps of a player count (each map weighs as much as its games).
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from monkey_env.apps.balance import stats as S
from monkey_env.monkey_palace.apps.balance.collect import Dataset, Records
from monkey_env.monkey_palace.apps.play_games import END_KIND_NAMES

COLOURS = ("light", "dark", "gold")
TROPHIES = ("monkey", "butterfly", "frog")


def split_wins(rec: Records) -> np.ndarray:
    """(G, P) share of the win of each seat: 1 for a sole winner (the Monkey trophy's holder wins a
    tie on points), 1/k for each of k still tied winners (Records.win_shares)."""
    return rec.win_shares()


def _d(e: S.Estimate) -> dict:
    return e.to_dict()


# ---------------------------------------------------------------- seats
def seat_figures(rec: Records) -> dict:
    """Win rate and mean Banana Points per seat, with the seat-advantage tests, for one cell."""
    P, n = rec.players, rec.n
    wins = split_wins(rec)
    k = wins.sum(0)
    chi, p_chi, _ = S.chisq_uniform(k)
    seats = []
    for s in range(P):
        seats.append(dict(seat=s + 1, win=_d(S.wilson(k[s], n)), bananas=_d(S.mean_ci(rec.scores[:, s])),
                          bonus_cards=_d(S.mean_ci(rec.bonus_cards[:, s]))))
    first_last = S.multinomial_diff(k[0], k[P - 1], n)
    best, worst = int(np.argmax(k)), int(np.argmin(k))
    return dict(
        n=n, players=P, fair=1 / P, seats=seats, ties=_d(S.wilson(int((rec.winners().sum(1) > 1).sum()), n)),
        chi_square=dict(statistic=chi, p_value=p_chi, df=P - 1, significant=bool(p_chi < 0.05) if math.isfinite(p_chi) else None),
        first_minus_last_win=_d(first_last),
        best_minus_worst_win=dict(best_seat=best + 1, worst_seat=worst + 1, **_d(S.multinomial_diff(k[best], k[worst], n))),
        first_minus_last_bananas=_d(S.paired_diff(rec.scores[:, 0], rec.scores[:, P - 1])),
        max_halfwidth=max((S.wilson(k[s], n).hi - S.wilson(k[s], n).lo) / 2 for s in range(P)),
    )


def seats_section(ds: Dataset, variant: str = "default") -> dict:
    agent = ds.meta.get("plan", {}).get("agents", ["?"])[0]
    out = {"agent": agent, "cells": [], "pooled": []}
    players = sorted({c.players for c in ds.cells if c.kind == "seats" and c.variant == variant})
    for p in players:
        cells = [(c, r) for c, r in ds.select(kind="seats", players=p, variant=variant) if c.lineup[0] == agent]
        figures = [dict(map=c.map, **seat_figures(r)) for c, r in cells]
        # One chi-square test per map: Holm's correction keeps the chance of any false
        # "this map has a seat advantage" at 5% for the player count.
        for f, rejected in zip(figures, S.holm([f["chi_square"]["p_value"] for f in figures])):
            f["chi_square"]["significant_after_holm"] = rejected
        out["cells"].extend(figures)
        if cells:
            out["pooled"].append(dict(map="all", **seat_figures(Records.concat([r for _, r in cells]))))
    return out


# ---------------------------------------------------------------- maps
def map_figures(rec: Records) -> dict:
    n = rec.n
    ends = {name: _d(S.wilson(int((rec.end_kind == i).sum()), n)) for i, name in enumerate(END_KIND_NAMES)}
    ends["none (illegal action)"] = _d(S.wilson(int((rec.end_kind < 0).sum()), n))
    builds = rec.colour_builds.sum(1).astype(float)           # (G, 3) staircases per colour per game
    total = builds.sum(1, keepdims=True)
    share = np.divide(builds, total, out=np.zeros_like(builds), where=total > 0)
    top = np.sort(rec.scores, 1)[:, ::-1]
    detail = bool(total.sum() > 0)                 # games read from the arena database have no colours
    return dict(
        n=n, players=rec.players,
        score=_d(S.mean_ci(rec.scores.mean(1))),     # per game (the seats of a game are not independent)
        score_quantiles=np.percentile(rec.scores, [0, 5, 25, 50, 75, 95, 100]).tolist(),
        winner_score=_d(S.mean_ci(top[:, 0])),
        margin=_d(S.mean_ci(top[:, 0] - top[:, 1])),
        rounds=_d(S.mean_ci(rec.rounds)),
        rounds_range=[int(rec.rounds.min()), int(np.median(rec.rounds)), int(rec.rounds.max())],
        rounds_hist={int(v): int(c) for v, c in zip(*np.unique(rec.rounds, return_counts=True))},
        end=ends,
        colour_share={c: _d(S.mean_ci(share[:, i])) for i, c in enumerate(COLOURS)} if detail else {},
        staircases_per_game=_d(S.mean_ci(total[:, 0])),
        decisions=_d(S.mean_ci(rec.decisions)),
    )


def maps_section(ds: Dataset, variant: str = "default") -> dict:
    agent = ds.meta.get("plan", {}).get("agents", ["?"])[0]
    out = {"agent": agent, "cells": [], "vs_map1": []}
    for c, r in ds.select(kind="seats", variant=variant):
        if c.lineup[0] != agent:
            continue
        out["cells"].append(dict(map=c.map, **map_figures(r)))
        ref = ds.get(kind="seats", players=c.players, map="1", variant=variant, lineup=c.lineup)
        if ref is not None and c.map != "1":
            out["vs_map1"].append(dict(players=c.players, map=c.map,
                                       rounds=_d(S.diff_means(r.rounds, ref.rounds)),
                                       score=_d(S.diff_means(r.scores.mean(1), ref.scores.mean(1))),
                                       gold_share=_d(S.diff_means(_gold(r), _gold(ref)))
                                       if r.colour_builds.sum() and ref.colour_builds.sum() else None))
    return out


def _gold(rec: Records) -> np.ndarray:
    b = rec.colour_builds.sum(1).astype(float)
    t = b.sum(1)
    return np.divide(b[:, 2], t, out=np.zeros_like(t), where=t > 0)


# ---------------------------------------------------------------- skill
def skill_section(ds: Dataset) -> dict:
    """Per map: how agent A fares against agent B (2 players, each in both seats)."""
    by_pair: dict[tuple, list] = defaultdict(list)
    for c, r in ds.select(kind="skill"):
        by_pair[(tuple(sorted(set(c.lineup))), c.map)].append((c, r))
    out = []
    for (pair, m), cells in sorted(by_pair.items()):
        a, b = pair
        k_a, n, margin = 0.0, 0, []
        for c, r in cells:
            w = split_wins(r)
            ia, ib = c.lineup.index(a), c.lineup.index(b)
            k_a += w[:, ia].sum()
            n += r.n
            margin.append(r.scores[:, ia] - r.scores[:, ib])
        margin = np.concatenate(margin)
        win = S.wilson(k_a, n)
        # Is A's win rate different from 1/2 (equal strength)? z test of one proportion.
        p_half = S.one_proportion_p(k_a, n, 0.5)
        out.append(dict(a=a, b=b, map=m, n=n, a_win=_d(win), a_margin=_d(S.paired_diff(margin, np.zeros_like(margin))),
                        p_vs_half=p_half, significant=bool(p_half < 0.05)))
    profiles = []
    for c, r in ds.select(kind="seats", players=2, variant="default"):
        seats = seat_figures(r)  # the seat effect seen by each agent: is it the game's or the agent's?
        profiles.append(dict(agent=c.lineup[0], map=c.map, n=r.n, score=_d(S.mean_ci(r.scores.mean(1))),
                             rounds=_d(S.mean_ci(r.rounds)), seat1_win=seats["seats"][0]["win"],
                             seats_equal_p=seats["chi_square"]["p_value"]))
    return {"pairs": out, "self_play": profiles}


# ---------------------------------------------------------------- cards
def card_table(data) -> list[dict]:
    """The cards of the game data: id, pile, cost, bananas, instant icons, recurring supply."""
    from monkey_env.monkey_palace.config import PILE_IDS
    return [dict(id=c.id, pile=PILE_IDS[c.pile], cost=c.cost, colour=c.colour, bananas=c.bananas,
                 instant=list(c.instant), recurring=list(c.recurring)) for c in data.cards]


def cards_section(ds: Dataset, cards: list[dict], variant: str = "default") -> dict:
    """Per player count (pooled over maps): each card's and pile's purchases, timing, buyer win rates,
    elements returned, and when each pile runs out."""
    agent = ds.meta.get("plan", {}).get("agents", ["?"])[0]
    piles = list(dict.fromkeys(c["pile"] for c in cards))
    out = {"agent": agent, "per_players": []}
    players = sorted({c.players for c in ds.cells if c.kind == "seats" and c.variant == variant})
    for p in players:
        recs = [r for c, r in ds.select(kind="seats", players=p, variant=variant) if c.lineup[0] == agent]
        if not recs:
            continue
        rec = Records.concat(recs)
        if rec.card_owner.shape[1] < len(cards):    # games read from the arena database: no card records
            continue
        n = rec.n
        wins = split_wins(rec)                      # (G, P)
        owner = rec.card_owner                      # (G, C)
        rows_cards, rows_piles = [], []
        for cid, card in enumerate(cards):
            bought = owner[:, cid] >= 0
            nb = int(bought.sum())
            buyer_mask = np.zeros((n, p), bool)
            buyer_mask[np.flatnonzero(bought), owner[bought, cid]] = True
            w_buy, w_not = wins[buyer_mask], wins[~buyer_mask]
            inst = len(card["instant"])
            elements = inst + sum(card["recurring"]) * rec.card_top_turns[bought, cid]
            rows_cards.append(dict(
                id=cid, pile=card["pile"], cost=card["cost"], bananas=card["bananas"],
                instant=card["instant"], recurring=card["recurring"],
                bought=_d(S.wilson(nb, n)), round=_d(S.mean_ci(rec.card_round[bought, cid])),
                buyer_win=_d(S.wilson(w_buy.sum(), len(w_buy))),
                nonbuyer_win=_d(S.wilson(w_not.sum(), len(w_not))),
                buyer_minus_nonbuyer=_d(S.diff_proportions(w_buy.sum(), len(w_buy), w_not.sum(), len(w_not))),
                elements=_d(S.mean_ci(elements)),
                recurring_turns=_d(S.mean_ci(rec.card_top_turns[bought, cid])),
            ))
        for pile in piles:
            ids = [c["id"] for c in cards if c["pile"] == pile]
            own = owner[:, ids]                     # (G, k)
            per_seat = np.stack([(own == s).sum(1) for s in range(p)], 1)   # (G, P) cards of the pile per seat
            has = per_seat > 0
            w_buy, w_not = wins[has], wins[~has]
            empty = (own >= 0).all(1)
            runout = np.where(empty, rec.card_round[:, ids].max(1), -1)
            k = len(ids)
            bought_cards = (own >= 0).sum(1)
            rows_piles.append(dict(
                pile=pile, cards=k, cost=cards[ids[0]]["cost"], bananas_total=sum(cards[i]["bananas"] for i in ids),
                bought_share=_d(S.mean_ci(bought_cards / k)),
                buyers_per_game=_d(S.mean_ci(has.sum(1))),
                round=_d(S.mean_ci(rec.card_round[:, ids][own >= 0])),
                buyer_win=_d(S.wilson(w_buy.sum(), len(w_buy))), nonbuyer_win=_d(S.wilson(w_not.sum(), len(w_not))),
                buyer_minus_nonbuyer=_d(S.diff_proportions(w_buy.sum(), len(w_buy), w_not.sum(), len(w_not))),
                ran_out=_d(S.wilson(int(empty.sum()), n)),
                runout_round=_d(S.mean_ci(runout[empty])),
                bananas_per_game=_d(S.mean_ci((own >= 0).astype(float) @ np.asarray([cards[i]["bananas"] for i in ids], float))),
            ))
        # Many cards tested at once: Holm's correction over the cards (and separately the piles).
        for rows in (rows_cards, rows_piles):
            rej = S.holm([r["buyer_minus_nonbuyer"]["p_value"] for r in rows])
            for r, x in zip(rows, rej):
                r["significant_after_holm"] = x
        out["per_players"].append(dict(players=p, n=n, seat_games=n * p, cards=rows_cards, piles=rows_piles))
    return out


# ---------------------------------------------------------------- boards and options
def boards_section(ds: Dataset, boards_config, seats: dict) -> dict:
    """Each board sits at its seat, so its supply's effect is the seat's figures beside its numbers;
    a --boards what-if changes the numbers with everything else the same."""
    rows = []
    for b in boards_config.boards:
        r = dict(seat=b.seat, starting=[b.starting.arches, b.starting.bricks, b.starting.columns],
                 recurring=[b.recurring.arches, b.recurring.bricks, b.recurring.columns], by_players=[])
        for pooled in seats["pooled"]:
            if b.seat <= pooled["players"]:
                s = pooled["seats"][b.seat - 1]
                r["by_players"].append(dict(players=pooled["players"], win=s["win"], bananas=s["bananas"],
                                            bonus_cards=s["bonus_cards"]))
        rows.append(r)
    return {"boards": rows}


def options_section(ds: Dataset) -> dict:
    """Butterfly and Frog against the plain game, per player count, pooled over the same maps."""
    agent = ds.meta.get("plan", {}).get("agents", ["?"])[0]
    out = []
    players = sorted({c.players for c in ds.cells if c.kind == "options"})
    for p in players:
        maps = sorted({c.map for c in ds.cells if c.kind == "options" and c.players == p})
        base = [r for c, r in ds.select(kind="seats", players=p, variant="default")
                if c.lineup[0] == agent and c.map in maps]
        if not base:
            continue
        base = Records.concat(base)
        rows = [dict(options="none", **_option_row(base, None))]
        for o in ("butterfly", "frog", "both"):
            recs = [r for c, r in ds.select(kind="options", players=p, options=o)]
            if recs:
                rec = Records.concat(recs)
                rows.append(dict(options=o, **_option_row(rec, base)))
        out.append(dict(players=p, maps=maps, rows=rows))
    return {"agent": agent, "per_players": out}


def _option_row(rec: Records, base: Records | None) -> dict:
    n = rec.n
    wins = split_wins(rec)
    k = wins.sum(0)
    chi, p_chi, _ = S.chisq_uniform(k)
    row = dict(n=n, score=_d(S.mean_ci(rec.scores.mean(1))), rounds=_d(S.mean_ci(rec.rounds)),
               seat1_win=_d(S.wilson(k[0], n)), seat_spread=float(k.max() - k.min()) / n,
               seat_chi_square_p=p_chi,
               margin=_d(S.mean_ci(np.sort(rec.scores, 1)[:, -1] - np.sort(rec.scores, 1)[:, -2])))
    trophies = {}
    # Games read from the arena database (no card records) know the Monkey's holder only from a tie it broke.
    for t, name in enumerate(TROPHIES if rec.card_owner.shape[1] else ()):
        held = rec.holders[:, t] >= 0
        if held.any():
            holder = rec.holders[held, t]
            w = wins[np.flatnonzero(held), holder]
            trophies[name] = dict(held=_d(S.wilson(int(held.sum()), n)), holder_win=_d(S.wilson(w.sum(), len(w))))
    row["trophies"] = trophies
    if base is not None:
        bw = split_wins(base).sum(0)
        row["vs_none"] = dict(score=_d(S.diff_means(rec.scores.mean(1), base.scores.mean(1))),
                              rounds=_d(S.diff_means(rec.rounds, base.rounds)),
                              seat1_win=_d(S.diff_proportions(k[0], n, bw[0], base.n)),
                              margin=_d(S.diff_means(np.sort(rec.scores, 1)[:, -1] - np.sort(rec.scores, 1)[:, -2],
                                                     np.sort(base.scores, 1)[:, -1] - np.sort(base.scores, 1)[:, -2])))
    return row


# ---------------------------------------------------------------- what-ifs
def whatif_section(ds: Dataset, variants: list[str], cards: list[dict]) -> dict:
    """Each variant beside the defaults, per (players, map) cell: seat win rates, scores, length, piles."""
    out = []
    agent = ds.meta.get("plan", {}).get("agents", ["?"])[0]
    piles = list(dict.fromkeys(c["pile"] for c in cards))
    for v in variants:
        rows = []
        for c, rec in ds.select(kind="seats", variant=v):
            base = ds.get(kind="seats", variant="default", players=c.players, map=c.map, lineup=c.lineup)
            if base is None or c.lineup[0] != agent:
                continue
            P = c.players
            kv, kb = split_wins(rec).sum(0), split_wins(base).sum(0)
            seats = [dict(seat=s + 1, default=_d(S.wilson(kb[s], base.n)), variant=_d(S.wilson(kv[s], rec.n)),
                          diff=_d(S.diff_proportions(kv[s], rec.n, kb[s], base.n)),
                          bananas_diff=_d(S.diff_means(rec.scores[:, s], base.scores[:, s])))
                     for s in range(P)]
            _, p_v, _ = S.chisq_uniform(kv)
            _, p_b, _ = S.chisq_uniform(kb)
            pile_rows = []
            for pile in piles:
                ids = [x["id"] for x in cards if x["pile"] == pile]
                if max(ids) >= rec.card_owner.shape[1] or max(ids) >= base.card_owner.shape[1]:
                    continue
                bv = (rec.card_owner[:, ids] >= 0).mean(1)
                bb = (base.card_owner[:, ids] >= 0).mean(1)
                pile_rows.append(dict(pile=pile, default=_d(S.mean_ci(bb)), variant=_d(S.mean_ci(bv)),
                                      diff=_d(S.diff_means(bv, bb))))
            rows.append(dict(players=P, map=c.map, n_default=base.n, n_variant=rec.n, seats=seats,
                             seat_chi_square_p=dict(default=p_b, variant=p_v),
                             first_minus_last=dict(default=_d(S.multinomial_diff(kb[0], kb[P - 1], base.n)),
                                                   variant=_d(S.multinomial_diff(kv[0], kv[P - 1], rec.n))),
                             score_diff=_d(S.diff_means(rec.scores.mean(1), base.scores.mean(1))),
                             rounds_diff=_d(S.diff_means(rec.rounds, base.rounds)),
                             rounds=dict(default=_d(S.mean_ci(base.rounds)), variant=_d(S.mean_ci(rec.rounds))),
                             piles=pile_rows))
        out.append(dict(variant=v, files=ds.meta.get("variants", {}).get(v, {}), cells=rows))
    return {"variants": out}


# ---------------------------------------------------------------- all
def analyse(ds: Dataset, data) -> dict:
    """Every figure of the report. `data` is the default GameData (card and board numbers)."""
    cards = card_table(data)
    seats = seats_section(ds)
    variants = sorted({c.variant for c in ds.cells} - {"default"})
    sizes = [dict(cell=c.key, games=r.n, seconds=round(r.seconds, 1), illegal=int(r.illegal.sum()))
             for c, r in zip(ds.cells, ds.records)]
    return dict(
        meta=dict(ds.meta, cells=sizes, games_total=int(sum(r.n for r in ds.records))),
        seats=seats, maps=maps_section(ds), skill=skill_section(ds), cards=cards_section(ds, cards),
        boards=boards_section(ds, data.boards, seats), options=options_section(ds),
        whatif=whatif_section(ds, variants, cards), card_data=cards,
    )
