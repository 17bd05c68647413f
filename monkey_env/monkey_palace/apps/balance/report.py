"""Write the balance report: PNG plots, an HTML page (PNGs embedded), a Markdown page, figures.json.

Every number shown carries its n and 95 % interval; differences say "not significant" where
their interval holds zero.
"""

from __future__ import annotations

import base64
import html
import json
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from monkey_env.core.figures import save_figure
from monkey_env.core.provenance import stamp
from monkey_env.monkey_palace.apps.balance.analysis import COLOURS

PILE_COLOURS = {"multi": "#8c6d31", "light": "#74c476", "dark": "#238b45", "gold": "#e6ab02"}
SEAT_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]


# ---------------------------------------------------------------- formatting
def _num(v, pct=False, digits=1):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    return f"{100 * v:.{digits}f}%" if pct else f"{v:.{digits}f}"


def fmt(e: dict | None, pct: bool = False, digits: int = 1, n: bool = True) -> str:
    """'51.9% [41.1%, 62.5%] n=80' (+ ', p=0.02' or ', not significant' for a difference)."""
    if not e or e.get("value") is None:
        return f"n/a (n={e.get('n', 0) if e else 0})"
    s = f"{_num(e['value'], pct, digits)} [{_num(e['lo'], pct, digits)}, {_num(e['hi'], pct, digits)}]"
    if n:
        s += f" n={e['n']}"
    if e.get("p_value") is not None:
        s += f", p={e['p_value']:.2g}" + ("" if e.get("significant") else ", not significant")
    return s


def _err(e: dict) -> tuple[float, float, float]:
    v = e.get("value")
    if v is None:
        return float("nan"), 0.0, 0.0
    lo, hi = e.get("lo"), e.get("hi")
    return v, max(v - lo, 0.0) if lo is not None else 0.0, max(hi - v, 0.0) if hi is not None else 0.0


def _bars(ax, xs, es, width, offset, colour, label, scale=1.0):
    vals = [_err(e) for e in es]
    v = np.array([x[0] for x in vals]) * scale
    yerr = np.array([[x[1] for x in vals], [x[2] for x in vals]]) * scale
    ax.bar(np.asarray(xs) + offset, v, width, yerr=yerr, capsize=2, color=colour, label=label)


# ---------------------------------------------------------------- plots
def plot_seats(fig: dict, out: Path) -> list[str]:
    seats = fig["seats"]
    players = sorted({c["players"] for c in seats["cells"]})
    if not players:
        return []
    names = []
    for what, fname, ylabel, scale in (("win", "seats_win.png", "win rate (%)", 100),
                                       ("bananas", "seats_bananas.png", "mean Banana Points", 1)):
        f, axes = plt.subplots(1, len(players), figsize=(6 * len(players), 4), squeeze=False)
        for ax, p in zip(axes[0], players):
            rows = [c for c in seats["cells"] if c["players"] == p] + [c for c in seats["pooled"] if c["players"] == p]
            xs = np.arange(len(rows))
            w = 0.8 / p
            for s in range(p):
                _bars(ax, xs, [r["seats"][s][what] for r in rows], w, (s - (p - 1) / 2) * w, SEAT_COLOURS[s],
                      f"seat {s + 1}", scale)
            if what == "win":
                ax.axhline(100 / p, color="k", ls="--", lw=1, label="fair (1/players)")
            ax.set_xticks(xs, [f"map {r['map']}\nn={r['n']}" for r in rows])
            ax.set_title(f"{p} players ({seats['agent']} in every seat)")
            ax.set_ylabel(ylabel + ", 95% CI")
            ax.legend(fontsize=8, ncol=2)
        names.append(save_figure(f, out / fname, dpi=90).name)
    return names


