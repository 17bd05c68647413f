"""The PPO baseline: the observation of a reference game, both agent interfaces, checkpoints,
evaluation and a short training run."""

import csv

import jax
import numpy as np
import pytest

from monkey_env.apps.evaluate import evaluate, seat_agents
from monkey_env.apps.train import TrainConfig, load_config, train
from monkey_env.core.config_loading import ConfigError
from monkey_env.monkey_palace.agents.sb3 import PPOAgent, policy_kwargs
from monkey_env.monkey_palace.engine import Game
from monkey_env.monkey_palace.jaxgame.env import jax_game_for
from monkey_env.monkey_palace.jaxgame.from_reference import jax_state_from_game
from monkey_env.monkey_palace.options import GameOptions


@pytest.fixture(scope="module")
def jg():
    """The SB3 checkpoint's engine: it plays the catalogue build action."""
    return jax_game_for(GameOptions(build_action="catalogue"))


@pytest.mark.parametrize("players, map_id, seed, build_action",
                         [(2, 1, 0, "complete"), (3, 3, 1, "complete"), (2, 1, 0, "catalogue"), (3, 3, 1, "catalogue")])
def test_reference_game_gives_the_jax_engines_observation_and_mask(players, map_id, seed, build_action):
    """Lockstep: at every decision the converted reference game observes like the JAX game (on the
    complete action, mid-staircase too: the prefix is the JAX engine's own)."""
    jg = jax_game_for(GameOptions(build_action=build_action))
    params = jg.params(GameOptions(players=players, map=str(map_id), butterfly=True, frog=True, build_action=build_action))
    state = jg.init(jax.random.PRNGKey(seed), params)
    game = Game.new(players, map_id, butterfly=True, frog=True, pile_orders=jg.pile_orders(state), seed=seed,
                    build_action=build_action)
    legal = jax.jit(jg.legal_action_mask)
    rng = np.random.default_rng(seed)
    decisions = 0
    while not game.game_over and decisions < 60:
        converted = jax_state_from_game(jg, game)
        np.testing.assert_array_equal(np.asarray(legal(converted)), game.legal_mask())
        for p in range(players):
            a, b = jg.observe(converted, p), jg.observe(state, p)
            np.testing.assert_array_equal(np.asarray(a["planes"]), np.asarray(b["planes"]))
            np.testing.assert_allclose(np.asarray(a["vector"]), np.asarray(b["vector"]), atol=1e-6)
        action = int(rng.choice(np.flatnonzero(game.legal_mask())))
        game.apply(action)
        state = jg.step(state, action)
        decisions += 1
    assert decisions == 60 or game.game_over


@pytest.fixture(scope="module")
def small_model():
    from sb3_contrib import MaskablePPO

    from monkey_env.monkey_palace.envs.gym_env import MonkeyPalaceGymEnv

    return MaskablePPO("MultiInputPolicy", MonkeyPalaceGymEnv(players=2, build_action="catalogue"), seed=0, device="cpu",
                       policy_kwargs=policy_kwargs(8, 16, 32, (16,)))


def test_ppo_agent_single_game_and_batch_forms_agree(jg, small_model):
    agent = PPOAgent(model=small_model)
    params = jg.params(players=2, map=1)
    states = jg.batch_init(jax.random.split(jax.random.PRNGKey(3), 8), params)
    masks = jg.batch_legal_mask(states)
    batch_actions = agent.act_batch(jg, states, masks, None)
    assert np.asarray(masks)[np.arange(8), batch_actions].all()
    # The same first decision on the reference engine (same deal) gets the same action.
    one = jax.tree_util.tree_map(lambda x: x[0], states)
    game = Game.new(2, 1, pile_orders=jg.pile_orders(one), build_action="catalogue")
    assert agent.act(game, game.legal_mask()) == int(batch_actions[0])


def test_ppo_checkpoint_errors_name_the_file(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        PPOAgent(tmp_path / "missing.zip")
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="broken.zip"):
        PPOAgent(broken)


def test_seat_rotation_gives_every_agent_every_seat():
    assert [seat_agents(["a", "b"], 2, r) for r in range(2)] == [["a", "b"], ["b", "a"]]
    seats = [seat_agents(["a", "b", "c"], 3, r) for r in range(3)]
    for s in range(3):
        assert sorted(row[s] for row in seats) == ["a", "b", "c"]


class FirstLegal:
    """A user agent with only the single-game form: always the first legal action."""

    name = "first"

    def act(self, game, mask):
        return int(np.flatnonzero(mask)[0])


