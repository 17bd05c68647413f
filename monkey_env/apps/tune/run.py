"""A whole tune: the search (study.Tuner), the validation of its best candidates on fresh deals
against the starting data (validate), the tuned configs/ folder and the report (report)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path

from monkey_env.apps.tune import report as R
from monkey_env.apps.tune.objective import SHARED_TERMS
from monkey_env.apps.tune.study import Tuner, TuneSettings
from monkey_env.apps.tune.validate import concat_tables, figures, fresh_plans, games_needed
from monkey_env.core.provenance import load_average, provenance, shipped_checkpoints

START_LABEL = "shipped"

METHOD = (
    "Each trial plays the same deals (common random numbers): for every agent, {games} games per player count"
    "{per_map} with that agent in every seat, and {skill} two-player games{per_map_skill} per seat order of greedy "
    "against random; the candidate's numbers are traced parameters of one compiled JAX engine. The objective "
    "(monkey_env/apps/tune/objective.py) is a weighted sum of the game's {n_terms} terms in percentage points: "
    "{term_words}; weights {weights}. Sampler {sampler}, trial 0 = the starting data. Validation: the best "
    "{top} candidate(s) of the search and the starting data replay the plan {repeats} times on fresh deals (seeds "
    "from seed + 100,000,000, never searched), so every target gets a 95% interval: Wilson for win rates, Student t "
    "for rounds, Newcombe for changes of a seat's win rate{item_lifts}, a percentile bootstrap over "
    "games for the seat spread and its change. A win shared by k seats counts 1/k to each.{options}")


def _options_words(options) -> str:
    """The method's sentence on the game options every game was played with ("" for the defaults)."""
    if not options:
        return ""
    return f" Every game is played with {', '.join(f'{k} {v}' for k, v in options)} (the game's defaults otherwise)."


def run_tune(settings: TuneSettings, out: str | Path, *, trials: int, backend: str = "local",
             workers: int | None = None, validate_top: int = 1, validation_games: int | None = None,
             progress: Callable[[str], None] | None = None) -> dict:
    say = progress or (lambda line: None)
    out = Path(out)
    t0 = time.perf_counter()
    load_before = load_average()
    tuner = Tuner(settings, out, backend=backend, workers=workers, progress=say)
    before = len(tuner.finished())
    ran = tuner.run(trials)
    search_seconds = time.perf_counter() - t0
    say(f"search: {ran} trial(s) played now, {len(tuner.finished())} in the study ({search_seconds:.0f} s)")

    space = tuner.space
    ranked = tuner.ranked()
    start = space.start()
    best = ranked[0]
    candidates = {START_LABEL: start}
    for t in [t for t in ranked if t.params != start][:validate_top]:
        candidates[f"trial {t.number}"] = dict(t.params)
    tuned_label = f"trial {best.number}" if best.params != start else START_LABEL

    t1 = time.perf_counter()
    evaluator = tuner.evaluator()
    if evaluator.bands is None:
        evaluator.bands = tuner.bands
    repeats = max(1, math.ceil((validation_games or 4 * settings.games) / settings.games))
    plans = fresh_plans(evaluator.runner.plan, repeats)
    tables = {}
    for label, cand in candidates.items():
        say(f"validation: {label} on {repeats} x {evaluator.runner.plan.games} fresh games")
        tables[label] = concat_tables([evaluator.table(cand, p) for p in plans])
    validation = {label: figures(tables[label], space.objective, tuner.bands,
                                 None if label == START_LABEL else tables[START_LABEL], space.terms)
                  for label in candidates}
    validation_seconds = time.perf_counter() - t1

    tuned = dict(best.params)
    header = (f"Tuned by `monkey-palace tune` (trial {best.number} of {len(ranked)}, seed {settings.seed}); "
              "an alternative data set, not the shipped default.\nSee report.md beside this folder.")
    configs = space.write_configs(tuned, out / "configs", header)
    part = settings.tune_part()
    part.check_folder(configs, settings.maps)     # the folder loads as game data, every map
    from monkey_env.games import game_spec

    spec = game_spec(settings.game)
    item = getattr(part, "item_words", "card")
    summary = dict(
        game=dict(name=spec.name, title=spec.title, score_name=spec.score_name, win_rule=spec.win_rule),
        terms=list(space.terms), item=item,
        settings=dict(tuner.study.user_attrs["settings"]), objective_config=space.objective.model_dump(),
        bands={str(k): v for k, v in tuner.bands.rounds.items()},
        trials=[_trial_row(t) for t in sorted(tuner.finished(), key=lambda t: t.number)],
        ranked=[_trial_row(t) for t in ranked], tuned_label=tuned_label, tuned=tuned,
        changes=space.changes(tuned), data_changes=part.data_changes(space.data, space.apply(tuned)),
        validation=validation, validation_repeats=repeats,
        seconds=dict(search=search_seconds, validation=validation_seconds,
                     trial_mean=sum(t.user_attrs["seconds"] for t in ranked) / len(ranked)),
        trials_before=before, trials_now=ran, configs=str(configs),
    )
    own = [t for t in space.terms if t not in SHARED_TERMS]
    has_maps = getattr(part, "has_maps", False)
    o = space.objective
    words = {"seat": "seat (RMS of every seat's win rate minus 1/players, per agent and player count)",
             "skill": f"skill (how far greedy falls below {100 * (0.5 + o.skill_margin):.0f}% against random)",
             "length": f"length (how far the mean rounds leave the starting data's ±{100 * o.length_tolerance:.0f}% band)"}
    words.update({t: f"{t} (how far the lift of the {item} that stands out most, its holders' win rate minus its "
                     f"non-holders', exceeds {100 * o.card_threshold:.0f} points from the median lift)" for t in own})
    summary["method"] = METHOD.format(
        games=settings.games, skill=_skill_games(settings), n_terms=len(space.terms),
        term_words=", ".join(words[t] for t in space.terms),
        per_map=" and map" if has_maps else "", per_map_skill=" per map and" if has_maps else "",
        item_lifts=f" and for {item} lifts" if own else "",
        weights=", ".join(f"{k} {v:g}" for k, v in space.objective.weights.items()), sampler=settings.sampler,
        top=validate_top, repeats=repeats,
        options=_options_words(settings.options))
    summary["headline"] = headline(summary)
    summary["provenance"] = provenance(started=t0, load_before=load_before,
                                       checkpoints=shipped_checkpoints(settings.agents))
    R.write(summary, out)
    say(f"report: {out / 'report.md'} ({time.perf_counter() - t0:.0f} s in all)")
    return summary


