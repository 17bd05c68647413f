"""Monkey Palace in the browser: its reference engine seen as JSON (state, decision, replay frames).

Everything the pages show comes from the engine: the palace's element list (the arches, stacks of
bricks and columns and decorations that ``Palace.build_staircase`` placed, each with its owner),
the ground map, the animals, the piles' top cards, the boards; the legal decisions from
``legal_mask``, their words from ``action_name`` and the staircase planner
(``Palace.check_staircase``) for the preview of each legal shape, and ``explain`` for a refusal.

Only what a web client may choose reaches the engine: the shipped maps 1-4, the rule readings and
the expansions; never a folder or file path of edited game data (``config_dir``, ``catalogue``,
a map file), neither in a new game nor in an uploaded record.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from monkey_env.core.options import as_recorded
from monkey_env.monkey_palace.actions import N_PILES, Phase
from monkey_env.monkey_palace.config import PILE_IDS
from monkey_env.monkey_palace.engine import Game, SaveFileError
from monkey_env.monkey_palace.geometry import BOARD_SIZE, COLOUR_NAMES, HEADING_NAMES, NUM_CELLS, cell_xy
from monkey_env.monkey_palace.options import GameOptions
from monkey_env.monkey_palace.save_format import RecordModel, SaveModel, describe

NAME = "monkey_palace"
TITLE = "Monkey Palace"
# The browser's view of the game (its palace in 3-D): scripts of web_static/, which the generic app serves
# at /games/monkey_palace/ (its /api/views/monkey_palace names them; static/js/common.js viewsFor loads them).
STATIC_DIR = Path(__file__).parent / "web_static"
VIEW = {"flat": False, "board": "monkey_palace_3d.js", "panel": "monkey_palace_panel.js"}
MAPS = ("1", "2", "3", "4")
# The options a browser may set; the rest (game data paths, the environments' settings) stay default.
WEB_OPTIONS = ("players", "map", "butterfly", "frog", "seed", "monkey_move", "butterfly_rule", "end_trigger",
               "build_action")


class WebInputError(ValueError):
    """A request's options or an uploaded file that the server refuses; the message says why."""


# ------------------------------------------------------------------------------------ options
def options_schema() -> dict:
    """The options a new game takes, for the start form: type, default, choices, description."""
    fields = {}
    for name in WEB_OPTIONS:
        f = GameOptions.model_fields[name]
        entry = {"default": f.default, "description": f.description}
        if name == "map":
            entry.update(type="choice", choices=list(MAPS))
        elif name == "players":
            entry.update(type="choice", choices=[2, 3, 4])
        elif f.annotation is bool:
            entry.update(type="bool")
        elif f.annotation is int:
            entry.update(type="int", minimum=0)
        else:
            entry.update(type="choice", choices=list(f.annotation.__args__))
        fields[name] = entry
    return fields


def make_options(raw: dict) -> GameOptions:
    """Validated options of a new game from a browser's request."""
    if not isinstance(raw, dict):
        raise WebInputError("options must be an object")
    unknown = sorted(set(raw) - set(WEB_OPTIONS))
    if unknown:
        raise WebInputError(f"unknown or not allowed option(s): {', '.join(unknown)}; allowed: {', '.join(WEB_OPTIONS)}")
    values = dict(raw)
    if "map" in values:
        values["map"] = str(values["map"])
        if values["map"] not in MAPS:
            raise WebInputError(f"map must be one of {', '.join(MAPS)}")
    try:
        return GameOptions(**values)
    except ValueError as e:
        raise WebInputError(f"bad options: {describe(e) if hasattr(e, 'errors') else e}") from None


def new_game(raw_options: dict) -> Game:
    return Game.from_options(make_options(raw_options))


def players_of(game: Game) -> int:
    return game.options.players


# ------------------------------------------------------------------------------------ records
def _check_safe_options(options: dict) -> None:
    if not isinstance(options, dict):
        raise WebInputError("the record is malformed: options: must be an object")
    if options.get("config_dir") is not None or options.get("catalogue") is not None:
        raise WebInputError("records made with edited game data (config_dir, catalogue) cannot be opened here")
    if str(options.get("map", "1")) not in MAPS:
        raise WebInputError(f"the record's map must be one of {', '.join(MAPS)} (map files cannot be opened here)")


def record_of_upload(raw) -> dict:
    """A game record from an uploaded JSON object: a record (options, deal, actions) or a save
    (its options, deal and history), schema-checked by the engine's save format, with the shipped
    game data only. Raises WebInputError naming the problem."""
    if not isinstance(raw, dict):
        raise WebInputError("a game record is a JSON object")
    if "actions" in raw:
        model, what = RecordModel, "record"
    elif "history" in raw:
        model, what = SaveModel, "save"
    else:
        raise WebInputError("neither a game record (no 'actions') nor a saved game (no 'history')")
    _check_safe_options(raw.get("options"))
    try:
        m = model.model_validate(raw)
    except ValueError as e:
        raise WebInputError(f"the {what} is malformed: {describe(e) if hasattr(e, 'errors') else e}") from None
    record = raw if what == "record" else {"version": m.version, "data_fingerprint": m.data_fingerprint,
                                           "options": raw["options"], "deal": m.deal, "actions": list(m.history)}
    replay(record)                                  # every action must replay
    return record


