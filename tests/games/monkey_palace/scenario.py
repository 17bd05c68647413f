"""Helpers for scenario tests: a game on a cleared plate, a palace drawn as text, a turn to play.

A scenario reads like a page of the rulebook:

    game = scenario_game(palace="A1 m1 m1 A1", origin=(12, 7), supply=(2, 3, 0))
    plan = verdict(game, (9, 7), shape(game, "E", base=1))
    assert not plan.legal and "rule F" in plan.reason

The plate is map 1's 32x32 plate with every ground stud light green (the four corner pieces
stay where they are), so the only palace is the one a test draws with ``draw_palace`` tokens
(see monkey_env/monkey_palace/text_view.py): ``l d g w # C`` ground, ``b c`` brick/column, ``A m`` arch
end/middle, ``L D G`` decorations, ``@ Y F`` monkey/butterfly/frog, each followed by the
height of its top.
"""

from __future__ import annotations

import numpy as np

from monkey_env import Game, Phase
from monkey_env.monkey_palace.config import PILE_IDS
from monkey_env.monkey_palace.engine import TurnState
from monkey_env.monkey_palace.geometry import CORNER_CELLS, HEADING_NAMES, Knob
from monkey_env.monkey_palace.palace import Palace, StaircasePlan, Supply
from monkey_env.monkey_palace.text_view import cell_token, draw_palace


def cleared_palace(animal_height: int) -> Palace:
    ground = np.full((32, 32), int(Knob.GROUND_LIGHT), np.int8)
    for x, y in CORNER_CELLS:
        ground[y, x] = Knob.CORNER
    return Palace(ground, animal_height)


def scenario_game(palace: str | list[str] | None = None, origin: tuple[int, int] = (0, 0), *,
                  supply: tuple[int, int, int] = (3, 3, 0), players: int = 2, seat: int = 0,
                  tray: tuple[int, int, int] | None = None, **options) -> Game:
    """A game on map 1 whose plate is cleared to light green, with ``palace`` drawn at ``origin``,
    seat ``seat`` to play with ``supply`` (arches, bricks, columns), at the start of its turn.
    The build action is the catalogue's unless ``build_action`` says otherwise: these scenarios
    name whole shapes (``shape``); test_complete_staircases.py builds arch by arch."""
    options.setdefault("build_action", "catalogue")
    game = Game.new(players=players, map=1, **options)
    game.palace = cleared_palace(game.data.tray.animal_height)
    if palace is not None:
        draw_palace(game.palace, palace, origin)
    game.current = seat
    game.players[seat].supply = Supply(*supply)
    if tray is not None:
        game.tray = Supply(*tray)
    begin_turn(game)
    return game


def begin_turn(game: Game) -> None:
    """Put the current seat at the start of its turn (phase ANCHOR) after the test changed the
    position. Unlike the engine's turn start it does not skip a player who cannot build, so
    rule scenarios can ask why nothing is legal."""
    game.turn = TurnState()
    game._build_cache = None
    game._search = None
    game._turn_over = False
    game.phase = Phase.ANCHOR
    game._advance()


def start_turn(game: Game) -> None:
    """The engine's own turn start (it skips a player who cannot attach any staircase)."""
    game._build_cache = None
    game._search = None
    game._turn_over = False
    game._start_turn()
    game._advance()


def shape(game: Game, heading: str, base: int = 0, turns: str = "", rise: int = 0) -> int:
    """The catalogue index of the shape (heading, base, turns, rise)."""
    h = HEADING_NAMES.index(heading)
    found = [s.index for s in game.data.shapes
             if (s.heading, s.base, s.turns, s.rise) == (h, base, turns, rise)]
    assert len(found) == 1, f"no single catalogue shape {heading} base {base} turns {turns!r} rise {rise}"
    return found[0]


def verdict(game: Game, anchor: tuple[int, int], shape_index: int) -> StaircasePlan:
    """Rules A-I on one staircase for the current player; the fast all-anchors legality
    (the one legal_mask uses) must give the same verdict."""
    plan = game.palace.check_staircase(anchor, game.data.shapes[shape_index], game.player.supply,
                                       game.data.tray.column_units)
    fast = bool(game.build_matrix()[shape_index, anchor[1] * 32 + anchor[0]])
    assert fast == plan.legal, f"legal_mask says {fast}, check_staircase says {plan.legal}: {plan.reason}"
    return plan


def build(game: Game, anchor: tuple[int, int], shape_index: int) -> None:
    """Play step 1 through the public actions: choose the anchor, then the shape.

    A decision with a single legal option is taken by the engine itself, so a step may
    already be done when we get there; then it must have been the one we wanted."""
    L = game.layout
    assert game.phase in (Phase.ANCHOR, Phase.SHAPE), game.phase
    if game.phase == Phase.ANCHOR:
        game.apply(L.encode_cell(*anchor))
    assert game.turn.anchor == anchor[1] * 32 + anchor[0]
    if game.phase == Phase.SHAPE:
        game.apply(L.encode_shape(shape_index))
    else:
        legal_shapes = np.flatnonzero(game.build_matrix()[:, game.turn.anchor])
        assert list(legal_shapes) == [shape_index], "the engine built another shape by itself"
    assert game.turn.built


def pile(name: str) -> int:
    return PILE_IDS.index(name)


def card_ids(game: Game, pile_name: str) -> tuple[int, ...]:
    return game.data.pile_cards[pile(pile_name)]


def put_on_top(game: Game, pile_name: str, bananas: int | None = None, instant: tuple | None = None,
               recurring: tuple | None = None) -> int:
    """Move a card of the pile matching the given fields to the top of its pile; return its id."""
    p = pile(pile_name)
    for c in game.piles[p]:
        info = game.data.cards[c]
        if ((bananas is None or info.bananas == bananas) and (instant is None or info.instant == tuple(instant))
                and (recurring is None or info.recurring == tuple(recurring))):
            game.piles[p].remove(c)
            game.piles[p].append(c)
            return c
    raise AssertionError(f"no card in {pile_name} with bananas={bananas} instant={instant} recurring={recurring}")


def token(game: Game, x: int, y: int) -> str:
    return cell_token(game.palace, x, y)


def row_tokens(game: Game, x0: int, x1: int, y: int) -> str:
    return " ".join(token(game, x, y) for x in range(x0, x1 + 1))
