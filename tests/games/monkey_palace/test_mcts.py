"""The search agent (agents/mcts.py): the value backup on a hand-made 3-player tree, no peeking
at the hidden pile order, legal actions only, act and act_batch alike, and a last-turn position
where the search finds the winning staircase that greedy's one-turn rule misses.

One compiled search serves every engine test (the module's AGENT: few simulations, one game
at a time); the tree test runs mctx on a toy model and compiles in seconds."""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import jax
import jax.numpy as jnp
import mctx
import numpy as np
import pytest

from monkey_env.agents.mcts import (
    MASKED_LOGIT,
    MCTSAgent,
    MCTSSettings,
    backup_terms,
    play_opponents,
    policy_backup_terms,
    rollout_utility,
    root_utility,
)
from monkey_env.agents.random_agent import RandomAgent
from monkey_env.agents.registry import make_agent, split_agent_names
from monkey_env.apps.batch_play import game_keys
from monkey_env.monkey_palace.agents.greedy import GreedyAgent
from monkey_env.monkey_palace.apps.play_games import play_batch
from monkey_env.monkey_palace.apps.search import greedy_prior_value, redraw_hidden_piles
from monkey_env.monkey_palace.jaxgame.env import jax_game_for
from monkey_env.monkey_palace.jaxgame.from_reference import jax_state_from_game
from monkey_env.monkey_palace.options import GameOptions

# The shipped prior (the PPO checkpoint), a small tree: the one search program of the engine tests.
SETTINGS = MCTSSettings(sims=16, det=2, chunk=1, capacity=16)
FAST = replace(SETTINGS, sims=4)   # the same compiled program (the simulation count is traced), for whole games


OPTIONS = GameOptions(players=2, map=1)


@pytest.fixture(scope="module")
def jg():
    return jax_game_for(OPTIONS)


@pytest.fixture(scope="module")
def params(jg):
    """This module's 2-player games. Not ``jg.default_params``: jax_game_for shares one engine
    for every player count and map, whose defaults are those of the options it was first made
    with (in a test worker, maybe another file's 4-player games: then the first search compiled
    here was the 3-4 player one, and playing 2-player games compiled a second)."""
    return jg.params(OPTIONS)


@pytest.fixture(scope="module")
def agent():
    return MCTSAgent(SETTINGS, seed=3)


def batch_of(state):
    return jax.tree_util.tree_map(lambda x: jnp.asarray(x)[None], state)


# ===================================================================== the value backup
# A hand-made tree of 3 players, seat 0 searching. Each row: node, seat to move, and per
# action (child, each seat's points on the edge); a child of None is not an action; -1 ends.
#
#   n0 seat 0 ─a0→ n1 seat 0 (same turn) ──→ n3 seat 1 ─a0→ end: seat 1 +6   (u = 3 - 3 = 0)
#      │           edge +0                   edge seat 0 +3 ─a1→ end: seat 2 +2   (u = 3 - 1 = 2)
#      └─a1→ n2 seat 1 ──→ n4 seat 2 ─a0→ end: seat 0 +4   (u = -1 + 4 = 3)
#                 edge seat 1 +2     ─a1→ end: seat 2 +4   (u = -1 - 2 = -3)
#
# u = seat 0's points minus the mean of the others'. The others play against seat 0 (the
# paranoid reading): at n3 seat 1 takes a0 (u 0), at n4 seat 2 takes a1 (u -3), so seat 0
# takes a0 at the root.
TREE = {  # node: (seat, [(child, points of seats 0..3) per action])
    0: (0, [(1, (0, 0, 0, 0)), (2, (0, 0, 0, 0))]),
    1: (0, [(3, (3, 0, 0, 0)), None]),
    2: (1, [(4, (0, 2, 0, 0)), None]),
    3: (1, [(-1, (0, 6, 0, 0)), (-1, (0, 0, 2, 0))]),
    4: (2, [(-1, (4, 0, 0, 0)), (-1, (0, 0, 4, 0))]),
}
END = 5  # the node id of a finished game


def toy_model():
    n = END + 1
    child = np.full((n, 2), END, np.int32)
    legal = np.zeros((n, 2), bool)
    points = np.zeros((n, 2, 4), np.float32)
    seat = np.zeros(n, np.int32)
    for node, (s, actions) in TREE.items():
        seat[node] = s
        for a, edge in enumerate(actions):
            if edge is not None:
                legal[node, a] = True
                child[node, a] = END if edge[0] < 0 else edge[0]
                points[node, a] = edge[1]
    seat[END] = 0
    return jnp.asarray(child), jnp.asarray(legal), jnp.asarray(points), jnp.asarray(seat)


