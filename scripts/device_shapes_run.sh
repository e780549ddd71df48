#!/usr/bin/env bash
# The device run of issue 34's shape sweep (kernels/PERF.md "Every shape"): GPU tests of the
# elementwise kernels (every configuration, ragged, poisoned, through the backend's checked run),
# the sweep of `fusionlab bench` (the phases in the bundle's `plan` file: "experiments" = forced
# layouts beside the picked ones, "default" = the whole shape grid at the picked layouts, "alts",
# "unfused"), PyTorch eager at the same shapes (and a copy of the same bytes), compute-sanitizer
# memcheck on the staged and forced configurations, then torch.compile while time allows. Runs from
# the repo root as
#   bash .device-shapes/run.sh OUTDIR        (the bundle: scripts/device_shapes_prepare.sh)
# under `timeout`; writes as it goes, so a timeout keeps what finished. BUDGET (seconds, default
# the bundle's READY) paces the phases.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-shapes-out}; DEFAULT_BUDGET=300
. "$HERE/device_shapes_preamble.sh"
PLAN=$(cat "$HERE/plan" 2>/dev/null || echo default)
# seconds kept after the sweep for PyTorch eager, memcheck and torch.compile (the bundle's `reserve`)
RESERVE=$(cat "$HERE/reserve" 2>/dev/null || echo 95)
# seconds kept after torch.compile for the forced layouts (the bundle's `reserve_alts`) and its dtypes
RESERVE_ALTS=$(cat "$HERE/reserve_alts" 2>/dev/null || echo 5)
COMPILE_DTYPES=$(cat "$HERE/compile_dtypes" 2>/dev/null || echo bf16,fp16,fp32)
log "card: $(sed -n 2p "$OUT/card.txt") plan: $PLAN budget: $BUDGET s"

