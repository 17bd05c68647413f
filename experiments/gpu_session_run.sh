#!/usr/bin/env bash
# One prepared run on a lent GPU machine, as the device tool runs it (a copy of the repo, results
# under $OUT), within one command's 10 minutes:
#
#   bash experiments/gpu_session_run.sh OUT TRAIN_MINUTES DEADLINE_SECONDS
#
# 1. CPUs: Monkey Palace's complete-build differential (issue 28), the games that
#    reports/gpu/differential_complete.json has not compared yet, split in shards run 15 at a
#    time (single-threaded XLA each), every shard stopping at the deadline; resumable from $OUT.
# 2. GPU: the JAX trainer with configs/train/ppo_jax_gpu.yaml (4,096 games a step, scanned updates)
#    for TRAIN_MINUTES of wall time, compilation and evaluations included (issue 32).
# 3. GPU, in what time is left: `evaluate` matches of mcts for Forbidden City and The Shadow
#    Theater (issue 30), 1,000 games each, each under a timeout.
# The machine has no network: the packages its image lacks travel as wheels in .whl/ (carried).
set -u
out=${1:?OUT}; minutes=${2:-5}; deadline=${3:-550}
PY=${PY:-python3}; start=$(date +%s)
left() { echo $(( deadline - ($(date +%s) - start) )); }
if [ "${NO_WHEELS:-0}" != 1 ]; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
fi
ln -sfn ../agents monkey_env/agents; ln -sfn ../configs monkey_env/configs
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 MONKEY_PALACE_JAX_CACHE=/tmp/jax_cache
mkdir -p "$out/shards"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc; $PY -c "import jax; print(jax.__version__, jax.devices())"; } > "$out/machine.txt" 2>&1

# 1. the differential's remaining games, as "first count" lines, 200 games a shard
$PY - > "$out/plan.txt" <<'PY'
import json
for r in json.load(open("reports/gpu/differential_complete.json"))["runs"]:
    first, end = r["next_game"], r["first"] + r["target_games"]
    while first < end:
        print(first, min(200, end - first))
        first += 200
PY
shard() {  # first, count: one shard of the differential, stopping 15 s before the deadline
    local minutes
    minutes=$(python3 -c "print(max(0.0, ($deadline - 15 - ($(date +%s) - $start)) / 60))")
    [ "${minutes%%.*}" -lt 1 ] && return 0
    JAX_PLATFORMS=cpu XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \
        nice -n 10 $PY experiments/monkey_palace_differential.py --build-action complete --first "$1" --games "$2" \
        --batch 20 --max-minutes "$minutes" --fresh --out "$out/shards/shard_$1.json" > "$out/shards/shard_$1.log" 2>&1
}
export -f shard; export out deadline start PY
xargs -P "${SHARDS:-15}" -L 1 bash -c 'shard "$@"' _ < "$out/plan.txt" &
diff_pid=$!

# 2. the trainer on the GPU
$PY -m monkey_env.apps.cli train "${TRAIN_CONFIG:-configs/train/ppo_jax_gpu.yaml}" --minutes "$minutes" --out-dir /tmp/runs > "$out/train.log" 2>&1
echo "train exit $? after $(( $(date +%s) - start )) s" >> "$out/train.log"
run=$(ls -d /tmp/runs/*-seed* 2>/dev/null | head -1)
if [ -n "$run" ]; then
    cp "$run/curve.csv" "$out/" 2>/dev/null; cp "$run/final.msgpack" "$out/ppo_gpu_final.msgpack" 2>/dev/null
    $PY - "$run" >> "$out/train.log" 2>&1 <<'PY'
import sys, glob
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator(glob.glob(sys.argv[1] + "/tensorboard")[0]); acc.Reload()
for tag in acc.Tags()["scalars"]:
    values = [round(e.value, 3) for e in acc.Scalars(tag)]
    print(tag, len(values), values if len(values) <= 12 else values[:4] + ["..."] + values[-6:])
PY
fi

# 3. mcts matches on the GPU, each only when enough time is left
match() {  # name, timeout floor, evaluate's arguments
    name=$1; floor=$2; shift 2
    t=$(( $(left) - 10 ))
    if [ "$t" -gt "$floor" ]; then
        timeout "$t" $PY -m monkey_env.apps.cli evaluate "$@" --players 2 --games "${MATCH_GAMES:-1000}" --batch "${MATCH_GAMES:-1000}" --seed 0 --json --quiet \
            > "$out/mcts_$name.json" 2>> "$out/mcts.log"
        echo "$name exit $? after $(( $(date +%s) - start )) s" >> "$out/mcts.log"
    fi
}
match forbidden_city_vs_greedy 60 --game forbidden_city --agents mcts:chunk=1000,greedy
match forbidden_city_vs_ppo 60 --game forbidden_city --agents mcts:chunk=1000,ppo
match shadow_theater_vs_ppo_sims128 40 --game shadow_theater --agents mcts:chunk=1000,sims=128,ppo
wait $diff_pid
$PY - "$out" <<'PY'
import glob, json, sys
runs = [json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/shards/shard_*.json"))]
total = {k: sum(r[k] for r in runs) for k in ("games", "decisions", "disagreements")}
total |= {"shards": len(runs), "over_cap": sorted(g for r in runs for g in r.get("over_cap", [])),
          "messages": [m for r in runs for m in r["messages"]], "runs": runs}
json.dump(total, open(sys.argv[1] + "/differential_complete_rest.json", "w"), indent=1)
print({k: v for k, v in total.items() if k not in ("runs", "messages")})
PY
rm -rf "$out/shards"
