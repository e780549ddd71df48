#!/usr/bin/env bash
# The GPU soak in passes (docs/RELIABILITY.md, "GPU soaks in passes"), for one call of at most 560 s on
# a lent GPU: two headless soaks side by side (tests/tools/soak_headless.cpp: the GUI soak's seeded
# actions, its quick and full passes with the DRAM counters and the CUPTI trace on, 3 replayed
# passes), one as shipped (CUPTI kept attached; FUSIONLAB_CUPTI_DETACH=0 said explicitly) and one with
# FUSIONLAB_CUPTI_DETACH=1 (detached after each job that used it and attached again), so CUPTI's cost
# is measured both ways on the same machine. nvidia-smi's per-process GPU memory on the GPU the soaks
# use is sampled every 5 s beside them, with each soak's process id (the soaks' own GPU figure is
# device-wide, so it holds both).
#   bash scripts/device_soak_passes.sh DIR OUTDIR [SECONDS]
# DIR: bin/fusionlab_soak_headless, bin/libfusionlab_gpu.so, lib/ (scripts/device_bundle.sh makes it).
# OUTDIR gets soak_attached.txt, soak_detached.txt, gpu_by_process.txt, pids.txt, card.txt, summary.txt.
set -u
[ $# -ge 2 ] || { echo "usage: $0 DIR OUTDIR [SECONDS]" >&2; exit 2; }
dir=$1 out=$2 seconds=${3:-480}
mkdir -p "$out"
export LD_LIBRARY_PATH=$dir/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader; } > "$out/card.txt" 2>&1
cat "$out/card.txt"
soak=$dir/bin/fusionlab_soak_headless
start=$(date +%s)
# The GPU the soaks see: CUDA_VISIBLE_DEVICES (an index or a UUID), else GPU 0.
gpu=${CUDA_VISIBLE_DEVICES:-0}; gpu=${gpu%%,*}
( while :; do
    echo "$(( $(date +%s) - start )) s: $(nvidia-smi -i "$gpu" --query-compute-apps=pid,used_memory --format=csv,noheader 2>&1 | tr '\n' ';') total $(nvidia-smi -i "$gpu" --query-gpu=memory.used --format=csv,noheader 2>&1 | head -1)"
    sleep 5
  done ) > "$out/gpu_by_process.txt" 2>&1 &
sampler=$!
# Each soak its own ceiling cache (a fresh machine measures the compute ceilings once, in pass 1).
# exec: the process id nvidia-smi lists is the soak's own (timeout --foreground would add one).
FUSIONLAB_CUPTI_DETACH=0 FUSIONLAB_CACHE_DIR=$out/cache-attached bash -c 'exec "$@"' _ "$soak" "$seconds" 3 7 > "$out/soak_attached.txt" 2>&1 &
a=$!
FUSIONLAB_CUPTI_DETACH=1 FUSIONLAB_CACHE_DIR=$out/cache-detached bash -c 'exec "$@"' _ "$soak" "$seconds" 3 7 > "$out/soak_detached.txt" 2>&1 &
b=$!
echo "attached (as shipped) pid $a; detached (FUSIONLAB_CUPTI_DETACH=1) pid $b" | tee "$out/pids.txt"
# A guard against a soak that hangs; its output goes nowhere, so a leftover sleep holds no pipe open.
( exec > /dev/null 2>&1; sleep $((seconds + 60)); kill "$a" "$b" ) &
guard=$!
echo "soaks started: $seconds s in 3 passes each"
wait "$a"; ra=$?
wait "$b"; rb=$?
kill "$guard" 2>/dev/null
kill "$sampler" 2>/dev/null
keep='^soak: (PASSED|FAILED)|pass [0-9] ends|GPU memory|C heap at|host RSS at|FAILURE|replays|frame time|actions  |exports  |headless|^ +pass +frames|^ +[0-9]+ +[0-9]+ +[0-9.]+ '
{
  echo "== attached (as shipped, pid $a): exit $ra"; grep -E "$keep" "$out/soak_attached.txt"
  echo "== detached (FUSIONLAB_CUPTI_DETACH=1, pid $b): exit $rb"; grep -E "$keep" "$out/soak_detached.txt"
} | tee "$out/summary.txt"
rm -rf "$out/cache-detached" "$out/cache-attached"
exit $(( ra > rb ? ra : rb ))
