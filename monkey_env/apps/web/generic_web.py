"""Any registered game without a web module of its own, in the browser: its ``text`` part and its
legal actions as buttons (static/js/views/generic_view.js, generic_panel.js).

``for_game(name)`` gives an object with the functions of a game's web module (options schema,
new game, state with the decision, records, replay frames), made from the game's parts alone
(monkey_env.games): the options model, the reference engine and ``text``. The state a seat's page
gets is what the game's ``text(game, viewer)`` shows that seat, its scores and, when it is to
play, every legal action in ``action_name``'s words.
"""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel

from monkey_env.apps.web.web_options import WebInputError, make_options, replay_record, schema_of
from monkey_env.games import game_spec


def _form_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The options a browser may set: the player count and the seed (where the model has them)."""
    return tuple(name for name in ("players", "seed") if name in model.model_fields)


class GenericWeb:
    """The web module of one game, from its parts."""

    def __init__(self, name: str):
        spec = game_spec(name)
        self.NAME, self.TITLE = name, spec.title
        self.score_name = spec.score_name
        self.options_model = spec.load("options")
        self.Game = spec.load("reference")
        self.text = spec.load("text")
        self.WEB_OPTIONS = _form_fields(self.options_model)

    def options_schema(self) -> dict:
        return schema_of(self.options_model, self.WEB_OPTIONS)

    def new_game(self, raw_options: dict):
        return self.Game.from_options(make_options(self.options_model, raw_options, self.WEB_OPTIONS))

    def players_of(self, game) -> int:
        return len(game.scores())

    # -------------------------------------------------------------------------------- records
    def replay(self, record: dict):
        return replay_record(self.Game, record)

    def record_of_upload(self, raw) -> dict:
        """A record from an uploaded record or save (its history as the actions); every action must replay."""
        if not isinstance(raw, dict) or ("actions" not in raw and "history" not in raw):
            raise WebInputError("neither a game record (no 'actions') nor a saved game (no 'history')")
        record = {**{k: v for k, v in raw.items() if k != "history"},
                  "actions": raw["actions"] if "actions" in raw else raw["history"]}
        if not isinstance(record["actions"], list) or not all(type(a) is int for a in record["actions"]):
            raise WebInputError("the record is malformed: actions: must be a list of integers")
        self.replay(record)
        return record

    # -------------------------------------------------------------------------------- state
    def state(self, game, *, decision: bool = True, viewer: int | None = None) -> dict:
        """The position as seat ``viewer`` sees it (everything when None): its text, the scores,
        and (if asked, and ``viewer`` is to play or None) the decision."""
        g = game
        over = g.game_over
        out = {"game": self.NAME, "title": self.TITLE, "score_name": self.score_name, "current": g.current,
               "round": int(g.round), "decisions": len(g.history), "game_over": over,
               "end_reason": str(g.end_reason or ""), "phase": "GAME_OVER" if over else "TURN",
               "phase_words": "nothing: the game is over" if over else "choose an action",
               "text": self.text(g, viewer), "scores": [int(v) for v in g.scores()],
               "players": [{"seat": s, "score": int(v)} for s, v in enumerate(g.scores())]}
        if over:
            out["places"] = [int(p) for p in g.places()]
            out["winners"] = [int(w) for w in g.winners()]
        elif decision and viewer in (None, g.current):
            out["decision"] = self.decision_view(g)
        return out

    def decision_view(self, game) -> dict:
        """Every legal action as a button, in the game's words."""
        mask = game.legal_mask()
        return {"phase": "TURN", "words": "choose an action", "seat": game.current,
                "buttons": [{"action": int(a), "label": game.action_name(int(a))} for a in range(len(mask)) if mask[a]]}


def replay_frames(module, record: dict) -> list[dict]:
    """Every web module's replay: the state (``module.state(game, decision=False)``) before the
    record's first action and after each one, with the move that led to it. The set-up is
    ``module.replay`` of the record without its actions (checked as an upload is), or the
    module's own ``start_of(record)`` where it has one."""
    start = getattr(module, "start_of", None)
    game = start(record) if start is not None else module.replay({**record, "actions": []})
    return frames_of(game, record["actions"], module.state)


def frames_of(game, actions, state) -> list[dict]:
    """The states of ``game`` before the first of ``actions`` and after each one (``game`` is played on)."""
    frames = [{**state(game, decision=False), "move": None}]
    for a in actions:
        seat, name = game.current, game.action_name(a)
        game.apply(a)
        frames.append({**state(game, decision=False), "move": {"seat": seat, "action": a, "label": name}})
    return frames


@cache
def for_game(name: str) -> GenericWeb:
    return GenericWeb(name)
