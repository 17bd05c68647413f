"""The tune's report: ``report.md`` (figures beside it in ``figures/``), ``report.html`` (figures
embedded) and ``summary.json`` (every figure with its n and interval).

Figures: the optimisation history (each trial's weighted total and terms, the best so far),
the Pareto view (seat term against the other terms, the non-dominated trials marked), and the
validation's seat win rates before and after with 95% intervals.
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

from monkey_env.apps.tune.objective import TERMS
from monkey_env.core.figures import save_figure


def _terms(summary: dict) -> list[str]:
    """The tune's terms (the game's; a summary of an older tune: TERMS)."""
    return list(summary.get("terms", TERMS))


def _pct(e: dict, digits: int = 1) -> str:
    if e is None or e.get("value") is None or not math.isfinite(e["value"]):
        return "n/a"
    lo = e.get("lo")
    if lo is None or not math.isfinite(lo):
        return f"{100 * e['value']:.{digits}f}"
    return f"{100 * e['value']:.{digits}f} [{100 * e['lo']:.{digits}f}, {100 * e['hi']:.{digits}f}]"


def _num(e: dict, digits: int = 2) -> str:
    if e is None or e.get("value") is None:
        return "n/a"
    lo = e.get("lo")
    if lo is None:
        return f"{e['value']:.{digits}f}"
    return f"{e['value']:.{digits}f} [{e['lo']:.{digits}f}, {e['hi']:.{digits}f}]"


def pareto_mask(points: np.ndarray) -> np.ndarray:
    """(N,) bool: the rows no other row beats or equals in every column while beating in one."""
    n = len(points)
    keep = np.ones(n, bool)
    for i in range(n):
        others = np.delete(points, i, 0)
        dominated = np.any(np.all(others <= points[i], 1) & np.any(others < points[i], 1))
        keep[i] = not dominated
    return keep


def plot_history(trials: list[dict], out: Path, terms=TERMS) -> Path:
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    n = [t["number"] for t in trials]
    total = np.asarray([t["total"] for t in trials])
    ax = axes[0]
    ax.plot(n, total, "o", color="tab:blue", alpha=0.6, label="trial")
    ax.plot(n, np.minimum.accumulate(total), "-", color="tab:red", label="best so far")
    ax.axhline(total[0], color="grey", ls=":", label="starting data (trial 0)")
    ax.set_xlabel("trial")
    ax.set_ylabel("weighted total (points)")
    ax.set_title("Optimisation history (search deals)")
    ax.legend()
    ax = axes[1]
    for term in terms:
        ax.plot(n, [t["terms"][term] for t in trials], ".-", label=term, alpha=0.8)
    ax.set_xlabel("trial")
    ax.set_ylabel("term (points)")
    ax.set_title("Each term of the objective")
    ax.legend()
    return save_figure(fig, out / "history.png", dpi=90)


def plot_pareto(trials: list[dict], out: Path, terms=TERMS) -> Path:
    seat = np.asarray([t["terms"]["seat"] for t in trials])
    others = [term for term in terms if term != "seat"]
    fig, axes = plt.subplots(1, len(others), figsize=(4.2 * len(others), 4), squeeze=False)
    axes = axes[0]
    for ax, term in zip(axes, others):
        y = np.asarray([t["terms"][term] for t in trials])
        front = pareto_mask(np.stack([seat, y], 1))
        ax.scatter(seat[~front], y[~front], color="tab:blue", alpha=0.5, label="trial")
        order = np.argsort(seat[front])
        ax.plot(seat[front][order], y[front][order], "o-", color="tab:red", label="Pareto front")
        ax.scatter([seat[0]], [y[0]], marker="*", s=160, color="black", label="starting data", zorder=5)
        ax.set_xlabel("seat term (points)")
        ax.set_ylabel(f"{term} term (points)")
        ax.set_title(f"seat against {term}")
        ax.legend(fontsize=8)
    return save_figure(fig, out / "pareto.png", dpi=90)


def plot_validation(validation: dict, out: Path) -> Path:
    labels = list(validation)
    groups = [(r["agent"], r["players"]) for r in validation[labels[0]]["seats"]]
    fig, axes = plt.subplots(1, len(groups), figsize=(3.6 * len(groups), 3.8), squeeze=False)
    colours = ["grey", "tab:green", "tab:orange", "tab:purple"]
    for ax, (agent, p) in zip(axes[0], groups):
        width = 0.8 / len(labels)
        top = 100 / p * 1.6
        for j, label in enumerate(labels):
            row = next(r for r in validation[label]["seats"] if (r["agent"], r["players"]) == (agent, p))
            v = np.asarray([100 * w["value"] for w in row["win"]])
            lo = v - np.asarray([100 * w["lo"] for w in row["win"]])
            hi = np.asarray([100 * w["hi"] for w in row["win"]]) - v
            x = np.arange(p) + (j - (len(labels) - 1) / 2) * width
            ax.bar(x, v, width, yerr=[lo, hi], color=colours[j % len(colours)], label=label, capsize=2)
            top = max(top, float((v + hi).max()) * 1.1)     # never clip a bar or its interval
        ax.axhline(100 / p, color="black", ls="--", lw=1)
        ax.set_xticks(range(p), [f"seat {s + 1}" for s in range(p)])
        ax.set_ylim(0, top)
        ax.set_title(f"{agent}, {p} players")
        ax.set_ylabel("win rate % (95% CI)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Validation on fresh deals: seat win rates (dashed: fair)")
    return save_figure(fig, out / "validation_seats.png", dpi=90)


def tables(summary: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    val = summary["validation"]
    labels = list(val)
    out = []
    rows = []
    for label in labels:
        for r in val[label]["seats"]:
            rows.append([label, r["agent"], str(r["players"]), str(r["games"]),
                         " / ".join(_pct(w) for w in r["win"]), _pct(r["spread"]),
                         _pct(r["spread_change"]) if "spread_change" in r else "",
                         _num(r["rounds"])])
    out.append(("Seats on fresh deals (win rate %, 95% CI; spread = largest minus smallest seat)",
                ["data", "agent", "players", "games", "seat win rates", "spread", "spread change vs start",
                 "mean rounds"], rows))
    rows = []
    for label in labels:
        for r in val[label]["seats"]:
            if "win_change" in r:
                rows.append([label, r["agent"], str(r["players"]),
                             " / ".join(_pct(w) for w in r["win_change"])])
    if rows:
        out.append(("Each seat's change of win rate against the starting data (points, Newcombe 95% CI)",
                    ["data", "agent", "players", "seat changes"], rows))
    rows = []
    for label in labels:
        for s in val[label]["skill"]:
            rows.append([label, f"{s['strong']} vs {s['weak']}", _pct(s["win"]), f"{100 * s['target']:.0f}",
                         "yes" if s["win"]["value"] >= s["target"] else "no"])
        for ln in val[label]["length"]:
            rows.append([label, f"length, {ln['players']} players (rounds)", _num(ln["rounds"]),
                         f"{ln['band'][0]:.2f}-{ln['band'][1]:.2f}", "yes" if ln["inside"] else "no"])
        for r in val[label]["seats"]:
            if "card" in r:
                c = r["card"]
                item = summary.get("item", "card")
                rows.append([label, f"most standing-out {item}, {r['agent']} {r['players']}p: {item} {c['card']}",
                             _pct(c["lift"]), f"median {100 * c['median_lift']:.1f} ± "
                             f"{100 * summary['objective_config']['card_threshold']:.0f}",
                             "yes" if abs(c["lift"]["value"] - c["median_lift"])
                             <= summary["objective_config"]["card_threshold"] else "no"])
    out.append(("Other targets on fresh deals (met: the point estimate)", ["data", "target", "value [95% CI]", "target",
                                                                          "met"], rows))
    rows = []
    for label in labels:
        ev = val[label]["objective"]
        rows.append([label, f"{ev['total']:.2f}"] + [f"{ev['terms'][t]:.2f}" for t in _terms(summary)])
    out.append(("The objective on fresh deals (points; lower is better)", ["data", "total", *_terms(summary)], rows))
    rows = [[c["number"], str(c["start"]), str(c["tuned"]), f"{c['change']:+d}"] for c in summary["changes"]]
    out.append(("Numbers changed (best candidate of the search)", ["number", "shipped", "tuned", "change"],
                rows or [["(none)", "", "", ""]]))
    rows = [[c["file"], c["where"], str(c["start"]), str(c["tuned"])] for c in summary["data_changes"]]
    if rows:
        out.append(("The same changes in the data files", ["file", "where", "shipped", "tuned"], rows))
    rows = [[str(t["number"]), f"{t['total']:.2f}"] + [f"{t['terms'][x]:.2f}" for x in _terms(summary)]
            + [f"{t['seconds']:.0f}"] for t in summary["ranked"][:10]]
    out.append(("Best trials of the search (search deals; optimistic: chosen on these deals)",
                ["trial", "total", *_terms(summary), "seconds"], rows))
    return out


def write(summary: dict, out: str | Path) -> Path:
    out = Path(out)
    figdir = out / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    pictures = [plot_history(summary["trials"], figdir, _terms(summary)), plot_pareto(summary["trials"], figdir, _terms(summary)),
                plot_validation(summary["validation"], figdir)]
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=_json_default))
    head = summary["headline"]
    game = summary.get("game") or {}
    heading = f"{game.get('title', 'Game')} balance tune"
    rule = (f"Score: {game['score_name']}; win rule: {game['win_rule']} (a shared first place counts 1/k to each "
            "of k seats).") if game else ""
    md = [f"# {heading}", "", rule, "", *[f"- {x}" for x in head], ""]
    prov = summary.get("provenance")
    if prov:
        machine = prov["machine"]
        moved = f" (the checkout was at {prov['commit_at_end']} when it ended)" if prov.get("commit_at_end") else ""
        md += [f"Made {prov['date']} at commit {prov['commit']}{moved} by `{prov['command']}` in {prov.get('seconds', 0):.0f} s "
               f"on {machine['cores']} cores (load {machine['load_average_before']} before, "
               f"{machine['load_average_after']} after); checkpoints {prov['checkpoints'] or 'none'}.", ""]
    for p in pictures:
        md += [f"![{p.stem}](figures/{p.name})", ""]
    for title, headers, rows in tables(summary):
        md += [f"## {title}", "", "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        md += ["| " + " | ".join(r) + " |" for r in rows]
        md.append("")
    md += ["## Method", "", summary["method"], ""]
    (out / "report.md").write_text("\n".join(md))
    h = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(heading)}</title>",
         "<style>body{font-family:sans-serif;max-width:1300px;margin:auto}table{border-collapse:collapse;margin:1em 0}"
         "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px}img{max-width:100%}</style></head><body>",
         f"<h1>{html.escape(heading)}</h1><p>{html.escape(rule)}</p><ul>"]
    h += [f"<li>{html.escape(x)}</li>" for x in head] + ["</ul>"]
    for p in pictures:
        b64 = base64.b64encode(p.read_bytes()).decode()
        h.append(f"<h3>{html.escape(p.stem)}</h3><img src='data:image/png;base64,{b64}'>")
    for title, headers, rows in tables(summary):
        h.append(f"<h2>{html.escape(title)}</h2><table><tr>" + "".join(f"<th>{html.escape(x)}</th>" for x in headers)
                 + "</tr>")
        h += ["<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in r) + "</tr>" for r in rows]
        h.append("</table>")
    h += ["<h2>Method</h2>", f"<p>{html.escape(summary['method'])}</p>", "</body></html>"]
    (out / "report.html").write_text("\n".join(h))
    return out / "report.md"


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(type(o))
