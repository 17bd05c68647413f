"""The JAX engine against the reference engine, and under jit and vmap."""

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from monkey_env import Game
from monkey_env.monkey_palace.jaxgame import JaxGame
from monkey_env.monkey_palace.jaxgame.env import jax_game_for
from monkey_env.monkey_palace.jaxgame.parity import differences, host_batch, jax_view, reference_view
from monkey_env.monkey_palace.options import GameOptions

BATCH = 60


@pytest.fixture(scope="module")
def jg():
    return jax_game_for()   # the process's shared engine: compiled once for every test file


# The differential test against the reference runs for every game in tests/test_games_shared.py.


@pytest.fixture(scope="module")
def vstep(jg):
    return jax.jit(jax.vmap(jg.step))


def batch_params(jg, settings):
    return jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[jg.params(**st) for st in settings])


def random_actions(jg, states, rng):
    masks = np.asarray(jg.batch_legal_mask(states))
    return jnp.asarray([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], jnp.int32)


@pytest.fixture(scope="module")
def narrow_jg():
    """The batched step with tiny groups and no automatic steps for the whole batch: every
    game's pending work and automatic steps go through the compaction loop."""
    return JaxGame(group_size=4, settle_steps=0)


@pytest.mark.parametrize("which", ["default", "narrow"])
def test_vmapped_step_matches_batch_step_and_is_pure(jg, narrow_jg, vstep, which):
    """vmap(step) (under jit) and the compacted batch_step give the same states; stepping is pure."""
    batched = jg if which == "default" else narrow_jg
    keys = jax.random.split(jax.random.PRNGKey(3), BATCH)
    settings = [dict(players=2 + i % 3, map=1 + i % 4, frog=i % 2 == 0, butterfly=i % 3 == 0) for i in range(BATCH)]
    a = b = jg.batch_init(keys, batch_params(jg, settings))
    rng = np.random.default_rng(0)
    for _ in range(60):
        acts = random_actions(jg, a, rng)
        a2, b2 = vstep(a, acts), batched.batch_step(b, acts)
        again = batched.batch_step(b, acts)
        for x, y, z in zip(jax.tree_util.tree_leaves(a2), jax.tree_util.tree_leaves(b2), jax.tree_util.tree_leaves(again)):
            assert np.array_equal(np.asarray(x), np.asarray(y))
            assert np.array_equal(np.asarray(z), np.asarray(y))
        a, b = a2, b2


def test_pending_work_groups_take_their_share_of_the_batch_on_a_cpu(jg, narrow_jg):
    """The driver's groups: 4 games for the anchor tables and the bigger tables' masks, a
    sixteenth of the batch for the smallest tables' next-step masks, a quarter for resumed
    automatic steps (never fewer than 4, never more than the batch); an explicit group size
    overrides them all. The default test above plays BATCH games, where resumed steps go 15 at a
    time through the same driver."""
    if jax.default_backend() != "cpu":
        pytest.skip("the shares are a CPU's sizes; other devices take a quarter of the batch")
    assert jg.build_action == "complete"
    sizes = lambda batch: [jg.group_for(batch, w.share) for w in jg.rules.pending_work()]
    assert sizes(1024) == [4, 4, 4, 64, 4, 4, 256]
    assert sizes(275) == [4, 4, 4, 17, 4, 4, 69]
    assert sizes(BATCH) == [4, 4, 4, 4, 4, 4, 15]
    assert sizes(2) == [2] * 7
    assert [narrow_jg.group_for(1024, w.share) for w in narrow_jg.rules.pending_work()] == [4] * 7


def test_illegal_action_ends_only_that_game_with_a_penalty(jg, vstep):
    keys = jax.random.split(jax.random.PRNGKey(0), BATCH)
    s = jg.batch_init(keys)
    masks = np.asarray(jg.batch_legal_mask(s))
    acts = np.array([np.flatnonzero(m)[0] for m in masks], np.int32)
    acts[0] = np.flatnonzero(~masks[0])[0]   # an illegal action in game 0
    acts[1] = jg.num_actions + 5              # out of range in game 1
    for after in (vstep(s, jnp.asarray(acts)), jg.batch_step(s, jnp.asarray(acts))):
        for g in (0, 1):
            assert bool(after.terminated[g]) and bool(after.illegal[g])
            assert float(after.rewards[g, int(s.current[g])]) == jg.illegal_penalty
            assert not np.asarray(jg.batch_legal_mask(after))[g].any()
        assert not np.asarray(after.terminated[2:]).any() and not np.asarray(after.illegal[2:]).any()


