"""Scenario tests of a turn's steps 2-8 and of the end of the game.

Steps (Dutch walkthrough, seeds/001): 1 build, 2 decorate, 3 count Monkey Credits, 4 buy
Monkey Cards, 5 instant supply, 6 place the cards and take the recurring supply, 7 bonus
card, 8 trophies (Monkey, Butterfly, Frog). The game is driven through Game.apply with the
layout's encode_* helpers; positions are set up on a cleared plate (tests/games/monkey_palace/scenario.py).
"""

from __future__ import annotations

import pytest
from scenario import (
    begin_turn,
    build,
    card_ids,
    pile,
    put_on_top,
    row_tokens,
    scenario_game,
    shape,
    start_turn,
    token,
)

from monkey_env import Game, IllegalActionError, Phase
from monkey_env.monkey_palace.config import PILE_IDS
from monkey_env.monkey_palace.geometry import Animal, Colour
from monkey_env.monkey_palace.palace import Supply
from monkey_env.monkey_palace.text_view import draw_palace

# Three arches heading east from (5, 7) at levels 0, 1, 2: arch 2 lands on an old brick at
# (11, 7) (the attachment), arch 3 needs 2 bricks of support at (14, 7). Decoration top: 4.
THREE_ARCHES = "l l l l l l b1"


def three_arch_turn(extra: str | None = None, extra_origin=(20, 20), anchor_colour: str = "l", **kw) -> Game:
    game = scenario_game(anchor_colour + " " + THREE_ARCHES[2:], origin=(5, 7), supply=(3, 2, 0), **kw)
    if extra:
        draw_palace(game.palace, extra, extra_origin)
        begin_turn(game)
    return game


def build_three(game: Game) -> None:
    build(game, (5, 7), shape(game, "E", base=0, turns="SS"))


def buyable(game: Game) -> set[str]:
    mask = game.legal_mask()
    return {PILE_IDS[p] for p in range(12) if mask[game.layout.encode_buy(p)]}


def pass_turn(game: Game) -> None:
    """Play the current seat's turn with the last legal action each time (stop buying, take a
    brick, last slot, leave the monkey, decline the frog)."""
    seat = game.current
    while not game.game_over and game.current == seat:
        game.apply(game.legal_actions()[-1])


# ===================================================================== 2. decorate
@pytest.mark.parametrize("ground, letter, colour", [("l", "L", Colour.LIGHT), ("d", "D", Colour.DARK),
                                                    ("g", "G", Colour.GOLD)])
def test_decoration_takes_the_anchor_colour(ground, letter, colour):
    game = three_arch_turn(anchor_colour=ground)
    build_three(game)
    assert token(game, 14, 7) == f"{letter}4"
    assert game.turn.colour == colour
    assert row_tokens(game, 5, 14, 7) == f"A1 m1 m1 A2 m2 m2 A3 m3 m3 {letter}4"


# ===================================================================== 3. credits
def test_credits_rulebook_example_three_arches_and_highest_light_green():
    """FAQ: 3 arches (3 credits) + the highest light-green decoration (1) = 4 credits."""
    game = three_arch_turn("L3")                   # an older, lower light-green decoration
    build_three(game)
    assert game.phase == Phase.BUY and game.turn.credits == 4


def test_credits_no_extra_when_level_with_another_of_its_colour():
    game = three_arch_turn("L4")                   # same height as the new one: not the highest
    build_three(game)
    assert game.turn.credits == 3


def test_credits_a_higher_decoration_of_another_colour_does_not_matter():
    game = three_arch_turn("D6")
    build_three(game)
    assert game.turn.credits == 4


# ===================================================================== 4. buying
def test_buying_colour_and_cost_limits():
    game = three_arch_turn("L3")
    build_three(game)                              # light-green decoration, 4 credits
    assert buyable(game) == {"multi-1", "multi-2", "light-3", "light-4"}
    L = game.layout
    assert "pile light-5 costs 5 but you have 4" in game.explain(L.encode_buy(pile("light-5")))
    assert "pile multi-6 costs 6" in game.explain(L.encode_buy(pile("multi-6")))
    reason = game.explain(L.encode_buy(pile("dark-3")))
    assert "dark" in reason and "your decoration is light" in reason
    assert "gold" in game.explain(L.encode_buy(pile("gold-3")))
    assert game.explain(L.buy_end) == "legal"                  # stopping is always allowed


