"""A run of the JAX trainer: the loop around the compiled iteration, with everything a person
watching or resuming it needs.

    run_dir = run(config)                     # or run(config, resume="runs/ppo_jax-seed0-...")

The loop calls :meth:`Trainer.iteration` (rollout and update, one compiled program) and, every
``eval.every_decisions`` learner decisions, :meth:`Trainer.evaluate` against random, greedy and
the best checkpoint so far (one compiled program for the three). ``budget_minutes`` is the wall
time of this command, from its start: compilation, iterations and evaluations all count, and a
resumed run gets the whole budget again. The budget is checked before every iteration and
between the chunks of an evaluation (an evaluation cut short by it is dropped, and the final one
is skipped when the last one's duration no longer fits), so a run ends within its budget plus
one iteration or one evaluation chunk. The progress bar counts the budget's seconds.

A run folder holds ``config.yaml`` (as run), ``tensorboard/``, ``curve.csv`` and ``curve.png``
(win rates against decisions and minutes), ``checkpoints/decisions_<n>.msgpack`` (playing
checkpoints, the agent's format), ``best.msgpack`` (the best against greedy so far),
``final.msgpack`` and ``resume.msgpack`` (the whole training state: parameters, optimizer,
league, keys, counters). A resumed run starts fresh games (the games in play are not saved)
and goes on counting decisions, minutes and the curve from where it stopped.
"""

from __future__ import annotations

import csv
import time
from pathlib import Path

import numpy as np
import yaml

from monkey_env.core.figures import save_figure

CURVE_FIELDS = ["iteration", "decisions", "minutes", "win_rate_vs_random", "win_rate_vs_greedy", "win_rate_vs_best"]


def _save_resume(path: Path, runner, extra: dict) -> None:
    import flax.serialization as fs
    import jax

    state = {"runner": fs.to_state_dict(runner._asdict()), "extra": extra}
    blob = fs.msgpack_serialize(jax.tree_util.tree_map(np.asarray, state))
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(blob)
    tmp.replace(path)


def _load_resume(path: Path, template_runner):
    import flax.serialization as fs
    import jax.numpy as jnp

    raw = fs.msgpack_restore(path.read_bytes())
    fields = fs.from_state_dict(template_runner._asdict(), raw["runner"])
    runner = type(template_runner)(**fields)
    import jax
    return jax.tree_util.tree_map(jnp.asarray, runner), raw["extra"]