def test_rewards_sum_to_the_final_score_and_finished_games_stay_put(jg):
    keys = jax.random.split(jax.random.PRNGKey(11), BATCH)
    s = jg.batch_init(keys)
    total = np.zeros((BATCH, 4))
    rng = np.random.default_rng(1)
    for _ in range(400):
        if bool(s.terminated.all()):
            break
        s = jg.batch_step(s, random_actions(jg, s, rng))
        total += np.asarray(s.rewards)
    assert bool(s.terminated.all())
    final = np.asarray(jg.batch_scores(s))
    # The starting state scores 0 for everyone, so the rewards add up to the final score.
    assert np.array_equal(total, final)
    assert final.max() > 0
    again = jg.batch_step(s, jnp.zeros(BATCH, jnp.int32))
    for name in s._fields:
        if name != "rewards":
            assert np.array_equal(np.asarray(getattr(again, name)), np.asarray(getattr(s, name))), name
    assert not np.asarray(again.rewards).any()


def test_no_retracing(jg):
    """The batched step compiles once per batch size, whatever the games' maps, players and options."""
    keys = jax.random.split(jax.random.PRNGKey(5), BATCH)
    s = jg.batch_init(keys, jg.params(players=4, map=3, butterfly=True))
    jg.batch_step(s, jnp.zeros(BATCH, jnp.int32))
    sizes = (jg._batch_act._cache_size(), jg._batch_resolve._cache_size())
    s2 = jg.batch_init(keys, jg.params(players=2, map=2, frog=True, end_trigger="last_taken"))
    rng = np.random.default_rng(2)
    for _ in range(3):
        s2 = jg.batch_step(s2, random_actions(jg, s2, rng))
    assert (jg._batch_act._cache_size(), jg._batch_resolve._cache_size()) == sizes


def test_golden_record_replays_to_the_stored_state(jg):
    """A recorded game (tests/games/monkey_palace/data/golden_game.json: deal, actions and the final state) replays
    to the stored state on both engines."""
    golden = json.loads((Path(__file__).parent / "data" / "golden_game.json").read_text())
    st = golden["settings"]
    game = Game.new(pile_orders=golden["pile_orders"], build_action="catalogue", **st)   # recorded then
    for a in golden["actions"]:
        game.apply(a)
    assert game.game_over
    stored = {k: np.asarray(v) for k, v in golden["final"].items()}
    ref = reference_view(game)
    assert differences({k: ref[k] for k in stored}, stored) == []
    # The JAX engine: the same deal in every lane of a batch, the same actions.
    jg = jax_game_for(GameOptions(build_action="catalogue"))
    keys = jnp.stack([jax.random.PRNGKey(golden["jax_seed"])] * BATCH)
    s = jg.batch_init(keys, batch_params(jg, [st] * BATCH))
    assert jg.pile_orders(jax.tree_util.tree_map(lambda x: x[0], s)) == golden["pile_orders"]
    for a in golden["actions"]:
        s = jg.batch_step(s, jnp.full(BATCH, a, jnp.int32))
    view = jax_view(jg, host_batch(jg, s), 0)
    assert bool(s.terminated.all())
    assert differences({k: view[k] for k in stored}, stored) == []


def test_observation_is_public_and_seat_relative(jg):
    keys = jax.random.split(jax.random.PRNGKey(8), BATCH)
    s = jg.batch_init(keys, jg.params(players=3, map=2))
    rng = np.random.default_rng(3)
    for _ in range(25):
        s = jg.batch_step(s, random_actions(jg, s, rng))
    one = jax.tree_util.tree_map(lambda x: x[0], s)
    obs = [jg.observe(one, p) for p in range(3)]
    for o in obs:
        assert o["planes"].shape == (22, 32, 32) and o["planes"].dtype == jnp.float32   # the complete action
        assert o["vector"].dtype == jnp.float32 and bool(jnp.isfinite(o["vector"]).all())
    # The palace is the same for everyone; the vector is written from each seat's point of view.
    assert np.array_equal(np.asarray(obs[0]["planes"][:17]), np.asarray(obs[1]["planes"][:17]))
    assert not np.array_equal(np.asarray(obs[0]["vector"]), np.asarray(obs[1]["vector"]))
    # Hidden information stays hidden: two deals that differ only below the piles' tops look the same.
    hidden = one._replace(pile_cards=one.pile_cards.at[:, 0].set(one.pile_cards[:, 1]).at[:, 1].set(one.pile_cards[:, 0]))
    deep = np.asarray(one.pile_len) > 2
    assert deep.any()
    for p in range(3):
        assert np.array_equal(np.asarray(jg.observe(hidden, p)["vector"]), np.asarray(obs[p]["vector"]))


def test_observation_sizes_are_the_documented_constants(jg):
    """The environments' spaces use these constants instead of tracing the engine at start-up."""
    from monkey_env.monkey_palace.jaxgame.observe import N_PLANES, VECTOR_SIZE

    state = jax.eval_shape(jg.init, jax.random.PRNGKey(0))
    out = jax.eval_shape(jg.observe, state, 0)
    # the catalogue's; the complete action (the default) adds its staircase in progress
    assert out["planes"].shape == (N_PLANES + 2, 32, 32) and out["vector"].shape == (VECTOR_SIZE + 9,)