def test_buying_takes_the_top_card_one_per_pile_and_spends_credits():
    game = three_arch_turn("L3")
    top = put_on_top(game, "light-3", instant=("arch",))
    size = len(game.piles[pile("light-3")])
    build_three(game)
    game.apply(game.layout.encode_buy(pile("light-3")))
    assert game.turn.bought == [top] and game.turn.credits == 1
    assert len(game.piles[pile("light-3")]) == size - 1 and top not in game.piles[pile("light-3")]
    reason = game.explain(game.layout.encode_buy(pile("light-3")))
    assert "already took the top card of pile light-3" in reason and "one card per pile per turn" in reason
    with pytest.raises(IllegalActionError, match="one card per pile"):
        game.apply(game.layout.encode_buy(pile("light-3")))
    assert "costs 4 but you have 1" in game.explain(game.layout.encode_buy(pile("light-4")))
    assert buyable(game) == {"multi-1"}


def test_multicolour_cards_can_always_be_bought():
    game = three_arch_turn(anchor_colour="g")
    build_three(game)                              # gold decoration
    assert {"multi-1", "multi-2"} <= buyable(game)
    assert not buyable(game) & {"light-3", "dark-3"}
    assert "gold-3" in buyable(game)


def test_an_empty_pile_cannot_be_bought():
    game = three_arch_turn()
    game.piles[pile("light-3")] = []
    build_three(game)
    assert "light-3" not in buyable(game)
    assert game.explain(game.layout.encode_buy(pile("light-3"))) == "pile light-3 is empty"


def test_unused_credits_are_lost():
    game = three_arch_turn()
    put_on_top(game, "multi-1", instant=("arch_or_brick",), recurring=(1, 0, 0))
    build_three(game)
    game.apply(game.layout.encode_buy(pile("multi-1")))
    assert game.turn.credits == 3
    game.apply(game.layout.buy_end)
    assert game.phase == Phase.INSTANT and game.turn.credits == 0


# ===================================================================== 5-6. supplies and slots
def test_instant_and_recurring_supply_and_empty_slots():
    game = three_arch_turn("L3")
    c1 = put_on_top(game, "light-3", instant=("arch",), recurring=(0, 2, 0))
    c2 = put_on_top(game, "multi-1", instant=("brick",), recurring=(1, 0, 0))
    game.players[0].slots = [[], [], [], []]
    build_three(game)
    assert game.players[0].supply == Supply(0, 0, 0)
    game.apply(game.layout.encode_buy(pile("light-3")))
    game.apply(game.layout.encode_buy(pile("multi-1")))   # 0 credits left: the turn runs on by itself
    p = game.players[0]
    assert p.slots == [[c1], [c2], [], []]                 # new cards go on empty slots, in buying order
    # instant: 1 arch + 1 brick; recurring: board (1 arch, 1 brick) + light-3 (2 bricks) + multi-1 (1 arch)
    assert p.supply == Supply(1 + 1 + 1, 1 + 1 + 2, 0)
    assert game.current == 1                               # the next seat's turn


def test_arch_or_brick_is_a_choice_when_the_tray_has_both():
    game = three_arch_turn()
    put_on_top(game, "light-3", instant=("arch_or_brick",), recurring=(1, 1, 0))
    build_three(game)
    game.apply(game.layout.encode_buy(pile("light-3")))
    game.apply(game.layout.buy_end)
    assert game.phase == Phase.INSTANT
    L = game.layout
    assert list(game.legal_actions()) == [L.instant_arch, L.instant_brick]
    bricks = game.players[0].supply.bricks
    game.apply(L.instant_brick)
    # The brick, then the recurring supply (board 1+1, light-3 card 1+1).
    assert game.players[0].supply.bricks == bricks + 1 + 2
    assert game.players[0].supply.arches == 0 + 2