def test_the_backup_on_a_hand_made_three_player_tree():
    child, legal, points, seat = toy_model()
    players = jnp.asarray([3])
    root_seat = jnp.asarray([0])

    def recurrent_fn(params, key, action, node):
        nxt = child[node, action]
        reward, discount, value = backup_terms(seat[node], seat[nxt], points[node, action], nxt == END,
                                               jnp.zeros(1), root_seat, players)
        logits = jnp.where(legal[nxt], 0.0, MASKED_LOGIT)
        return mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits, value=value), nxt

    root = mctx.RootFnOutput(prior_logits=jnp.zeros((1, 2)), value=jnp.zeros(1), embedding=jnp.zeros(1, jnp.int32))
    out = mctx.gumbel_muzero_policy((), jax.random.PRNGKey(0), root, recurrent_fn, num_simulations=64,
                                    invalid_actions=~legal[:1])
    tree = out.search_tree
    ids = np.asarray(tree.embeddings[0])
    visited = np.asarray(tree.node_visits[0]) > 0
    where = {int(ids[i]): i for i in range(len(ids)) if visited[i]}
    q = lambda node: np.asarray(tree.qvalues(jnp.asarray([where[node]]))[0])

    visits = lambda node: np.asarray(tree.children_visits[0, where[node]])
    # Edges into the end are exact: a node's Q is its mover's side of u (+u for seat 0, -u else).
    for node, expected in ((3, [3.0, 1.0]),     # seat 1: -u of "seat 1 +6" and of "seat 2 +2"
                           (4, [-4.0, 2.0])):   # seat 2: -u of "seat 0 +4" and of "seat 2 +4"
        seen = visits(node) > 0
        assert seen.any()
        np.testing.assert_allclose(q(node)[seen], np.asarray(expected)[seen])
    # The other seats choose against seat 0; seat 0 chooses a0.
    assert visits(3)[0] > visits(3)[1] and visits(4)[1] > visits(4)[0]
    assert int(out.action[0]) == 0
    # The discounts: +1 within seat 0's turn, -1 where the side changes, +1 from seat 1 to seat 2.
    disc = np.asarray(tree.children_discounts[0])
    assert disc[where[0], 0] == 1.0 and disc[where[1], 0] == -1.0 and disc[where[2], 0] == 1.0
    # The root's Q values tend to the paranoid values 0 (a0) and -3 (a1).
    root_q = q(0)
    assert root_q[0] > root_q[1] and root_q[1] < -1.5


def test_the_backup_terms_in_a_two_player_game():
    """With two players the node values are each mover's own zero-sum points: the sign changes
    exactly where the player to move changes, never between two decisions of one turn."""
    rewards = jnp.asarray([[2.0, 0, 0, 0], [0, 5.0, 0, 0], [1.0, 0, 0, 0]])
    mover, nxt = jnp.asarray([0, 1, 0]), jnp.asarray([0, 0, 1])
    reward, discount, value = backup_terms(mover, nxt, rewards, jnp.asarray([False, False, True]),
                                           jnp.asarray([1.5, -2.0, 9.0]), jnp.zeros(3, jnp.int32), jnp.full(3, 2))
    np.testing.assert_allclose(reward, [2.0, 5.0, 1.0])        # each mover's own gain minus the other's
    np.testing.assert_allclose(discount, [1.0, -1.0, 0.0])
    np.testing.assert_allclose(value, [1.5, -2.0, 0.0])
    np.testing.assert_allclose(root_utility(jnp.asarray([[3.0, 1, 2, 9]]), jnp.asarray([0]), jnp.asarray([3])), [1.5])


