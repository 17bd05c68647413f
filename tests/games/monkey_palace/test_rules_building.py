"""Scenario tests of the building rules A-I and the supply (step 1 of a turn).

Each scenario draws a palace as text tokens on a cleared light-green plate (see
tests/games/monkey_palace/scenario.py and monkey_env/monkey_palace/text_view.py), names a staircase (anchor + catalogue
shape) and checks the verdict and the reason a player would be given. ``verdict`` also
checks that the fast all-anchor legality (the one behind legal_mask) agrees.

Rule texts: English FAQ (seeds/002), French FAQ (seeds/000), Dutch walkthrough (seeds/001),
and the grid model (design/model.md).
"""

from __future__ import annotations

import pytest
from scenario import begin_turn, build, row_tokens, scenario_game, shape, token, verdict

from monkey_env import Game, IllegalActionError, Phase
from monkey_env.monkey_palace.catalogue import ARCH_SPAN
from monkey_env.monkey_palace.geometry import Animal, Colour, heading_step
from monkey_env.monkey_palace.palace import Supply

# ===================================================================== A. starting point
# "A staircase must start from an open knob on the Ground Map." The model adds: of a colour
# (the anchor's colour is the decoration's), so not the white start area.

def test_rule_a_open_coloured_ground_stud_is_an_anchor():
    game = scenario_game("l l l b1", origin=(9, 7))
    plan = verdict(game, (9, 7), shape(game, "E", base=1))
    assert plan.legal and plan.colour == Colour.LIGHT


@pytest.mark.parametrize("drawing, what", [
    ("w l l b1", "white start-area stud"),
    ("# l l b1", "blocked stud"),
    ("b1 l l b1", "a brick"),
    ("@ l l b1", "the monkey"),
])
def test_rule_a_anchor_must_be_open_coloured_ground(drawing, what):
    game = scenario_game(drawing, origin=(9, 7))
    plan = verdict(game, (9, 7), shape(game, "E", base=1))
    assert not plan.legal
    assert "rule A" in plan.reason and what in plan.reason and "(9, 7)" in plan.reason
    # The anchor step of a turn refuses the stud with the same reason.
    assert not game.legal_mask()[game.layout.encode_cell(9, 7)]
    reason = game.explain(game.layout.encode_cell(9, 7))
    assert "no staircase can start at (9, 7)" in reason and "rule A" in reason


def test_rule_a_the_start_staircase_white_area_is_never_an_anchor_on_map_1():
    game = Game.new(players=2, map=1)
    mask = game.legal_mask()
    # Map 1's white area: x 11..19, y 15..17 (configs/maps/map1.yaml).
    assert not any(mask[game.layout.encode_cell(x, y)] for x in range(11, 20) for y in range(15, 18))


# ===================================================================== B. starting element
# "A staircase may start with any building brick": arch 1 straight on the ground, or a
# stack of bricks/columns on the anchor first.

def test_rule_b_arch_one_straight_on_the_ground():
    game = scenario_game("l l l A1 m1 m1 A1", origin=(9, 7))   # an old arch whose end is at height 1
    plan = verdict(game, (6, 7), shape(game, "E", base=0, turns="S"))
    # Arch 1 on the ground (level 0) from (6,7) to (9,7); arch 2 at level 1 lands on the old end (12,7).
    assert plan.legal
    assert [a[3] for a in plan.arches] == [0, 1]
    assert all((s.x, s.y) != (6, 7) for s in plan.stacks)      # nothing stacked on the anchor


def test_rule_b_a_stack_first_then_the_arch():
    game = scenario_game("l l l b2", origin=(9, 7))
    plan = verdict(game, (9, 7), shape(game, "E", base=2))
    assert plan.legal and plan.arches == [(9, 7, 1, 2)]
    assert (plan.stacks[0].x, plan.stacks[0].y, plan.stacks[0].bottom, plan.stacks[0].units) == (9, 7, 0, 2)
    assert plan.bricks == 2


# ===================================================================== C. end element
# "A staircase must end with an arch" which carries the decoration.

def test_rule_c_every_shape_ends_with_an_arch_carrying_the_decoration():
    game = Game.new(players=2, map=1)
    for s in game.data.shapes:
        assert s.arches >= 1
        assert s.deco == s.steps[-1].far


def test_rule_c_built_staircase_ends_with_decoration_on_the_last_arch_end():
    game = scenario_game("l l l b1", origin=(9, 7))
    build(game, (9, 7), shape(game, "E", base=1))
    # b1 under the anchor's arch end, two middles, the light-green decoration on the far end knob.
    assert row_tokens(game, 9, 12, 7) == "A2 m2 m2 L3"
    assert [e["kind"] for e in game.palace.elements][-1] == "decoration"


