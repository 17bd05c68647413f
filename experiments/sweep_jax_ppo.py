"""A hyper-parameter sweep of the JAX trainer on Ray: each trial is one compiled trainer run.

    python -m experiments.sweep_jax_ppo --config configs/train/ppo_jax.yaml \\
        --grid ppo.learning_rate=1e-4,3e-4 ppo.ent_coef=0.003,0.01 --seeds 0,1 --minutes 20 --out runs/sweep

Every combination of the grid and every seed is a Ray task (``--address`` joins a cluster; by
default Ray starts on this machine, one trial per CPU given by ``--cpus-per-trial``). A trial
trains with ``monkey_env.apps.training_run.run`` into its own run folder, so each keeps its
curve and checkpoints, and reports its best win rate against greedy; the table of all trials is
written to ``OUT/sweep.csv``, best first. Workers share the JAX compilation cache (inherited
through the environment), so trials of one shape compile once per machine.
"""

from __future__ import annotations

import argparse
import csv
import itertools
from pathlib import Path


def _set(tree: dict, dotted: str, value):
    keys = dotted.split(".")
    for k in keys[:-1]:
        tree = tree.setdefault(k, {})
    tree[keys[-1]] = value


def _parse_value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def trial(config: dict, run_dir: str) -> dict:
    """One trial (a Ray task): train, then return the best evaluation of the run."""
    from monkey_env.apps.jax_trainer import JaxTrainConfig
    from monkey_env.apps.training_run import run

    cfg = JaxTrainConfig.model_validate(config)
    folder = run(cfg, run_dir=Path(run_dir), log=lambda *_: None, progress=False)
    with (folder / "curve.csv").open() as f:
        rows = list(csv.DictReader(f))
    best = max(rows, key=lambda r: float(r["win_rate_vs_greedy"]))
    return {"run": str(folder), "best_win_rate_vs_greedy": float(best["win_rate_vs_greedy"]),
            "at_decisions": int(best["decisions"]), "final_decisions": int(rows[-1]["decisions"])}


def main(argv=None) -> int:
    import ray
    import yaml

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/train/ppo_jax.yaml")
    p.add_argument("--grid", nargs="*", default=[], help="FIELD=V1,V2 (dotted config fields)")
    p.add_argument("--seeds", default="0")
    p.add_argument("--minutes", type=float, default=20.0, help="each trial's budget")
    p.add_argument("--out", default="runs/sweep")
    p.add_argument("--address", default=None, help="a Ray cluster to join (default: start one here)")
    p.add_argument("--cpus-per-trial", type=float, default=2.0)
    args = p.parse_args(argv)

    base = yaml.safe_load(Path(args.config).read_text())
    axes = []
    for item in args.grid:
        field, _, values = item.partition("=")
        if not values:
            p.error(f"--grid {item!r}: expected FIELD=V1,V2")
        axes.append([(field, _parse_value(v)) for v in values.split(",")])
    seeds = [int(s) for s in args.seeds.split(",")]
    ray.init(address=args.address, ignore_reinit_error=True, include_dashboard=False)
    remote = ray.remote(num_cpus=args.cpus_per_trial)(trial)
    jobs, combos = [], []
    for combo in itertools.product(*axes) if axes else [()]:
        for seed in seeds:
            config = yaml.safe_load(yaml.safe_dump(base))
            for field, value in combo:
                _set(config, field, value)
            config.update(seed=seed, budget_minutes=args.minutes)
            name = "-".join(f"{f.split('.')[-1]}{v}" for f, v in combo) or "base"
            jobs.append(remote.remote(config, str(Path(args.out) / f"{name}-seed{seed}")))
            combos.append({**{f: v for f, v in combo}, "seed": seed})
    results = [dict(c, **r) for c, r in zip(combos, ray.get(jobs))]
    results.sort(key=lambda r: -r["best_win_rate_vs_greedy"])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "sweep.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(results[0]))
        writer.writeheader()
        writer.writerows(results)
    for r in results:
        print(r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
