#!/usr/bin/env bash
# One prepared run on a lent GPU machine (issue 32's GPU figures; issue 28's complete differential
# on its spare cores), as the device tool runs it: in a copy of the repo, results under $OUT.
#
#   bash experiments/gpu_training_run.sh OUT MINUTES SHARDS GAMES_PER_SHARD
#
# 1. Monkey Palace's JAX engine against the reference engine on the complete build action, on
#    SHARDS CPU processes in the background (games SHARD*k ..), each stopping after the training.
# 2. The JAX trainer on the GPU with configs/train/ppo_jax_gpu.yaml (4,096 games a step) for
#    MINUTES of wall time, compilation and evaluations included: its log, curve and checkpoints.
# 3. Forbidden City's extent (issue 29): 10,000 random and 10,000 greedy games per player count, on the GPU.
# 4. The engines' decisions per second on the GPU (monkey-palace bench) in what time is left.
# The machine has no network: the packages its image lacks travel as wheels in .whl/
# (carried), the package itself as the working tree (the agents/configs links made here).
set -u
# PY, TRAIN_CONFIG, BENCH_BATCHES and NO_WHEELS=1 let it be tried on a CPU first (small sizes).
out=${1:?OUT}; minutes=${2:-7.5}; shards=${3:-12}; per=${4:-400}
PY=${PY:-python3}; config=${TRAIN_CONFIG:-configs/train/ppo_jax_gpu.yaml}
export BENCH_BATCHES=${BENCH_BATCHES:-4096,16384}
start=$(date +%s)
if [ "${NO_WHEELS:-0}" != 1 ]; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
fi
ln -sfn ../agents monkey_env/agents; ln -sfn ../configs monkey_env/configs
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 MONKEY_PALACE_JAX_CACHE=/tmp/jax_cache
mkdir -p "$out/shards"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc; $PY -c "import jax; print(jax.__version__, jax.devices())"; } > "$out/machine.txt" 2>&1
diff_minutes=$(python3 -c "print(max(1.0, $minutes + ${EXTRA_MINUTES:-2.5}))")
for k in $(seq 0 $((shards - 1))); do
    JAX_PLATFORMS=cpu nice -n 10 $PY experiments/monkey_palace_differential.py --build-action complete \
        --first $((k * per)) --games "$per" --batch 20 --max-minutes "$diff_minutes" --fresh \
        --out "$out/shards/shard_$k.json" > "$out/shards/shard_$k.log" 2>&1 &
done
$PY -m monkey_env.apps.cli train "$config" --minutes "$minutes" --out-dir /tmp/runs \
    > "$out/train.log" 2>&1
echo "train exit $? after $(( $(date +%s) - start )) s" >> "$out/train.log"
run=$(ls -d /tmp/runs/*-seed* 2>/dev/null | head -1)
if [ -n "$run" ]; then
    cp "$run/curve.csv" "$out/" 2>/dev/null; cp "$run/final.msgpack" "$out/ppo_gpu_final.msgpack" 2>/dev/null
    $PY - "$run" >> "$out/train.log" 2>&1 <<'PY'
import sys, glob
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator(glob.glob(sys.argv[1] + "/tensorboard")[0]); acc.Reload()
tags = acc.Tags()["scalars"]
rates = [e.value for e in acc.Scalars("train/decisions_per_second")] if "train/decisions_per_second" in tags else []
print("iterations", len(rates), "learner decisions/s per iteration (first is compile):", [round(r) for r in rates])
PY
fi
left=$(( ${EXTENT_UNTIL:-500} - ($(date +%s) - start) ))
if [ "$left" -gt 30 ]; then
    timeout "$left" $PY experiments/forbidden_city_extent.py --agents random greedy --games "${EXTENT_GAMES:-10000}" \
        --batch "${EXTENT_GAMES:-10000}" --out "$out/forbidden_city_extent.json" >> "$out/train.log" 2>&1
    echo "extent exit $? after $(( $(date +%s) - start )) s" >> "$out/train.log"
fi
left=$(( 560 - ($(date +%s) - start) ))
if [ "$left" -gt 40 ]; then
    timeout $((left - 10)) $PY - > "$out/bench_gpu.jsonl" 2>> "$out/train.log" <<'PY'
import json, os
from monkey_env.monkey_palace.apps.bench import bench_jax
from monkey_env.monkey_palace.jaxgame import JaxGame
from monkey_env.monkey_palace.options import GameOptions
for action in ("catalogue", "complete"):
    jg = JaxGame(GameOptions(build_action=action))
    for batch in map(int, os.environ["BENCH_BATCHES"].split(",")):
        print(json.dumps(bench_jax(jg, batch, 2, 0, max_seconds=8)), flush=True)
PY
fi
wait
$PY - "$out" <<'PY'
import glob, json, sys
runs = [json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/shards/shard_*.json"))]
total = {k: sum(r[k] for r in runs) for k in ("games", "decisions", "disagreements")}
total |= {"shards": len(runs), "over_cap": sorted(g for r in runs for g in r.get("over_cap", [])),
          "messages": [m for r in runs for m in r["messages"]], "runs": runs}
json.dump(total, open(sys.argv[1] + "/differential_complete.json", "w"), indent=1)
print({k: v for k, v in total.items() if k not in ("runs", "messages")})
PY
rm -rf "$out/shards"   # at most 8 files come back: machine, train log, curve, checkpoint, bench, extent, differential
