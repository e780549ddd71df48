#!/usr/bin/env bash
# The GPU soak in passes (docs/RELIABILITY.md, "GPU soaks in passes"), for one call of at most 560 s on
# a lent GPU: two headless soaks side by side (tests/tools/soak_headless.cpp: the GUI soak's seeded
# actions, its quick and full passes with the DRAM counters and the CUPTI trace on, 3 replayed
# passes), one as shipped (CUPTI detached after each job that used it) and one with
# FUSIONLAB_CUPTI_DETACH=0 (kept attached), so CUPTI's cost is measured both ways on the same
# machine. nvidia-smi's per-process GPU memory is sampled every 5 s beside them (the soaks' own GPU
# figure is device-wide, so it holds both).
#   bash scripts/device_soak_passes.sh DIR OUTDIR [SECONDS]
# DIR: bin/fusionlab_soak_headless, bin/libfusionlab_gpu.so, lib/ (scripts/device_bundle.sh makes it).
# OUTDIR gets soak_detached.txt, soak_attached.txt, gpu_by_process.txt, card.txt, summary.txt.
set -u
[ $# -ge 2 ] || { echo "usage: $0 DIR OUTDIR [SECONDS]" >&2; exit 2; }
dir=$1 out=$2 seconds=${3:-480}
mkdir -p "$out"
export LD_LIBRARY_PATH=$dir/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader; } > "$out/card.txt" 2>&1
cat "$out/card.txt"
soak=$dir/bin/fusionlab_soak_headless
start=$(date +%s)
( while :; do
    echo "$(( $(date +%s) - start )) s: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader 2>&1 | tr '\n' ';') total $(nvidia-smi --query-gpu=memory.used --format=csv,noheader 2>&1 | head -1)"
    sleep 5
  done ) > "$out/gpu_by_process.txt" 2>&1 &
sampler=$!
# Each soak its own ceiling cache (a fresh machine measures the compute ceilings once, in pass 1).
FUSIONLAB_CACHE_DIR=$out/cache-detached timeout $((seconds + 60)) "$soak" "$seconds" 3 7 > "$out/soak_detached.txt" 2>&1 &
a=$!
FUSIONLAB_CUPTI_DETACH=0 FUSIONLAB_CACHE_DIR=$out/cache-attached timeout $((seconds + 60)) "$soak" "$seconds" 3 7 > "$out/soak_attached.txt" 2>&1 &
b=$!
echo "soaks started: detached (as shipped) pid $a, attached (FUSIONLAB_CUPTI_DETACH=0) pid $b, $seconds s in 3 passes each"
wait "$a"; ra=$?
wait "$b"; rb=$?
kill "$sampler" 2>/dev/null
keep='^soak: (PASSED|FAILED)|pass [0-9] ends|GPU memory|C heap at|host RSS at|FAILURE|replays|frame time|actions  |exports  |headless|^ +pass +frames|^ +[0-9]+ +[0-9]+ +[0-9.]+ '
{
  echo "== detached (as shipped): exit $ra"; grep -E "$keep" "$out/soak_detached.txt"
  echo "== attached (FUSIONLAB_CUPTI_DETACH=0): exit $rb"; grep -E "$keep" "$out/soak_attached.txt"
} | tee "$out/summary.txt"
rm -rf "$out/cache-detached" "$out/cache-attached"
exit $(( ra > rb ? ra : rb ))
