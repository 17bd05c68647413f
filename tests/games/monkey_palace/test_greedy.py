"""The greedy agent: its choices in scripted positions (reference engine), and the same
choices on the JAX engine at every decision of games played on both engines in lockstep."""

from __future__ import annotations

import os

import jax
import numpy as np
import pytest
from scenario import begin_turn, build, pile, put_on_top, scenario_game, shape

from monkey_env import Game, Phase
from monkey_env.agents.registry import make_agent
from monkey_env.monkey_palace.agents.greedy import GreedyAgent, action_scores, batch_scores, greedy_choice, staircase_value
from monkey_env.monkey_palace.apps.play_games import play_batch
from monkey_env.monkey_palace.game_data import load_game_data
from monkey_env.monkey_palace.jaxgame import JaxGame
from monkey_env.monkey_palace.jaxgame.parity import game_settings
from monkey_env.monkey_palace.options import GameOptions
from monkey_env.monkey_palace.text_view import draw_palace

GREEDY = GreedyAgent()


def greedy(game: Game) -> int:
    return GREEDY.act(game, game.legal_mask())


def cell(x: int, y: int) -> int:
    return y * 32 + x


# ===================================================================== anchor and shape
# One old brick at (10, 10) and one arch with a base of 1 brick: the only staircases are the
# four single arches whose far leg lands on the brick, from (10, 7), (7, 10), (13, 10), (10, 13).
def one_arch_game(ground: str = "l") -> Game:
    return scenario_game(f"b1 l l {ground}", origin=(10, 10), supply=(1, 1, 0))


def test_equal_staircases_go_to_the_lowest_anchor_index():
    game = one_arch_game()
    anchors = {int(a) for a in np.flatnonzero(game.legal_mask()[:1024])}
    assert anchors == {cell(10, 7), cell(7, 10), cell(13, 10), cell(10, 13)}
    assert greedy(game) == game.layout.encode_cell(10, 7)


def test_a_gold_anchor_wins_the_monkey_trophy():
    game = one_arch_game("g")
    gold = staircase_value(game, cell(13, 10), shape(game, "W", base=1))
    light = staircase_value(game, cell(10, 7), shape(game, "S", base=1))
    assert gold - light == 256 * game.data.tray.trophies.monkey  # same credits, same cards
    game.holders["monkey"] = 0                                     # already ours: worth nothing more
    assert staircase_value(game, cell(13, 10), shape(game, "W", base=1)) == light
    game.holders["monkey"] = 1
    game.apply(greedy(game))
    assert game.turn.anchor == cell(13, 10)


THREE_ARCHES = "l l l l l l b1"   # three arches east from (5, 7), decoration top 4 (test_turn_steps)


def three_arch_game(extra: str) -> Game:
    game = scenario_game(THREE_ARCHES, origin=(5, 7), supply=(3, 2, 0))
    draw_palace(game.palace, extra, (20, 20))
    put_on_top(game, "multi-1", bananas=1)
    put_on_top(game, "multi-2", bananas=2)
    put_on_top(game, "light-3", bananas=2)
    put_on_top(game, "light-4", bananas=4)
    begin_turn(game)
    return game


def test_the_value_counts_the_cards_the_credits_buy_and_the_decoration_height():
    three = lambda game: staircase_value(game, cell(5, 7), shape(game, "E", base=0, turns="SS"))
    # 3 arches + the highest light decoration = 4 credits: light-4 (4 bananas).
    assert three(three_arch_game("L3")) == 256 * 4 + 4
    # Level with an older light decoration: 3 credits: multi-2 (2 bananas, cheaper than
    # light-3's 2), then multi-1 (1).
    assert three(three_arch_game("L4")) == 256 * 3 + 4


def test_the_shape_decision_takes_the_staircase_that_made_the_anchor_best():
    game = three_arch_game("L3")
    game.apply(greedy(game))
    assert game.phase == Phase.SHAPE
    shapes = np.flatnonzero(game.build_matrix()[:, game.turn.anchor])
    values = {s: staircase_value(game, game.turn.anchor, int(s)) for s in shapes}
    best = max(values.values())
    chosen = greedy(game) - game.layout.shape
    assert values[chosen] == best and chosen == min(s for s, v in values.items() if v == best)
    # No anchor had a better staircase.
    assert best == max(staircase_value(game, int(a), int(s)) for s, a in np.argwhere(game.build_matrix()))


