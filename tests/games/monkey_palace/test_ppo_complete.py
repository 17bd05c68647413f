"""The JAX PPO on the complete build action (issue 28): the network's inputs rebuild the
observation of the staircase in progress, its build heads are factored like the action (anchor
over the studs, then (heading, rise) per arch and finish at the cursor), and a tiny run learns
something measurable; ``ppo`` plays a reference game of it as it plays the JAX engine."""

import gc

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from monkey_env.apps.jax_trainer import JaxTrainConfig, make_train
from monkey_env.monkey_palace.actions import Phase
from monkey_env.monkey_palace.agents.network import action_features, compact_inputs, planes_from_compact
from monkey_env.monkey_palace.jaxgame.env import jax_game_for
from monkey_env.monkey_palace.options import GameOptions

COMPLETE = GameOptions(build_action="complete")
CATALOGUE = GameOptions(build_action="catalogue")
# Random opponents only: the tiny run learns to buy (greedy's walk would slow it down).
TINY = dict(ppo=dict(num_envs=8, num_steps=8, num_minibatches=2, num_epochs=2, learning_rate=1e-2),
            network=dict(width=4, hidden=16, stud_features=4),
            games=dict(players=[2], maps=["1"], options=dict(build_action="complete")),
            league=dict(weights=dict(self=0.0, snapshot=0.0, greedy=0.0, random=1.0), snapshot_every=1, snapshots=1),
            eval=dict(games=2, every_decisions=40, max_decisions=400), checkpoint_every=1)


@pytest.fixture(autouse=True)
def _release_each_runs_programs():
    yield
    jax.clear_caches()
    gc.collect()


@pytest.fixture(scope="module")
def jg():
    return jax_game_for(COMPLETE)


def _mid_staircase(jg, seed: int = 4):
    """A state at a build decision with at least one arch chosen (random legal play)."""
    rng = np.random.default_rng(seed)
    state = jg.init(jax.random.PRNGKey(seed), jg.params(COMPLETE.replace(players=3, map="2")))
    for _ in range(300):
        if int(state.phase) == Phase.SHAPE and int(state.b_arches) > 0:
            return state
        mask = np.asarray(jg.legal_action_mask(state))
        state = jg.step(state, int(rng.choice(np.flatnonzero(mask))))
    raise AssertionError("no build decision after an arch in 300 decisions")


def test_the_compact_inputs_rebuild_the_complete_observation(jg):
    state = _mid_staircase(jg)
    mask = jg.legal_action_mask(state)
    c = compact_inputs(jg, state, state.current, jnp.zeros(mask.shape, jnp.int32), mask)
    obs = jg.observe(state, state.current)
    planes = np.asarray(planes_from_compact(c))
    assert planes.shape == (22, 32, 32) and planes[20].any() and planes[21].sum() == 1.0
    np.testing.assert_array_equal(planes, np.asarray(obs["planes"]))
    np.testing.assert_array_equal(np.asarray(c.vector), np.asarray(obs["vector"]))
    assert int(c.cursor) == int(state.b_cursor)