def test_the_win_bonus_at_the_end_and_another_seats_value_with_three_players():
    """The edge that ends the game adds win_points x (the root seat's share - 1 / players), as
    the PPO's reward does; another seat's value v stands for -u as v x (players - 1): with
    points (r, a, a) u = r - a and that seat's own utility is (a - r) / 2."""
    rewards = jnp.zeros((3, 4)).at[0, 0].set(3.0)
    shares = jnp.asarray([[1.0, 0, 0, 0], [0, 0.5, 0.5, 0], [1.0, 0, 0, 0]])
    mover, nxt = jnp.asarray([0, 1, 0]), jnp.asarray([1, 2, 1])
    terminated = jnp.asarray([True, True, False])
    players = jnp.full(3, 3)
    reward, discount, value = backup_terms(mover, nxt, rewards, terminated, jnp.asarray([0.0, 0.0, -1.5]),
                                           jnp.zeros(3, jnp.int32), players, shares, 6.0)
    np.testing.assert_allclose(reward, [3.0 + 6.0 * (1 - 1 / 3), -6.0 * (0 - 1 / 3), 0.0], rtol=1e-6)
    np.testing.assert_allclose(discount, [0.0, 0.0, -1.0])
    np.testing.assert_allclose(value, [0.0, 0.0, -3.0])        # the node's -u: -(r - a) with a - r = 2 x -1.5


class ToyState(NamedTuple):
    node: jnp.ndarray         # (B,) int32 node of the hand-made tree
    current: jnp.ndarray      # (B,) int32 seat to move
    terminated: jnp.ndarray   # (B,) bool
    rewards: jnp.ndarray      # (B, 4) float32 each seat's points on the last edge


class ToyGame:
    """The hand-made tree as an engine (batch_step, batch_legal_mask), for play_opponents."""

    def __init__(self):
        self.child, self.legal, self.points, self.seat = toy_model()

    def state(self, node, rewards=(0, 0, 0, 0)):
        node = jnp.asarray([node], jnp.int32)
        return ToyState(node, self.seat[node], node == END, jnp.asarray([rewards], jnp.float32))

    def batch_legal_mask(self, st):
        return self.legal[st.node]

    def batch_step(self, st, action):
        nxt = self.child[st.node, action]
        return ToyState(nxt, self.seat[nxt], nxt == END, self.points[st.node, action])


def toy_prior(toy, preferred: int):
    """Logits that prefer action ``preferred`` wherever it is legal; value 0."""
    def prior_value(st):
        logits = jnp.where(toy.legal[st.node], jnp.where(jnp.arange(2) == preferred, 1.0, 0.0), MASKED_LOGIT)
        return logits, jnp.zeros(st.node.shape)
    return prior_value


def test_the_other_seats_play_the_priors_best_action_until_the_searching_seat_moves():
    toy = ToyGame()
    prior = toy_prior(toy, 0)
    start = toy.state(2)                     # seat 0 took a1: seat 1 to move, then seat 2
    st, logits, value, points, played = play_opponents(toy, prior, start, *prior(start), jnp.asarray([0]))
    assert int(played[0]) == 2 and bool(st.terminated[0])           # n2 a0 -> n4 a0 -> the end
    np.testing.assert_allclose(points[0], [4.0, 2.0, 0, 0])         # seat 1's +2, seat 0's +4 at n4's a0
    # A score change read from both states (as a game whose score_change is after - before):
    # each decision's points are read before the state moves on, so they are still counted.
    moved = lambda before, after: jnp.where((after.node != before.node)[:, None], after.rewards, 0.0)
    _, _, _, points, _ = play_opponents(toy, prior, start, *prior(start), jnp.asarray([0]), score_change=moved)
    np.testing.assert_allclose(points[0], [4.0, 2.0, 0, 0])
    mine = toy.state(1)                      # seat 0 still to move: nothing is played
    _, _, _, points, played = play_opponents(toy, prior, mine, *prior(mine), jnp.asarray([0]))
    assert int(played[0]) == 0 and not np.asarray(points).any()


def test_the_policy_opponents_tree_values_the_searching_seats_choices_by_the_models_replies():
    """The tree of the paranoid test with the others playing the prior's favourite (a0 where
    legal): a0 leads to n3, where seat 1 takes a0 (+6: u = 3 - 3 = 0); a1 to n2, n4, where seat 2
    takes a0 and seat 0 gets +4 (u = -1 + 4 = 3). So seat 0 now takes a1 (paranoid: a0)."""
    toy = ToyGame()
    prior = toy_prior(toy, 0)
    players, root_seat = jnp.asarray([3]), jnp.asarray([0])

    def recurrent_fn(params, key, action, node):
        before = ToyState(node, toy.seat[node], node == END, jnp.zeros((1, 4)))
        after = toy.batch_step(before, action)
        stepped = after.rewards                  # seat 0's own edge
        after, logits, value, points, _ = play_opponents(toy, prior, after, *prior(after), root_seat)
        reward, discount, value = policy_backup_terms(stepped, points, after.terminated, after.current, value,
                                                      root_seat, players)
        return mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits, value=value), after.node

    root = mctx.RootFnOutput(prior_logits=jnp.zeros((1, 2)), value=jnp.zeros(1), embedding=jnp.zeros(1, jnp.int32))
    out = mctx.gumbel_muzero_policy((), jax.random.PRNGKey(0), root, recurrent_fn, num_simulations=32,
                                    invalid_actions=~toy.legal[:1])
    q = np.asarray(out.search_tree.qvalues(jnp.asarray([0]))[0])
    np.testing.assert_allclose(q, [0.0, 3.0])    # exact: the opponents' replies are deterministic
    assert int(out.action[0]) == 1
    # Every node of the tree is seat 0's: the discounts are +1 (0 into the end).
    disc = np.asarray(out.search_tree.children_discounts[0])
    assert set(np.unique(disc).tolist()) <= {0.0, 1.0}