def plot_curve(csv_path: Path, png_path: Path, title: str = "") -> None:
    """Win rates against learner decisions (left) and wall-clock minutes (right)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with Path(csv_path).open() as f:
        rows = list(csv.DictReader(f))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), dpi=110, sharey=True)
    for ax, x_key, x_label in ((axes[0], "decisions", "learner decisions"), (axes[1], "minutes", "wall-clock minutes")):
        x = np.array([float(r[x_key]) for r in rows])
        for key, colour in (("win_rate_vs_random", "#2a9d8f"), ("win_rate_vs_greedy", "#e76f51"),
                            ("win_rate_vs_best", "#264653")):
            y = np.array([float(r[key]) if r.get(key) not in ("", None) else np.nan for r in rows])
            label = key.replace("_", " ") + (" so far" if key.endswith("best") else "")
            ax.plot(x, y, marker="o", ms=3, color=colour, label=label)
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_ylim(0, 1.04)
        ax.set_xlabel(x_label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("win rate (seats alternated)")
    axes[1].legend(loc="lower right")
    fig.suptitle(title or "JAX PPO learning curve")
    save_figure(fig, png_path)


def evaluation_chunk(games: int, players: int) -> int:
    """Games per compiled evaluation call: the largest divisor of ``games`` up to 64 that keeps the
    seats alternated (a multiple of ``players``), else all of them; the budget is checked between
    chunks."""
    fitting = [c for c in range(players, min(games, 64) + 1, players) if games % c == 0]
    return max(fitting) if fitting else games


def run(cfg, run_dir: Path | None = None, resume: str | Path | None = None, log=print, progress: bool = True) -> Path:
    import jax
    from tqdm import tqdm

    from monkey_env.agents.ppo_jax import save_checkpoint
    from monkey_env.apps.jax_trainer import GREEDY, RANDOM, SNAPSHOT, make_train

    command_start = time.perf_counter()
    deadline = command_start + cfg.budget_minutes * 60
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / "resume.msgpack").exists():
            raise FileNotFoundError(f"{run_dir}: no resume.msgpack to resume from")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = Path(run_dir) if run_dir else Path(cfg.out_dir) / f"{cfg.name}-seed{cfg.seed}-{stamp}"
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    if resume is None:
        (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.model_dump(mode="json"), sort_keys=False))
    log(f"run folder: {run_dir}")
    log("compiling the trainer (several minutes the first time on a CPU; cached afterwards)...")
    trainer = make_train(cfg)
    if not trainer.pg.has_greedy():
        raise ValueError("train ranks its checkpoints by the win rate against greedy, which has no batched form on "
                         "these options: train them with apps.jax_trainer.make_train")
    network = cfg.network.model_dump()
    meta = {"config": cfg.name, "game": cfg.game, "reward_scale": cfg.ppo.reward_scale, "win_bonus": cfg.ppo.win_bonus,
            "actions": trainer.jg.num_actions}
    runner = trainer.init(jax.random.PRNGKey(cfg.seed))
    extra = {"decisions": 0, "seconds": 0.0, "best_rate": -1.0, "next_eval": 0}
    best_params = runner.params
    curve = run_dir / "curve.csv"
    if resume is not None:
        runner, extra = _load_resume(run_dir / "resume.msgpack", runner)
        extra = {k: (float(v) if k in ("seconds", "best_rate") else int(v)) for k, v in extra.items()}
        if (run_dir / "best.msgpack").exists():
            from monkey_env.agents.ppo_jax import load_checkpoint
            best_params = load_checkpoint(run_dir / "best.msgpack", trainer.jg, cfg.game)[0]
        log(f"resuming at {extra['decisions']:,} decisions, {extra['seconds'] / 60:.1f} minutes in")
    else:
        with curve.open("w", newline="") as f:
            csv.writer(f).writerow(CURVE_FIELDS)
    from torch.utils.tensorboard import SummaryWriter  # imported late: torch is heavy
    writer = SummaryWriter(str(run_dir / "tensorboard"))
    sitting_start, trained_before = time.perf_counter(), extra["seconds"]

    def budget_left() -> float:
        """Seconds left of this command's budget (the one clock the budget is checked on)."""
        return deadline - time.perf_counter()

    def elapsed() -> float:
        """The run's seconds over all its sittings (the curve's minutes)."""
        return trained_before + time.perf_counter() - sitting_start

    key = jax.random.PRNGKey(cfg.seed + 7919 * (1 + extra["decisions"]))
    chunk = evaluation_chunk(cfg.eval.games, cfg.eval.players)
    last_eval_seconds = 0.0

    def evaluate_now(final: bool = False):
        """Win rates against random, greedy and the best so far, or None when the budget ran out."""
        nonlocal key, best_params, last_eval_seconds
        if final and budget_left() < last_eval_seconds:
            log(f"the final evaluation skipped: {budget_left():.0f} s of the budget left, the last took "
                f"{last_eval_seconds:.0f} s")
            return None
        t0 = time.perf_counter()
        key, k = jax.random.split(key)
        won = {name: 0.0 for name in ("random", "greedy", "best")}
        for i in range(cfg.eval.games // chunk):
            for kind, name in ((RANDOM, "random"), (GREEDY, "greedy"), (SNAPSHOT, "best")):
                share = trainer.evaluate(runner.params, best_params, kind, chunk, jax.random.fold_in(k, i))
                won[name] += float(share) * chunk
            if budget_left() <= 0 and i + 1 < cfg.eval.games // chunk:
                log(f"an evaluation cut short by the budget after {(i + 1) * chunk} of {cfg.eval.games} games: dropped")
                return None
        last_eval_seconds = time.perf_counter() - t0
        rates = {name: w / cfg.eval.games for name, w in won.items()}
        row = [int(runner.iteration), extra["decisions"], f"{elapsed() / 60:.2f}"] + [f"{rates[o]:.4f}" for o in
                                                                                   ("random", "greedy", "best")]
        with curve.open("a", newline="") as f:
            csv.writer(f).writerow(row)
        for name, rate in rates.items():
            writer.add_scalar(f"eval/win_rate_vs_{name}", rate, extra["decisions"])
        path = save_checkpoint(run_dir / "checkpoints" / f"decisions_{extra['decisions']}.msgpack", runner.params,
                               network, {**meta, "decisions": extra["decisions"]})
        if rates["greedy"] > extra["best_rate"]:
            extra["best_rate"] = rates["greedy"]
            best_params = runner.params
            save_checkpoint(run_dir / "best.msgpack", runner.params, network,
                            {**meta, "decisions": extra["decisions"], "win_rate_vs_greedy": rates["greedy"]})
        log(f"{extra['decisions']:>11,} decisions ({elapsed() / 60:5.1f} min): "
            + ", ".join(f"vs {o} {r:.3f}" for o, r in rates.items()) + f"  [{path.name}]")
        return rates

    budget = cfg.budget_minutes * 60
    bar = tqdm(total=round(budget), unit="s", disable=not progress, dynamic_ncols=True,
               bar_format="{l_bar}{bar}| {n:.0f}/{total} s of the budget [{elapsed}<{remaining}{postfix}]")
    bar.update(round(min(budget, budget - budget_left())))
    compiled_at = None
    while extra["decisions"] < cfg.total_decisions and budget_left() > 0:
        if extra["decisions"] >= extra["next_eval"]:
            rates = evaluate_now()
            if rates is not None:
                bar.set_postfix(decisions=f"{extra['decisions']:,}", vs_greedy=f"{rates['greedy']:.2f}")
            extra["next_eval"] += cfg.eval.every_decisions
            if budget_left() <= 0:
                break
        key, k_fresh = jax.random.split(key)
        t0 = time.perf_counter()
        runner, metrics = trainer.iteration(runner, trainer.new_games(k_fresh))
        metrics = {k: float(v) for k, v in metrics.items()}    # the one transfer of an iteration
        if compiled_at is None:
            compiled_at = time.perf_counter() - t0
            log(f"first iteration (compilation included): {compiled_at:.0f} s")
        n = int(metrics["learner_decisions"])
        extra["decisions"] += n
        extra["seconds"] = elapsed()
        bar.update(max(0, round(min(budget, budget - budget_left())) - bar.n))
        bar.set_postfix(decisions=f"{extra['decisions']:,}", refresh=False)
        for k, v in metrics.items():
            writer.add_scalar(f"train/{k}", v, extra["decisions"])
        writer.add_scalar("train/decisions_per_second", n / max(time.perf_counter() - t0, 1e-9), extra["decisions"])
        if int(runner.iteration) % cfg.checkpoint_every == 0:
            _save_resume(run_dir / "resume.msgpack", runner, extra)
    bar.close()
    extra["seconds"] = elapsed()
    evaluate_now(final=True)
    _save_resume(run_dir / "resume.msgpack", runner, extra)
    save_checkpoint(run_dir / "final.msgpack", runner.params, network, {**meta, "decisions": extra["decisions"]})
    writer.close()
    plot_curve(curve, run_dir / "curve.png", title=f"{cfg.name} ({cfg.game}), seed {cfg.seed}")
    log(f"done: {extra['decisions']:,} learner decisions in {elapsed() / 60:.1f} min of training "
        f"({(time.perf_counter() - command_start) / 60:.1f} min this command); best vs greedy "
        f"{extra['best_rate']:.3f}; run in {run_dir}")
    return run_dir