def replay(record: dict) -> Game:
    _check_safe_options(record.get("options"))
    try:
        return Game.replay(record)
    except SaveFileError as e:
        raise WebInputError(str(e)) from None


# ------------------------------------------------------------------------------------ state
def _card(game: Game, card_id: int) -> dict:
    c = game.data.cards[card_id]
    return {"id": c.id, "pile": PILE_IDS[c.pile], "colour": c.colour, "cost": c.cost, "bananas": c.bananas,
            "instant": list(c.instant), "recurring": dict(zip(("arches", "bricks", "columns"), c.recurring))}


def state(game: Game, *, decision: bool = True, viewer: int | None = None) -> dict:
    """Everything the pages draw: palace, tray, piles, players, scores, and (if asked) the decision.
    Every seat sees the same (the piles show their tops and counts), so ``viewer`` changes nothing.
    Nothing in it is the engine's own list: a replay keeps one state per decision while the game goes on."""
    del viewer
    p = game.palace
    over = game.game_over
    scores = game.scores()
    mask = game.legal_mask() if not over else None
    piles = []
    for i in range(N_PILES):
        cards = game.piles[i]
        entry = {"index": i, "id": PILE_IDS[i], "count": len(cards), "top": _card(game, cards[-1]) if cards else None,
                 "action": game.layout.encode_buy(i)}
        if game.phase == Phase.BUY:
            entry["legal"] = bool(mask[entry["action"]])
            entry["reason"] = None if entry["legal"] else game.explain(entry["action"])
        else:
            entry["legal"] = False
        piles.append(entry)
    players = []
    for seat, pl in enumerate(game.players):
        players.append({
            "seat": seat, "board": pl.board, "supply": {"arches": pl.supply.arches, "bricks": pl.supply.bricks,
                                                         "columns": pl.supply.columns},
            "slots": [[_card(game, c) for c in slot] for slot in pl.slots], "bonus_cards": pl.bonus_cards,
            "bananas": game.bananas(seat),
            "trophies": [name for name, holder in game.holders.items() if holder == seat],
        })
    out = {
        "game": NAME, "phase": game.phase.name, "phase_words": game.phase_words, "current": game.current,
        "round": game.round, "decisions": len(game.history), "game_over": over,
        "end_triggered": game.end_triggered, "end_reason": game.end_reason,
        "palace": {"size": BOARD_SIZE, "ground": p.ground.tolist(), "height": p.height.tolist(),
                   "elements": list(p.elements), "animals": {name: _cell(p, cell) for name, cell in
                                                       zip(("monkey", "butterfly", "frog"), p.animals)},
                   "animal_height": p.animal_height},
        "tray": {"arches": game.tray.arches, "bricks": game.tray.bricks, "columns": game.tray.columns,
                 "bonus_left": game.bonus_left},
        "holders": dict(game.holders), "piles": piles, "players": players, "scores": scores,
        "turn": {"credits": game.turn.credits, "colour": COLOUR_NAMES[game.turn.colour] if game.turn.colour >= 0 else None,
                 "anchor": list(cell_xy(game.turn.anchor)) if game.turn.anchor >= 0 else None,
                 "bought": [_card(game, c) for c in game.turn.bought]},
        "options": {k: getattr(game.options, k) for k in WEB_OPTIONS},
    }
    if over:
        out["places"] = game.places()
        out["winners"] = game.winners()
    if decision and not over:
        out["decision"] = decision_view(game, mask)
    return out


def _cell(palace, cell: int):
    if cell < 0:
        return None
    x, y = cell_xy(cell)
    return {"x": x, "y": y, "z": int(palace.height[y, x])}