def test_a_rollout_reads_a_nodes_value_after_the_priors_replies():
    """rollout_utility from n2 (seat 1 to move, seat 0 searching, 3 players), every seat playing
    a0: n2 a0 gives seat 1 +2, n4 a0 gives seat 0 +4 and ends, seat 0 winning (places 1, 2, 2):
    u = 4 - (2 + 0) / 2 + 6 x (1 - 1/3) = 7. Cut after one decision, at n4 (seat 2 to move,
    value 0.5 by the prior): u = 0 - 2 / 2 - 0.5 x (3 - 1) = -2, the value read as backup_terms
    reads another seat's."""
    toy = ToyGame()
    base = toy_prior(toy, 0)

    def prior(st):
        logits, _ = base(st)
        return logits, jnp.full(st.node.shape, 0.5)

    def read(steps):
        start = toy.state(2)
        return rollout_utility(toy, prior, start, *prior(start), jnp.asarray([0]), steps,
                               lambda before, after: after.rewards,
                               lambda st: jnp.tile(jnp.asarray([[1, 2, 2, 2]]), (st.node.shape[0], 1)),
                               lambda st: jnp.full(st.node.shape, 3), win_points=6.0)

    np.testing.assert_allclose(read(8), [7.0], rtol=1e-6)
    np.testing.assert_allclose(read(1), [-2.0], rtol=1e-6)
    # No decision played: n2 is seat 1's, and its value 0.5 reads as u = -0.5 x 2.
    np.testing.assert_allclose(read(0), [-1.0], rtol=1e-6)


# ===================================================================== settings and names
def test_settings_on_the_agent_name():
    a = make_agent("mcts:sims=64,det=2,depth=8,temp=0", seed=1)
    assert (a.settings.sims, a.settings.det, a.settings.depth, a.settings.temp) == (64, 2, 8, 0.0)
    assert a.name == "mcts:sims=64,det=2,depth=8,temp=0"
    assert make_agent("mcts").settings == MCTSSettings()
    assert split_agent_names("mcts:sims=64,det=2,greedy") == ["mcts:sims=64,det=2", "greedy"]
    assert make_agent("mcts").settings.prior == "ppo" and make_agent("mcts").settings.gumbel == 0.0
    b = make_agent("mcts:prior=greedy,gumbel=1")
    assert (b.settings.prior, b.settings.gumbel) == ("greedy", 1.0)
    assert MCTSSettings(prior="greedy", gumbel=1.0).spec() == "mcts:gumbel=1,prior=greedy"
    assert make_agent("mcts:opponents=policy").settings.opponents == "policy"
    assert make_agent("mcts:opponents=tree").name == "mcts:opponents=tree"      # auto is the default
    for bad in ("mcts:sims", "mcts:speed=3", "mcts:sims=0", "mcts:sims=fast", "mcts:prior=oracle", "mcts:gumbel=-1",
                "mcts:opponents=oracle"):
        with pytest.raises(ValueError):
            make_agent(bad)


def test_auto_searches_the_tree_with_two_players_and_the_policys_replies_with_more():
    auto = MCTSAgent(MCTSSettings())
    assert auto.opponents_for([2, 3, 4, 2]).tolist() == ["tree", "policy", "policy", "tree"]
    assert MCTSAgent(MCTSSettings(opponents="tree")).opponents_for([2, 4]).tolist() == ["tree", "tree"]
    assert MCTSAgent(MCTSSettings(opponents="policy")).opponents_for([2, 4]).tolist() == ["policy", "policy"]
    with pytest.raises(ValueError, match="tree or policy"):
        auto.search_for(None, 1)          # a program is compiled for one model, never for "auto"


