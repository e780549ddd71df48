#!/usr/bin/env bash
# The device run that proves an elementwise kernel change (kernels/PERF.md, v6 and v7): correctness
# first, then compute-sanitizer on the changed kernels (one log per run, --error-exitcode 99), then
# the bench lines that decide, with PyTorch eager at the same shapes in the same call, then Nsight Compute's
# instructions per element, then torch.compile (the bundle's compile_dtypes and compile_hiddens) while time allows. The bundle's `plan` names the sweep phases
# (scripts/elementwise_sweep.py: proof, pull, bounds, fp32wide, ...). Runs from the repo root as
#   bash .device-shapes/run.sh OUTDIR   (bundle: scripts/device_shapes_prepare.sh with RUN=proof)
# under `timeout`; writes as it goes (a timeout keeps what finished). BUDGET (seconds, default the
# bundle's READY) paces the optional steps. (Until v6 this was scripts/device_shapes_v6_run.sh.)
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-shapes-out}; DEFAULT_BUDGET=240
. "$HERE/device_shapes_preamble.sh"
log "card: $(sed -n 2p "$OUT/card.txt") budget: $BUDGET s"
CS=/usr/local/cuda/bin/compute-sanitizer
PICKED="the picked row configuration at every width matches the reference: clusters and rows per block"
PUSHPULL="clusters that push their partial sums compute the bits of clusters that pull them"
FORCED="every forced row configuration computes the same function"
FLAT="every flat configuration computes the same function"
RAGGED="every variant and dtype matches the CPU reference on ragged sizes"
SEQUENCE="rows in sequence compute the bits of one row per block"
LEADER="the leader warp's reduction computes the bits of every warp's reduction"
# the names above must be test cases of this binary: a name Catch2 does not know runs nothing
"$B/fusionlab_gpu_tests" --list-test-names-only > "$OUT/test_names.txt" 2>&1
for n in "$PICKED" "$PUSHPULL" "$FORCED" "$FLAT" "$RAGGED" "$SEQUENCE" "$LEADER"; do
  grep -qxF "$n" "$OUT/test_names.txt" || log "NO SUCH TEST: $n"
done

# 1. the elementwise GPU tests (every configuration, ragged, poisoned outputs, float64 reference)
log "gpu tests"
timeout 90 "$B/fusionlab_gpu_tests" "[elementwise],[dropout],[spill],[inputs],[config]" > "$OUT/tests.log" 2>&1
log "gpu tests rc=$? $(tail -2 "$OUT/tests.log" | tr '\n' ' ')"
timeout 20 /usr/local/cuda/bin/cuobjdump -res-usage "$B/libfusionlab_gpu.so" 2>&1 | grep -A1 "row_kernel" > "$OUT/res_usage.txt"

# 2. sanitizers on the changed kernels, one log per run
san() {  # san TOOL NAME TIMEOUT TEST [extra args]
  local tool=$1 name=$2 t=$3 test=$4; shift 4
  local t0=$(date +%s)
  FUSIONLAB_SANITIZER_RUN=1 timeout "$t" "$CS" --tool "$tool" --error-exitcode 99 "$@" "$B/fusionlab_gpu_tests" "$test" \
    > "$OUT/san_${name}_${tool}.log" 2>&1
  local rc=$?
  log "$name $tool rc=$rc $(( $(date +%s) - t0 )) s | $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_${name}_${tool}.log" | tail -1) | $(tail -2 "$OUT/san_${name}_${tool}.log" | head -1)"
}
SAN=$(cat "$HERE/sanitize" 2>/dev/null || echo "memcheck:picked racecheck:picked initcheck:picked memcheck:flat racecheck:flat initcheck:flat memcheck:ragged")
for item in $SAN; do
  tool=${item%%:*}; which=${item#*:}
  case $which in picked) test=$PICKED;; pushpull) test=$PUSHPULL;; forced) test=$FORCED;; flat) test=$FLAT;; ragged) test=$RAGGED;; sequence) test=$SEQUENCE;; leader) test=$LEADER;;
    *) log "unknown sanitizer target $which"; continue;; esac
  [ "$(left)" -gt 40 ] || { log "$which $tool skipped (time)"; continue; }
  san "$tool" "$which" 45 "$test"
done

# 3. the sweep phases of the plan, then PyTorch eager at the same shapes (the largest rows of each hidden)
PLAN=$(cat "$HERE/plan" 2>/dev/null || echo proof)
SWEEP_S=$(cat "$HERE/sweep_seconds" 2>/dev/null || echo 45)
log "sweep: $PLAN"
python3 "$WORK/elementwise_sweep.py" --fusionlab "$B/fusionlab" --out "$OUT/sweep" --phase "$PLAN" \
  --deadline $(( $(date +%s) + SWEEP_S )) > "$OUT/sweep.log" 2>&1
log "sweep done: $(grep -c . "$OUT/sweep/sweep.csv" 2>/dev/null) lines"
log "torch eager"
timeout 30 python3 "$WORK/elementwise_torch_sweep.py" --out "$OUT/torch" --deadline $(( $(date +%s) + 25 )) --big-only \
  > "$OUT/torch_eager.log" 2>&1
log "torch eager rc=$?"

