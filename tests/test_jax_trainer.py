"""The JAX PPO trainer: per-seat advantages, masking, the network's inputs, a few compiled
iterations (traced once), checkpoints that reload to the same actions, and a resumable run."""

import csv
import gc

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tiny_training import two_iterations

from monkey_env.agents.networks import masked_logits
from monkey_env.agents.ppo_jax import CheckpointError, JaxPPOAgent, load_checkpoint, save_checkpoint
from monkey_env.apps.jax_trainer import (
    JaxTrainConfig,
    expected_learner_share,
    learner_first,
    make_train,
    per_seat_advantages,
    snapshot_rows,
    update_samples,
)
from monkey_env.apps.train import load_config
from monkey_env.core.config_loading import ConfigError
from monkey_env.monkey_palace.agents.network import compact_inputs, planes_from_compact
from monkey_env.monkey_palace.jaxgame.env import jax_game_for
from monkey_env.monkey_palace.options import GameOptions

TINY = dict(ppo=dict(num_envs=8, num_steps=6, num_minibatches=2, num_epochs=1),
            network=dict(width=4, hidden=8, stud_features=4),
            # the trainer's mechanics on the catalogue's smaller programs (the complete action's
            # network and run: tests/games/monkey_palace/test_ppo_complete.py)
            games=dict(players=[2, 3], maps=["1", "2"], options=dict(build_action="catalogue")),
            league=dict(snapshot_every=1, snapshots=2),
            eval=dict(games=2, every_decisions=40, max_decisions=400), checkpoint_every=1)


# ------------------------------------------------------------------ advantages
def _trajectory():
    """3 seats; seat 0 decides at t0 and t2, seat 1 at t1, seat 2 at t3; the game ends after t3;
    a new game: seat 1 at t4, seat 0 at t5 (their returns are not complete in this rollout)."""
    rewards = np.zeros((6, 1, 4), np.float32)
    rewards[0, 0, 0] = 1
    rewards[1, 0, 1] = 2
    rewards[2, 0, 0], rewards[2, 0, 2] = 3, 1     # seat 2's 1 belongs to a decision before the rollout
    rewards[4, 0, 1] = 1
    rewards[5, 0, 0] = 2
    values = np.array([[10], [20], [30], [40], [50], [60]], np.float32)
    actors = np.array([[0], [1], [0], [2], [1], [0]], np.int32)
    dones = np.array([[0], [0], [0], [1], [0], [0]], bool)
    return rewards, values, actors, dones


def test_per_seat_advantages_on_a_hand_made_three_player_trajectory():
    rewards, values, actors, dones = _trajectory()
    adv, target, known = per_seat_advantages(rewards, values, actors, dones, gamma=1.0, lam=1.0)
    # Seat 0: t0 earns 1 (t0) + 3 (t2, its next decision's rewards) to the end: return 4.
    np.testing.assert_allclose(np.asarray(target)[:, 0], [4, 2, 3, 0, 0, 0])
    np.testing.assert_allclose(np.asarray(adv)[:4, 0], [4 - 10, 2 - 20, 3 - 30, 0 - 40])
    assert np.asarray(known)[:, 0].tolist() == [True, True, True, True, False, False]
    # Discounting is per decision of the same seat: t0's return is 1 + 0.5 * 3.
    adv, target, _ = per_seat_advantages(rewards, values, actors, dones, gamma=0.5, lam=1.0)
    assert float(target[0, 0]) == pytest.approx(2.5)
    assert float(adv[0, 0]) == pytest.approx(2.5 - 10)


