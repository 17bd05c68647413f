"""Training PPO from a config file: `monkey-palace train CONFIG`.

The config's ``trainer`` chooses the trainer: ``jax`` (the default; self-play compiled end to end
on the JAX engine, monkey_env/apps/jax_trainer.py and training_run.py, for the game its ``game:``
names) or ``sb3`` (this module:
Stable-Baselines3's MaskablePPO over the batched VecEnv, the design card's library).

**The SB3 trainer.** It trains the default game (monkey_env.games.DEFAULT_GAME: the config's
``game:`` is that game's options, its policy's feature extractor its ``sb3`` part's). The learner
plays one seat of ``num_envs`` batched JAX games (the game's ``vec_env`` part) against opponents
drawn per episode: random, greedy and frozen snapshots of itself ("self", refreshed every
``snapshot_every_steps``). Every ``eval_every_steps`` the current policy
plays ``eval_games`` games against random and against greedy (seats alternated, greedy
decisions), and the win rates go to the learning curve (``curve.csv``), TensorBoard and the
terminal; a checkpoint is saved each time. Training stops at ``total_timesteps`` or after
``budget_minutes`` of the command's wall time (building the env and the evaluations count; an
evaluation that no longer fits in what is left is skipped), whichever comes first.

A run writes into ``out_dir/<name>-seed<seed>-<time>/``: ``config.yaml`` (as run),
``tensorboard/``, ``checkpoints/step_<n>.zip``, ``final.zip``, ``curve.csv``, ``curve.png``.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path
from typing import Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from monkey_env.core.config_loading import ConfigError
from monkey_env.core.figures import save_figure
from monkey_env.games import DEFAULT_GAME, game_spec, spec_for_options

GameOptions = game_spec(DEFAULT_GAME).load("options")   # the SB3 trainer's game: the default one


def sb3_parts():
    """The default game's ``sb3`` part (its feature extractor and PPOAgent), imported when used:
    torch and Stable-Baselines3 are heavy."""
    return game_spec(DEFAULT_GAME).load("sb3")


class PPOSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    learning_rate: float = Field(3e-4, gt=0)
    n_steps: int = Field(64, ge=1, description="steps per game between updates (rollout = n_steps × num_envs)")
    batch_size: int = Field(1024, ge=2)
    n_epochs: int = Field(4, ge=1)
    gamma: float = Field(0.995, gt=0, le=1)
    gae_lambda: float = Field(0.95, gt=0, le=1)
    ent_coef: float = Field(0.01, ge=0)
    clip_range: float = Field(0.2, gt=0)


class NetworkSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cnn_channels: int = Field(32, ge=1)
    vector_features: int = Field(128, ge=1)
    features_dim: int = Field(256, ge=1)
    net_arch: list[int] = [128]


class TrainConfig(BaseModel):
    """One training run. Every field has a default; a config file overrides some."""

    model_config = ConfigDict(extra="forbid")
    trainer: Literal["sb3"] = "sb3"
    name: str = Field("ppo", pattern=r"^[A-Za-z0-9_.-]+$", description="run name prefix")
    seed: int = 0
    # The games trained on: the game's one options object (players, map, expansions, rule
    # readings, config_dir, reward_mode ...), as everywhere else.
    game: GameOptions = Field(default_factory=GameOptions)
    num_envs: int = Field(64, ge=1, description="games stepped together")
    budget_minutes: float = Field(60.0, gt=0, description="wall time of the whole command, evaluations included")
    total_timesteps: int = Field(3_000_000, ge=1, description="learner decisions, at most")
    opponents: dict[Literal["random", "greedy", "self"], float] = {"random": 0.3, "greedy": 0.5, "self": 0.2}
    snapshot_every_steps: int = Field(40_000, ge=1)
    eval_every_steps: int = Field(40_000, ge=1)
    eval_games: int = Field(200, ge=2)
    ppo: PPOSettings = PPOSettings()
    network: NetworkSettings = NetworkSettings()
    out_dir: str = "runs"

    @field_validator("opponents")
    @classmethod
    def _weights(cls, v):
        if not v or any(w < 0 for w in v.values()) or sum(v.values()) <= 0:
            raise ValueError("opponent weights must be non-negative and not all zero")
        return v


TRAINERS = ("jax", "sb3")


def load_config(path: str | Path):
    """The training config of a file: a JaxTrainConfig (``trainer: jax``, the default) or a
    TrainConfig (``trainer: sb3``); a bad field is a ConfigError naming it."""
    from monkey_env.apps.jax_trainer import JaxTrainConfig

    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such training config") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML ({e})") from None
    raw = raw or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: a training config is a mapping of fields, not {type(raw).__name__}")
    trainer = raw.get("trainer", "jax")
    if trainer not in TRAINERS:
        raise ConfigError(f"{path}: trainer: {trainer!r} is not one of {', '.join(TRAINERS)}")
    model = JaxTrainConfig if trainer == "jax" else TrainConfig
    try:
        return model.model_validate(raw)
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors())
        raise ConfigError(f"{path}: {problems}") from None


class SnapshotAgent:
    """A frozen copy of the learner, refreshed from time to time (the "self" opponent)."""

    name = "self"

    def __init__(self, model, seed: int):
        self.agent = sb3_parts().PPOAgent(model=_frozen_copy(model), seed=seed, deterministic=False)

    def refresh(self, model) -> None:
        self.agent.model.policy.load_state_dict(model.policy.state_dict())

    def act_batch(self, jax_game, states, masks, key):
        return self.agent.act_batch(jax_game, states, masks, key)


def _frozen_copy(model):
    import copy

    clone = copy.copy(model)
    clone.policy = copy.deepcopy(model.policy)
    return clone


def win_rates(model, opponents: list[str], cfg: TrainConfig, seed: int) -> dict[str, float]:
    """The current policy (greedy decisions) against each opponent, seats alternated."""
    from monkey_env.apps.evaluate import evaluate

    me = sb3_parts().PPOAgent(model=model, deterministic=True)
    out = {}
    for opp in opponents:
        report = evaluate(["ppo", opp], games=cfg.eval_games, seed=seed, batch=max(2, cfg.eval_games // 2),
                          agents={"ppo": me}, progress=False, game_options=cfg.game)
        out[opp] = report["win_rate"]["ppo"]
    return out


def train(cfg: TrainConfig, run_dir: Path | None = None, log=print) -> Path:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor

    from monkey_env.agents.registry import make_agent

    # The budget is this command's wall time from here: building the env (compiling the engine),
    # learning and evaluations all count (training_run.py does the same for the JAX trainer).
    t0 = time.perf_counter()
    deadline = t0 + cfg.budget_minutes * 60
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = Path(run_dir) if run_dir else Path(cfg.out_dir) / f"{cfg.name}-seed{cfg.seed}-{stamp}"
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.model_dump(), sort_keys=False))
    log(f"run folder: {run_dir} (compiling the JAX engine first: about a minute the first time)")
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(max(1, torch.get_num_threads()))

    names = [n for n, w in cfg.opponents.items() if w > 0]
    weights = [cfg.opponents[n] for n in names]
    # The snapshot needs a model; build the env with a placeholder and plug the snapshot in after.
    opponents = [make_agent(n, cfg.seed + i) if n != "self" else None for i, n in enumerate(names)]
    placeholder = [o if o is not None else make_agent("random", 0) for o in opponents]
    VecEnv = spec_for_options(cfg.game).load("vec_env")
    venv = VecEnv(cfg.num_envs, opponents=placeholder, opponent_weights=weights, seed=cfg.seed, options=cfg.game)
    model = MaskablePPO("MultiInputPolicy", VecMonitor(venv), seed=cfg.seed, verbose=0, device="cpu",
                        tensorboard_log=str(run_dir / "tensorboard"), policy_kwargs=sb3_parts().policy_kwargs(
                            cfg.network.cnn_channels, cfg.network.vector_features, cfg.network.features_dim,
                            tuple(cfg.network.net_arch)), **cfg.ppo.model_dump())
    snapshot = None
    if "self" in names:
        snapshot = SnapshotAgent(model, cfg.seed)
        venv.opponents[names.index("self")] = snapshot
    eval_against = ("random", "greedy")
    evaluated = []
    curve_path = run_dir / "curve.csv"
    with curve_path.open("w", newline="") as f:
        csv.writer(f).writerow(["step", "minutes"] + [f"win_rate_vs_{o}" for o in eval_against])
    last_eval_seconds = 0.0

    def evaluate_now(step: int) -> None:
        nonlocal last_eval_seconds
        started = time.perf_counter()
        if started + last_eval_seconds > deadline and evaluated:
            log(f"step {step:>9,}: the evaluation skipped, {max(0.0, deadline - started):.0f} s of the budget left "
                f"and the last took {last_eval_seconds:.0f} s")
            return
        rates = win_rates(model, eval_against, cfg, seed=10_000 + step)
        last_eval_seconds = time.perf_counter() - started
        minutes = (time.perf_counter() - t0) / 60
        with curve_path.open("a", newline="") as f:
            csv.writer(f).writerow([step, f"{minutes:.2f}"] + [f"{rates[o]:.4f}" for o in eval_against])
        if getattr(model, "_logger", None) is not None:  # set once learn() has started
            for o, r in rates.items():
                model.logger.record(f"eval/win_rate_vs_{o}", r)
        model.save(run_dir / "checkpoints" / f"step_{step}.zip")
        evaluated.append(step)
        log(f"step {step:>9,} ({minutes:5.1f} min): " + ", ".join(f"win rate vs {o} {r:.3f}" for o, r in rates.items()))

    class Schedule(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next_eval = cfg.eval_every_steps
            self.next_snapshot = cfg.snapshot_every_steps

        def _on_step(self) -> bool:
            if snapshot is not None and self.num_timesteps >= self.next_snapshot:
                snapshot.refresh(self.model)
                self.next_snapshot += cfg.snapshot_every_steps
            if self.num_timesteps >= self.next_eval:
                evaluate_now(self.num_timesteps)
                self.next_eval += cfg.eval_every_steps
            return time.perf_counter() < deadline

    evaluate_now(0)
    model.learn(total_timesteps=cfg.total_timesteps, callback=Schedule(), tb_log_name="ppo", progress_bar=False)
    if evaluated[-1] != model.num_timesteps and time.perf_counter() < deadline:
        evaluate_now(model.num_timesteps)
    model.save(run_dir / "final.zip")
    plot_curve(curve_path, run_dir / "curve.png", title=f"{cfg.name}, seed {cfg.seed}")
    log(f"done: {model.num_timesteps:,} steps in {(time.perf_counter() - t0) / 60:.1f} min; run in {run_dir}")
    return run_dir


def export_checkpoint(src: str | Path, dst: str | Path) -> Path:
    """A checkpoint for playing, not for resuming training: without the optimizer's state
    (Adam's moments double the size), so that it is small enough to keep in the repository."""
    import torch
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(src), device="cpu")
    # The last rollout's observations (megabytes of planes) are only for resuming training.
    model._last_obs = model._last_original_obs = model._last_episode_starts = None
    model.policy.optimizer = torch.optim.Adam(model.policy.parameters(), lr=model.learning_rate
                                              if isinstance(model.learning_rate, float) else 3e-4)
    model.save(str(dst))
    return Path(dst)