def plot_maps(fig: dict, out: Path) -> list[str]:
    cells = fig["maps"]["cells"]
    players = sorted({c["players"] for c in cells})
    if not players:
        return []
    f, axes = plt.subplots(2, len(players), figsize=(6 * len(players), 7.5), squeeze=False)
    for j, p in enumerate(players):
        rows = [c for c in cells if c["players"] == p]
        ax = axes[0][j]
        q = [c["score_quantiles"] for c in rows]
        for i, qq in enumerate(q):
            ax.plot([i, i], [qq[1], qq[5]], color="grey", lw=1)              # 5-95 %
            ax.add_patch(plt.Rectangle((i - 0.25, qq[2]), 0.5, qq[4] - qq[2], fc="#9ecae1", ec="k"))
            ax.plot([i - 0.25, i + 0.25], [qq[3], qq[3]], color="k", lw=2)
            ax.plot([i], [qq[0]], "k.", ms=3)
            ax.plot([i], [qq[6]], "k.", ms=3)
            m = rows[i]["winner_score"]
            ax.errorbar([i + 0.35], [m["value"]], yerr=[[m["value"] - m["lo"]], [m["hi"] - m["value"]]], fmt="r^",
                        ms=5, capsize=2, label="mean winner score" if i == 0 else None)
        ax.set_xticks(range(len(rows)), [f"map {c['map']}\nn={c['n']}" for c in rows])
        ax.set_xlim(-0.6, len(rows) - 0.4)
        ax.set_ylabel("Banana Points per seat (box 25-75%, line 5-95%)")
        ax.set_title(f"{p} players: score distribution")
        ax.legend(fontsize=8)
        ax = axes[1][j]
        for c in rows:
            h = c["rounds_hist"]
            ks = sorted(int(k) for k in h)
            tot = sum(h.values())
            ax.plot(ks, [100 * h[k if k in h else str(k)] / tot for k in ks], marker="o",
                    label=f"map {c['map']}: mean {c['rounds']['value']:.2f} [{c['rounds']['lo']:.2f}, {c['rounds']['hi']:.2f}]")
        ax.set_xlabel("rounds")
        ax.set_ylabel("% of games")
        ax.set_title(f"{p} players: game length")
        ax.legend(fontsize=8)
    save_figure(f, out / "maps_scores_rounds.png", dpi=90)

    f, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    labels = [f"{c['players']}p map {c['map']}" for c in cells]
    xs = np.arange(len(cells))
    kinds = [k for k in cells[0]["end"] if any((c["end"][k]["value"] or 0) > 0 for c in cells)]
    bottom = np.zeros(len(cells))
    for k, col in zip(kinds, ["#6baed6", "#fd8d3c", "#74c476", "#9e9ac8", "#969696"]):
        v = np.array([100 * (c["end"][k]["value"] or 0) for c in cells])
        axes[0].bar(xs, v, bottom=bottom, color=col, label=k)
        bottom += v
    axes[0].set_xticks(xs, labels, rotation=45, ha="right")
    axes[0].set_ylabel("% of games")
    axes[0].set_title("What ran short and ended the game")
    axes[0].legend(fontsize=8)
    w = 0.27
    for i, col in enumerate(COLOURS):
        _bars(axes[1], xs, [c["colour_share"].get(col, {}) for c in cells], w, (i - 1) * w,
              {"light": "#74c476", "dark": "#238b45", "gold": "#e6ab02"}[col], f"{col} studs", 100)
    axes[1].set_xticks(xs, labels, rotation=45, ha="right")
    axes[1].set_ylabel("% of a game's staircases (mean, 95% CI)")
    axes[1].set_title("Stud colour under each new staircase's decoration")
    axes[1].legend(fontsize=8)
    save_figure(f, out / "maps_end_colours.png", dpi=90)
    return ["maps_scores_rounds.png", "maps_end_colours.png"]