def test_arch_or_brick_is_not_asked_when_the_tray_has_no_bricks():
    game = three_arch_turn()
    put_on_top(game, "light-3", instant=("arch_or_brick",), recurring=(1, 1, 0))
    game.tray = Supply(20, 0, 16)
    begin_turn(game)
    build_three(game)
    game.apply(game.layout.encode_buy(pile("light-3")))
    game.apply(game.layout.buy_end)
    assert game.current == 1                               # never asked: the arch was taken
    assert game.players[0].supply.arches == 1 + 1 + 1      # instant arch + board + card
    assert game.players[0].supply.bricks == 0 and game.end_triggered


def test_full_board_asks_for_a_slot_and_several_cards_may_share_one():
    game = three_arch_turn("L3")
    old = [game.piles[pile("dark-5")].pop() for _ in range(4)]   # cards from earlier turns
    game.players[0].slots = [[c] for c in old]
    c1 = put_on_top(game, "light-3", instant=("arch",), recurring=(0, 2, 0))
    c2 = put_on_top(game, "multi-1", instant=("brick",), recurring=(1, 0, 0))
    build_three(game)
    game.apply(game.layout.encode_buy(pile("light-3")))
    game.apply(game.layout.encode_buy(pile("multi-1")))
    assert game.phase == Phase.SLOT
    L = game.layout
    assert list(game.legal_actions()) == [L.encode_slot(i) for i in range(4)]
    game.apply(L.encode_slot(2))
    assert game.phase == Phase.SLOT                        # the second card asks again
    game.apply(L.encode_slot(2))
    p = game.players[0]
    assert p.slots[2] == [old[2], c1, c2]
    tops = [game.data.cards[slot[-1]].recurring for slot in p.slots]
    rec = [1 + sum(t[0] for t in tops), 1 + sum(t[1] for t in tops), sum(t[2] for t in tops)]
    # supply after building is empty; + instant (1 arch, 1 brick) + board + top cards
    assert p.supply == Supply(1 + rec[0], 1 + rec[1], rec[2])
    # At the end every card on the board counts, the covered ones too.
    assert game.bananas(0)["cards"] == sum(game.data.cards[c].bananas for c in old + [c1, c2])


# ===================================================================== 7. bonus card
FIVE_STACK = "l l l b1 l l b3 l l l"   # see test_rules_building: a support stack of 5 at (12, 7)


def five_stack_turn(**kw) -> Game:
    game = scenario_game(FIVE_STACK, origin=(3, 7), supply=(3, 5, 1), **kw)
    build(game, (3, 7), shape(game, "E", base=1, turns="SS", rise=1))
    return game


def test_bonus_for_a_stack_of_five_with_a_column_counted_as_three():
    game = five_stack_turn()
    assert game.turn.max_stack == 5
    game.apply(game.layout.buy_end)
    assert game.players[0].bonus_cards == 1 and game.bonus_left == 13
    assert game.bananas(0)["bonus"] == 4


def test_no_bonus_when_the_fourteen_are_gone():
    game = scenario_game(FIVE_STACK, origin=(3, 7), supply=(3, 5, 1))
    game.bonus_left = 0
    build(game, (3, 7), shape(game, "E", base=1, turns="SS", rise=1))
    game.apply(game.layout.buy_end)
    assert game.players[0].bonus_cards == 0 and game.bonus_left == 0


def test_arches_do_not_count_towards_the_bonus_stack():
    # Base 3, arch 1 (level 3) lands on bare ground at (12, 7) on 3 bricks, 1 brick of rise on
    # its end knob, arch 2 (level 5) lands on an old stack of 5 at (15, 7). At (12, 7) the
    # palace is 3 bricks + an arch + 1 brick = 5 high, but only 3 bricks are in one stack.
    game = scenario_game("l l l l l l b5", origin=(9, 7), supply=(2, 7, 0))
    build(game, (9, 7), shape(game, "E", base=3, turns="S", rise=1))
    assert token(game, 12, 7) == "A6"
    assert game.turn.max_stack == 3
    game.apply(game.layout.buy_end)
    assert game.players[0].bonus_cards == 0