# 4. Nsight Compute: instructions issued per element (smsp__inst_executed x 32 / elements), warp states
NCU_SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis"  # v8: + the pipes (bf16 against fp16)
prof() {  # prof NAME WORKLOAD KERNEL_REGEX ROWS HIDDEN DTYPE [env...]
  local name=$1 workload=$2 kernel=$3 rows=$4 hidden=$5 dtype=$6; shift 6
  [ "$(left)" -gt 12 ] || { log "ncu $name skipped (time)"; return; }
  env FUSIONLAB_COUNTERS=off "$@" timeout 40 /usr/local/cuda/bin/ncu --clock-control none --csv --page raw $NCU_SECTIONS \
    --metrics smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    -k "regex:$kernel" -c 1 "$B/fusionlab" bench --backend gpu --workload "$workload" --variant fused --rows "$rows" \
    --hidden "$hidden" --dtype "$dtype" --reps 1 > "$OUT/ncu_$name.csv" 2> "$OUT/ncu_$name.log"
  log "ncu $name rc=$? ($(wc -c < "$OUT/ncu_$name.csv") bytes: the raw page, one row per kernel)"
}
# v9: where in the SASS the warps stall (ncu's source page, the 40 instructions with the most stall samples)
stalls() {  # stalls NAME ROWS HIDDEN DTYPE [env...]
  local name=$1 rows=$2 hidden=$3 dtype=$4; shift 4
  [ "$(left)" -gt 25 ] || { log "ncu stalls $name skipped (time)"; return; }
  env FUSIONLAB_COUNTERS=off "$@" timeout 40 /usr/local/cuda/bin/ncu --clock-control none --section SourceCounters \
    --section WarpStateStats --import-source no -o "$WORK/stalls_$name" -k "regex:row_kernel" -c 1 "$B/fusionlab" bench \
    --backend gpu --workload chain --variant fused --rows "$rows" --hidden "$hidden" --dtype "$dtype" --reps 1 \
    > "$OUT/stalls_$name.log" 2>&1
  timeout 30 /usr/local/cuda/bin/ncu --import "$WORK/stalls_$name.ncu-rep" --page source --csv --print-source sass \
    > "$WORK/stalls_$name.csv" 2>> "$OUT/stalls_$name.log"
  python3 "$WORK/ncu_top_stalls.py" "$WORK/stalls_$name.csv" > "$OUT/stalls_$name.txt" 2>> "$OUT/stalls_$name.log"
  log "ncu stalls $name rc=$? ($(wc -l < "$OUT/stalls_$name.txt") lines)"
}
PROFILES=$(cat "$HERE/profiles" 2>/dev/null || echo "chain:8192:8192:bf16 chain:8192:8192:fp16 chain:4096:65536:bf16 bias_gelu:8192:8192:bf16")
for item in $PROFILES; do  # WORKLOAD:ROWS:HIDDEN:DTYPE[:NAME=VALUE] ("none": no profile; v9: an environment setting)
  [ "$item" = none ] && continue
  IFS=: read -r workload rows hidden dtype setting <<< "$item"
  kernel="row_(sequence_)?kernel"; [ "$workload" = bias_gelu ] && kernel=flat_kernel  # v8: row_sequence_kernel too
  if [ -n "$setting" ]; then
    prof "${workload}_${rows}x${hidden}_${dtype}_${setting##*=}" "$workload" "$kernel" "$rows" "$hidden" "$dtype" "$setting"
  else
    prof "${workload}_${rows}x${hidden}_$dtype" "$workload" "$kernel" "$rows" "$hidden" "$dtype"
  fi
done
for item in $(cat "$HERE/stall_profiles" 2>/dev/null); do  # ROWS:HIDDEN:DTYPE[:NAME=VALUE], the fused chain
  IFS=: read -r rows hidden dtype setting <<< "$item"
  if [ -n "$setting" ]; then stalls "${rows}x${hidden}_${dtype}_${setting##*=}" "$rows" "$hidden" "$dtype" "$setting"
  else stalls "${rows}x${hidden}_$dtype" "$rows" "$hidden" "$dtype"; fi
done

# 4b. torch.compile at the largest rows of each hidden (the bundle's compile_dtypes and compile_hiddens), while time allows
if [ -f "$HERE/compile_dtypes" ] && [ "$(left)" -gt 25 ]; then
  log "torch.compile: $(cat "$HERE/compile_dtypes")"
  timeout $(( $(left) - 5 )) python3 "$WORK/elementwise_torch_sweep.py" --out "$OUT/torch" --compile --big-only \
    --dtypes "$(cat "$HERE/compile_dtypes")" --hiddens "$(cat "$HERE/compile_hiddens" 2>/dev/null)" \
    --deadline $(( START + BUDGET - 12 )) > "$OUT/torch_compile.log" 2>&1
  log "torch.compile rc=$? $(grep -c . "$OUT/torch/torch_compile.csv" 2>/dev/null) lines"
fi

# 5. the late sanitizer runs (the bundle's sanitize_late; default the forced layouts under memcheck and
# initcheck), each with what is left, at most 45 s
for item in $(cat "$HERE/sanitize_late" 2>/dev/null || echo "memcheck:forced initcheck:forced"); do
  tool=${item%%:*}; which=${item#*:}
  case $which in picked) test=$PICKED;; forced) test=$FORCED;; leader) test=$LEADER;; sequence) test=$SEQUENCE;; *) continue;; esac
  [ "$(left)" -gt 20 ] && san "$tool" "$which" $(( $(left) - 5 > 45 ? 45 : $(left) - 5 )) "$test"
done
log "done"
rm -rf "$WORK"