def plot_curve(csv_path: Path, png_path: Path, title: str = "") -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with Path(csv_path).open() as f:
        rows = list(csv.DictReader(f))
    steps = np.array([int(r["step"]) for r in rows])
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for key, colour in (("win_rate_vs_random", "#2a9d8f"), ("win_rate_vs_greedy", "#e76f51")):
        if rows and key in rows[0]:
            ax.plot(steps, [float(r[key]) for r in rows], marker="o", color=colour, label=key.replace("_", " "))
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    ax.set_xlabel("learner decisions (training steps)")
    ax.set_ylabel("win rate (seats alternated)")
    ax.set_title(title or "PPO learning curve")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    save_figure(fig, png_path)


def cmd_train(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    jax_trainer = cfg.trainer == "jax"
    from monkey_env.apps.cli import game_given

    trained = cfg.game if jax_trainer else spec_for_options(cfg.game).name
    if game_given() and args.game != trained:       # the config's game: field decides; --game may only agree
        raise ConfigError(f"--game {args.game}: {args.config} trains {trained} (the config's game: field decides)")
    steps_field = "total_decisions" if jax_trainer else "total_timesteps"
    overrides = {k: v for k, v in (("budget_minutes", args.minutes), (steps_field, args.steps),
                                   ("seed", args.seed), ("out_dir", args.out_dir)) if v is not None}
    if args.config_dir:       # the common --config-dir flag: train on that game data
        if jax_trainer:
            overrides["games"] = cfg.games.model_copy(update={"options": cfg.games.options.replace(config_dir=args.config_dir)})
        else:
            overrides["game"] = cfg.game.replace(config_dir=args.config_dir)
    if overrides:
        cfg = type(cfg).model_validate({**cfg.model_dump(), **overrides})
    if jax_trainer:
        from monkey_env.apps.training_run import run
        run_dir = run(cfg, resume=args.resume)
        final = run_dir / "best.msgpack"
        if args.keep_as:
            import shutil
            shutil.copyfile(final, args.keep_as)
            print(f"the best checkpoint against greedy copied to {args.keep_as}")
        return 0
    if args.resume:
        raise ConfigError("--resume is for the JAX trainer (trainer: jax); SB3 runs start anew")
    run_dir = train(cfg)
    if args.keep_as:
        export_checkpoint(run_dir / "final.zip", args.keep_as)
        print(f"playing checkpoint (no optimizer state) written to {args.keep_as}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("train", help="train PPO from a config file (configs/train/*.yaml; trainer: jax or sb3)")
    p.add_argument("config")
    p.add_argument("--minutes", type=float, help="override budget_minutes (wall time, evaluations included)")
    p.add_argument("--steps", type=int, help="override the learner decisions (total_decisions / total_timesteps)")
    p.add_argument("--seed", type=int, help="override seed")
    p.add_argument("--out-dir", help="override out_dir")
    p.add_argument("--resume", help="a run folder of the JAX trainer to go on with (its resume.msgpack)")
    p.add_argument("--keep-as", help="also copy the final playing checkpoint to this path")
    p.set_defaults(func=cmd_train)