def _reference_advantages(rewards, values, actors, dones, gamma, lam):
    """The same computation written seat by seat: each seat's own decisions, in order."""
    t_len, batch = values.shape
    adv = np.zeros((t_len, batch))
    known = np.zeros((t_len, batch), bool)
    for b in range(batch):
        episode = np.concatenate([[0], np.cumsum(dones[:-1, b])])      # the game each step belongs to
        for seat in range(4):
            steps = [t for t in range(t_len) if actors[t, b] == seat]
            following = 0.0
            for i in reversed(range(len(steps))):
                t = steps[i]
                nxt = steps[i + 1] if i + 1 < len(steps) and episode[steps[i + 1]] == episode[t] else None
                end = nxt if nxt is not None else t_len
                ended = [u for u in range(t, end) if dones[u, b]]
                if nxt is None and not ended:
                    following = 0.0
                    continue                                     # the return is not complete yet
                stop = ended[0] + 1 if ended else end
                reward = rewards[t:stop, b, seat].sum()
                bootstrap = values[nxt, b] if nxt is not None and not ended else 0.0
                delta = reward + gamma * bootstrap - values[t, b]
                following = delta + gamma * lam * (following if nxt is not None and not ended else 0.0)
                adv[t, b], known[t, b] = following, True
    return adv, known