def test_at_most_one_bonus_card_per_turn():
    # Four arches, base 3, rise 1 (levels 3, 5, 7, 9); arch 1 lands on an old stack of 3, the
    # others on bare ground: support stacks of 5, 7 and 9 bricks.
    game = scenario_game("l l l b3", origin=(0, 7), supply=(4, 30, 0))
    build(game, (0, 7), shape(game, "E", base=3, turns="SSS", rise=1))
    new_stacks = [e["units"] for e in game.palace.elements if e["kind"] == "stack" and e["turn"] == 1]
    assert sorted(u for u in new_stacks if u >= 5) == [5, 7, 9] and game.turn.max_stack == 9
    pass_turn(game)
    assert game.players[0].bonus_cards == 1 and game.bonus_left == 13


# ===================================================================== 8a. the Monkey
# A gold anchor at (9, 7), one arch onto an old brick; an old arch at (20..23, 3) with the
# monkey on its east end, the Monkey trophy held by seat 2 (index 1).
def monkey_turn(**kw) -> Game:
    game = scenario_game("g l l b1", origin=(9, 7), supply=(3, 3, 0), **kw)
    draw_palace(game.palace, "A1 m1 m1 @1", (20, 3))
    game.holders["monkey"] = 1
    begin_turn(game)
    build(game, (9, 7), shape(game, "E", base=1))
    game.apply(game.layout.buy_end)
    return game


def test_gold_decoration_takes_the_monkey_trophy_and_moves_the_monkey():
    game = monkey_turn()
    assert game.phase == Phase.MONKEY and game.holders["monkey"] == 0
    L = game.layout
    legal = set(game.legal_actions())
    assert legal == {L.encode_cell(20, 3), L.encode_cell(9, 7), L.monkey_stay}   # open arch ends, or stay
    assert "holds an arch's middle knob" in game.explain(L.encode_cell(21, 3))
    game.apply(L.encode_cell(20, 3))
    assert token(game, 20, 3) == "@1" and token(game, 23, 3) == "A1"
    assert game.bananas(0)["trophies"] == 2 and game.bananas(1)["trophies"] == 0
    assert game.current == 1


def test_the_monkey_may_stay_and_the_trophy_is_taken_anyway():
    game = monkey_turn()
    game.apply(game.layout.monkey_stay)
    assert token(game, 23, 3) == "@1" and game.holders["monkey"] == 0


def test_mandatory_monkey_move_forbids_staying():
    game = monkey_turn(monkey_move="mandatory")
    L = game.layout
    assert not game.legal_mask()[L.monkey_stay]
    assert "must move" in game.explain(L.monkey_stay)
    with pytest.raises(IllegalActionError):
        game.apply(L.monkey_stay)


def test_nobody_can_build_on_the_monkey():
    game = monkey_turn()
    game.apply(game.layout.encode_cell(9, 7))              # the monkey on the new staircase's end
    assert game.current == 1 and token(game, 9, 7) == "@2"
    # Seat 2 cannot stand a far leg on it: a one-arch staircase from (9, 10) north lands there.
    plan = game.palace.check_staircase((9, 10), game.data.shapes[shape(game, "N", base=2)],
                                       game.player.supply)
    assert not plan.legal and "the monkey" in plan.reason and "rule D" in plan.reason


def test_a_non_gold_decoration_leaves_the_monkey_alone():
    game = three_arch_turn()
    game.holders["monkey"] = 1
    build_three(game)
    game.apply(game.layout.buy_end)
    assert game.holders["monkey"] == 1 and game.current == 1


