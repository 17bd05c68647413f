"""Forbidden City's JAX engine on its 27 x 27 table against the 17 x 17 table it had before the
edge was removed (issue 29: its speed within 20% of the 17 x 17 engine's, in the same run).

    nice -n 10 .venv/bin/python experiments/forbidden_city_table_bench.py --repeats 5 \
        --baseline-root /path/to/a/checkout/of/41a0b1d --out reports/forbidden_city_bench_table_size.json

Each run is ``monkey-palace bench --game forbidden_city --batches 1024 --games N --json`` in a
fresh process (N: ``--reference-games``, the reference engine's games, whose figure is not
compared; random 2-player games; decisions per second at batch 1,024 after compilation).
The settings are run in turn, repeat after repeat, so that every setting meets the same changes
of load: this code on 27 x 27 and on 17 x 17 (the shipped data with ``table_size: 17``) and,
with ``--baseline-root``, another checkout's code (the engine before this one) on the sizes of
``--baseline-sizes``. Each code plays with its own batched random agent (the product as it was);
with ``--same-policy`` the baseline also runs with this code's random agent (its module swapped
in before the bench starts), so that the engines alone are compared. Every run measures with this
code's ``bench_any_jax`` (swapped in too): whole batches of games, replayed from the same deals with
other keys for at least 5 s (one batch of Forbidden City ends within a second).
The JSON has every run with its load average, the medians and the ratios to 17 x 17.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = ["-m", "monkey_env.apps.cli", "bench", "--game", "forbidden_city", "--batches", "1024", "--json"]


def small_table_data(folder: Path) -> Path:
    """A configs folder holding the shipped Forbidden City data with a 17 x 17 table."""
    shutil.copytree(REPO / "configs" / "forbidden_city", folder / "forbidden_city",
                    ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
    table = folder / "forbidden_city" / "table.yaml"
    lines = [("table_size: 17" if line.startswith("table_size:") else line) for line in table.read_text().splitlines()]
    table.write_text("\n".join(lines) + "\n")
    return folder


def commit_of(root: Path) -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


# Runs the bench of the checkout on sys.path with this checkout's measurement (bench_any_jax: whole
# batches replayed for at least 5 s) and, when asked, this checkout's random agent in place of its own.
_WITH_THIS_CODE = """
import importlib.util, sys
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
import monkey_env.apps.bench as their_bench
their_bench.bench_any_jax = load("bench_of_this_code", sys.argv[1]).bench_any_jax
if sys.argv[2] == "this-policy":
    import monkey_env.agents.random_agent as their_agent
    their_agent.random_legal_actions = load("random_agent_of_this_code", sys.argv[3]).random_legal_actions
from monkey_env.apps.cli import main
sys.exit(main(sys.argv[4:]))
"""


def bench_once(root: Path, config_dir: Path | None, reference_games: int, this_policy: bool = False) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root))
    bench = ["-c", _WITH_THIS_CODE, str(REPO / "monkey_env" / "apps" / "bench.py"),
             "this-policy" if this_policy else "own-policy", str(REPO / "agents" / "random_agent.py"), *BENCH[2:]]
    cmd = [sys.executable, *bench, "--games", str(reference_games)] + (["--config-dir", str(config_dir)] if config_dir else [])
    out = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"bench failed in {root}: {out.stderr.strip().splitlines()[-1:]}")
    report = json.loads(out.stdout)
    jax = report["jax"][0]
    return {"jax_decisions_per_second": round(jax["decisions_per_second"], 1),
            "timed_seconds": round(jax["seconds"], 2), "rounds": jax.get("rounds"),
            "state_bytes_per_game": jax["state_bytes_per_game"],
            "reference_decisions_per_second": round(report["reference"]["decisions_per_second"], 1),
            "load_average_before": report["provenance"]["machine"]["load_average_before"],
            "load_average_after": report["provenance"]["machine"]["load_average_after"]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--reference-games", type=int, default=20,
                   help="the reference engine's games per run (its figure is not compared here: 2 saves minutes)")
    p.add_argument("--baseline-root", type=Path, help="a checkout of the engine to compare with")
    p.add_argument("--baseline-sizes", default="27,17", help="the table sizes the baseline runs on")
    p.add_argument("--same-policy", action="store_true",
                   help="also run the baseline with this code's random agent (the engines alone compared)")
    p.add_argument("--out", type=Path, default=REPO / "reports" / "forbidden_city_bench_table_size.json")
    args = p.parse_args()
    roots = {"this": REPO} | ({"baseline": args.baseline_root.resolve()} if args.baseline_root else {})
    baseline_sizes = [int(x) for x in args.baseline_sizes.split(",")]
    settings = [("this", REPO, 27, False), ("this", REPO, 17, False)]
    if args.baseline_root:
        settings += [("baseline", roots["baseline"], size, False) for size in baseline_sizes]
        if args.same_policy:
            settings += [("baseline with this policy", roots["baseline"], size, True) for size in baseline_sizes]
    runs: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="fc-table17-") as tmp:
        small = small_table_data(Path(tmp))
        for r in range(args.repeats):
            for code, root, size, this_policy in settings:
                cfg = None if size == 27 else small
                run = {"code": code, "table_size": size, "repeat": r,
                       **bench_once(root, cfg, args.reference_games, this_policy)}
                runs.append(run)
                print(f"{code} {size}x{size}: {run['jax_decisions_per_second']:,.0f} decisions/s "
                      f"(load {run['load_average_before'][0]})", flush=True)
    medians = {f"{c} {s}": statistics.median(x["jax_decisions_per_second"] for x in runs
                                              if x["code"] == c and x["table_size"] == s)
               for c, _, s, _ in settings}
    summary = {
        "game": "forbidden_city",
        "what": "the JAX engine's decisions per second at batch 1,024 on 27 x 27 against 17 x 17, random 2-player "
                "games, settings run in turn",
        "command": " ".join(["experiments/forbidden_city_table_bench.py", *sys.argv[1:]]),
        "bench_command": "monkey-palace " + " ".join(BENCH[2:]) + f" --games {args.reference_games}"
                         " [--config-dir DIR with table_size: 17]",
        "commits": {c: commit_of(root) for c, root in roots.items()},
        "cores": os.cpu_count(),
        "runs": runs,
        "median_jax_decisions_per_second": medians,
        "ratio_this_27_to_this_17": round(medians["this 27"] / medians["this 17"], 3),
    }
    if "baseline 17" in medians:
        summary["ratio_this_27_to_baseline_17"] = round(medians["this 27"] / medians["baseline 17"], 3)
    if "baseline 27" in medians and "baseline 17" in medians:
        summary["ratio_baseline_27_to_baseline_17"] = round(medians["baseline 27"] / medians["baseline 17"], 3)
    if "baseline with this policy 17" in medians:
        # the engines alone: the same random agent on both
        summary["ratio_this_27_to_baseline_17_same_policy"] = round(
            medians["this 27"] / medians["baseline with this policy 17"], 3)
    args.out.write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps({k: v for k, v in summary.items() if k.startswith(("median", "ratio"))}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