# ===================================================================== D. build on any open knob
# "You may build on any building elements that have an open knob, including Decoration
# Elements. But you may not build on the two center knobs of the arches." "You cannot build on
# top of the Monkey." The frog and the butterfly block the same way (model.md rule D).

def test_rule_d_far_leg_on_an_arch_middle_knob_is_illegal():
    # An old arch running north-south through (12, 5)..(12, 8): its middle knobs at (12, 6), (12, 7).
    game = scenario_game(["A1", "m1", "m1", "A1"], origin=(12, 5))
    plan = verdict(game, (9, 7), shape(game, "E", base=1))
    assert not plan.legal
    assert "rule D" in plan.reason and "middle knob" in plan.reason and "(12, 7)" in plan.reason
    # The same arch's end knob at (12, 8) is fine.
    assert verdict(game, (9, 8), shape(game, "E", base=1)).legal


def test_rule_d_far_leg_on_a_decoration_is_fine():
    game = scenario_game("l l l D2", origin=(9, 7))             # a dark-green decoration on a brick
    plan = verdict(game, (9, 7), shape(game, "E", base=2))
    assert plan.legal and plan.attached
    assert plan.deco == (12, 7) and plan.deco_top == 4


def test_rule_d_far_leg_on_another_players_brick_is_fine():
    game = scenario_game("l l l b1", origin=(9, 7))
    game.palace.elements.append({"kind": "stack", "x": 12, "y": 7, "bottom": 0, "units": 1,
                                 "columns": 0, "owner": 1, "turn": 2})
    assert game.current == 0
    build(game, (9, 7), shape(game, "E", base=1))
    assert token(game, 12, 7) == "L3"


@pytest.mark.parametrize("animal, drawing", [
    ("monkey", "l l l @1"), ("frog", "l l l F1"), ("butterfly", None)])
def test_rule_d_far_leg_on_an_animal_is_illegal(animal, drawing):
    game = scenario_game(drawing or "l l l L2", origin=(9, 7))
    if animal == "butterfly":                                  # the butterfly sits on a decoration
        game.palace.animals[Animal.BUTTERFLY] = 7 * 32 + 12
        begin_turn(game)
    base = 1 if drawing else 2
    plan = verdict(game, (9, 7), shape(game, "E", base=base))
    assert not plan.legal
    assert f"the {animal}" in plan.reason and "(12, 7)" in plan.reason and "rule D" in plan.reason


@pytest.mark.parametrize("heading, turns, anchor, what, cell", [
    # Arch 1 lands on the brick (attached), arch 2 would land on the blocked stud at (15, 7).
    ("E", "S", (9, 7), "a blocked stud", "(15, 7)"),
    # One stud in from the north-west corner stands a corner piece holding the map.
    ("W", "", (4, 1), "a corner piece", "(1, 1)"),
])
def test_rule_d_far_leg_on_a_blocked_stud_or_corner_piece_is_illegal(heading, turns, anchor, what, cell):
    game = scenario_game("l l l b1 l l #", origin=(9, 7))
    plan = verdict(game, anchor, shape(game, heading, base=1, turns=turns))
    assert not plan.legal and what in plan.reason and cell in plan.reason and "rule D" in plan.reason


# ===================================================================== E. attach
# "A new staircase must attach to at least one open knob of the palace on the Ground Map."

def test_rule_e_a_staircase_touching_nothing_is_illegal():
    game = scenario_game("l l l l", origin=(9, 7))
    plan = verdict(game, (9, 7), shape(game, "E", base=0))
    assert not plan.legal and "rule E" in plan.reason and "does not attach" in plan.reason


def test_rule_e_attached_by_a_later_far_leg():
    # Arch 1 on bare ground; arch 2's far leg at (15, 7) stands on an old brick of height 1.
    game = scenario_game("l l l l l l b1", origin=(9, 7))
    plan = verdict(game, (9, 7), shape(game, "E", base=0, turns="S"))
    assert plan.legal and plan.attached and plan.bricks == 0


def test_rule_e_model_worked_example_on_map_1():
    """model.md: the start staircase runs east from (12, 16); a one-arch staircase anchored at
    x=9 with one brick under it reaches level 1 at x=12 and stands on the arch end there."""
    game = Game.new(players=2, map=1, build_action="catalogue")
    assert row_tokens(game, 12, 18, 16) == "A1 m1 m1 A2 m2 m2 G3"
    plan = verdict(game, (9, 16), shape(game, "E", base=1))
    assert plan.legal and plan.attached
    assert len(plan.arches) == 1 and plan.bricks == 1 and plan.columns == 0
    # With no brick under it (s0 = 0) its far cell is higher than the arch.
    plan0 = verdict(game, (9, 16), shape(game, "E", base=0))
    assert not plan0.legal and "rule F" in plan0.reason and "(12, 16)" in plan0.reason
    assert "already 1 high" in plan0.reason
    # Built through the turn actions: (9, 16) is a dark-green stud, so a dark decoration.
    build(game, (9, 16), shape(game, "E", base=1))
    assert row_tokens(game, 9, 18, 16) == "A2 m2 m2 D3 m1 m1 A2 m2 m2 G3"
    assert game.players[0].supply == Supply(2, 1, 0)