def decision_view(game: Game, mask=None) -> dict:
    """The current decision's legal choices, grouped as the pages offer them: studs to click in
    the 3-D view (anchors, monkey targets), shapes to hover and pick, piles, and buttons."""
    mask = game.legal_mask() if mask is None else mask
    L, phase, p = game.layout, game.phase, game.palace
    d = {"phase": phase.name, "words": game.phase_words, "seat": game.current, "studs": [], "shapes": [],
         "buttons": []}
    if phase in (Phase.ANCHOR, Phase.MONKEY):
        for cell in range(NUM_CELLS):
            if mask[L.cell + cell]:
                x, y = cell_xy(cell)
                d["studs"].append({"x": x, "y": y, "z": int(p.height[y, x]), "action": L.cell + cell,
                                   "label": game.action_name(L.cell + cell)})
    if phase == Phase.SHAPE and game.complete_build:
        # Built arch by arch: finishing (the whole staircase, its credits and bonus) and every
        # next arch, each previewed in place on the staircase built so far.
        d["anchor"] = list(cell_xy(game.turn.anchor))
        d["built_so_far"] = len(game.turn.steps)
        if mask[L.finish]:
            d["shapes"].append(step_preview(game, None))
        for a in np.flatnonzero(mask[L.arch:L.finish]):
            d["shapes"].append(step_preview(game, L.decode(L.arch + int(a))[1]))
    elif phase == Phase.SHAPE:
        d["anchor"] = list(cell_xy(game.turn.anchor))
        for s in range(len(game.data.shapes)):
            if mask[L.shape + s]:
                d["shapes"].append(shape_preview(game, s))
        d["shapes"].sort(key=lambda s: (-s["credits"], -s["deco_top"], s["bricks"] + 3 * s["columns"]))
    if phase == Phase.BUY:
        d["credits"] = game.turn.credits
        d["colour"] = COLOUR_NAMES[game.turn.colour]
    # Everything that is neither a stud, a shape nor a pile is a button.
    for a in range(L.buy_end, L.size):
        if mask[a]:
            d["buttons"].append({"action": a, "label": game.action_name(a)})
    return d


def _plan_elements(game: Game, plan, decoration: bool) -> list[dict]:
    """The elements a plan places (the same dicts as the palace's element list)."""
    owner, elements = game.current, []
    for s in plan.stacks:
        elements.append({"kind": "stack", "x": s.x, "y": s.y, "bottom": s.bottom, "units": s.units,
                         "columns": s.columns, "owner": owner})
    for x, y, heading, level in plan.arches:
        elements.append({"kind": "arch", "x": x, "y": y, "heading": HEADING_NAMES[heading], "level": level,
                         "owner": owner})
    if decoration:
        dx, dy = plan.deco
        elements.append({"kind": "decoration", "x": dx, "y": dy, "colour": COLOUR_NAMES[plan.colour],
                         "top": plan.deco_top, "owner": owner})
    return elements


def step_preview(game: Game, step) -> dict:
    """The complete build action: finishing now (``step`` None) or one more arch ``(heading,
    rise)``, with its words, what the staircase then uses and earns, and its elements."""
    from monkey_env.monkey_palace.apps.play import arch_words, finish_words

    steps = game.turn.steps + ([] if step is None else [tuple(step)])
    plan = game.palace.check_steps(cell_xy(game.turn.anchor), steps, game.player.supply,
                                   game.data.tray.column_units, unfinished=step is not None)
    highest = step is None and plan.deco_top > game.palace.deco_max[plan.colour]
    tallest = max((s.units for s in plan.stacks), default=0)
    L = game.layout
    return {"action": L.finish if step is None else L.encode_arch(*step), "shape": None,
            "label": finish_words(game) if step is None else arch_words(game, *step),
            "arches": len(plan.arches), "bricks": plan.bricks, "columns": plan.columns,
            "deco_top": plan.deco_top if step is None else None, "credits": len(plan.arches) + highest,
            "bonus": step is None and tallest >= game.data.tray.bonus.min_stack and game.bonus_left > 0,
            "elements": _plan_elements(game, plan, decoration=step is None)}


def shape_preview(game: Game, shape_index: int) -> dict:
    """One legal staircase at this turn's anchor: its words, what it uses and earns, and the
    elements it would place (the same dicts as the palace's element list)."""
    from monkey_env.monkey_palace.apps.play import staircase_words

    anchor = game.turn.anchor
    shape = game.data.shapes[shape_index]
    plan = game.palace.check_staircase(cell_xy(anchor), shape, game.player.supply, game.data.tray.column_units)
    credits = len(plan.arches) + (1 if plan.deco_top > game.palace.deco_max[plan.colour] else 0)
    elements = _plan_elements(game, plan, decoration=True)
    return {"action": game.layout.encode_shape(shape_index), "shape": shape_index,
            "label": staircase_words(game, anchor, shape_index), "arches": len(plan.arches), "bricks": plan.bricks,
            "columns": plan.columns, "deco_top": plan.deco_top, "credits": credits, "elements": elements}


# ------------------------------------------------------------------------------------ replay
def start_of(record: dict) -> Game:
    """A replay's set-up (generic_web.replay_frames): the record's options and deal, as recorded."""
    return Game.from_options(GameOptions(**as_recorded(GameOptions, record["options"])), pile_orders=record.get("deal"))


def summary(game: Game) -> dict:
    return {"players": game.options.players, "map": game.options.map, "round": game.round,
            "scores": game.scores(), "game_over": game.game_over}