FIVE_STACK = "l l l b1 l l b3 l l l"   # a support stack of 5 at (12, 7) (test_turn_steps)


def test_a_stack_reaching_the_threshold_brings_the_bonus_card():
    game = scenario_game(FIVE_STACK, origin=(3, 7), supply=(3, 5, 1))
    five = shape(game, "E", base=1, turns="SS", rise=1)
    with_bonus = staircase_value(game, cell(3, 7), five)
    game.bonus_left = 0
    assert with_bonus - staircase_value(game, cell(3, 7), five) == 256 * game.data.tray.bonus.points


# ===================================================================== the other decisions
def test_buying_takes_the_most_bananas_then_the_cheaper_and_stops_when_nothing_is_affordable():
    game = three_arch_game("L4")                  # 3 credits after the three arches
    build(game, (5, 7), shape(game, "E", base=0, turns="SS"))
    assert game.turn.credits == 3
    L = game.layout
    assert greedy(game) == L.encode_buy(pile("multi-2"))         # 2 bananas for 2, not light-3's 2 for 3
    game.apply(greedy(game))
    assert greedy(game) == L.encode_buy(pile("multi-1"))
    game.apply(greedy(game))
    assert game.phase != Phase.BUY or greedy(game) == L.buy_end


def test_arch_or_brick_takes_an_arch_unless_arches_outnumber_bricks():
    game = three_arch_game("L3")
    put_on_top(game, "light-3", instant=("arch_or_brick",), recurring=(1, 1, 0))
    build(game, (5, 7), shape(game, "E", base=0, turns="SS"))
    L = game.layout
    game.apply(L.encode_buy(pile("light-3")))
    game.apply(L.buy_end)
    assert game.phase == Phase.INSTANT and game.player.supply.arches == game.player.supply.bricks == 0
    assert greedy(game) == L.instant_arch
    game.player.supply.arches = 1
    assert greedy(game) == L.instant_brick


def test_a_full_board_covers_the_card_with_the_least_recurring_supply():
    game = three_arch_game("L3")
    dark5 = game.piles[pile("dark-5")]
    old = [47, 48, 50, 49]                         # recurring (1,1,0), (0,1,0), (0,0,0), (1,0,0)
    assert [game.data.cards[c].pile for c in old] == [pile("dark-5")] * 4
    for c in old:
        dark5.remove(c)
    game.players[0].slots = [[c] for c in old]
    build(game, (5, 7), shape(game, "E", base=0, turns="SS"))
    game.apply(game.layout.encode_buy(pile("light-4")))
    while game.phase == Phase.INSTANT:             # the card's arch-or-brick icon
        game.apply(greedy(game))
    assert game.phase == Phase.SLOT
    assert greedy(game) == game.layout.encode_slot(2)


def monkey_game(**options) -> Game:
    game = scenario_game("g l l b1", origin=(9, 7), supply=(3, 3, 0), **options)
    draw_palace(game.palace, "A1 m1 m1 @1", (20, 3))
    begin_turn(game)
    build(game, (9, 7), shape(game, "E", base=1))
    game.apply(game.layout.buy_end)
    assert game.phase == Phase.MONKEY
    return game


def test_the_monkey_stays_or_goes_to_the_lowest_open_arch_end():
    assert greedy(monkey_game()) == monkey_game().layout.monkey_stay
    game = monkey_game(monkey_move="mandatory")
    assert greedy(game) == game.layout.encode_cell(20, 3)     # (20, 3) before (9, 7)


def test_the_frog_is_declined():
    game = scenario_game("l l l b1 l l l", origin=(9, 7), supply=(2, 3, 0), frog=True)
    build(game, (9, 7), shape(game, "E", base=1, turns="S"))
    game.apply(game.layout.buy_end)
    assert game.phase == Phase.FROG
    assert greedy(game) == game.layout.frog_decline


def test_registered_by_name():
    assert isinstance(make_agent("greedy", seed=3), GreedyAgent)


# ===================================================================== the JAX engine
@pytest.fixture(scope="module")
def jg():
    return JaxGame()