# 1. correctness first: the elementwise GPU tests (every configuration, ragged, poisoned)
log "gpu tests"
timeout 100 "$B/fusionlab_gpu_tests" "[elementwise],[dropout],[spill],[inputs],[config]" > "$OUT/tests.log" 2>&1
log "gpu tests rc=$? $(tail -2 "$OUT/tests.log" | tr '\n' ' ')"
timeout 30 "$B/fusionlab" info > "$OUT/info.txt" 2>&1
# the row kernels' registers in this binary (kernels/elementwise/row_kernel_registers.inc is ptxas's)
timeout 20 /usr/local/cuda/bin/cuobjdump -res-usage "$B/libfusionlab_gpu.so" 2>&1 | grep -A1 "row_kernel" > "$OUT/res_usage.txt"
# static SASS instructions per elementwise kernel, of this version and (when the bundle has it) the
# version before it: elementwise.cu alone compiled to a cubin for sm_90 (scripts/device_shapes_prepare.sh)
for cubin in "$HERE"/*.cubin.xz; do
  [ -f "$cubin" ] || continue
  name=$(basename "$cubin" .cubin.xz); xz -dc "$cubin" > "$WORK/$name.cubin"
  timeout 30 /usr/local/cuda/bin/cuobjdump -sass "$WORK/$name.cubin" > "$WORK/$name.sass" 2>/dev/null
  awk '/Function :/ { fn = $3 }
    /^ +\/\*[0-9a-f]+\*\/ / { if (fn != "") n[fn]++ }
    END { for (f in n) print n[f], f }' "$WORK/$name.sass" | sort -k2 > "$OUT/sass_$name.txt"
  xz -6 -c "$WORK/$name.sass" > "$OUT/sass_$name.txt.xz"
done

# 2. compute-sanitizer memcheck on the picked configurations (staged rows, clusters, rows per block),
#    the forced ones and the flat ones: correctness before any timing
log "memcheck"
FUSIONLAB_SANITIZER_RUN=1 timeout 45 compute-sanitizer --tool memcheck "$B/fusionlab_gpu_tests" \
  "the picked row configuration at every width matches the reference: clusters and rows per block" \
  > "$OUT/memcheck.log" 2>&1
log "memcheck rc=$? $(tail -3 "$OUT/memcheck.log" | tr '\n' ' ')"
if [ "$(left)" -gt 25 ]; then
  T=$(( $(left) - 8 )); [ "$T" -gt 30 ] && T=30
  FUSIONLAB_SANITIZER_RUN=1 timeout $T compute-sanitizer --tool memcheck "$B/fusionlab_gpu_tests" \
    "every forced row configuration computes the same function" > "$OUT/memcheck_forced.log" 2>&1
  log "memcheck forced rc=$? $(tail -3 "$OUT/memcheck_forced.log" | tr '\n' ' ')"
fi
if [ "$(left)" -gt 25 ]; then
  T=$(( $(left) - 8 )); [ "$T" -gt 30 ] && T=30
  FUSIONLAB_SANITIZER_RUN=1 timeout $T compute-sanitizer --tool memcheck "$B/fusionlab_gpu_tests" \
    "every flat configuration computes the same function" > "$OUT/memcheck_flat.log" 2>&1
  log "memcheck flat rc=$? $(tail -3 "$OUT/memcheck_flat.log" | tr '\n' ' ')"
fi

# 3. the sweep phases of the plan (its "alts", the forced layouts, run last: after torch.compile)
FIRST=$(echo "$PLAN" | tr ',' '\n' | grep -v '^alts$' | paste -sd, -)
D=$(( START + BUDGET - RESERVE )); NOW=$(date +%s); [ $(( NOW + 60 )) -gt "$D" ] && D=$(( NOW + 60 ))
log "sweep: $FIRST (until +$(( D - START ))s)"
python3 "$WORK/elementwise_sweep.py" --fusionlab "$B/fusionlab" --out "$OUT/sweep" --phase "${FIRST:-default}" \
  --deadline "$D" > "$OUT/sweep.log" 2>&1
log "sweep done: $(grep -c . "$OUT/sweep/sweep.csv" 2>/dev/null) lines"

# 4. PyTorch eager at the grid's shapes (+ a copy of the same bytes; the largest rows only for plan "proof")
D=$(( START + BUDGET - RESERVE + 40 )); NOW=$(date +%s); [ $(( NOW + 15 )) -gt "$D" ] && D=$(( NOW + 15 ))
log "torch eager"
BIG=""; case "$PLAN" in *proof*) BIG="--big-only";; esac
timeout $(( D - $(date +%s) > 10 ? D - $(date +%s) : 10 )) python3 "$WORK/elementwise_torch_sweep.py" --out "$OUT/torch" \
  --deadline "$D" $BIG > "$OUT/torch_eager.log" 2>&1
log "torch eager rc=$?"

# 4b. instructions issued per element by the fused chain's row kernel (ncu; the model's issue estimate)
if [ "$(left)" -gt 60 ] && [ -x /usr/local/cuda/bin/ncu ]; then
  log "ncu: fused chain instructions"
  FUSIONLAB_COUNTERS=off timeout 40 /usr/local/cuda/bin/ncu --clock-control none --csv \
    --metrics smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    -k regex:row_kernel -c 2 "$B/fusionlab" bench --backend gpu --workload chain --variant fused --rows 8192 \
    --hidden 8192 --dtype bf16,fp32 --reps 1 > "$OUT/ncu_chain.csv" 2> "$OUT/ncu_chain.log"
  log "ncu rc=$? $(grep -c inst_executed "$OUT/ncu_chain.csv" 2>/dev/null) metric lines"
fi

# 5. torch.compile at the largest rows of each hidden, while time allows (leaving RESERVE_ALTS for step 6)
D=$(( START + BUDGET - RESERVE_ALTS ))
if [ "$(left)" -gt 40 ]; then
  log "torch.compile"
  timeout $(( $(left) - 3 )) python3 "$WORK/elementwise_torch_sweep.py" --out "$OUT/torch" --compile --big-only \
    --dtypes $COMPILE_DTYPES --deadline "$D" > "$OUT/torch_compile.log" 2>&1
  log "torch.compile rc=$?"
fi
# 6. the forced layouts, while time allows
if echo "$PLAN" | tr ',' '\n' | grep -qx alts && [ "$(left)" -gt 12 ]; then
  log "sweep: alts"
  python3 "$WORK/elementwise_sweep.py" --fusionlab "$B/fusionlab" --out "$OUT/sweep" --phase alts \
    --deadline $(( START + BUDGET - 8 )) >> "$OUT/sweep.log" 2>&1
  log "sweep alts done: $(grep -c . "$OUT/sweep/sweep.csv" 2>/dev/null) lines"
fi
log "done"
rm -rf "$WORK"