def plot_skill(fig: dict, out: Path) -> list[str]:
    pairs = fig["skill"]["pairs"]
    if not pairs:
        return []
    f, ax = plt.subplots(figsize=(7, 4))
    combos = sorted({(p["a"], p["b"]) for p in pairs})
    maps = sorted({p["map"] for p in pairs})
    w = 0.8 / len(combos)
    for i, (a, b) in enumerate(combos):
        rows = [next((p for p in pairs if (p["a"], p["b"]) == (a, b) and p["map"] == m), None) for m in maps]
        _bars(ax, np.arange(len(maps)), [r["a_win"] if r else {} for r in rows], w, (i - (len(combos) - 1) / 2) * w,
              SEAT_COLOURS[i % 4], f"{a} vs {b}", 100)
    ax.axhline(50, color="k", ls="--", lw=1, label="equal strength")
    ax.set_xticks(range(len(maps)), [f"map {m}" for m in maps])
    ax.set_ylabel("win rate of the first agent (%), 95% CI")
    ax.set_title("Which maps reward skill (2 players, both seat orders)")
    ax.legend(fontsize=8)
    save_figure(f, out / "skill.png", dpi=90)
    return ["skill.png"]


def plot_cards(fig: dict, out: Path) -> list[str]:
    per = fig["cards"]["per_players"]
    if not per:
        return []
    names = []
    f, axes = plt.subplots(2 * len(per), 1, figsize=(14, 4.2 * 2 * len(per)), squeeze=False)
    for j, blk in enumerate(per):
        cards = blk["cards"]
        xs = np.arange(len(cards))
        cols = [PILE_COLOURS[fig["card_data"][c["id"]]["colour"]] for c in cards]
        ax = axes[2 * j][0]
        v = [_err(c["bought"]) for c in cards]
        ax.bar(xs, [100 * x[0] for x in v], yerr=np.array([[x[1] for x in v], [x[2] for x in v]]) * 100, color=cols,
               capsize=1.5)
        ax.set_ylabel("% of games bought (95% CI)")
        ax.set_title(f"{blk['players']} players: how often each card is bought (n={blk['n']} games)")
        _pile_ticks(ax, cards)
        ax = axes[2 * j + 1][0]
        v = [_err(c["buyer_minus_nonbuyer"]) for c in cards]
        ax.bar(xs, [100 * x[0] if math.isfinite(x[0]) else 0 for x in v],
               yerr=np.array([[x[1] for x in v], [x[2] for x in v]]) * 100, color=cols, capsize=1.5)
        for x, c in zip(xs, cards):
            if c.get("significant_after_holm"):
                ax.text(x, ax.get_ylim()[1] * 0.9, "*", ha="center", fontsize=12)
        ax.axhline(0, color="k", lw=1)
        ax.set_ylabel("buyer - non-buyer win rate (pts %)")
        ax.set_title(f"{blk['players']} players: win rate of buyers minus non-buyers (* = significant after Holm; "
                     "NOT causal, see text)")
        _pile_ticks(ax, cards)
    names.append(save_figure(f, out / "cards.png", dpi=80).name)

    f, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    piles = [p["pile"] for p in per[0]["piles"]]
    xs = np.arange(len(piles))
    w = 0.8 / len(per)
    for j, blk in enumerate(per):
        off = (j - (len(per) - 1) / 2) * w
        _bars(axes[0], xs, [p["bought_share"] for p in blk["piles"]], w, off, SEAT_COLOURS[j], f"{blk['players']} players", 100)
        _bars(axes[1], xs, [p["ran_out"] for p in blk["piles"]], w, off, SEAT_COLOURS[j], f"{blk['players']} players", 100)
        _bars(axes[2], xs, [p["round"] for p in blk["piles"]], w, off, SEAT_COLOURS[j], f"{blk['players']} players")
    for ax, t in zip(axes, ("% of the pile's cards bought per game", "% of games the pile runs out",
                            "mean round a card of the pile is bought")):
        ax.set_xticks(xs, piles, rotation=45, ha="right")
        ax.set_title(t + " (95% CI)")
        ax.legend(fontsize=8)
    names.append(save_figure(f, out / "piles.png", dpi=90).name)
    return names