def test_per_seat_advantages_match_a_seat_by_seat_computation_on_random_trajectories():
    rng = np.random.default_rng(0)
    for _ in range(20):
        t_len, batch = 24, 3
        actors = rng.integers(0, 3, (t_len, batch)).astype(np.int32)
        rewards = rng.normal(size=(t_len, batch, 4)).astype(np.float32)
        rewards[..., 3] = 0
        values = rng.normal(size=(t_len, batch)).astype(np.float32)
        dones = rng.random((t_len, batch)) < 0.1
        adv, _, known = per_seat_advantages(rewards, values, actors, dones, gamma=0.9, lam=0.8)
        want, want_known = _reference_advantages(rewards, values, actors, dones, 0.9, 0.8)
        assert np.asarray(known).tolist() == want_known.tolist()
        np.testing.assert_allclose(np.asarray(adv), want, rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------ masking and inputs
def test_masked_sampling_never_draws_an_illegal_action():
    key = jax.random.PRNGKey(0)
    masks = jax.random.uniform(key, (64, 2438)) < 0.01
    masks = masks.at[:, 5].set(True)
    logits = jnp.where(masks, 0.0, 50.0)             # illegal actions look best
    draws = jax.random.categorical(jax.random.PRNGKey(1), masked_logits(logits, masks), shape=(100, 64))
    assert bool(jnp.take_along_axis(masks, draws.T, 1).all())   # 6,400 draws, all legal


@pytest.fixture(autouse=True)
def _release_each_runs_programs():
    """Every training run compiles its own programs; free them after each test, not only at the
    file's end (tests/conftest.py says why: the kernel's limit of memory maps)."""
    yield
    jax.clear_caches()
    gc.collect()


@pytest.fixture(scope="module")
def jg():
    return jax_game_for(GameOptions(build_action="catalogue"))     # TINY's games


def test_the_compact_inputs_rebuild_the_observations_planes(jg):
    state = jg.init(jax.random.PRNGKey(3), jg.params(players=3, map=2, butterfly=True, frog=True))
    mask = jg.legal_action_mask(state)
    c = compact_inputs(jg, state, state.current, jnp.zeros(mask.shape, jnp.int32), mask)
    obs = jg.observe(state, state.current)
    np.testing.assert_array_equal(np.asarray(planes_from_compact(c)), np.asarray(obs["planes"]))
    np.testing.assert_array_equal(np.asarray(c.vector), np.asarray(obs["vector"]))


# ------------------------------------------------------------------ training
@pytest.fixture(scope="module")
def trained(jg, tmp_path_factory):
    """A tiny run: two compiled iterations, then a short run of the loop, resumed once."""
    cfg = JaxTrainConfig.model_validate(TINY)
    trainer = make_train(cfg, jg)
    before, runner, metrics = two_iterations(trainer)
    return cfg, trainer, before, runner, metrics


def test_a_tiny_config_trains_with_finite_losses_and_changing_parameters(trained):
    _, trainer, before, runner, metrics = trained
    for m in metrics:
        assert all(np.isfinite(v) for v in m.values()), m
        assert m["learner_decisions"] > 0
    changed = jax.tree_util.tree_map(lambda a, b: bool(jnp.any(a != b)), before, runner.params)
    assert all(jax.tree_util.tree_leaves(changed))          # every parameter array moved
    assert int(runner.iteration) == 2 and int(runner.snapshot_count) == 2
    assert trainer.traces == 1                             # the iteration was traced once


# ------------------------------------------------------------------ the update's batch
def test_the_update_batch_is_sized_from_the_leagues_share_of_learner_decisions():
    # Every seat in self-play (0.4), one seat otherwise: 2 players 3 times in 5, 3 and 4 once each.
    shipped = load_config("configs/train/ppo_jax.yaml")
    assert expected_learner_share(shipped) == pytest.approx(0.4 + 0.6 * (3 / 2 + 1 / 3 + 1 / 4) / 5)
    assert update_samples(shipped) == 2868                 # 0.70 of 128 × 32, a multiple of 4 minibatches
    two_player = JaxTrainConfig.model_validate({**TINY, "league": {"weights": {"random": 0.4, "greedy": 0.4, "snapshot": 0.2}}})
    assert expected_learner_share(two_player.model_copy(update={"games": two_player.games.model_copy(
        update={"players": [2]})})) == pytest.approx(0.5)
    every = JaxTrainConfig.model_validate({**TINY, "ppo": {**TINY["ppo"], "update_share": 1.0}})
    assert update_samples(every) == 48                     # 8 games × 6 steps
    # Greedy's fixed slots: the other games draw among the other kinds.
    slots = JaxTrainConfig.model_validate({**TINY, "league": {"greedy_slots": 2, "weights": {"self": 1, "greedy": 1}}})
    assert expected_learner_share(slots) == pytest.approx(0.75 + 0.25 * (1 / 2 + 1 / 3) / 2)
    with pytest.raises(ValueError, match="update_share"):
        JaxTrainConfig.model_validate({**TINY, "ppo": {**TINY["ppo"], "update_share": 1.5}})


def test_the_update_takes_every_learner_decision_first_and_a_random_subset_when_too_many():
    trained = jnp.asarray(np.random.default_rng(0).random(200) < 0.3)
    n = int(trained.sum())
    chosen = np.asarray(learner_first(jax.random.PRNGKey(0), trained, n + 10))
    assert len(set(chosen.tolist())) == n + 10
    assert set(chosen[:n].tolist()) == set(np.flatnonzero(trained).tolist())   # every learner decision, first
    assert not np.asarray(trained)[chosen[n:]].any()
    few = np.asarray(learner_first(jax.random.PRNGKey(1), trained, n // 2))
    assert np.asarray(trained)[few].all() and len(set(few.tolist())) == n // 2
    other = np.asarray(learner_first(jax.random.PRNGKey(2), trained, n // 2))
    assert set(few.tolist()) != set(other.tolist())       # a random subset, not the first ones


def test_an_iteration_counts_the_learner_decisions_it_trained_on(trained):
    _, trainer, _, _, metrics = trained
    assert trainer.update_samples == 34                   # 0.65 + 0.05 of 48, a multiple of 2 minibatches
    for m in metrics:
        assert 0 < m["learner_decisions"] <= trainer.update_samples
        assert m["learner_decisions_left_out"] >= 0


def test_the_snapshot_network_runs_on_the_rows_that_need_it_with_the_same_draws(trained, jg):
    cfg, trainer, _, runner, _ = trained
    assert snapshot_rows(cfg) == 8                         # 8 games: at most all of them
    states = runner.states
    masks = jg.batch_legal_mask(states)
    inputs, _ = trainer.pg.inputs(states, masks, jnp.ones(masks.shape[0], bool))
    rows = jnp.asarray([True, False, True, False, False, True, False, False]) & masks.any(1)
    key = jax.random.PRNGKey(5)
    gathered = trainer._snapshot_actions(runner.params, inputs, rows, key)    # 3 rows of at most 8
    trainer.snapshot_rows = 2                                                  # now too few: every row
    try:
        every = trainer._snapshot_actions(runner.params, inputs, rows, key)
    finally:
        trainer.snapshot_rows = snapshot_rows(cfg)
    need = np.asarray(rows)
    assert need.sum() == 3
    np.testing.assert_array_equal(np.asarray(gathered)[need], np.asarray(every)[need])
    assert np.asarray(masks)[need, np.asarray(gathered)[need]].all()           # legal draws
    none = trainer._snapshot_actions(runner.params, inputs, jnp.zeros_like(rows), key)
    assert not np.asarray(none).any()


def test_a_checkpoint_reloads_to_identical_actions(trained, jg, tmp_path):
    cfg, trainer, _, runner, _ = trained
    path = save_checkpoint(tmp_path / "p.msgpack", runner.params, cfg.network.model_dump(), {"reward_scale": 0.1})
    params, network, meta = load_checkpoint(path, jg)
    assert network == cfg.network.model_dump() and meta["reward_scale"] == pytest.approx(0.1)
    states = trainer.new_games(jax.random.PRNGKey(5))[0]
    masks = jg.batch_legal_mask(states)
    live = JaxPPOAgent(params=runner.params, network=cfg.network.model_dump())
    loaded = JaxPPOAgent(path)
    a, b = live.act_batch(jg, states, masks, None), loaded.act_batch(jg, states, masks, None)
    assert np.asarray(a).tolist() == np.asarray(b).tolist()
    assert bool(jnp.take_along_axis(masks, jnp.asarray(a)[:, None], 1).all())
    assert len(loaded.version) == 16
    (tmp_path / "bad.msgpack").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="bad.msgpack"):
        JaxPPOAgent(tmp_path / "bad.msgpack").act_batch(jg, states, masks, None)


def test_a_run_writes_its_curve_and_checkpoints_and_resumes(trained, tmp_path):
    from monkey_env.apps.training_run import run

    cfg, *_ = trained
    cfg = cfg.model_copy(update={"total_decisions": 60, "out_dir": str(tmp_path)})
    folder = run(cfg, run_dir=tmp_path / "run", log=lambda *_: None, progress=False)
    for name in ("config.yaml", "curve.csv", "curve.png", "best.msgpack", "final.msgpack", "resume.msgpack"):
        assert (folder / name).exists(), name
    rows = list(csv.DictReader((folder / "curve.csv").open()))
    assert len(rows) >= 2 and all(0 <= float(r["win_rate_vs_greedy"]) <= 1 for r in rows)
    first_decisions = int(rows[-1]["decisions"])
    assert first_decisions >= 60
    longer = cfg.model_copy(update={"total_decisions": first_decisions + 40})
    run(longer, resume=folder, log=lambda *_: None, progress=False)
    rows = list(csv.DictReader((folder / "curve.csv").open()))
    assert int(rows[-1]["decisions"]) >= first_decisions + 40     # counted on from where it stopped
    assert float(rows[-1]["minutes"]) >= float(rows[0]["minutes"])


def test_the_budget_is_this_commands_wall_time_and_a_resume_gets_its_own(trained, tmp_path):
    """budget_minutes bounds the whole command (compilation and evaluations included) and a
    resume starts a fresh budget: a short resume of a run that already spent more still learns."""
    import time

    from monkey_env.apps.training_run import run

    cfg, *_ = trained
    t0 = time.perf_counter()
    folder = run(cfg.model_copy(update={"total_decisions": 60, "out_dir": str(tmp_path)}), run_dir=tmp_path / "run",
                 log=lambda *_: None, progress=False)
    first = time.perf_counter() - t0
    decisions = int(list(csv.DictReader((folder / "curve.csv").open()))[-1]["decisions"])
    budget = 1.5 * first                    # more than a start (compilation) takes, less than the run so far
    endless = cfg.model_copy(update={"total_decisions": 10**9, "budget_minutes": budget / 60})
    said = []
    t0 = time.perf_counter()
    run(endless, resume=folder, log=said.append, progress=False)
    wall = time.perf_counter() - t0
    assert wall <= budget + max(10.0, 0.5 * first), (wall, budget, said)
    resumed = [line for line in said if line.startswith("done:")][0]
    assert int(resumed.split()[1].replace(",", "")) > decisions, said


def test_an_evaluation_is_cut_in_chunks_that_keep_the_seats_alternated():
    from monkey_env.apps.training_run import evaluation_chunk

    assert evaluation_chunk(200, 2) == 50 and evaluation_chunk(200, 4) == 40 and evaluation_chunk(30, 2) == 30
    assert evaluation_chunk(7, 2) == 7 and evaluation_chunk(96, 3) == 48


def test_training_configs_choose_their_trainer_and_name_bad_fields(tmp_path):
    assert load_config("configs/train/ppo_jax.yaml").trainer == "jax"
    assert load_config("configs/train/ppo_sb3.yaml").trainer == "sb3"
    complete = load_config("configs/train/ppo_jax_complete.yaml")
    assert complete.games.options.build_action == "complete" and complete.league.weights["greedy"] > 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: {num_envs: 1}\n")
    with pytest.raises(ConfigError, match="ppo.num_envs"):
        load_config(bad)
    bad.write_text("trainer: keras\n")
    with pytest.raises(ConfigError, match="keras"):
        load_config(bad)
    bad.write_text("games: {players: [5]}\n")
    with pytest.raises(ConfigError, match="players"):
        load_config(bad)


def test_train_refuses_a_game_flag_that_contradicts_the_configs_game(capsys):
    """The config's game: field decides; --game may only agree (named or not, the default game too)."""
    from monkey_env.apps.cli import main

    config = "configs/train/ppo_jax_shadow_theater.yaml"
    for flag in (["--game", "forbidden_city"], ["--game=monkey_palace"]):
        assert main(["train", *flag, config]) == 2
        assert "trains shadow_theater (the config's game: field decides)" in capsys.readouterr().err
    for flag in ([], ["--game", "shadow_theater"]):        # agreeing: the next check (the steps) speaks
        assert main(["train", *flag, config, "--steps", "-1"]) == 2
        err = capsys.readouterr().err
        assert "total_decisions" in err and "field decides" not in err


def test_the_update_profile_credits_each_operation_to_its_layer_and_direction():
    from experiments.jax_update_profile import layer_of, op_layers
    assert layer_of("jit(loss)/transpose(jvp(PalaceNet))/stud_hidden/dot_general") == ("stud_hidden", "backward")
    assert layer_of("jit(loss)/jvp(PalaceNet)/token_conv0/conv_general_dilated") == ("token_conv0", "forward")
    assert layer_of("jit(loss)/jvp(PalaceNet)/jit(relu)/max") == ("(relu)", "forward")
    assert layer_of("jit(loss)/transpose(jvp(PalaceNet))/transpose") == ("(transpose)", "backward")
    assert layer_of("jit(loss)/jvp(PalaceNet)/vmap()/concatenate") == ("(concatenate)", "forward")
    hlo = ('  %dot.22 = f32[32,16]{1,0} dot(%a, %b), metadata={op_name="jit(loss)/transpose(jvp(CityNet))/trunk/dot_general"}\n'
           '  %add.1 = f32[8]{0} add(%c, %d), metadata={op_name="jit(loss)/add"}\n')
    assert op_layers(hlo) == {"dot.22": ("trunk", "backward"), "add.1": ("(add)", "forward")}