def lockstep(jg: JaxGame, first: int, batch: int, seed: int, build_scores: bool = False) -> int:
    """Play `batch` games on both engines with the same deal (settings cycled over maps, player
    counts and options): the first seat plays greedy, the others random. At every decision of every
    seat the greedy choice of both engines must be the same; with ``build_scores``, also greedy's
    score of every legal action at every anchor and build decision (the PPO's inputs and the
    search's prior read them all, not only the best). Returns the decisions compared."""
    settings = [game_settings(first + i) for i in range(batch)]
    params = jax.tree_util.tree_map(lambda *xs: jax.numpy.stack(xs), *[jg.params(**st) for st in settings])
    states = jg.batch_init(jax.random.split(jax.random.PRNGKey(seed), batch), params)
    host = jax.device_get(states)
    data = {m: load_game_data(m) for m in {st["map"] for st in settings}}
    games = [Game.new(data=data[st["map"]], pile_orders=jg.pile_orders(jax.tree_util.tree_map(lambda x, i=i: x[i], host)),
                      build_action=jg.build_action, **st) for i, st in enumerate(settings)]
    rng = np.random.default_rng(seed)
    compared = 0
    while not all(g.game_over for g in games):
        masks = jg.batch_legal_mask(states)
        chosen = np.asarray(GREEDY.act_batch(jg, states, masks, jax.random.PRNGKey(0)))
        if build_scores:   # the policy prunes more than the scores may (choice_only): both must choose alike
            scores = batch_scores(jg)(states, masks)
            assert np.array_equal(np.asarray(greedy_choice(scores, masks)), chosen), "the scores and the policy disagree"
            scores = np.asarray(scores)
        masks = np.asarray(masks)
        actions = np.zeros(batch, np.int32)
        for i, g in enumerate(games):
            if g.game_over:
                continue
            mask = g.legal_mask()
            assert np.array_equal(mask, masks[i]), f"game {first + i}: the engines disagree on the legal actions"
            ref = GREEDY.act(g, mask)
            if build_scores and g.phase in (Phase.ANCHOR, Phase.SHAPE):
                assert np.array_equal(scores[i][mask], action_scores(g)[mask]), \
                    f"game {first + i}, decision {len(g.history)} ({g.phase.name}): greedy's scores differ"
            assert chosen[i] == ref, (f"game {first + i} {settings[i]}, decision {len(g.history)} "
                                      f"(phase {g.phase.name}): reference {ref}, JAX {chosen[i]}")
            actions[i] = ref if g.current == 0 else rng.choice(np.flatnonzero(mask))
            g.apply(int(actions[i]))
            compared += 1
        states = jg.batch_step(states, actions)
    return compared


BATCH = 16  # one batch size for both tests: the engine and the agent compile once


def test_the_jax_greedy_makes_the_reference_choice_at_every_decision(jg):
    games = int(os.environ.get("GREEDY_LOCKSTEP_GAMES", BATCH))  # more for a longer check
    for first in range(0, games, BATCH):
        assert lockstep(jg, first=first, batch=BATCH, seed=11 + first) > BATCH * 50


def test_the_jax_greedy_makes_the_reference_choice_on_the_complete_action():
    """The complete build action: the batched greedy walks every legal staircase
    (agents/complete_values.py) and must value every legal anchor and arch step as the reference
    does (its pruning by a bound must never change a value), and so take the same anchor, arches
    and finish, at every decision (settings cycled over maps, player counts, options)."""
    games = int(os.environ.get("GREEDY_LOCKSTEP_GAMES", COMPLETE_BATCH))
    complete = JaxGame(GameOptions(build_action="complete"))
    for first in range(0, games, COMPLETE_BATCH):
        assert lockstep(complete, first=100 + first, batch=COMPLETE_BATCH, seed=7 + first,
                        build_scores=True) > COMPLETE_BATCH * 50


COMPLETE_BATCH = 8


def test_greedy_beats_random_on_the_jax_engine(jg):
    seeds = np.arange(BATCH)
    first = play_batch(jg, [GREEDY, make_agent("random", 1)], players=2, map=1, seeds=seeds)
    second = play_batch(jg, [make_agent("random", 2), GREEDY], players=2, map=1, seeds=seeds)
    wins = (first.scores[:, 0] > first.scores[:, 1]).sum() + (second.scores[:, 1] > second.scores[:, 0]).sum()
    assert not first.illegal.any() and not second.illegal.any()
    assert wins >= 2 * BATCH - 3