def _pile_ticks(ax, cards):
    starts = {}
    for i, c in enumerate(cards):
        starts.setdefault(c["pile"], []).append(i)
    ax.set_xticks([np.mean(v) for v in starts.values()], list(starts), fontsize=8)
    for v in starts.values():
        ax.axvline(v[0] - 0.5, color="grey", lw=0.5)


def plot_options(fig: dict, out: Path) -> list[str]:
    per = fig["options"]["per_players"]
    if not per:
        return []
    f, axes = plt.subplots(1, 3, figsize=(15, 4))
    for j, blk in enumerate(per):
        rows = blk["rows"]
        xs = np.arange(len(rows))
        w = 0.8 / len(per)
        off = (j - (len(per) - 1) / 2) * w
        lab = f"{blk['players']} players"
        _bars(axes[0], xs, [r["score"] for r in rows], w, off, SEAT_COLOURS[j], lab)
        _bars(axes[1], xs, [r["rounds"] for r in rows], w, off, SEAT_COLOURS[j], lab)
        _bars(axes[2], xs, [r["seat1_win"] for r in rows], w, off, SEAT_COLOURS[j], lab, 100)
        axes[2].axhline(100 / blk["players"], color=SEAT_COLOURS[j], ls="--", lw=1)
        for ax in axes:
            ax.set_xticks(xs, [r["options"] for r in rows])
    for ax, t in zip(axes, ("mean Banana Points per seat", "rounds", "seat 1 win rate % (dashed: fair)")):
        ax.set_title(t + " (95% CI)")
        ax.legend(fontsize=8)
    save_figure(f, out / "options.png", dpi=90)
    return ["options.png"]


def plot_whatif(fig: dict, out: Path) -> list[str]:
    names = []
    for v in fig["whatif"]["variants"]:
        cells = v["cells"]
        if not cells:
            continue
        f, ax = plt.subplots(figsize=(min(16, max(7, 0.6 * sum(c["players"] for c in cells))), 4.5))
        x, ticks, labels = 0, [], []
        for c in cells:
            for s in c["seats"]:
                for k, (key, col) in enumerate((("default", "#9ecae1"), ("variant", "#fd8d3c"))):
                    val, lo, hi = _err(s[key])
                    ax.bar(x + (k - 0.5) * 0.4, 100 * val, 0.4, yerr=[[100 * lo], [100 * hi]], color=col, capsize=2,
                           label=key if x == 0 else None)
                ticks.append(x)
                labels.append(f"{c['players']}p m{c['map']}\nseat {s['seat']}")
                x += 1
            x += 0.5
        ax.set_xticks(ticks, labels, fontsize=6, rotation=90)
        ax.set_ylabel("win rate % (95% CI)")
        ax.set_title(f"What-if '{v['variant']}' beside the defaults: seat win rates")
        ax.legend()
        names.append(save_figure(f, out / f"whatif_{v['variant']}.png", dpi=90).name)
    return names