# ===================================================================== hidden information
def test_the_redraw_keeps_the_tops_and_the_cards_and_ignores_the_hidden_order(jg, params):
    state = jax.tree_util.tree_map(lambda x: x[0], jg.batch_init(game_keys(np.arange(1)), params))
    shuffled = hide_differently(state)
    assert not np.array_equal(np.asarray(state.pile_cards), np.asarray(shuffled.pile_cards))
    key = jax.random.PRNGKey(4)
    a, b = redraw_hidden_piles(state, key), redraw_hidden_piles(shuffled, key)
    np.testing.assert_array_equal(np.asarray(a.pile_cards), np.asarray(b.pile_cards))
    cards, new, length = np.asarray(state.pile_cards), np.asarray(a.pile_cards), np.asarray(state.pile_len)
    for p in range(len(length)):
        n = length[p]
        assert new[p, n - 1] == cards[p, n - 1]                                    # the top stays
        assert sorted(new[p, :n]) == sorted(cards[p, :n])                          # the same cards
    assert not np.array_equal(new, np.asarray(redraw_hidden_piles(state, jax.random.PRNGKey(5)).pile_cards))


def hide_differently(state):
    """The same game with the cards under every pile top in reverse order."""
    cards, length = np.asarray(state.pile_cards).copy(), np.asarray(state.pile_len)
    for p, n in enumerate(length):
        cards[p, :n - 1] = cards[p, :n - 1][::-1]
    return state._replace(pile_cards=jnp.asarray(cards))


def test_states_differing_only_in_hidden_order_get_the_same_action(jg, agent, params):
    states = jg.batch_init(game_keys(np.arange(2)), params)
    masks = np.asarray(jg.batch_legal_mask(states))
    for key in (jax.random.PRNGKey(0), jax.random.PRNGKey(1)):
        a = agent.act_batch(jg, states, masks, key)
        hidden = jax.tree_util.tree_map(lambda x: x, states)
        one = [jax.tree_util.tree_map(lambda x, i=i: x[i], states) for i in range(2)]
        hidden = hidden._replace(pile_cards=jnp.stack([hide_differently(game).pile_cards for game in one]))
        np.testing.assert_array_equal(a, agent.act_batch(jg, hidden, masks, key))


# ===================================================================== legality, determinism, act
def test_the_search_plays_only_legal_actions_and_repeats_with_its_key(jg, agent, params):
    first = jg.batch_init(game_keys(np.arange(2)), params)
    agent.act_batch(jg, first, np.asarray(jg.batch_legal_mask(first)), jax.random.PRNGKey(0))   # its program
    before = set(compiled_searches())
    fast = MCTSAgent(FAST, seed=3)
    r = play_batch(jg, [fast, RandomAgent(0)], players=2, map=1, seeds=np.arange(2), agent_key=7)
    assert not r.illegal.any() and (r.end_kind >= 0).all()
    # fewer simulations, the same compiled program: playing whole games compiled no other search
    # (counted against this test's own start: other tests of the worker may have compiled theirs)
    assert fast.decisions > 0 and before and set(compiled_searches()) == before
    # the same key, the same choices (on the first decisions of two deals and after a few)
    states = jg.batch_init(game_keys(np.arange(2)), params)
    for _ in range(3):
        masks = np.asarray(jg.batch_legal_mask(states))
        key = jax.random.PRNGKey(5)
        a = agent.act_batch(jg, states, masks, key)
        np.testing.assert_array_equal(a, agent.act_batch(jg, states, masks, key))
        assert masks[np.arange(2), a].all()
        states = jg.batch_step(states, jnp.asarray(a))


@pytest.fixture(scope="module", autouse=True)
def _no_searches_of_other_files():
    """compiled_searches counts this module's programs: forget those other test files compiled in
    this process before it (the cache is module-level; test files share a worker's process)."""
    from monkey_env.agents import mcts
    mcts._SEARCHES.clear()


def compiled_searches():
    """The compiled searches of this engine test module (every agent here shares one)."""
    from monkey_env.agents import mcts
    return [k for k in mcts._SEARCHES if k[2] == 1]


