"""Terminal play a person can follow (a user trial's complaints): who built what in Monkey Palace,
whose monkeys stand where in The Shadow Theater, Forbidden City's placements listed once and
answered by coordinates, and in every game a legend on the first screen and in help, with no
sign meaning two things. The sessions are driven in-process with StringIO input and output."""

from __future__ import annotations

import io
import re
import sys

import numpy as np
import pytest

from monkey_env.apps.cli import main
from monkey_env.apps.play import AnySession
from monkey_env.forbidden_city.engine import Game as CityGame
from monkey_env.forbidden_city.options import ForbiddenCityOptions
from monkey_env.forbidden_city.text_view import _same_face_key, group_choices, placement_groups
from monkey_env.games import game_names, game_spec
from monkey_env.monkey_palace.actions import Phase
from monkey_env.monkey_palace.apps.play import Session
from monkey_env.monkey_palace.engine import Game as PalaceGame
from monkey_env.monkey_palace.options import GameOptions
from monkey_env.shadow_theater.actions import COLLECT, KEEP, KING_MOVE, PLACE
from monkey_env.shadow_theater.engine import Game as TheaterGame
from monkey_env.shadow_theater.options import ShadowTheaterOptions


def legend_entries(legend: str) -> dict[str, list[str]]:
    """symbol -> the meanings the legend gives it (entries are "symbols = meaning")."""
    found: dict[str, list[str]] = {}
    for piece in re.split(r"[;\n]", legend):
        if " = " in piece:
            symbols, meaning = piece.split(" = ", 1)
            for symbol in symbols.split():
                found.setdefault(symbol, []).append(meaning.strip())
    return found


def first_screen_and_after(out: str) -> tuple[str, str]:
    """What came before the first prompt, and everything after it."""
    first, _, rest = out.partition("> ")
    return first, rest


# ------------------------------------------------------------------------------------ every game
@pytest.mark.parametrize("game", game_names())
def test_the_legend_gives_no_sign_two_meanings(game):
    entries = legend_entries(game_spec(game).load("legend"))
    assert len(entries) >= 5, entries
    doubled = {s: m for s, m in entries.items() if len(m) > 1}
    assert not doubled, f"{game}: signs with two meanings: {doubled}"


@pytest.mark.parametrize("game", ["shadow_theater", "forbidden_city"])
def test_the_legend_is_on_the_first_screen_and_in_help(game, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("help\n"))
    assert main(["play", "--game", game, "--yes", "--seed", "0", "--save", str(tmp_path / "s.json"), "--png", ""]) == 0
    first, rest = first_screen_and_after(capsys.readouterr().out)
    legend = game_spec(game).load("legend")
    assert legend in first and "Your decision" in first.split(legend)[1]       # with the first position
    assert legend in rest and "At any question: help" in rest                  # and in help


# ------------------------------------------------------------------------------------ Monkey Palace
def palace_game_at_my_turn(turns: int = 6, seed: int = 2) -> PalaceGame:
    """A 2-player game after a few random turns, at seat 1's choice of a stud."""
    game = PalaceGame.from_options(GameOptions(players=2, seed=seed))
    rng = np.random.default_rng(seed)
    while game.turns_played < turns or game.current != 0 or game.phase != Phase.ANCHOR:
        assert not game.game_over
        game.apply(int(rng.choice(np.flatnonzero(game.legal_mask()))))
    return game


def owner_grid(text: str) -> dict[tuple[int, int], str]:
    """The 'who built each cell' grid under the palace: (x, y) -> mark."""
    lines = text.split("who built each cell")[1].splitlines()[1:]
    xs = [int(x) for x in lines[0].split()[1:]]
    grid = {}
    for line in lines[1:]:
        words = line.split()
        if not words or not words[0].isdigit():
            break
        grid.update({(x, int(words[0])): mark for x, mark in zip(xs, words[1:])})
    return grid