# ---------------------------------------------------------------- findings
def findings(fig: dict) -> list[str]:
    """Plain-language statements, each with its figures; 'not significant' where it is not."""
    out = []
    for c in fig["seats"]["pooled"] + fig["seats"]["cells"]:
        chi = c["chi_square"]
        bw = c["best_minus_worst_win"]
        where = f"{c['players']} players, map {c['map']}"
        if chi["significant"]:
            holm = {True: ", significant after Holm's correction over the maps",
                    False: ", not significant after Holm's correction over the maps"}.get(chi.get("significant_after_holm"), "")
            out.append(f"Seat advantage, {where}: seats differ (chi-square p={chi['p_value']:.2g}, n={c['n']}{holm}); "
                       f"seat {bw['best_seat']} wins {fmt(c['seats'][bw['best_seat'] - 1]['win'], True)}, "
                       f"seat {bw['worst_seat']} {fmt(c['seats'][bw['worst_seat'] - 1]['win'], True)}; "
                       f"difference {fmt(bw, True, n=False)}; fair {100 * c['fair']:.0f}%.")
        else:
            out.append(f"Seat advantage, {where}: not significant (chi-square p={chi['p_value']:.2g}, n={c['n']}; "
                       f"seat 1 minus seat {c['players']}: {fmt(c['first_minus_last_win'], True, n=False)}).")
    for blk in fig["cards"]["per_players"]:
        sig = [c for c in blk["cards"] if c.get("significant_after_holm")]
        pos = sorted([c for c in sig if c["buyer_minus_nonbuyer"]["value"] > 0],
                     key=lambda c: -c["buyer_minus_nonbuyer"]["value"])
        if pos:
            out.append(f"Cards, {blk['players']} players: buyers win significantly more often (after Holm) for "
                       + "; ".join(f"card {c['id']} ({c['pile']}, {c['bananas']} BP): "
                                   f"{fmt(c['buyer_minus_nonbuyer'], True, n=False)}, bought in "
                                   f"{_num(c['bought']['value'], True)} of games" for c in pos[:6])
                       + ". Not causal: see the biases.")
        else:
            out.append(f"Cards, {blk['players']} players: no card's buyers win significantly more often after Holm's "
                       f"correction (n={blk['n']} games).")
        never = [p["pile"] for p in blk["piles"] if (p["bought_share"]["value"] or 0) < 0.1]
        if never:
            out.append(f"Piles, {blk['players']} players: hardly bought (under 10% of their cards per game): "
                       + ", ".join(never) + ".")
    for blk in fig["options"]["per_players"]:
        for r in blk["rows"][1:]:
            vs = r["vs_none"]
            out.append(f"Option {r['options']}, {blk['players']} players: score per seat {fmt(vs['score'], digits=2, n=False)} "
                       f"vs none; rounds {fmt(vs['rounds'], digits=2, n=False)}; seat 1 win rate "
                       f"{fmt(vs['seat1_win'], True, n=False)} (n={r['n']} vs {blk['rows'][0]['n']}).")
    for p in fig["skill"]["pairs"]:
        out.append(f"Skill, map {p['map']}: {p['a']} beats {p['b']} in {fmt(p['a_win'], True)}"
                   + ("" if p["significant"] else " (not significantly different from 50%)") + ".")
    for v in fig["whatif"]["variants"]:
        for c in v["cells"]:
            fl = c["first_minus_last"]
            out.append(f"What-if {v['variant']}, {c['players']} players map {c['map']}: seat 1 minus seat {c['players']} "
                       f"win rate {fmt(fl['default'], True, n=False)} by default, {fmt(fl['variant'], True, n=False)} "
                       f"with the variant; score per seat {fmt(c['score_diff'], digits=2, n=False)}, rounds "
                       f"{fmt(c['rounds_diff'], digits=2, n=False)}.")
    return out


