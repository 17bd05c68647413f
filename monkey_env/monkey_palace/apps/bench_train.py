"""``monkey-palace bench --train``: learner decisions per second of the two trainers, in one run.

Both trainers run their shipped config (``configs/train/ppo_jax.yaml``, ``configs/train/ppo_sb3.yaml``)
on the same games and opponents: the SB3 config's number of games, 2 players on map 1, and its
opponent mix (random, greedy, and snapshots of the learner). Compilation (JAX) and the first
rollout (SB3) are timed apart from the steady state. For each trainer the time splits into the
environment (the engine, and the opponents' moves), the learner's forward pass while acting, and
the update:

* JAX: three compiled programs are timed on the same runner: the whole iteration, the rollout
  alone, and the rollout with the learner's network replaced by random legal moves (the
  environment alone); forward = rollout − environment, update = iteration − rollout.
* SB3: ``collect_rollouts`` and ``train`` are timed inside ``learn``, and the VecEnv's
  ``step_wait`` inside the collection; forward = collection − environment.

The JAX trainer is also run with a network of the SB3 policy's size (parameters counted).
The three are timed ``repeats`` times, each over ``iterations`` iterations (SB3: ``sb3_updates``
updates of 4,096 learner decisions) after its compilation or first rollout, with the load average
before and after each repeat; the report gives every repeat, and the ratios' median, minimum and
maximum (a single short run on a loaded machine was off tenfold once: a figure is a median of
repeats on a quiet machine).

``bench --train-complete`` (``run_build_action_bench``) times the JAX trainer on each build
action, its shipped config (``ppo_jax.yaml``, ``ppo_jax_complete.yaml``: every staircase, arch by
arch, greedy's walk as the network's input) on the same games and opponents as above. SB3 has no
network for the complete action, so the figure is the JAX trainer's own: learner decisions and
whole games per second on each (a complete-action turn takes more decisions).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np


def _count(tree) -> int:
    import jax
    return int(sum(np.size(x) for x in jax.tree_util.tree_leaves(tree)))


def bench_jax_trainer(cfg, iterations: int = 3) -> dict:
    import jax

    from monkey_env.apps.jax_trainer import RANDOM, make_train

    trainer = make_train(cfg)
    runner = trainer.init(jax.random.PRNGKey(cfg.seed))
    fresh = trainer.new_games(jax.random.PRNGKey(1))
    t0 = time.perf_counter()
    runner, m = trainer.iteration(runner, fresh)
    jax.block_until_ready(runner.params)
    compile_s = time.perf_counter() - t0

    rollout = jax.jit(trainer._rollout)
    random_learner = runner._replace(opponent=jax.numpy.full_like(runner.opponent, RANDOM), learner=runner.learner & False)
    t0 = time.perf_counter()
    jax.block_until_ready(rollout(runner, fresh)[1].action)
    jax.block_until_ready(rollout(random_learner, fresh)[1].action)
    compile_s += time.perf_counter() - t0

    def timed(fn, *args):
        t = time.perf_counter()
        out = fn(*args)
        jax.block_until_ready(jax.tree_util.tree_leaves(out)[0])
        return time.perf_counter() - t, out

    whole = roll = env = 0.0
    decisions = learner = left_out = games = 0
    for i in range(iterations):
        fresh = trainer.new_games(jax.random.PRNGKey(2 + i))
        dt, (runner, m) = timed(trainer.iteration, runner, fresh)
        whole += dt
        learner += int(m["learner_decisions"])
        left_out += int(m["learner_decisions_left_out"])
        decisions += int(m["decisions"])
        games += int(m["games_ended"])
        roll += timed(rollout, runner, fresh)[0]
        env += timed(rollout, random_learner._replace(states=runner.states), fresh)[0]
    forward = max(roll - env, 0.0)
    update = max(whole - roll, 0.0)
    return {"train_decisions_per_second": learner / whole, "all_decisions_per_second": decisions / whole,
            "games_per_second": games / whole,
            "compile_seconds": compile_s, "iterations": iterations, "learner_decisions": learner,
            "learner_decisions_left_out": left_out, "update_samples": trainer.update_samples,
            "parameters": _count(runner.params), "num_envs": cfg.ppo.num_envs, "num_steps": cfg.ppo.num_steps,
            "share": {"environment": env / whole, "forward": forward / whole, "update": update / whole},
            "seconds": {"iteration": whole / iterations, "rollout": roll / iterations, "environment": env / iterations}}


def bench_sb3_trainer(cfg, updates: int = 2) -> dict:
    import torch
    from sb3_contrib import MaskablePPO

    from monkey_env.agents.registry import make_agent
    from monkey_env.apps.train import SnapshotAgent
    from monkey_env.monkey_palace.agents.sb3 import policy_kwargs
    from monkey_env.monkey_palace.envs.vec_env import MonkeyPalaceVecEnv

    torch.manual_seed(cfg.seed)
    names = [n for n, w in cfg.opponents.items() if w > 0]
    placeholder = [make_agent(n if n != "self" else "random", cfg.seed + i) for i, n in enumerate(names)]
    venv = MonkeyPalaceVecEnv(cfg.num_envs, opponents=placeholder, opponent_weights=[cfg.opponents[n] for n in names],
                     seed=cfg.seed, options=cfg.game)
    net = cfg.network
    model = MaskablePPO("MultiInputPolicy", venv, seed=cfg.seed, verbose=0, device="cpu", policy_kwargs=policy_kwargs(
        net.cnn_channels, net.vector_features, net.features_dim, tuple(net.net_arch)), **cfg.ppo.model_dump())
    if "self" in names:
        venv.opponents[names.index("self")] = SnapshotAgent(model, cfg.seed)
    clock = {"collect": 0.0, "train": 0.0, "env": 0.0}

    def wrap(obj, name, key):
        original = getattr(obj, name)

        def timed(*a, **k):
            t = time.perf_counter()
            out = original(*a, **k)
            clock[key] += time.perf_counter() - t
            return out
        setattr(obj, name, timed)

    wrap(model, "collect_rollouts", "collect")
    wrap(model, "train", "train")
    wrap(venv, "step_wait", "env")
    per_update = cfg.ppo.n_steps * cfg.num_envs
    t0 = time.perf_counter()
    model.learn(total_timesteps=per_update)          # the first rollout compiles the engine
    first = time.perf_counter() - t0
    for k in clock:
        clock[k] = 0.0
    t0 = time.perf_counter()
    model.learn(total_timesteps=per_update * updates, reset_num_timesteps=False)
    whole = time.perf_counter() - t0
    env, forward = clock["env"], max(clock["collect"] - clock["env"], 0.0)
    return {"train_decisions_per_second": per_update * updates / whole, "first_update_seconds": first, "updates": updates,
            "learner_decisions": per_update * updates, "parameters": int(sum(p.numel() for p in model.policy.parameters())),
            "num_envs": cfg.num_envs, "n_steps": cfg.ppo.n_steps,
            "share": {"environment": env / whole, "forward": forward / whole, "update": clock["train"] / whole}}


def run_train_bench(iterations: int = 10, repeats: int = 3, log=lambda line: None, sb3_updates: int | None = None) -> dict:
    """Both trainers with their shipped configs on the same games and opponents, ``repeats`` times
    over ``iterations`` iterations of the JAX trainer and ``sb3_updates`` updates of SB3's (default:
    ``iterations``) each (module docstring); ``log`` hears each repeat's figures."""
    from monkey_env.core.provenance import load_average

    runs = []
    for r in range(repeats):
        before = load_average()
        row = train_bench_once(iterations, sb3_updates or iterations,
                               log=lambda line, r=r: log(f"repeat {r + 1}/{repeats}, {line}"))
        row["load_average_before"], row["load_average_after"] = before, load_average()
        runs.append(row)
        log(f"repeat {r + 1}/{repeats}: JAX {row['train_decisions_per_second_jax']:.0f}/s, "
            f"SB3 {row['train_decisions_per_second_sb3']:.0f}/s, ratio {row['train_ratio_vs_sb3']:.2f} "
            f"(same size {row['train_ratio_vs_sb3_same_size']:.2f}); load {before} -> {row['load_average_after']}")
    return summarise_repeats(runs)