# ===================================================================== F. support
# "Each building element in your staircase must be fully supported": both legs at one level,
# support stacks below the far leg, and the middles pass over what is there.

def test_rule_f_far_cell_higher_than_the_arch_level_is_illegal():
    game = scenario_game("l l l b3", origin=(9, 7))
    plan = verdict(game, (9, 7), shape(game, "E", base=1))
    assert not plan.legal and "rule F" in plan.reason
    assert "(12, 7)" in plan.reason and "level 1" in plan.reason and "already 3 high" in plan.reason


def test_rule_f_far_leg_support_stack_is_counted_in_bricks():
    # Arch 1 (level 1) lands on an old brick at (12, 7); arch 2 (level 2) lands on bare ground
    # at (15, 7) and needs a support stack of 2 bricks there.
    game = scenario_game("l l l b1 l l l", origin=(9, 7), supply=(2, 3, 0))
    plan = verdict(game, (9, 7), shape(game, "E", base=1, turns="S"))
    assert plan.legal
    assert [(s.x, s.y, s.bottom, s.units) for s in plan.stacks] == [(9, 7, 0, 1), (15, 7, 0, 2)]
    assert plan.bricks == 3
    game.players[0].supply = Supply(2, 2, 0)
    begin_turn(game)
    plan = verdict(game, (9, 7), shape(game, "E", base=1, turns="S"))
    assert not plan.legal and "needs 3 bricks but you have 2" in plan.reason


def test_rule_f_middle_cell_higher_than_the_level_is_illegal():
    game = scenario_game("l b2 l b1", origin=(9, 7))
    plan = verdict(game, (9, 7), shape(game, "E", base=1))
    assert not plan.legal and "rule F" in plan.reason
    assert "middle" in plan.reason and "(10, 7)" in plan.reason and "height 2" in plan.reason


def test_rule_f_middle_cell_level_with_the_arch_is_fine():
    game = scenario_game("l b1 l b1", origin=(9, 7))          # the arch's underside just touches
    assert verdict(game, (9, 7), shape(game, "E", base=1)).legal


def test_rule_f_an_animal_under_a_middle_blocks_unless_the_arch_is_high_enough():
    game = scenario_game("l l @1 b3", origin=(9, 7))           # the monkey on an arch end at height 1
    h = game.data.tray.animal_height
    assert h == 2                                              # configs/tray.yaml animal_height
    plan = verdict(game, (9, 7), shape(game, "E", base=3))   # level 3 = 1 + 2: the arch clears it
    assert plan.legal
    game = scenario_game("l l @2 b3", origin=(9, 7))           # on an end at height 2: reaches 4 > 3
    plan = verdict(game, (9, 7), shape(game, "E", base=3))
    assert not plan.legal and "the monkey" in plan.reason and "(11, 7)" in plan.reason
    assert "height 4" in plan.reason and "rule F" in plan.reason
    # The bare arch end (no monkey) under the same arch would be fine.
    game = scenario_game("l l A2 b3", origin=(9, 7))
    assert verdict(game, (9, 7), shape(game, "E", base=3)).legal


# ===================================================================== G, H, I. by construction
# G "no arch directly on top of another arch": each arch's near leg stands on the anchor's
#   stack (arch 1) or on the previous arch of the same staircase (the junction end knob), and
#   the path is self-avoiding, so no new arch can have both legs on one arch. A far leg on
#   another arch's END knob is allowed (the start staircase itself is built that way).
# H "turns of 90 degrees": the catalogue only has S/L/R turn programmes.
# I "arches only as direct steps, no loops": a shape is one chain of arches, each one step
#   higher than the previous one, whose studs never repeat except the shared junction leg.

def _catalogue():
    return Game.new(players=2, map=1).data.shapes


def test_rule_g_each_arch_starts_on_the_previous_arch_far_end():
    for s in _catalogue():
        assert (s.steps[0].dx, s.steps[0].dy) == (0, 0)
        for a, b in zip(s.steps, s.steps[1:]):
            assert (b.dx, b.dy) == a.far


def test_rule_h_turns_are_90_degrees_both_directions_exist():
    shapes = _catalogue()
    assert any("L" in s.turns for s in shapes) and any("R" in s.turns for s in shapes)
    for s in shapes:
        assert set(s.turns) <= set("SLR")
        for a, b in zip(s.steps, s.steps[1:]):
            assert (b.heading - a.heading) % 4 in (0, 1, 3)    # straight, right or left; never back


