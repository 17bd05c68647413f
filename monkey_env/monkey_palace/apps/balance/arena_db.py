"""Read the games of an arena results database (monkey_env.apps.arena.results) as a balance Dataset.

The arena records per game: players, map, options, the agent of each seat, scores, rounds and
what ended the game. It does not record cards or stud colours, so a report from a database has
the seat, map (scores, length, end) and skill figures, and no card, pile or colour figures.

- who won: the recorded ranks are the rulebook's places (the Monkey trophy's holder wins a tie on
  points); the seat that won a tie becomes the Monkey holder of the records, so the balance
  figures count the same winners (other trophies are not recorded: -1);
- every seat the same agent, no option: a "seats" cell (per players and map);
- the same with the Butterfly and/or the Frog: an "options" cell;
- 2 players, two different agents: a "skill" cell (one per seat order);
- non-default readings of the rules (monkey move, butterfly rule, end trigger) make a variant
  of their own, named after them; other mixes of agents are left out (counted in the meta);
- one build action a report: the catalogue and the complete action are different games, so the
  games of the other one are left out (counted in the meta). Without a build action asked for,
  the database's only one is read, and a database holding both is refused, naming their counts.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import numpy as np

from monkey_env.core.options import as_recorded
from monkey_env.monkey_palace.apps.balance.collect import Cell, Dataset, Records
from monkey_env.monkey_palace.apps.play_games import END_KIND_NAMES
from monkey_env.monkey_palace.options import DEFAULT_BUILD_ACTION, GameOptions

READING_DEFAULTS = {"monkey_move": "optional", "butterfly_rule": "highest_overall", "end_trigger": "shortfall"}


def build_action_of(g: dict) -> str:
    """The game's build action: the arena records it (older databases only when given: as_recorded)."""
    return as_recorded(GameOptions, g["options"] or {})["build_action"]


def _cell_of(g: dict) -> Cell | None:
    opts = dict(g["options"] or {})
    opts.pop("build_action", None)          # one build action a report (dataset_from_db)
    b, f = bool(opts.pop("butterfly", False)), bool(opts.pop("frog", False))
    option = {(False, False): "none", (True, False): "butterfly", (False, True): "frog", (True, True): "both"}[(b, f)]
    readings = {k: v for k, v in opts.items() if READING_DEFAULTS.get(k, v) != v}
    variant = "default" if not readings else "readings " + json.dumps(readings, sort_keys=True)
    seats = tuple(g["seats"])
    players = int(g["players"])
    if len(set(seats)) == 1:
        kind = "seats" if option == "none" else "options"
    elif players == 2 and option == "none" and variant == "default":
        kind = "skill"
    else:
        return None
    return Cell(kind, players, str(g["map"]), option, seats, variant)


def _tie_break_seat(g: dict) -> int:
    """The seat that won a tie on points in this game (the Monkey trophy's holder), read from the
    recorded rulebook ranks; -1 when no tie was broken (then the holder does not matter)."""
    scores, ranks = g["scores"], g["ranks"]
    for i, (s, r) in enumerate(zip(scores, ranks)):
        if any(j != i and t == s and ranks[j] > r for j, t in enumerate(scores)):
            return i
    return -1


def _records(games: list[dict]) -> Records:
    n, P = len(games), int(games[0]["players"])
    holders = np.full((n, 3), -1, np.int64)     # butterfly and frog holders are not recorded
    holders[:, 0] = [_tie_break_seat(g) for g in games]
    scores = np.asarray([g["scores"] for g in games], np.int64)
    end = np.asarray([END_KIND_NAMES.index(g["end_trigger"]) if g["end_trigger"] in END_KIND_NAMES else -1
                      for g in games], np.int64)
    return Records(seeds=np.asarray([g["seed"] for g in games], np.int64), scores=scores,
                   rounds=np.asarray([g["rounds"] for g in games], np.int64), end_kind=end,
                   illegal=np.asarray([g["end_trigger"] == "illegal action" for g in games]),
                   decisions=np.asarray([g["decisions"] for g in games], np.int64),
                   card_owner=np.zeros((n, 0), np.int64), card_round=np.zeros((n, 0), np.int64),
                   card_top_turns=np.zeros((n, 0), np.int64), colour_builds=np.zeros((n, P, 3), np.int64),
                   holders=holders, bonus_cards=np.zeros((n, P), np.int64),
                   seconds=float(sum(g["duration"] for g in games)))


def dataset_from_db(path, build_action: str | None = None) -> Dataset:
    """The database's games of one build action (``None``: its only one; see the docstring)."""
    from monkey_env.apps.arena.results import Results

    res = Results(path, create=False)
    try:
        games = [g for t, count in res.tournaments() if count for g in res.games(t.id)]
    finally:
        res.close()
    actions = Counter(build_action_of(g) for g in games)
    if build_action is None:
        if len(actions) > 1:
            found = ", ".join(f"{n} games of the {a} build action" for a, n in sorted(actions.items()))
            raise ValueError(f"{path}: holds {found}; a report reads one (--build-action)")
        build_action = next(iter(actions), DEFAULT_BUILD_ACTION)
    by_cell: dict[Cell, list[dict]] = defaultdict(list)
    left_out = 0
    for g in games:
        c = _cell_of(g) if build_action_of(g) == build_action else None
        if c is None:
            left_out += 1
        else:
            by_cell[c].append(g)
    ds = Dataset(meta=dict(source=str(path), left_out_games=left_out, card_data=False,
                           other_build_action_games=sum(n for a, n in actions.items() if a != build_action)))
    for c, games in by_cell.items():
        ds.add(c, _records(games))
    main = Counter()
    for c, r in zip(ds.cells, ds.records):
        if c.kind == "seats":
            main[c.lineup[0]] += r.n
    agents = [main.most_common(1)[0][0]] if main else ["?"]
    skill = sorted({a for c in ds.cells if c.kind == "skill" for a in c.lineup})
    ds.meta.update(plan=dict(agents=agents, skill=skill, build_action=build_action),
                   seconds_total=sum(r.seconds for r in ds.records), batch=None, seed=None)
    return ds
