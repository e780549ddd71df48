#!/usr/bin/env bash
# The device run of elementwise v6 (kernels/PERF.md "v6"): correctness first, then the sanitizers on
# the changed row kernels, then the proof sweep with PyTorch eager at the same shapes in the same
# call, the clusters' reductions pushed and pulled side by side, then Nsight Compute on the 16-bit
# fused chain (instructions per element, warp stalls, occupancy) at 8192 x 8192 and 4096 x 65536.
# Runs from the repo root as
#   bash .device-shapes/run.sh OUTDIR     (bundle: scripts/device_shapes_prepare.sh, then this file as run.sh)
# under `timeout`; writes as it goes (a timeout keeps what finished). BUDGET (seconds, default the
# bundle's READY) paces the optional steps.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-shapes-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
START=$(date +%s); BUDGET=${BUDGET:-$(cat "$HERE/READY" 2>/dev/null || echo 240)}
left() { echo $(( START + BUDGET - $(date +%s) )); }
log() { echo "[$(date -u +%T) +$(( $(date +%s) - START ))s] $*" | tee -a "$OUT/progress.log"; }
WORK=$(mktemp -d); tar -xJf "$HERE/bin.tar.xz" -C "$WORK" || { log "unpack failed"; exit 2; }
B=$WORK/bin
export LD_LIBRARY_PATH=$WORK/lib:$B:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 FUSIONLAB_CACHE_DIR=$WORK/cache
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.mem,memory.total --format=csv,noheader;
  python3 -c "import torch; print('torch', torch.__version__)" 2>&1; } > "$OUT/card.txt"
log "card: $(sed -n 2p "$OUT/card.txt") budget: $BUDGET s"
cp "$HERE"/*.py "$WORK/" 2>/dev/null
CS=/usr/local/cuda/bin/compute-sanitizer
PICKED="the picked row configuration at every width matches the reference: clusters and rows per block"
PUSHPULL="clusters that push their partial sums compute the bits of clusters that pull them"
FORCED="every forced row configuration computes the same function"

# 1. the elementwise GPU tests (every configuration, ragged, poisoned outputs, float64 reference)
log "gpu tests"
timeout 90 "$B/fusionlab_gpu_tests" "[elementwise],[dropout],[spill],[inputs],[config]" > "$OUT/tests.log" 2>&1
log "gpu tests rc=$? $(tail -2 "$OUT/tests.log" | tr '\n' ' ')"
timeout 20 /usr/local/cuda/bin/cuobjdump -res-usage "$B/libfusionlab_gpu.so" 2>&1 | grep -A1 "row_kernel" > "$OUT/res_usage.txt"

# 2. sanitizers on the changed row kernels (picked layouts: clusters of 2-8 pushing, rows per block,
#    staged; the push/pull comparison; then the forced layouts while time allows)
san() {  # san TOOL NAME TIMEOUT TEST [extra args]
  local tool=$1 name=$2 t=$3 test=$4; shift 4
  local t0=$(date +%s)
  FUSIONLAB_SANITIZER_RUN=1 timeout "$t" "$CS" --tool "$tool" "$@" "$B/fusionlab_gpu_tests" "$test" > "$OUT/san_${name}_${tool}.log" 2>&1
  local rc=$?
  log "$name $tool rc=$rc $(( $(date +%s) - t0 )) s | $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_${name}_${tool}.log" | tail -1) | $(tail -2 "$OUT/san_${name}_${tool}.log" | head -1)"
}
san memcheck picked 40 "$PICKED"
san racecheck picked 70 "$PICKED"
san racecheck pushpull 40 "$PUSHPULL"
san initcheck picked 40 "$PICKED"

# 3. the proof sweep (both fused kernels, the largest rows of every hidden) and the clusters pushed and
#    pulled at hidden 65536; then PyTorch eager at the same shapes
PLAN=$(cat "$HERE/plan" 2>/dev/null || echo proof,pull)
log "sweep: $PLAN"
python3 "$WORK/elementwise_sweep.py" --fusionlab "$B/fusionlab" --out "$OUT/sweep" --phase "$PLAN" \
  --deadline $(( $(date +%s) + 45 )) > "$OUT/sweep.log" 2>&1
log "sweep done: $(grep -c . "$OUT/sweep/sweep.csv" 2>/dev/null) lines"
log "torch eager"
timeout 30 python3 "$WORK/elementwise_torch_sweep.py" --out "$OUT/torch" --deadline $(( $(date +%s) + 25 )) --big-only \
  > "$OUT/torch_eager.log" 2>&1
log "torch eager rc=$?"

# 4. Nsight Compute on the 16-bit fused chain's row kernel: instructions per element, warp states,
#    occupancy, the launch's cluster figures (one kernel per profile)
NCU_SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
prof() {  # prof NAME ROWS HIDDEN [env...]
  local name=$1 rows=$2 hidden=$3; shift 3
  [ "$(left)" -gt 25 ] || { log "ncu $name skipped (time)"; return; }
  env FUSIONLAB_COUNTERS=off "$@" timeout 40 /usr/local/cuda/bin/ncu --clock-control none --csv --page raw $NCU_SECTIONS \
    --metrics smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    -k regex:row_kernel -c 1 "$B/fusionlab" bench --backend gpu --workload chain --variant fused --rows "$rows" \
    --hidden "$hidden" --dtype bf16 --reps 1 > "$OUT/ncu_$name.csv" 2> "$OUT/ncu_$name.log"
  log "ncu $name rc=$? ($(wc -c < "$OUT/ncu_$name.csv") bytes: the raw page, one row per kernel)"
}
prof 65536_push 4096 65536
prof 8192 8192 8192
prof 65536_pull 4096 65536 FUSIONLAB_CLUSTER_REDUCTION=pull

# 5. the forced layouts under memcheck and initcheck, while time allows
[ "$(left)" -gt 35 ] && san memcheck forced $(( $(left) - 5 > 40 ? 40 : $(left) - 5 )) "$FORCED"
[ "$(left)" -gt 35 ] && san initcheck forced $(( $(left) - 5 > 40 ? 40 : $(left) - 5 )) "$FORCED"
log "done"
rm -rf "$WORK"
