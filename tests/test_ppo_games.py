"""The JAX PPO on The Shadow Theater and Forbidden City (agents/ppo_games.py): a tiny config of
each trains two compiled iterations with finite losses and moving parameters, its checkpoint
reloads to identical actions, sampling from the masked policy never draws an illegal action,
and the shipped configs and checkpoints are each game's own.

Kept cheap: tiny networks, 8 games of 6 decisions, no greedy in the tiny league (greedy's
batched form is then not compiled into the rollout), one trainer per game shared by the tests."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tiny_training import two_iterations

from monkey_env.agents.ppo_games import policy_game
from monkey_env.agents.ppo_jax import JAX_PPO_GAMES, CheckpointError, JaxPPOAgent, default_checkpoint, save_checkpoint
from monkey_env.apps.jax_trainer import JaxTrainConfig, make_train
from monkey_env.apps.train import load_config
from monkey_env.core.config_loading import ConfigError
from monkey_env.games import game_names, game_spec

NETWORKS = {"shadow_theater": dict(hidden=8, greedy_inputs=0),
            "forbidden_city": dict(width=4, hidden=8, blocks=1, greedy_inputs=0, majority_inputs=1)}


def tiny(game: str) -> JaxTrainConfig:
    return JaxTrainConfig.model_validate(dict(
        game=game, ppo=dict(num_envs=8, num_steps=6, num_minibatches=2, num_epochs=1), network=NETWORKS[game],
        league=dict(weights={"self": 0.5, "snapshot": 0.3, "random": 0.2}, snapshot_every=1, snapshots=2)))


@pytest.fixture(scope="module", params=["shadow_theater", "forbidden_city"])
def trained(request):
    cfg = tiny(request.param)
    trainer = make_train(cfg)
    before, runner, metrics = two_iterations(trainer)
    return cfg, trainer, before, runner, metrics


def test_a_tiny_config_trains_with_finite_losses_and_changing_parameters(trained):
    cfg, trainer, before, runner, metrics = trained
    for m in metrics:
        assert all(np.isfinite(v) for v in m.values()), m
        assert m["learner_decisions"] > 0 and m["value_loss"] > 0
    moved = jax.tree_util.tree_map(lambda a, b: bool(jnp.any(a != b)), before, runner.params)
    flat = {jax.tree_util.keystr(p): v for p, v in jax.tree_util.tree_flatten_with_path(moved)[0]}
    # every layer moved but Forbidden City's set-aside logit (setting a tile aside is legal only
    # when it fits nowhere, which these few decisions never meet)
    assert all(v for k, v in flat.items() if "aside_out" not in k), flat
    assert int(runner.iteration) == 2 and trainer.traces == 1


def test_a_checkpoint_reloads_to_identical_actions_all_legal(trained, tmp_path):
    cfg, trainer, _, runner, _ = trained
    path = save_checkpoint(tmp_path / "p.msgpack", runner.params, cfg.network.model_dump(), {"game": cfg.game})
    states = trainer.new_games(jax.random.PRNGKey(5))[0]
    masks = trainer.jg.batch_legal_mask(states)
    live = JaxPPOAgent(params=runner.params, network=cfg.network.model_dump(), game=cfg.game)
    loaded = JaxPPOAgent(path, game=cfg.game)
    a, b = live.act_batch(trainer.jg, states, masks, None), loaded.act_batch(trainer.jg, states, masks, None)
    assert np.asarray(a).tolist() == np.asarray(b).tolist()
    assert bool(jnp.take_along_axis(masks, jnp.asarray(a)[:, None], 1).all())
    other = "forbidden_city" if cfg.game == "shadow_theater" else "shadow_theater"
    with pytest.raises(CheckpointError, match=f"checkpoint of {cfg.game}, not of {other}"):
        JaxPPOAgent(path, game=other).act_batch(policy_game(other).engine, states, masks, None)


def test_sampling_from_the_masked_policy_never_draws_an_illegal_action(trained):
    cfg, trainer, _, runner, _ = trained
    sampler = JaxPPOAgent(params=runner.params, network=cfg.network.model_dump(), game=cfg.game, deterministic=False)
    states = trainer.new_games(jax.random.PRNGKey(7))[0]
    for step in range(12):                         # positions of the games' first decisions
        masks = trainer.jg.batch_legal_mask(states)
        live = masks.any(-1)
        actions = sampler.act_batch(trainer.jg, states, masks, jax.random.PRNGKey(step))
        legal = jnp.take_along_axis(masks, actions[:, None], 1)[:, 0]
        assert bool(jnp.all(legal | ~live)), step
        states = trainer.jg.batch_step(states, actions)
        assert not bool(states.illegal.any())


def test_the_shipped_configs_and_checkpoints_are_each_games_own(tmp_path):
    assert set(JAX_PPO_GAMES) == {g for g in game_names() if game_spec(g).has("policy")}
    # its policy's file for the default (complete) build action
    assert default_checkpoint("monkey_palace").name == "ppo_jax_complete.msgpack"
    for game in ("shadow_theater", "forbidden_city"):
        cfg = load_config(f"configs/train/ppo_jax_{game}.yaml")
        assert cfg.game == game and type(cfg.network).__name__ == {"shadow_theater": "FlatNetworkConfig",
                                                                    "forbidden_city": "CityNetworkConfig"}[game]
        assert default_checkpoint(game).name == f"ppo_jax_{game}.msgpack"
        assert default_checkpoint(game).stat().st_size < 3_000_000
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: shadow_theater\ngames: {players: [3]}\n")
    with pytest.raises(ConfigError, match="2 players"):
        load_config(bad)
    bad.write_text("game: forbidden_city\nnetwork: {stud_features: 4}\n")
    with pytest.raises(ConfigError, match="stud_features"):
        load_config(bad)


def test_the_flat_norm_clip_scales_like_optaxs_global_norm_clip():
    import optax

    from monkey_env.apps.jax_trainer import clip_by_flat_norm
    grads = {"w": jnp.arange(12.0).reshape(3, 4), "bias": jnp.asarray([5.0])}   # a shape-(1,) leaf
    for max_norm in (0.5, 100.0):                                              # clipped, then not
        ours, _ = clip_by_flat_norm(max_norm).update(grads, optax.EmptyState())
        theirs, _ = optax.clip_by_global_norm(max_norm).update(grads, optax.EmptyState())
        for a, b in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    assert float(ours["bias"][0]) == 5.0                                       # below the norm: unchanged


def test_scanned_updates_give_the_unrolled_updates_parameters():
    """`scan_updates` (the GPU configs' small program) is the same arithmetic as the CPU's unrolled
    minibatch loop: from one runner and one batch of games, the same parameters."""
    unrolled = tiny("shadow_theater")
    scanned = unrolled.model_copy(update={"ppo": unrolled.ppo.model_copy(update={"scan_updates": True})})
    results = []
    for cfg in (unrolled, scanned):
        trainer = make_train(cfg)
        runner = trainer.init(jax.random.PRNGKey(0))
        runner, _ = trainer.iteration(runner, trainer.new_games(jax.random.PRNGKey(10)))
        results.append(runner.params)
    for a, b in zip(jax.tree_util.tree_leaves(results[0]), jax.tree_util.tree_leaves(results[1])):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-6)