def test_the_build_heads_are_factored_over_heading_and_rise(jg):
    from monkey_env.agents.ppo_games import policy_game
    pg = policy_game("monkey_palace", jg)
    network = dict(width=4, hidden=8, stud_features=4)
    params = pg.init_params(network, jax.random.PRNGKey(1))
    names = set(params["params"])
    assert {"heading_out", "rise_out", "finish_out"} <= names and "shape_out" not in names
    assert params["params"]["stud_in"]["kernel"].shape[0] == 24    # 20 + the staircase's 2 + greedy's 2 planes
    # Make the heads non-zero: an arch's learned logit is its heading's part plus its rise's part
    # (greedy's per-action features, added on top, are weighted 0 here).
    params = jax.tree_util.tree_map(lambda x: x + 0.01 * jnp.arange(x.size, dtype=x.dtype).reshape(x.shape), params)
    params["params"]["feature_weights"] = jnp.zeros_like(params["params"]["feature_weights"])
    state = _mid_staircase(jg)
    states = jax.tree_util.tree_map(lambda x: jnp.asarray(x)[None], state)
    masks = jg.batch_legal_mask(states)
    inputs, _ = pg.inputs(states, masks, jnp.ones(1, bool))
    logits, value = pg.build_network(network).apply(params, inputs)
    R, L = jg.static.n_rises, jg.layout
    assert logits.shape == (1, jg.num_actions) == (1, 1563) and value.shape == (1,)
    arches = np.asarray(logits[0, L.arch:L.finish]).reshape(4, R)
    p = params["params"]
    hidden = _shape_hidden(pg, network, params, inputs)
    heading = hidden @ np.asarray(p["heading_out"]["kernel"]) + np.asarray(p["heading_out"]["bias"])
    rise = (hidden @ np.asarray(p["rise_out"]["kernel"]) + np.asarray(p["rise_out"]["bias"])).reshape(4, R)
    np.testing.assert_allclose(arches, heading[:, None] + rise, rtol=1e-4, atol=1e-4)
    finish = hidden @ np.asarray(p["finish_out"]["kernel"]) + np.asarray(p["finish_out"]["bias"])
    np.testing.assert_allclose(float(logits[0, L.finish]), float(finish[0]), rtol=1e-4, atol=1e-4)


def _shape_hidden(pg, network, params, inputs) -> np.ndarray:
    """The arch head's hidden features of the batch's one row (hidden,), captured from the network's own intermediates."""
    _, state = pg.build_network(network).apply(params, inputs, capture_intermediates=True, mutable=["intermediates"])
    return np.maximum(np.asarray(state["intermediates"]["shape_hidden"]["__call__"][0][0]), 0.0)   # after its relu


