"""Where one gradient step of the JAX trainer's update spends its time, layer by layer (issue 32).

One rollout of a training config gives ``--batch`` real decisions; the gradient of the trainer's
loss on them is compiled, then run ``--steps`` times under ``jax.profiler`` (a Perfetto trace).
Every XLA operation's time is credited to the network layer named in its ``op_name`` metadata
(flax's module names), forward or backward (a ``transpose(jvp(...))`` in the name: the gradient),
and summed; an operation outside every layer (the inputs' planes, reshapes between layers, the
activations, the loss) is named by its primitive in brackets: "(relu)", "(transpose)", "(concatenate)".
Prints a table, and with ``--out`` writes the figures with their provenance (commit, load).

    python -m experiments.jax_update_profile [--config configs/train/ppo_jax.yaml] [--batch 512]
        [--steps 3] [--out reports/bench/update_profile.json]

Any game's config works (the trainer and its loss are the game's); the bench's games and
opponents are not forced: the config's own are played.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import re
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp

from monkey_env.apps.jax_trainer import make_train
from monkey_env.apps.train import load_config
from monkey_env.core.provenance import load_average, provenance

_JVP = re.compile(r"^(transpose\()?jvp\(")


def layer_of(op_name: str) -> tuple[str, str]:
    """(layer, "forward" or "backward") of an XLA op's metadata name, e.g.
    ``jit(loss)/transpose(jvp(PalaceNet))/stud_hidden/dot_general`` -> ("stud_hidden", "backward")."""
    parts = op_name.split("/")
    for i, part in enumerate(parts):
        if _JVP.match(part):
            direction = "backward" if part.startswith("transpose(") else "forward"
            inner = parts[i + 1:-1]            # the last part is the primitive
            layer = next((p for p in inner if "(" not in p), None)
            return layer or _outside(parts), direction
    return _outside(parts), "backward" if "transpose(" in op_name else "forward"


def _outside(parts: list[str]) -> str:
    """An operation outside the layers, named by what it does: "(relu)", "(transpose)", ..."""
    if "jit(relu)" in parts:
        return "(relu)"
    return f"({parts[-1]})"


def op_layers(hlo_text: str) -> dict[str, tuple[str, str]]:
    """Each HLO instruction's (layer, direction), from the compiled module's text."""
    out = {}
    for m in re.finditer(r"%([\w.\-]+) = [^\n]*?op_name=\"([^\"]+)\"", hlo_text):
        out[m.group(1)] = layer_of(m.group(2))
    return out


def op_times(trace_dir: Path) -> collections.Counter:
    """Microseconds per trace event name (complete events only) in the Perfetto trace under ``trace_dir``."""
    files = sorted(trace_dir.rglob("perfetto_trace.json.gz"))
    if not files:
        raise FileNotFoundError(f"no perfetto_trace.json.gz under {trace_dir}")
    data = json.load(gzip.open(files[-1]))
    events = data["traceEvents"] if isinstance(data, dict) else data
    total = collections.Counter()
    for e in events:
        if e.get("ph") == "X":
            total[e["name"]] += e.get("dur", 0)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="configs/train/ppo_jax.yaml")
    ap.add_argument("--batch", type=int, default=512, help="decisions in the profiled gradient step")
    ap.add_argument("--steps", type=int, default=3, help="gradient steps traced (figures are per step)")
    ap.add_argument("--out", help="write the figures as JSON here")
    args = ap.parse_args()
    started, load_before = time.perf_counter(), load_average()

    cfg = load_config(args.config)
    trainer = make_train(cfg)
    runner = trainer.init(jax.random.PRNGKey(cfg.seed))
    rollout, rollouts, batch = jax.jit(trainer._rollout), [], 0
    while batch < args.batch:                 # rollouts until there are enough decisions
        runner, traj = rollout(runner, trainer.new_games(jax.random.PRNGKey(len(rollouts))))
        n = traj.trained.size
        rollouts.append(jax.tree_util.tree_map(lambda x, n=n: x.reshape((n,) + x.shape[2:]), traj))
        batch += n
    flat = jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs)[:args.batch], *rollouts)
    flat = flat._replace(trained=jnp.ones_like(flat.trained))
    zeros = jnp.zeros(args.batch, jnp.float32)
    grad = jax.jit(jax.grad(lambda p, b, a, t: trainer._loss(p, b, a, t)[0]))
    compiled = grad.lower(runner.params, flat, zeros, zeros).compile()
    layers = op_layers(compiled.as_text())
    jax.block_until_ready(grad(runner.params, flat, zeros, zeros))

    with tempfile.TemporaryDirectory() as folder:
        t0 = time.perf_counter()
        with jax.profiler.trace(folder, create_perfetto_trace=True):
            for _ in range(args.steps):
                jax.block_until_ready(grad(runner.params, flat, zeros, zeros))
        wall = (time.perf_counter() - t0) / args.steps
        times = op_times(Path(folder))

    per_layer = collections.defaultdict(lambda: {"forward": 0.0, "backward": 0.0})
    for name, us in times.items():
        if name in layers:
            layer, direction = layers[name]
            per_layer[layer][direction] += us / 1000 / args.steps
    ops_ms = sum(v["forward"] + v["backward"] for v in per_layer.values())
    rows = sorted(({"layer": k, "forward_ms": round(v["forward"], 2), "backward_ms": round(v["backward"], 2),
                    "share": round((v["forward"] + v["backward"]) / ops_ms, 3)} for k, v in per_layer.items()),
                  key=lambda r: -(r["forward_ms"] + r["backward_ms"]))
    print(f"{args.config}: one gradient step of {args.batch} decisions, {wall * 1000:.0f} ms "
          f"(operations {ops_ms:.0f} ms, per step; {_count(runner.params):,} parameters)")
    print(f"{'layer':>20} {'forward ms':>11} {'backward ms':>12} {'share':>6}")
    for r in rows:
        print(f"{r['layer']:>20} {r['forward_ms']:11.1f} {r['backward_ms']:12.1f} {r['share']:6.1%}")
    if args.out:
        report = {"config": args.config, "batch": args.batch, "steps": args.steps, "step_ms": round(wall * 1000, 1),
                  "operations_ms": round(ops_ms, 1), "parameters": _count(runner.params), "layers": rows,
                  "devices": [str(d) for d in jax.devices()],
                  "provenance": provenance(started=started, load_before=load_before)}
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


def _count(tree) -> int:
    return int(sum(x.size for x in jax.tree_util.tree_leaves(tree)))


if __name__ == "__main__":
    main()