FIGURES = ("train_decisions_per_second_jax", "train_decisions_per_second_sb3", "train_decisions_per_second_jax_sb3_sized",
           "train_ratio_vs_sb3", "train_ratio_vs_sb3_same_size")


def summarise_repeats(runs: list[dict]) -> dict:
    """Each figure's median over the repeats (the headline), with its minimum and maximum; the
    last repeat's detail (time shares, parameters) and every repeat's figures and loads."""
    return medians(runs, FIGURES, ("jax", "jax_sb3_sized", "sb3", "devices"))


def medians(runs: list[dict], figures: tuple[str, ...], detail: tuple[str, ...]) -> dict:
    """Each figure's median over the repeats, with its minimum and maximum; the last repeat's
    ``detail`` and every repeat's figures and loads."""
    out = {key: float(np.median([r[key] for r in runs])) for key in figures}
    out["spread"] = {key: [float(min(r[key] for r in runs)), float(max(r[key] for r in runs))] for key in figures}
    out["repeats"] = [{key: r[key] for key in (*figures, "load_average_before", "load_average_after")} for r in runs]
    out.update({k: runs[-1][k] for k in detail})
    return out


def train_configs() -> dict:
    """The configs the bench times, all on the SB3 config's games and opponents (module
    docstring): ``sb3``, ``jax`` (the shipped JAX config) and ``jax_complete`` (its complete-action config)."""
    import monkey_env.configs as configs
    from monkey_env.apps.train import load_config

    train_dir = Path(configs.__file__).parent / "train"
    sb3 = load_config(train_dir / "ppo_sb3.yaml")
    weights = {"random": sb3.opponents.get("random", 0.0), "greedy": sb3.opponents.get("greedy", 0.0),
               "snapshot": sb3.opponents.get("self", 0.0)}
    out = {"sb3": sb3}
    for name, file in (("jax", "ppo_jax.yaml"), ("jax_complete", "ppo_jax_complete.yaml")):
        cfg = load_config(train_dir / file)
        out[name] = type(cfg).model_validate({
            **cfg.model_dump(),
            "games": {"players": [2], "maps": ["1"], "options": cfg.games.options.model_dump()},
            "league": {**cfg.league.model_dump(), "weights": weights},
            "ppo": {**cfg.ppo.model_dump(), "num_envs": sb3.num_envs}})
    return out