# ===================================================================== 8b. the Butterfly
def butterfly_turn(other: str, **kw) -> Game:
    """A light-green one-arch staircase onto an old brick: its decoration top is 3."""
    game = scenario_game("l l l b1", origin=(9, 7), supply=(3, 3, 0), butterfly=True, **kw)
    draw_palace(game.palace, other, (20, 3))
    game.palace.animals[Animal.BUTTERFLY] = 3 * 32 + 20     # on the old decoration
    game.holders["butterfly"] = 1
    begin_turn(game)
    build(game, (9, 7), shape(game, "E", base=1))
    while game.current == 0:
        game.apply(game.layout.buy_end)
    return game


def test_butterfly_goes_on_a_strictly_highest_decoration_and_the_trophy_moves():
    game = butterfly_turn("D2")
    assert token(game, 12, 7) == "Y3" and token(game, 20, 3) == "D2"
    assert game.holders["butterfly"] == 0 and game.bananas(0)["trophies"] == 2


def test_butterfly_stays_when_the_new_decoration_is_only_level_with_the_highest():
    game = butterfly_turn("D3")
    assert token(game, 12, 7) == "L3" and token(game, 20, 3) == "Y3"
    assert game.holders["butterfly"] == 1


def test_butterfly_highest_of_its_colour_reading():
    game = butterfly_turn("D5", butterfly_rule="highest_of_colour")
    assert token(game, 12, 7) == "Y3" and game.holders["butterfly"] == 0
    game = butterfly_turn("D5")                             # default: highest of all colours
    assert game.holders["butterfly"] == 1


# ===================================================================== 8c. the Frog
def frog_turn(**kw) -> Game:
    # Two arches east from (9, 7): arch 1 (level 1) onto an old brick at (12, 7), arch 2 (level 2)
    # onto 2 new bricks at (15, 7). Open end knobs of the new staircase: (9, 7) at 2, (12, 7) at 3.
    game = scenario_game("l l l b1 l l l", origin=(9, 7), supply=(2, 3, 0), frog=True, **kw)
    build(game, (9, 7), shape(game, "E", base=1, turns="S"))
    game.apply(game.layout.buy_end)
    return game


def test_taking_the_frog_gives_a_column_and_puts_the_frog_on_the_lowest_open_end():
    game = frog_turn()
    assert game.phase == Phase.FROG
    L = game.layout
    assert list(game.legal_actions()) == [L.frog_take, L.frog_decline]
    columns = game.tray.columns
    game.apply(L.frog_take)
    assert game.holders["frog"] == 0
    assert game.players[0].supply.columns == 1 and game.tray.columns == columns - 1
    assert token(game, 9, 7) == "F2" and token(game, 12, 7) == "A3"
    assert game.bananas(0)["trophies"] == -3


def test_declining_the_frog():
    game = frog_turn()
    game.apply(game.layout.frog_decline)
    assert game.holders["frog"] == -1 and game.palace.animals[Animal.FROG] == -1


def test_taking_the_frog_with_no_column_left_does_not_trigger_the_end():
    game = scenario_game("l l l b1 l l l", origin=(9, 7), supply=(2, 3, 0), frog=True, tray=(40, 40, 0))
    build(game, (9, 7), shape(game, "E", base=1, turns="S"))
    game.apply(game.layout.buy_end)
    game.apply(game.layout.frog_take)
    assert game.holders["frog"] == 0 and game.players[0].supply.columns == 0
    assert not game.end_triggered and game.bananas(0)["trophies"] == -3


def test_the_frogs_last_column_does_not_trigger_the_end_even_in_the_last_taken_reading():
    game = scenario_game("l l l b1 l l l", origin=(9, 7), supply=(2, 3, 0), frog=True,
                         tray=(40, 40, 1), end_trigger="last_taken")
    build(game, (9, 7), shape(game, "E", base=1, turns="S"))
    game.apply(game.layout.buy_end)
    game.apply(game.layout.frog_take)
    assert game.tray.columns == 0 and game.players[0].supply.columns == 1
    assert not game.end_triggered


