#!/usr/bin/env bash
# The in-app DRAM counters (CUPTI range profiler, kernels/profiling/dram_counters.cu) against Nsight
# Compute on the same kernels, on a GPU machine. Issue 18, item 6; kernels/PERF.md, "Counters vs
# Nsight Compute". For each point: fusionlab's counters with today's flush (read passes inside the
# profiling session, before and after the run) and with the old one (FUSIONLAB_COUNTER_FLUSH=read), then ncu's dram__bytes_read.sum and
# dram__bytes_write.sum with its own cache control (flush and invalidate before each kernel).
# Usage (repo root, .device/ from scripts/device_prepare.sh): bash scripts/counters_vs_ncu.sh [OUTDIR]
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${1:-${OUT:-/tmp}/counters}
bin=${FUSIONLAB_BIN:-.device/bin/fusionlab}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; ncu --version | tail -1; } > "$out/device.txt" 2>&1

chain=(--workload chain --rows 8192 --hidden 8192 --dtype bf16)
attn=(--workload attention --N 1024,4096 --d 64 --heads 64 --dtype fp16)
for flush in session read; do
    FUSIONLAB_COUNTER_FLUSH=$flush "$bin" bench "${chain[@]}" --variant unfused,fused --reps 5 --json "$out/chain-$flush.json" > "$out/chain-$flush.txt" 2>&1
    FUSIONLAB_COUNTER_FLUSH=$flush "$bin" bench "${attn[@]}" --variant naive,flash_tc --reps 5 --json "$out/attention-$flush.json" > "$out/attention-$flush.txt" 2>&1
done

# ncu: the app's own CUPTI use off (counters, activity tracing), one run's kernels profiled.
ncu_run() {  # name, kernel regex, count, bench args...
    local name=$1 regex=$2 count=$3
    shift 3
    FUSIONLAB_COUNTERS=off FUSIONLAB_TIMELINE=events timeout 300 ncu --cache-control all --csv \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum -k "regex:$regex" -c "$count" \
        "$bin" bench "$@" --reps 1 > "$out/ncu-$name.csv" 2> "$out/ncu-$name.err"
}
ncu_run chain-fused 'row_kernel' 1 "${chain[@]}" --variant fused
ncu_run chain-unfused 'row_kernel|flat_kernel' 8 "${chain[@]}" --variant unfused
for n in 1024 4096; do
    ncu_run flash_tc-$n 'flash_tc_kernel' 1 --workload attention --N $n --d 64 --heads 64 --dtype fp16 --variant flash_tc
    ncu_run naive-$n 'gemm|nvjet|xmma|cutlass|softmax' 6 --workload attention --N $n --d 64 --heads 64 --dtype fp16 --variant naive
done
ls -la "$out"