def test_greedy_is_the_networks_input_and_the_league_greedy(jg):
    """Greedy's scores are the network's inputs on the complete action too: the greedy rows of
    the trainer's league take GreedyAgent's batched choice from them (held to the reference in
    test_greedy.py), greedy's choice is a per-action feature, and the rows that need no input are
    left out of the walk."""
    from monkey_env.agents.ppo_games import policy_game
    from monkey_env.monkey_palace.agents.greedy import GreedyAgent

    pg = policy_game("monkey_palace", jg)
    assert pg.has_greedy() and pg.greedy_needs_inputs()
    rng = np.random.default_rng(3)
    params = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[jg.params(COMPLETE.replace(map=str(1 + i % 4)))
                                                                for i in range(8)])
    states = jg.batch_init(jax.random.split(jax.random.PRNGKey(3), 8), params)
    for _ in range(25 + rng.integers(0, 10)):
        masks = np.asarray(jg.batch_legal_mask(states))
        states = jg.batch_step(states, np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    masks = jg.batch_legal_mask(states)
    assert np.isin(np.asarray(states.phase), [Phase.ANCHOR, Phase.SHAPE]).any()
    need = jnp.asarray([True, False] * 4)
    inputs, aux = pg.inputs(states, masks, need)
    chosen = np.asarray(pg.greedy(states, masks, aux, jax.random.PRNGKey(0), need))
    expected = np.asarray(GreedyAgent(0).act_batch(jg, states, masks, None))
    np.testing.assert_array_equal(chosen[::2], expected[::2])
    building = np.isin(np.asarray(states.phase), [Phase.ANCHOR, Phase.SHAPE]) & np.asarray(masks).any(1)
    assert not np.asarray(aux)[1::2][building[1::2], :jg.layout.buy_pile].any()   # no walk where not needed
    features = np.asarray(jax.vmap(action_features, in_axes=(0, 0, 0, None))(
        inputs.scores, inputs.mask, inputs.phase, jg.layout.buy_pile - jg.layout.shape))
    for row in np.flatnonzero(building & np.asarray(need)):
        assert features[row, expected[row], 2] == 1.0 and features[row, :, 2].sum() == 1.0
        assert features[row, expected[row], 0] == 0.0      # greedy's choice is the best, 0 points behind it


def _buy_decisions(jg, games: int = 6):
    """States of random complete games at a purchase where some card is affordable."""
    rng = np.random.default_rng(0)
    L, found = jg.layout, []
    for seed in range(games):
        state = jg.init(jax.random.PRNGKey(seed), jg.params(COMPLETE))
        for _ in range(400):
            if bool(state.terminated):
                break
            mask = np.asarray(jg.legal_action_mask(state))
            if int(state.phase) == Phase.BUY and mask[L.buy_pile:L.buy_end].any():
                found.append(state)
            state = jg.step(state, int(rng.choice(np.flatnonzero(mask))))
    return jax.tree_util.tree_map(lambda *x: jnp.stack(x), *found)


def test_a_tiny_run_on_the_complete_action_learns_to_buy(jg):
    """Twelve iterations against random (8 games x 8 decisions each), greedy's inputs weighted 0
    at the start (so the network does not begin as greedy's buyer): every parameter moves, every
    loss is finite, and the policy learns what pays at once: on purchases of random games where a
    card is affordable, its probability of stopping instead falls below half of the untrained
    network's (docs/AGENTS.md gives the measured figures)."""
    from monkey_env.agents.networks import masked_log_softmax

    cfg = JaxTrainConfig.model_validate(TINY)
    trainer = make_train(cfg, jg)
    buys = _buy_decisions(jg)
    masks = jg.batch_legal_mask(buys)
    inputs, _ = trainer.pg.inputs(buys, masks, jnp.ones(masks.shape[0], bool))
    stop = jax.jit(lambda params: jnp.exp(masked_log_softmax(trainer.net.apply(params, inputs)[0],
                                                             inputs.mask)[:, jg.layout.buy_end]).mean())
    params = trainer.init_params(jax.random.PRNGKey(1))
    params["params"]["feature_weights"] = jnp.zeros_like(params["params"]["feature_weights"])
    runner = trainer.init(jax.random.PRNGKey(0), params)
    before = runner.params
    metrics = []
    for i in range(12):
        runner, m = trainer.iteration(runner, trainer.new_games(jax.random.PRNGKey(100 + i)))
        metrics.append({k: float(v) for k, v in m.items()})
    for m in metrics:
        assert all(np.isfinite(v) for v in m.values()), m
        assert m["learner_decisions"] > 0
    changed = jax.tree_util.tree_map(lambda a, b: bool(jnp.any(a != b)), before, runner.params)
    assert all(jax.tree_util.tree_leaves(changed))
    assert trainer.traces == 1
    assert masks.shape[0] >= 50
    untrained, trained = float(stop(before)), float(stop(runner.params))
    print("stop probability untrained", untrained, "trained", trained)
    assert untrained > 0.2 and trained < 0.5 * untrained, (untrained, trained)


def test_a_checkpoint_of_another_action_space_is_refused_by_name(jg, tmp_path):
    """The shipped ppo (catalogue, 2,438 actions) asked to play the complete action: one line that
    names both action spaces, not a shape error; a checkpoint that records its actions is refused
    before its parameters are read."""
    from monkey_env.agents.ppo_jax import CheckpointError, default_checkpoint, load_checkpoint, save_checkpoint
    with pytest.raises(CheckpointError, match="1,563 actions; the checkpoint: its action count not recorded"):
        load_checkpoint(default_checkpoint("monkey_palace", jax_game_for(CATALOGUE)), jg)
    path = save_checkpoint(tmp_path / "c.msgpack", {}, dict(width=4, hidden=16, stud_features=4), {"actions": 2438})
    with pytest.raises(CheckpointError, match="trained for 2,438 actions, and these game options have 1,563"):
        load_checkpoint(path, jg)


def test_the_shipped_ppo_takes_each_build_actions_own_checkpoint(jg, tmp_path, monkeypatch):
    """``ppo`` without a checkpoint plays each engine with the shipped network of its action space
    (the catalogue's ppo_jax.msgpack, the complete action's ppo_jax_complete.msgpack), and its
    version names both files' weights; a named checkpoint stays the one it names."""
    from monkey_env.agents import ppo_jax
    from monkey_env.agents.ppo_jax import JaxPPOAgent, default_checkpoint, save_checkpoint, shipped_version

    catalogue = jax_game_for(CATALOGUE)
    assert default_checkpoint("monkey_palace", jg).name == default_checkpoint().name == "ppo_jax_complete.msgpack"
    assert default_checkpoint("monkey_palace", catalogue).name == "ppo_jax.msgpack"
    # a shipped folder of two tiny networks, one per action space
    monkeypatch.setattr(ppo_jax, "CHECKPOINTS", tmp_path)
    network = dict(width=4, hidden=8, stud_features=4)
    for engine, name, seed in ((catalogue, "ppo_jax.msgpack", 1), (jg, "ppo_jax_complete.msgpack", 2)):
        params = ppo_jax.init_params(engine, network, jax.random.PRNGKey(seed))
        save_checkpoint(tmp_path / name, params, network, {"actions": engine.num_actions})
    only_catalogue = ppo_jax.checkpoint_hash(tmp_path / "ppo_jax.msgpack")
    agent = JaxPPOAgent()
    assert agent.version == shipped_version() != only_catalogue
    for engine, options in ((catalogue, CATALOGUE), (jg, COMPLETE)):
        state = engine.init(jax.random.PRNGKey(0), engine.params(options))
        states = jax.tree_util.tree_map(lambda x: jnp.asarray(x)[None], state)
        masks = engine.batch_legal_mask(states)
        action = int(agent.act_batch(engine, states, masks, jax.random.PRNGKey(0))[0])
        assert bool(masks[0, action])
        assert agent.meta["actions"] == engine.num_actions     # the file of this engine's action space was read
    named = JaxPPOAgent(checkpoint=tmp_path / "ppo_jax.msgpack")
    assert named.version == only_catalogue
    with pytest.raises(ppo_jax.CheckpointError, match="1,563"):
        named.act_batch(jg, states, masks, jax.random.PRNGKey(0))
    (tmp_path / "ppo_jax_complete.msgpack").unlink()
    assert shipped_version() == only_catalogue
    with pytest.raises(ppo_jax.CheckpointError, match="ppo_jax_complete.msgpack"):
        JaxPPOAgent().act_batch(jg, states, masks, jax.random.PRNGKey(0))


def test_the_shipped_ppo_plays_a_reference_game_as_it_plays_the_jax_engine(jg):
    """``act`` on a reference game of the complete action (the terminal's, the browser's,
    ``--engine reference``) chooses what ``act_batch`` chooses on the JAX game in lockstep, at
    every decision of its seats, mid-staircase included."""
    from monkey_env.agents.ppo_jax import JaxPPOAgent
    from monkey_env.monkey_palace.engine import Game

    agent = JaxPPOAgent()
    options = COMPLETE.replace(players=2, map="3", seed=5)
    state = jg.init(jax.random.PRNGKey(5), jg.params(options))
    game = Game.from_options(options, pile_orders=jg.pile_orders(state))
    rng = np.random.default_rng(5)
    arch_steps = 0
    for _ in range(80):
        if game.game_over:
            break
        mask = game.legal_mask()
        if game.current == 0:
            chosen = agent.act(game, mask)
            states = jax.tree_util.tree_map(lambda x: jnp.asarray(x)[None], state)
            assert chosen == int(agent.act_batch(jg, states, jg.batch_legal_mask(states), jax.random.PRNGKey(0))[0])
            arch_steps += game.phase == Phase.SHAPE and len(game.turn.steps) > 0
        else:
            chosen = int(rng.choice(np.flatnonzero(mask)))
        assert mask[chosen]
        game.apply(chosen)
        state = jg.step(state, chosen)
    assert arch_steps > 0