def test_evaluate_reports_win_rates_with_intervals():
    report = evaluate(["greedy", "random"], players=2, map=1, games=16, seed=5, batch=8, progress=False)
    assert report["engine"] == "jax" and report["seat_games"] == {"greedy": 16, "random": 16}
    for n in ("greedy", "random"):
        lo, hi = report["ci95"][n]
        assert 0 <= lo <= report["win_rate"][n] <= hi <= 1
    assert report["win_rate"]["greedy"] + report["win_rate"]["random"] == pytest.approx(1.0)
    assert report["win_rate"]["greedy"] > 0.5  # greedy beats random by far; 16 games suffice
    ref = evaluate(["first", "random"], players=2, map=2, games=4, seed=1, progress=False,
                   agents={"first": FirstLegal()})
    assert ref["engine"] == "reference" and sum(ref["seat_games"].values()) == 8


def test_training_config_errors_name_the_field(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("trainer: sb3\ngame: {players: 7}\nppo: {learning_rate: -1}\n")
    with pytest.raises(ConfigError, match="players") as e:
        load_config(bad)
    assert "ppo.learning_rate" in str(e.value)
    bad.write_text("trainer: sb3\nopponents: {random: 0, greedy: 0}\n")
    with pytest.raises(ConfigError, match="opponent weights"):
        load_config(bad)
    bad.write_text("trainer: sb3\ncolour: blue\n")
    with pytest.raises(ConfigError, match="colour"):
        load_config(bad)
    with pytest.raises(ConfigError, match="no such"):
        load_config(tmp_path / "none.yaml")
    assert load_config("configs/train/ppo_sb3.yaml").game.players == 2


def test_a_short_training_run_writes_checkpoints_and_a_curve(tmp_path):
    cfg = TrainConfig(name="smoke", num_envs=8, total_timesteps=300, eval_every_steps=256, snapshot_every_steps=128,
                      eval_games=16, ppo={"n_steps": 32, "batch_size": 64, "n_epochs": 1},
                      network={"cnn_channels": 8, "vector_features": 16, "features_dim": 32, "net_arch": [16]})
    run = train(cfg, run_dir=tmp_path / "run", log=lambda *_: None)
    assert (run / "final.zip").exists() and (run / "curve.png").exists()
    rows = list(csv.DictReader((run / "curve.csv").open()))
    assert [int(r["step"]) for r in rows][0] == 0 and int(rows[-1]["step"]) >= 300
    assert all(0 <= float(r["win_rate_vs_greedy"]) <= 1 for r in rows)
    agent = PPOAgent(run / "final.zip")
    assert len(agent.version) == 16


def test_the_sb3_checkpoint_plays_by_name(jg):
    from monkey_env.agents.registry import make_agent
    from monkey_env.monkey_palace.agents.sb3 import DEFAULT_CHECKPOINT

    assert DEFAULT_CHECKPOINT.stat().st_size < 5 * 2**20  # small enough for the repository
    agent = make_agent("ppo-sb3", 0)
    assert agent.version and len(agent.version) == 16
    game = Game.new(2, 1, seed=4, build_action="catalogue")     # the SB3 checkpoint's action space
    rng = np.random.default_rng(4)
    for _ in range(20):  # the PPO seat's decisions are legal; the other seat plays at random
        mask = game.legal_mask()
        action = agent.act(game, mask) if game.current == 0 else int(rng.choice(np.flatnonzero(mask)))
        assert mask[action]
        game.apply(action)


def test_the_shipped_checkpoint_loads_outside_the_repository(tmp_path):
    """Installed, ``agents`` is ``monkey_env.agents``: the checkpoint's pickled policy settings
    (which name ``agents.ppo``, where it was trained) must not be needed. A process whose path lacks the repository."""
    import subprocess
    import sys

    code = ("import sys; from monkey_env.monkey_palace.agents.sb3 import PPOAgent; "
            "assert 'agents' not in sys.modules and not any(p in ('', '.') for p in sys.path[1:]); "
            "print(type(PPOAgent().model.policy.features_extractor).__module__)")
    out = subprocess.run([sys.executable, "-P", "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "monkey_env.monkey_palace.agents.sb3"


def test_ppo_sb3_sample_draws_legal_actions_that_vary_and_repeat_with_the_seed():
    from monkey_env.agents.registry import make_agent

    # One position asked again and again (single-game form: it reuses the batch-1 compilation).
    game = Game.new(2, 1, seed=4, build_action="catalogue")     # the SB3 checkpoint's action space
    mask = game.legal_mask()

    def draws(seed, name="ppo-sb3-sample", n=40):
        agent = make_agent(name, seed)
        assert agent.name == name and agent.deterministic == (name == "ppo-sb3")
        return [agent.act(game, mask) for _ in range(n)]

    first = draws(3)
    assert all(mask[a] for a in first)
    assert len(set(first)) > 1                               # the same position, several choices
    assert draws(3) == first                                 # the same seed, the same draws
    assert len(set(draws(3, "ppo-sb3", 5))) == 1                 # the deterministic agent: one choice