def _skill_games(settings: TuneSettings) -> int:
    return max(4, settings.games // 4) if settings.skill_games is None else settings.skill_games


def _trial_row(t) -> dict:
    return dict(number=t.number, total=t.user_attrs["total"], terms=t.user_attrs["terms"],
                spreads=t.user_attrs.get("spreads", {}), seconds=t.user_attrs.get("seconds", 0.0), params=dict(t.params))


def headline(summary: dict) -> list[str]:
    s = summary["seconds"]
    lines = [f"{len(summary['trials'])} trials ({summary['trials_now']} played in this run), search "
             f"{s['search'] / 60:.1f} min ({s['trial_mean']:.0f} s per trial), validation {s['validation'] / 60:.1f} min."]
    label = summary["tuned_label"]
    if label == START_LABEL:
        lines.append("No candidate beat the starting data on the search deals: nothing is changed.")
        return lines
    ch = ", ".join(f"{c['number']} {c['start']}→{c['tuned']}" for c in summary["changes"])
    lines.append(f"Tuned data = {label}: {ch}.")
    val = summary["validation"]
    for r_t, r_s in zip(val[label]["seats"], val[START_LABEL]["seats"]):
        sp_t, sp_s, d = r_t["spread"], r_s["spread"], r_t.get("spread_change")
        need = games_needed(d["value"]) if d else None
        lines.append(f"{r_t['agent']}, {r_t['players']} players, fresh deals ({r_t['games']} games each): seat spread "
                     f"{100 * sp_s['value']:.1f} → {100 * sp_t['value']:.1f} points, change "
                     f"{100 * d['value']:+.1f} [{100 * d['lo']:+.1f}, {100 * d['hi']:+.1f}]"
                     + (" (interval excludes 0)" if d['lo'] > 0 or d['hi'] < 0 else " (interval holds 0: not shown)")
                     + (f"; about {need} games per group would resolve a change this size" if need else ""))
    ev_t, ev_s = val[label]["objective"], val[START_LABEL]["objective"]
    lines.append("Objective on fresh deals: " + f"{ev_s['total']:.2f} → {ev_t['total']:.2f} ("
                 + ", ".join(f"{t} {ev_s['terms'][t]:.2f}→{ev_t['terms'][t]:.2f}" for t in summary["terms"]) + ").")
    return lines