def test_monkey_palace_shows_who_built_each_cell_and_a_legend_then_help_explains_a_turn(tmp_path):
    game = palace_game_at_my_turn()
    out = io.StringIO()
    session = Session(game, 0, ["random"], tmp_path / "s.json", out, io.StringIO("help\n"))
    assert session.run() == 0                         # the input closes at the next question: saved
    first, rest = first_screen_and_after(out.getvalue())
    grid = owner_grid(first)
    palace = game.palace
    decorations = [e for e in palace.elements if e["kind"] == "decoration"]
    assert {e["owner"] for e in decorations} >= {-1, 0, 1}
    for e in decorations:
        if int(palace.height[e["y"], e["x"]]) == e["top"]:          # still the top of its cell
            assert grid[(e["x"], e["y"])] == ("S" if e["owner"] < 0 else str(e["owner"] + 1)), e
    assert sum(mark == "." for (x, y), mark in grid.items()) == sum(int(palace.height[y, x]) == 0 for x, y in grid)
    assert all(len(line) <= 100 for line in first.split("who built each cell")[1].splitlines())
    from monkey_env.monkey_palace.text_view import LEGEND
    assert LEGEND in first and LEGEND in rest
    turn = rest.split("A turn, in order:")[1]
    for step in ("build", "decorate", "credits", "buy", "instant supply", "cards", "bonus card", "trophies"):
        assert step in turn, step


def test_show_has_the_owner_grid_too():
    from monkey_env.monkey_palace.text_view import game_text

    game = palace_game_at_my_turn(turns=4, seed=3)
    text = game_text(game)
    marks = set(owner_grid(text).values())
    assert {"S", "1", "2"} <= marks <= {"S", "1", "2", "."}


# ------------------------------------------------------------------------------------ The Shadow Theater
def test_the_shadow_theaters_monkeys_are_marked_by_seat():
    from monkey_env.shadow_theater.game_data import LOCATION_NAMES, LOCATIONS
    from monkey_env.shadow_theater.text_view import game_text

    game = TheaterGame.from_options(ShadowTheaterOptions(seed=4))
    game.apply(KEEP)
    game.apply(KEEP)
    free = [loc for loc in range(3) if loc != game.king]
    for loc in (free[0], free[0], free[1]):          # seat 1, seat 2, seat 1
        game.apply(PLACE + loc)
        if game.phase == KING_MOVE:                   # after a Garden placement: the first move offered
            game.apply(int(np.flatnonzero(game.legal_mask())[0]))

    def monkeys(loc, viewer):
        line = next(x for x in game_text(game, viewer).splitlines() if LOCATION_NAMES[LOCATIONS[loc]] in x)
        return [c for c in line.split("[")[1].rstrip("]").split() if c not in "K."]
    for viewer in (0, 1, None):                       # public: every seat sees the same marks
        assert monkeys(free[0], viewer) == ["1", "2"] and monkeys(free[1], viewer) == ["1"]
    collector = game.current
    game.apply(COLLECT + free[0])                     # collected: the location is empty again
    assert monkeys(free[0], 0) == [] and monkeys(free[1], 0) == ["1"] and game.supply[collector][0] >= 2


def test_a_recall_takes_back_the_seats_own_monkeys_first():
    game = TheaterGame.from_options(ShadowTheaterOptions(seed=1))
    game.placed_by[0] = [0, 1, 0, 1]
    game.take_placed(0, 1, 3)
    assert game.placed_by[0] == [0]
    game.take_placed(0, 1, 5)                        # more than stand there (a position set by hand)
    assert game.placed_by[0] == []


# ------------------------------------------------------------------------------------ Forbidden City
def city_position(game: CityGame) -> tuple:
    """The position as the rules see it: every cell's face (parts numbered alike), owner and
    tile, the purses, the hands, whose turn, and what the next player may do."""
    cells = tuple(sorted((xy, _same_face_key(laid.face), laid.owner, laid.tile) for xy, laid in game.city.cells.items()))
    return (cells, tuple(game.purse), tuple(game.held), game.current, game.shift, tuple(np.flatnonzero(game.legal_mask())))


def test_the_first_turn_lists_each_distinct_placement_once_and_groups_lead_to_one_position():
    game = CityGame(ForbiddenCityOptions(seed=0))         # a tile with walls N and S: turned 180°, the same
    legal = [int(a) for a in np.flatnonzero(game.legal_mask())]
    entries = group_choices(game, legal)
    assert len(legal) == 42 and len(entries) == 21
    groups = placement_groups(game, legal)
    assert [g[0] for g in groups] == [a for a, _ in entries] and sorted(sum(groups, [])) == legal
    results = []
    for group in groups:
        after = []
        for a in group:
            other = game.clone()
            other.apply(a)
            after.append(city_position(other))
        assert all(p == after[0] for p in after), f"group {group} leads to different positions"
        results.append(after[0])
    assert len(set(results)) == len(results)               # and different entries to different ones