BUILD_ACTION_FIGURES = ("train_decisions_per_second_catalogue", "train_decisions_per_second_complete",
                        "games_per_second_catalogue", "games_per_second_complete", "games_per_second_complete_vs_catalogue")


def run_build_action_bench(iterations: int = 10, repeats: int = 3, log=lambda line: None) -> dict:
    """The JAX trainer on each build action (``bench --train-complete``, module docstring),
    ``repeats`` times over ``iterations`` iterations each after compilation."""
    from monkey_env.core.provenance import load_average

    cfgs = train_configs()
    runs = []
    for r in range(repeats):
        before = load_average()
        row = {}
        for action, name in (("catalogue", "jax"), ("complete", "jax_complete")):
            timed = bench_jax_trainer(cfgs[name], iterations)
            row[action] = timed
            row[f"train_decisions_per_second_{action}"] = timed["train_decisions_per_second"]
            row[f"games_per_second_{action}"] = timed["games_per_second"]
            log(f"repeat {r + 1}/{repeats}, {action}: {timed['train_decisions_per_second']:.0f} learner decisions/s, "
                f"{timed['games_per_second']:.2f} games/s (compile {timed['compile_seconds']:.0f} s)")
        row["games_per_second_complete_vs_catalogue"] = (row["games_per_second_complete"]
                                                         / max(row["games_per_second_catalogue"], 1e-9))
        row["load_average_before"], row["load_average_after"] = before, load_average()
        runs.append(row)
    return medians(runs, BUILD_ACTION_FIGURES, ("catalogue", "complete"))


def train_bench_once(jax_iterations: int, sb3_updates: int, log=lambda line: None) -> dict:
    """One timing of the three trainers (module docstring); ``log`` hears each trainer's figure
    as it is taken (a repeat takes many minutes on a 2-core CPU)."""
    cfgs = train_configs()
    sb3, shipped = cfgs["sb3"], cfgs["jax"]

    def said(name, row, before, seconds):
        log(f"{name}: {row['train_decisions_per_second']:.0f} learner decisions/s ({before} {seconds:.0f} s)")

    jax_row = bench_jax_trainer(shipped, jax_iterations)
    said("JAX trainer", jax_row, "compile", jax_row["compile_seconds"])
    sb3_row = bench_sb3_trainer(sb3, sb3_updates)
    said("SB3 trainer", sb3_row, "first update", sb3_row["first_update_seconds"])
    # The JAX network grown to about the SB3 policy's parameter count (its global layers widened).
    scale = max(1.0, (sb3_row["parameters"] / jax_row["parameters"]) ** 0.5)
    bigger = {**shipped.network.model_dump(), "width": int(round(shipped.network.width * scale)),
              "hidden": int(round(shipped.network.hidden * scale))}
    sized = type(shipped).model_validate({**shipped.model_dump(), "network": bigger})
    jax_sized = bench_jax_trainer(sized, jax_iterations)
    said("JAX trainer at the SB3 network's size", jax_sized, "compile", jax_sized["compile_seconds"])
    return {
        "train_decisions_per_second_jax": jax_row["train_decisions_per_second"],
        "train_decisions_per_second_sb3": sb3_row["train_decisions_per_second"],
        "train_ratio_vs_sb3": jax_row["train_decisions_per_second"] / sb3_row["train_decisions_per_second"],
        "train_decisions_per_second_jax_sb3_sized": jax_sized["train_decisions_per_second"],
        "train_ratio_vs_sb3_same_size": jax_sized["train_decisions_per_second"] / sb3_row["train_decisions_per_second"],
        "jax": jax_row, "jax_sb3_sized": {**jax_sized, "network": bigger}, "sb3": sb3_row,
        "devices": [str(d) for d in __import__("jax").devices()],
    }