# ---------------------------------------------------------------- tables
def tables(fig: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    t = []
    rows = []
    for c in fig["seats"]["cells"] + fig["seats"]["pooled"]:
        for s in c["seats"]:
            rows.append([str(c["players"]), c["map"], str(s["seat"]), fmt(s["win"], True), fmt(s["bananas"], digits=2),
                         f"{c['chi_square']['p_value']:.2g}" + ("" if c["chi_square"]["significant"] else " (n.s.)")
                         + (" *" if c["chi_square"].get("significant_after_holm") else "")])
    t.append(("Seats: win rate (the Monkey trophy's holder wins a tie on points; a win still shared by k seats counts "
              "1/k) and mean Banana Points, 95% CI; chi-square test of equal seats "
              "(* significant after Holm's correction over the maps of a player count)",
              ["players", "map", "seat", "win rate", "Banana Points", "seats equal? p"], rows))
    rows = [[str(c["players"]), c["map"], fmt(c["score"], digits=2), fmt(c["winner_score"], digits=2),
             fmt(c["margin"], digits=2), fmt(c["rounds"], digits=2), "{}/{}/{}".format(*c["rounds_range"]),
             ", ".join(f"{k} {_num(v['value'], True, 0)}" for k, v in c["end"].items() if v["value"]),
             " / ".join(_num(c["colour_share"][k]["value"], True, 0) for k in COLOURS) if c["colour_share"] else "n/a"]
            for c in fig["maps"]["cells"]]
    t.append(("Ground maps: scores, length, what ended the game, stud colours (light / dark / gold)",
              ["players", "map", "score per seat", "winner score", "margin 1st-2nd", "rounds", "min/median/max",
               "ended by", "colours"], rows))
    rows = [[str(c["players"]), c["map"], fmt(c["rounds"], digits=2), fmt(c["score"], digits=2),
             fmt(c["gold_share"], True) if c["gold_share"] else "n/a"]
            for c in fig["maps"]["vs_map1"]]
    if rows:
        t.append(("Maps against map 1 (differences, Welch)", ["players", "map", "rounds", "score per seat",
                                                              "gold share"], rows))
    if fig["skill"]["pairs"]:
        rows = [[f"{p['a']} vs {p['b']}", p["map"], fmt(p["a_win"], True), fmt(p["a_margin"], digits=2)]
                for p in fig["skill"]["pairs"]]
        t.append(("Skill: 2 players, both seat orders", ["agents", "map", "first agent's win rate",
                                                         "score margin (paired)"], rows))
    if fig["skill"]["self_play"]:
        rows = [[p["agent"], p["map"], fmt(p["score"], digits=2), fmt(p["rounds"], digits=2), fmt(p["seat1_win"], True),
                 f"{p['seats_equal_p']:.2g}" + ("" if p["seats_equal_p"] < 0.05 else " (n.s.)")]
                for p in sorted(fig["skill"]["self_play"], key=lambda p: (p["agent"], p["map"]))]
        t.append(("Each agent against itself, 2 players: its score profile and the seat effect it sees",
                  ["agent", "map", "score per seat", "rounds", "seat 1 win rate", "seats equal? p"], rows))
    for blk in fig["cards"]["per_players"]:
        rows = [[p["pile"], str(p["cards"]), str(p["bananas_total"]), fmt(p["bought_share"], True),
                 fmt(p["round"], digits=1), fmt(p["buyer_win"], True), fmt(p["buyer_minus_nonbuyer"], True)
                 + (" *" if p["significant_after_holm"] else ""), fmt(p["ran_out"], True), fmt(p["runout_round"], digits=1)]
                for p in blk["piles"]]
        t.append((f"Piles, {blk['players']} players (pooled maps, n={blk['n']} games, {blk['seat_games']} seat-games)",
                  ["pile", "cards", "BP total", "share bought", "round bought", "buyer win", "buyer - non-buyer",
                   "runs out", "run-out round"], rows))
        rows = [[str(c["id"]), c["pile"], str(c["bananas"]), " ".join(c["instant"]) or "-",
                 "/".join(map(str, c["recurring"])), fmt(c["bought"], True), fmt(c["round"], digits=1, n=False),
                 fmt(c["elements"], digits=1, n=False), fmt(c["buyer_minus_nonbuyer"], True, n=False)
                 + (" *" if c["significant_after_holm"] else "")]
                for c in blk["cards"]]
        t.append((f"Cards, {blk['players']} players (* = significant after Holm's correction over the 67 cards)",
                  ["card", "pile", "BP", "instant", "recurring a/b/c", "bought", "round", "elements returned",
                   "buyer - non-buyer win"], rows))
    rows = []
    for b in fig["boards"]["boards"]:
        for x in b["by_players"]:
            rows.append([str(b["seat"]), "/".join(map(str, b["starting"])), "/".join(map(str, b["recurring"])),
                         str(x["players"]), fmt(x["win"], True), fmt(x["bananas"], digits=2), fmt(x["bonus_cards"], digits=2)])
    t.append(("Player boards (board N sits at seat N: its effect is the seat's; pooled maps)",
              ["board", "starting a/b/c", "recurring a/b/c", "players", "win rate", "Banana Points", "bonus cards"], rows))
    for blk in fig["options"]["per_players"]:
        rows = []
        for r in blk["rows"]:
            vs = r.get("vs_none", {})
            tro = "; ".join(f"{k}: held {_num(v['held']['value'], True, 0)}, holder wins {fmt(v['holder_win'], True, n=False)}"
                            for k, v in r["trophies"].items())
            rows.append([r["options"], str(r["n"]), fmt(r["score"], digits=2, n=False), fmt(vs.get("score"), digits=2, n=False)
                         if vs else "-", fmt(r["rounds"], digits=2, n=False), fmt(vs.get("rounds"), digits=2, n=False)
                         if vs else "-", fmt(r["seat1_win"], True, n=False), fmt(vs.get("seat1_win"), True, n=False)
                         if vs else "-", tro])
        t.append((f"Options, {blk['players']} players (maps {', '.join(blk['maps'])})",
                  ["options", "games", "score per seat", "vs none", "rounds", "vs none", "seat 1 win", "vs none",
                   "trophies"], rows))
    for v in fig["whatif"]["variants"]:
        rows = []
        for c in v["cells"]:
            for s in c["seats"]:
                rows.append([str(c["players"]), c["map"], str(s["seat"]), fmt(s["default"], True), fmt(s["variant"], True),
                             fmt(s["diff"], True, n=False), fmt(s["bananas_diff"], digits=2, n=False)])
            rows.append([str(c["players"]), c["map"], "rounds", fmt(c["rounds"]["default"], digits=2),
                         fmt(c["rounds"]["variant"], digits=2), fmt(c["rounds_diff"], digits=2, n=False), ""])
        t.append((f"What-if '{v['variant']}' ({json.dumps(v['files'])}) against the defaults",
                  ["players", "map", "seat", "default win", "variant win", "difference", "BP difference"], rows))
    return t


BIASES = """The win rate of a card's buyers against non-buyers is an association, not the card's effect:
- Selection: players who are ahead (more credits, a better position) can afford expensive cards, and
  the colour piles can only be bought by a player who has just decorated on that colour, so buying a
  card marks a position as much as it makes one.
- Timing: cards bought late are bought by the players whose games ran long enough; early engine
  cards are bought by everyone, so their buyer and non-buyer groups differ little.
- The agents: the figures describe how these agents play. A card a greedy agent misjudges looks weak
  or strong for that reason.
- Dependence: the seats of one game share one win, so seat-games are not independent; intervals that
  treat them as independent are a little too narrow.
- Many tests: 67 cards and 12 piles are tested at once; a star marks those significant after Holm's
  correction. Uncorrected, about 1 in 20 cards would look significant by chance.
- Rounds bought: one observation per purchase (several per game), so those intervals are a little
  too narrow as well.
- Elements returned count the card's instant icons plus its recurring supply for each of its owner's
  turns it lay on top of a slot (the tray may pay less at the very end)."""


def agents_played(plan: dict) -> list[str]:
    """Every agent of a run's plan: the main cells' and the skill cells' (a learned agent in either
    makes the figures depend on the shipped checkpoints)."""
    return [*plan.get("agents", []), *plan.get("skill", [])]


def write(fig: dict, out: str | Path) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    stamp(fig, agents_played(fig["meta"].get("plan", {})))
    (out / "figures.json").write_text(json.dumps(clean(fig), indent=1, allow_nan=False))
    pngs = []
    for f in (plot_seats, plot_maps, plot_skill, plot_cards, plot_options, plot_whatif):
        pngs += f(fig, out)
    found = findings(fig)
    tabs = tables(fig)
    meta = fig["meta"]
    prov = meta.get("provenance") or {}
    head = (f"{meta['games_total']} games; agents: {', '.join(meta.get('plan', {}).get('agents', []))}"
            f"{' (skill: ' + ', '.join(meta['plan']['skill']) + ')' if meta.get('plan', {}).get('skill') else ''}; "
            f"build action: {meta.get('plan', {}).get('build_action', 'catalogue')}; "
            f"played in {meta.get('seconds_total', 0):.0f} s (batch {meta.get('batch')}, seed {meta.get('seed')}); "
            f"95% intervals everywhere; a difference whose interval holds 0 is marked not significant."
            + (" INCOMPLETE RUN: the games played before it stopped." if meta.get("complete") is False else "")
            + (f" Made {prov['date']} at commit {prov['commit']} by `{prov['command']}` on {prov['machine']['cores']} "
               f"cores (load {prov['machine']['load_average_before']} before, {prov['machine']['load_average_after']} "
               f"after); checkpoints {prov['checkpoints'] or 'none'}." if prov else " Provenance: not recorded (an "
               "older report)."))
    # Markdown
    md = ["# Monkey Palace balance report", "", head, "", "## Findings", ""] + [f"- {x}" for x in found] + [""]
    md += ["## Biases of the card figures", "", BIASES, ""]
    for p in pngs:
        md += [f"![{p}]({p})", ""]
    for title, headers, rows in tabs:
        md += [f"## {title}", "", "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        md += ["| " + " | ".join(r) + " |" for r in rows] + [""]
    (out / "report.md").write_text("\n".join(md))
    # HTML
    h = ["<!doctype html><html><head><meta charset='utf-8'><title>Monkey Palace balance report</title>",
         "<style>body{font-family:sans-serif;max-width:1400px;margin:auto}table{border-collapse:collapse;font-size:12px}"
         "td,th{border:1px solid #ccc;padding:2px 6px}th{background:#eee}img{max-width:100%}</style></head><body>",
         "<h1>Monkey Palace balance report</h1>", f"<p>{html.escape(head)}</p>", "<h2>Findings</h2><ul>"]
    h += [f"<li>{html.escape(x)}</li>" for x in found] + ["</ul>", "<h2>Biases of the card figures</h2>",
                                                         f"<pre>{html.escape(BIASES)}</pre>"]
    for p in pngs:
        b64 = base64.b64encode((out / p).read_bytes()).decode()
        h.append(f"<h3>{html.escape(p)}</h3><img src='data:image/png;base64,{b64}'>")
    for title, headers, rows in tabs:
        h.append(f"<h2>{html.escape(title)}</h2><table><tr>" + "".join(f"<th>{html.escape(x)}</th>" for x in headers) + "</tr>")
        h += ["<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in r) + "</tr>" for r in rows]
        h.append("</table>")
    h.append("</body></html>")
    (out / "report.html").write_text("\n".join(h))
    return out / "report.html"


def clean(o):
    """JSON-able copy: numpy scalars to Python, NaN and infinities to None, tuples to lists."""
    if isinstance(o, dict):
        return {str(k): clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [clean(v) for v in o]
    if isinstance(o, np.ndarray):
        return clean(o.tolist())
    if isinstance(o, (bool, np.bool_)):
        return bool(o)
    if isinstance(o, (int, np.integer)):
        return int(o)
    if isinstance(o, (float, np.floating)):
        v = float(o)
        return v if math.isfinite(v) else None
    return o


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        v = float(o)
        return v if math.isfinite(v) else None
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, tuple):
        return list(o)
    raise TypeError(type(o))