@pytest.mark.parametrize("seed", range(6))
def test_grouping_keeps_every_distinct_placement(seed):
    """Asymmetric tiles (seeds 1-5) keep one entry per legal action."""
    game = CityGame(ForbiddenCityOptions(seed=seed, players=3))
    legal = [int(a) for a in np.flatnonzero(game.legal_mask())]
    positions = set()
    for a in legal:
        other = game.clone()
        other.apply(a)
        positions.add(city_position(other))
    assert len(group_choices(game, legal)) == len(positions)


def city_session(tmp_path, answers: str, seed: int = 0):
    spec = game_spec("forbidden_city")
    game = CityGame(ForbiddenCityOptions(seed=seed))
    out = io.StringIO()
    return AnySession(spec, game, 0, ["random"], tmp_path / "s.json", out, io.StringIO(answers)), out


def test_the_first_screen_numbers_21_placements(tmp_path):
    session, out = city_session(tmp_path, "")
    session.run()
    first, _ = first_screen_and_after(out.getvalue())
    numbered = re.findall(r"^\s+(\d+)\. lay at", first, re.M)
    assert numbered == [str(i) for i in range(1, 22)]
    assert "lay at (12, 11) turned 0° or 180° (the same placement): walls N S" in first


@pytest.mark.parametrize("answers, played", [
    ("12 11 270\n", (12, 11, 1)),         # the group 90°/270° plays its lowest action, 90°
    ("12 11 180\n", (12, 11, 0)),
    ("(13, 11)\n", (13, 11, 0)),          # one placement left at (13, 11): x y is enough
    ("3\n", (13, 11, 0)),                 # the number still works
])
def test_coordinates_are_accepted(tmp_path, answers, played):
    session, _ = city_session(tmp_path, answers)
    session.run()
    assert session.game.history[0] == session.game.layout.encode(*played)


@pytest.mark.parametrize("answer, words", [
    ("12 11", "at (12, 11) the tile fits 2 ways (turned 0° or 180°; turned 90° or 270°): add the rotation"),
    ("13 11 90", "turned 90° the tile cannot go at (13, 11)"),
    ("12 11 45", "45 is not a rotation"),
    ("13 13 0", "(13, 13) already holds a tile"),
    ("3 3", "touches no tile"),
    ("40 2", "off the table"),
    ("banana", "type a number from 1 to 21, or x y rotation"),
])
def test_a_wrong_coordinate_is_explained_and_asked_again(tmp_path, answer, words):
    session, out = city_session(tmp_path, f"{answer}\n14 11 90\n")
    session.run()
    after = out.getvalue().split("> ", 1)[1]
    assert words in after.splitlines()[0]
    assert session.game.history[0] == session.game.layout.encode(14, 11, 1)


def test_the_city_grid_uses_only_the_legends_signs_and_advisors_by_seat():
    """A 4-player game (seat 4 is purple) with advisors of several seats and closed rooms: every
    character of the grid's cells is a sign of the legend, and P is only closed pink."""
    from monkey_env.forbidden_city.text_view import LEGEND, city_text

    game = CityGame(ForbiddenCityOptions(seed=2, players=4))
    rng = np.random.default_rng(2)
    for _ in range(40):
        game.apply(int(rng.choice(np.flatnonzero(game.legal_mask()))))
    grid = "\n".join(line[3:] for line in city_text(game).splitlines()[1:])   # no rulers
    signs = set("".join(legend_entries(LEGEND)))
    assert set(grid) - {" ", "\n"} <= signs, set(grid) - signs
    owners = {laid.owner for laid in game.city.cells.values() if sum(laid.face.advisors)}
    assert {str(o + 1) for o in owners} <= set(grid) and len(owners) >= 3
    assert legend_entries(LEGEND)["P"] == ["that floor, its room closed"]