def test_the_frog_is_not_offered_to_its_holder():
    game = scenario_game("l l l b1 l l l", origin=(9, 7), supply=(2, 3, 0), frog=True)
    game.holders["frog"] = 0
    build(game, (9, 7), shape(game, "E", base=1, turns="S"))
    game.apply(game.layout.buy_end)
    assert game.current == 1


def test_the_frog_skips_an_end_the_monkey_was_just_put_on():
    game = scenario_game("g l l b1 l l l", origin=(9, 7), supply=(2, 3, 0), frog=True)
    build(game, (9, 7), shape(game, "E", base=1, turns="S"))
    game.apply(game.layout.buy_end)
    game.apply(game.layout.encode_cell(9, 7))             # the monkey on the lowest end
    game.apply(game.layout.frog_take)
    assert token(game, 9, 7) == "@2" and token(game, 12, 7) == "F3"


# ===================================================================== no legal staircase
def test_a_player_who_cannot_attach_takes_only_the_recurring_supply():
    game = scenario_game("l l l b1", origin=(9, 7), supply=(0, 0, 0), seat=1)
    card = put_on_top(game, "light-3", recurring=(0, 2, 0))
    game.piles[pile("light-3")].remove(card)
    game.players[1].slots = [[card], [], [], []]
    start_turn(game)
    assert game.players[1].supply == Supply(1, 1 + 2, 0)   # board + top card, nothing else
    assert game.players[1].bonus_cards == 0
    assert game.current == 0 and game.round == 2 and game.phase == Phase.ANCHOR


# ===================================================================== end of the game
def test_a_shortfall_triggers_the_end_and_the_round_is_finished():
    game = three_arch_turn(players=3, tray=(0, 40, 16))
    build_three(game)
    game.apply(game.layout.buy_end)
    # The board's recurring arch could not be given: the end is triggered, the player gets the rest.
    assert game.end_triggered and "arches" in game.end_reason
    assert game.players[0].supply == Supply(0, 1, 0)
    assert not game.game_over and game.current == 1
    pass_turn(game)                                          # seat 2
    assert not game.game_over and game.current == 2
    pass_turn(game)                                          # seat 3 ends the round
    assert game.game_over and game.phase == Phase.GAME_OVER
    assert game.explain(game.layout.buy_end) == "the game is over"


def test_the_last_seat_triggering_the_end_ends_the_game_at_once():
    game = three_arch_turn(seat=1, tray=(0, 40, 16))
    build_three(game)
    game.apply(game.layout.buy_end)
    assert game.game_over


def test_taking_exactly_the_last_arch_is_not_a_shortfall():
    game = three_arch_turn(tray=(1, 40, 16))
    build_three(game)
    game.apply(game.layout.buy_end)
    assert game.tray.arches == 0 and not game.end_triggered


def test_taking_the_last_arch_triggers_the_end_in_the_last_taken_reading():
    game = three_arch_turn(tray=(1, 40, 16), end_trigger="last_taken")
    build_three(game)
    game.apply(game.layout.buy_end)
    assert game.tray.arches == 0 and game.end_triggered


def _scores(game: Game, bonus: list[int], monkey: int) -> None:
    for p, b in zip(game.players, bonus):
        p.slots = [[], [], [], []]
        p.bonus_cards = b
    game.holders = {"monkey": monkey, "butterfly": -1, "frog": -1}


def test_a_tie_goes_to_the_monkey_trophy_holder():
    game = Game.new(players=3)
    # seat 1: 2 bonus cards = 8; seat 2: 1 bonus card + the card below (2) + the Monkey (2) = 8
    _scores(game, [2, 1, 0], monkey=1)
    card = next(c for c in card_ids(game, "multi-2") if game.data.cards[c].bananas == 2)
    game.players[1].slots[0] = [card]
    assert game.scores() == [8, 8, 0]
    assert game.winners() == [1]


def test_a_tie_without_the_monkey_is_a_shared_win():
    game = Game.new(players=3)
    _scores(game, [2, 2, 1], monkey=2)                     # the Monkey holder is not among the tied
    assert game.scores() == [8, 8, 6]
    assert game.winners() == [0, 1]