def test_act_and_act_batch_agree_for_the_same_key():
    game = last_turn_position()                 # a scenario of the catalogue's shapes: its own engine
    engine = jax_game_for(game.options)
    mask = game.legal_mask()
    one = MCTSAgent(SETTINGS, seed=11)
    chosen = one.act(game, mask)
    assert mask[chosen]
    # The same game in a batch beside another one: its row 0 gets the key the act got.
    state = jax_state_from_game(engine, game)
    other = jax.tree_util.tree_map(lambda x: x[0], engine.batch_init(game_keys(np.arange(1)),
                                                                      engine.params(game.options)))
    states = jax.tree_util.tree_map(lambda a, b: jnp.stack([a, b]), state, other)
    masks = np.stack([mask, np.asarray(engine.legal_action_mask(other))])
    batch_agent = MCTSAgent(SETTINGS, seed=11)
    assert batch_agent.act_batch(engine, states, masks, one.key_for_act(0))[0] == chosen


def test_the_network_free_prior_is_greedy_and_its_value_finite(jg, params):
    """prior=greedy (no checkpoint): its logits' best legal action is greedy's choice (shown
    on the first decisions of two deals: anchors) and its values are finite points."""
    states = jg.batch_init(game_keys(np.arange(2)), params)
    masks = jg.batch_legal_mask(states)
    logits, value = jax.jit(greedy_prior_value(jg))(states)
    assert logits.shape == masks.shape and value.shape == (2,)
    best = np.asarray(jnp.argmax(jnp.where(masks, logits, -jnp.inf), -1))
    np.testing.assert_array_equal(best, np.asarray(GreedyAgent().act_batch(jg, states, masks, None)))
    assert np.isfinite(np.asarray(value)).all()


# ===================================================================== a tactical position
def last_turn_position():
    """On the catalogue (the analysis below is of its shapes): the game's last turn (the end is
    triggered, seat 1 plays last). Seat 0 leads 6 to 1 with the Monkey trophy (2) and a bonus
    card (4). Seat 1's best staircase by greedy's one-turn
    value is the three arches from the dark stud (5, 7): 4 credits buy the dark card of 4
    bananas, 5 to 6, and seat 0 wins. The single arch from the gold stud (23, 20) brings only
    3 by that value (the Monkey trophy, and 2 credits buy a 1-banana card) but takes the trophy
    from seat 0: 4 to 4, and the Monkey's holder wins the tie."""
    from scenario import begin_turn, pile, put_on_top, scenario_game

    from monkey_env.monkey_palace.text_view import draw_palace

    game = scenario_game("d l l l l l b1", origin=(5, 7), supply=(3, 2, 0), seat=1)
    draw_palace(game.palace, "b1 l l g", (20, 20))
    put_on_top(game, "multi-1", bananas=1)
    put_on_top(game, "multi-2", bananas=0)
    put_on_top(game, "light-4", bananas=2)
    put_on_top(game, "light-3", bananas=1)
    put_on_top(game, "dark-4", bananas=4)
    for name in ("gold-3", "gold-4", "gold-5", "multi-6"):   # no gold or dear card to buy
        game.piles[pile(name)] = []
    game.holders["monkey"] = 0
    game.players[0].bonus_cards = 1
    card = game.piles[pile("light-3")].pop(0)
    assert game.data.cards[card].bananas == 1
    game.players[1].slots[0] = [card]
    game.end_triggered = True
    begin_turn(game)
    assert game.scores() == [6, 1]
    return game


def finish_with_greedy(game, first_action: int):
    import copy

    game, greedy = copy.deepcopy(game), GreedyAgent()
    game.apply(first_action)
    while not game.game_over:
        game.apply(greedy.act(game, game.legal_mask()))
    return game


DARK, GOLD = 7 * 32 + 5, 20 * 32 + 23   # the two anchors of last_turn_position


def test_the_search_finds_the_winning_staircase_of_the_last_turn(agent):
    game = last_turn_position()
    greedy_choice = GreedyAgent().act(game, game.legal_mask())
    assert greedy_choice == DARK                                  # greedy's one-turn rule misses it
    assert finish_with_greedy(game, DARK).winners() == [0]
    assert finish_with_greedy(game, GOLD).winners() == [1]
    assert agent.act(game, game.legal_mask()) == GOLD


# ===================================================================== evaluate's timing
def test_evaluate_reports_seconds_per_decision_for_each_agent():
    from monkey_env.apps.evaluate import evaluate

    agents = {"first": RandomAgent(0), "second": RandomAgent(1)}
    report = evaluate(["first", "second"], players=2, map=1, games=2, seed=0, batch=2, agents=agents, progress=False)
    for name in ("first", "second"):
        assert report["seconds_per_decision"][name] > 0
        assert report["decisions"][name] > 1 and report["first_call_seconds"][name] > 0