def test_rule_i_no_shape_revisits_a_stud():
    for s in _catalogue():
        seen = set()
        for j, step in enumerate(s.steps):
            sx, sy = heading_step(step.heading)
            cells = [(step.dx + i * sx, step.dy + i * sy) for i in range(ARCH_SPAN + 1)]
            for c in cells[1:] if j else cells:
                assert c not in seen, f"shape {s.index} ({s.describe()}) loops back on {c}"
                seen.add(c)


def test_rule_i_every_arch_is_one_step_higher_than_the_previous():
    for s in _catalogue():
        assert s.steps[0].level == s.base
        for a, b in zip(s.steps, s.steps[1:]):
            assert b.level == a.level + 1 + s.rise > a.level


# ===================================================================== the supply
# The player builds only with the elements in their own supply; a column may replace three
# bricks in a stack of at least three units.

def test_too_few_arches_is_illegal():
    game = scenario_game("l l l l l l b1", origin=(9, 7), supply=(1, 5, 0))
    plan = verdict(game, (9, 7), shape(game, "E", base=0, turns="S"))
    assert not plan.legal and "needs 2 arches but you have 1" in plan.reason
    assert not game.legal_mask()[game.layout.encode_cell(9, 7)]
    assert "needs 2 arches but you have 1" in game.explain(game.layout.encode_cell(9, 7))


def test_too_few_bricks_is_illegal_and_explained_at_the_anchor():
    game = scenario_game("l l l b2", origin=(9, 7), supply=(1, 1, 0))
    plan = verdict(game, (9, 7), shape(game, "E", base=2))
    assert not plan.legal and "needs 2 bricks but you have 1" in plan.reason
    assert not game.legal_mask()[game.layout.encode_cell(9, 7)]
    assert "you have 1" in game.explain(game.layout.encode_cell(9, 7))


# Three arches (levels 1, 3, 5, rise 1) heading east from (3, 7): arch 1 lands on an old brick
# at (6, 7), arch 2 on an old stack of 3 at (9, 7), arch 3 on bare ground at (12, 7), which needs
# a support stack of 5 units.
FIVE_STACK = "l l l b1 l l b3 l l l"


def test_column_replaces_three_bricks_in_a_stack_of_five():
    game = scenario_game(FIVE_STACK, origin=(3, 7), supply=(3, 5, 1))
    plan = verdict(game, (3, 7), shape(game, "E", base=1, turns="SS", rise=1))
    assert plan.legal
    five = [s for s in plan.stacks if (s.x, s.y) == (12, 7)]
    assert len(five) == 1 and five[0].units == 5 and five[0].columns == 1 and five[0].bricks == 2
    assert plan.columns == 1 and plan.bricks == 5               # 1 (anchor) + 1 + 1 (rises) + 2


def test_column_still_leaves_too_few_bricks():
    game = scenario_game(FIVE_STACK, origin=(3, 7), supply=(3, 4, 1))
    plan = verdict(game, (3, 7), shape(game, "E", base=1, turns="SS", rise=1))
    assert not plan.legal and "needs 5 bricks after using 1 column(s) but you have 4" in plan.reason


def test_column_cannot_stand_in_for_a_stack_of_two():
    game = scenario_game("l l l b2", origin=(9, 7), supply=(1, 0, 1))
    plan = verdict(game, (9, 7), shape(game, "E", base=2))
    assert not plan.legal and "needs 2 bricks but you have 0" in plan.reason


def test_column_in_a_stack_of_three():
    game = scenario_game("l l l b3", origin=(9, 7), supply=(1, 0, 1))
    plan = verdict(game, (9, 7), shape(game, "E", base=3))
    assert plan.legal and plan.columns == 1 and plan.bricks == 0
    build(game, (9, 7), shape(game, "E", base=3))
    assert game.players[0].supply == Supply(0, 0, 0)
    assert game.palace.elements[-3]["kind"] == "stack" and game.palace.elements[-3]["columns"] == 1


def test_an_illegal_shape_is_refused_with_its_reason_and_changes_nothing():
    # Two old stacks of 3, east and north of (9, 7): two shapes are legal there.
    game = scenario_game(["b3", "l", "l", "l l l b3"], origin=(9, 4), supply=(2, 3, 0))
    game.apply(game.layout.encode_cell(9, 7))
    assert game.phase == Phase.SHAPE
    bad = shape(game, "E", base=1)
    reason = game.explain(game.layout.encode_shape(bad))
    assert "1 arch heading E, base 1 from (9, 7)" in reason and "already 3 high" in reason
    before = game.to_dict()
    with pytest.raises(IllegalActionError, match="rule F"):
        game.apply(game.layout.encode_shape(bad))
    assert game.to_dict() == before
