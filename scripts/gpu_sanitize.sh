#!/usr/bin/env bash
# Every CUDA kernel under compute-sanitizer, in one go, on a GPU machine.
#
# Tools: memcheck (with --leak-check full), racecheck, initcheck, synccheck.
# Targets, per tool:
#   tests  the GPU test binary (tests/gpu_*): every variant against the CPU reference on ragged
#          sizes and every tile size. Left out: [timing] (many reps, no new code path), [counters]
#          (the CUPTI profiler cannot run under compute-sanitizer) and [oom] (it provokes
#          cudaErrorMemoryAllocation on purpose, which memcheck reports as an API error) and
#          [ceilings] (an 8192^3 cuBLAS GEMM: minutes under the tools, and cuBLAS's own kernels; the
#          backend does not measure ceilings when FUSIONLAB_SANITIZER_RUN is set).
#          racecheck, the slow one, also leaves out "longer sequences*" (N = 1030..4097): the
#          shared-memory code paths are the same as at N = 100..257, which it does run.
#          racecheck instruments every kernel, cuBLAS's included, and judges ours: hazards it
#          reports inside cuBLAS's kernels (naive attention's GEMMs, named nvjet_*, *gemm*, *xmma*,
#          cutlass*) are counted apart and do not fail the run. On an H100 (CUDA 13.0, cuBLAS 13)
#          it reports "potential WAR hazards" in cuBLAS's nvjet kernels, every one writing the value
#          already there: NVIDIA's code, not ours to fix or to judge. They cannot be left out with
#          --kernel-name-exclude: with an nvjet kernel excluded (not instrumented) the tool stops
#          with "Internal Sanitizer Error: The Sanitizer failed to handle a hardware exception" and
#          the context dies (cudaErrorIllegalAddress), whichever of our kernels are instrumented;
#          memcheck on the same run is clean. Backtraces are off so thousands of them stay fast.
#   bench  `fusionlab bench` sweeps: every workload and variant, ragged rows/hidden/N/d, every
#          Br x Bc of flash, causal and not, every dtype; with FUSIONLAB_SANITIZER_RUN=1 so a job
#          runs its kernels 1 warm-up + --reps times instead of the 20-rep minimum, and no
#          hardware counters (the bench prints that its times are not measurements).
#          (--variant all: variants added later are swept too; a workload added later needs its line.)
# Prints a table (tool, target, errors, warnings, seconds, result), writes each run's log under
# $OUT (default ./device-out/sanitize), all of them also in $OUT.tgz, and exits:
#   0 every run finished with 0 errors   1 a run found errors (or the program failed under it)
#   2 bad usage                           3 no errors found, but some run did not finish
#                                           (timeout, missing binary, no GPU)
#
# Layout (scripts/device_prepare.sh makes it): DIR/bin/fusionlab, DIR/bin/fusionlab_gpu_tests,
# DIR/lib/libstb.so.0; DIR defaults to .device (or give --device-dir .device-NAME).
#
# Usage: scripts/gpu_sanitize.sh [--quick] [--tools LIST] [--targets LIST] [--device-dir DIR]
#                                [--timeout SECONDS] [--budget SECONDS] [--tests SPEC] [--parallel N]
#                                [--test-shard I/N] [--sweeps LIST] [--allow-no-gpu]
#   --quick          a subset for a few minutes in all: a few test cases, smaller sweeps
#   --tools LIST     comma list of memcheck,racecheck,initcheck,synccheck (default all four)
#   --targets LIST   comma list of tests,bench (default both)
#   --timeout S      per run (default 600, quick 240)
#   --budget S       all runs together: a run gets at most what is left; once nothing is left
#                    the remaining runs are listed as NOT RUN (fits one lent-machine slot)
#   --allow-no-gpu   go on without a GPU (dry runs of this script with a fake compute-sanitizer)
#   --tests SPEC     the GPU test cases to run (a Catch2 test spec, e.g. '"flash_tc matches*"'),
#                    instead of every [gpu] case the tool can run
#   --parallel N     up to N runs at once (default 1): the test cases are split into N shards
#                    (whole test cases, listed with --list-test-names-only) and the bench sweeps
#                    run side by side; each run has its own log and row
#   --test-shard I/N only the test cases I, I+N, I+2N, ... (from 0) of the list the tool would run,
#                    so one tool's tests can be spread over N calls or GPUs (scripts/device_sanitize_shard.sh)
#   --sweeps LIST    only these bench sweeps (comma list of their numbers, from 1, in the order
#                    bench_sweeps prints them for the tool)
# A full run needs more than one 10-minute slot; split it, e.g.
#   scripts/gpu_sanitize.sh --tools memcheck,initcheck,synccheck --targets tests
#   scripts/gpu_sanitize.sh --tools racecheck --targets tests
#   scripts/gpu_sanitize.sh --targets bench
set -u
set -o pipefail

die_usage() { echo "gpu_sanitize.sh: $*" >&2; echo "  see the header of scripts/gpu_sanitize.sh for usage" >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEVICE_DIR=.device
QUICK=0
TOOLS=memcheck,racecheck,initcheck,synccheck
TARGETS=tests,bench
TIMEOUT=
ALLOW_NO_GPU=0
BUDGET=
PARALLEL=1
TESTS_SPEC=
TEST_SHARD=
SWEEPS=
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --tools) [ $# -ge 2 ] || die_usage "--tools needs a value"; TOOLS=$2; shift ;;
    --targets) [ $# -ge 2 ] || die_usage "--targets needs a value"; TARGETS=$2; shift ;;
    --device-dir) [ $# -ge 2 ] || die_usage "--device-dir needs a value"; DEVICE_DIR=$2; shift ;;
    --timeout) [ $# -ge 2 ] || die_usage "--timeout needs a value"; TIMEOUT=$2; shift ;;
    --budget) [ $# -ge 2 ] || die_usage "--budget needs a value"; BUDGET=$2; shift ;;
    --allow-no-gpu) ALLOW_NO_GPU=1 ;;
    --tests) [ $# -ge 2 ] || die_usage "--tests needs a value"; TESTS_SPEC=$2; shift ;;
    --parallel) [ $# -ge 2 ] || die_usage "--parallel needs a value"; PARALLEL=$2; shift ;;
    --test-shard) [ $# -ge 2 ] || die_usage "--test-shard needs a value"; TEST_SHARD=$2; shift ;;
    --sweeps) [ $# -ge 2 ] || die_usage "--sweeps needs a value"; SWEEPS=$2; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;;
    *) die_usage "unknown option '$1'" ;;
  esac
  shift
done
for t in ${TOOLS//,/ }; do
  case "$t" in memcheck|racecheck|initcheck|synccheck) ;; *) die_usage "--tools: '$t' is not one of memcheck, racecheck, initcheck, synccheck" ;; esac
done
for t in ${TARGETS//,/ }; do
  case "$t" in tests|bench) ;; *) die_usage "--targets: '$t' is not one of tests, bench" ;; esac
done
[ -z "$TIMEOUT" ] && { [ "$QUICK" = 1 ] && TIMEOUT=240 || TIMEOUT=600; }
case "$TIMEOUT" in ''|*[!0-9]*) die_usage "--timeout '$TIMEOUT' is not a whole number of seconds" ;; esac
case "$BUDGET" in *[!0-9]*) die_usage "--budget '$BUDGET' is not a whole number of seconds" ;; esac
case "$PARALLEL" in ''|*[!0-9]*|0) die_usage "--parallel '$PARALLEL' is not a whole number >= 1" ;; esac
SHARD_I=0 SHARD_N=1
if [ -n "$TEST_SHARD" ]; then
  SHARD_I=${TEST_SHARD%%/*} SHARD_N=${TEST_SHARD#*/}
  case "$SHARD_I/$SHARD_N" in *[!0-9/]*|/*|*/|*/*/*) die_usage "--test-shard '$TEST_SHARD' is not I/N (whole numbers, 0 <= I < N)" ;; esac
  [ "$SHARD_I" -lt "$SHARD_N" ] || die_usage "--test-shard '$TEST_SHARD': I must be less than N"
fi
case "$SWEEPS" in *[!0-9,]*) die_usage "--sweeps '$SWEEPS' is not a comma list of sweep numbers" ;; esac
SCRIPT_START=$(date +%s)

cd "$ROOT" || exit 2
case "$DEVICE_DIR" in /*) ;; *) DEVICE_DIR=$ROOT/$DEVICE_DIR ;; esac
BIN=$DEVICE_DIR/bin
FL=$BIN/fusionlab
GPU_TESTS=$BIN/fusionlab_gpu_tests
OUT=${OUT:-$ROOT/device-out}/sanitize
mkdir -p "$OUT" || { echo "gpu_sanitize.sh: cannot create $OUT" >&2; exit 2; }
export LD_LIBRARY_PATH=$DEVICE_DIR/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}

# ---- preconditions: the tool, the binaries, a GPU --------------------------------------------
SAN=$(command -v compute-sanitizer || true)
[ -z "$SAN" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && SAN=/usr/local/cuda/bin/compute-sanitizer
if [ -z "$SAN" ]; then
  echo "gpu_sanitize.sh: compute-sanitizer not found on PATH or in /usr/local/cuda/bin (it ships with the CUDA toolkit)" >&2
  exit 3
fi
for b in "$FL" "$GPU_TESTS"; do
  if [ ! -x "$b" ]; then
    [ -f "$b" ] && chmod +x "$b" 2>/dev/null
    [ -x "$b" ] || { echo "gpu_sanitize.sh: $b is missing: run scripts/device_prepare.sh (or pass --device-dir)" >&2; exit 3; }
  fi
done
if ! nvidia-smi -L >/dev/null 2>&1; then
  if [ "$ALLOW_NO_GPU" = 1 ]; then
    echo "gpu_sanitize.sh: no GPU (nvidia-smi -L failed); going on because of --allow-no-gpu (a dry run)"
  else
    echo "gpu_sanitize.sh: no GPU found (nvidia-smi -L failed): compute-sanitizer needs one (--allow-no-gpu for a dry run)" >&2
    exit 3
  fi
fi
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null; "$SAN" --version 2>&1 | tail -1; } \
  | tee "$OUT/environment.txt"

# ---- what to run ------------------------------------------------------------------------------
TEST_EXCLUDE='~[timing]~[counters]~[oom]~[ceilings]'
tests_spec() {  # Catch2 test spec for tool $1
  if [ -n "$TESTS_SPEC" ]; then
    echo "$TESTS_SPEC"
  elif [ "$QUICK" = 1 ]; then
    # One case per kernel family: every flash tile size, ragged naive and flash_tc, flash_wgmma's
    # small case and skip's epilogue on it (every tile once; they return at once on a GPU other than
    # compute capability 9.0), elementwise.
    echo '"flash matches the reference for every tile size that fits","flash_tc matches*","flash_wgmma small*","skip wgmma small*","naive matches*","every variant and dtype matches the CPU reference on ragged sizes"'
  elif [ "$1" = racecheck ]; then
    echo "[gpu]${TEST_EXCLUDE}~\"longer sequences*\""
  else
    echo "[gpu]${TEST_EXCLUDE}"
  fi
}

# Bench sweeps: one line each, arguments after `fusionlab bench`. Sizes are small and ragged.
bench_sweeps() {  # for tool $1
  if [ "$QUICK" = 1 ]; then
    echo "--workload all --variant all --dtype bf16 --rows 33 --hidden 100 --N 100 --d 64 --heads 2 --kv_heads 1 --kv_len 257 --M 33 --d_model 256 --batch 1 --steps 7 --elements 1000 --reps 1"
    echo "--workload attention --variant flash --dtype fp16 --N 100 --d 64 --br 16,128 --bc 16,128 --heads 1 --reps 1"
    echo "--workload attention --variant flash_tc --dtype fp16 --N 129 --d 64,128 --br 16,128 --bc 64,128 --heads 1 --causal 0,1 --reps 1"
  elif [ "$1" = racecheck ]; then
    # racecheck tracks every shared-memory access (the teaching kernels run ~0.8 s per launch under
    # it), so the full cross product does not finish in a 10-minute slot. Split per workload, fewer
    # sizes, each shared-memory code path still covered: ragged rows and N, every flash tile,
    # causal and not, the dtypes where the kernels differ.
    echo "--workload chain,bias_gelu --variant all --dtype all --rows 1,33 --hidden 100,1024 --reps 1"
    echo "--workload attention --variant all --dtype all --N 17,100 --d 64 --heads 1 --causal 0,1 --reps 1"
    echo "--workload attention --variant all --dtype fp16 --N 100 --d 32,80,128 --heads 1 --reps 1"
    echo "--workload attention --variant flash --dtype fp16,fp32 --N 100 --d 64 --br 16,32,64,128 --bc 16,32,64,128 --heads 1 --causal 1 --reps 1"
    # flash_tc: every tile (16 or 32 rows per warp), ragged N = 129 (a row and a key past 128)
    echo "--workload attention --variant flash_tc --dtype fp16 --N 129 --d 64,128 --br 16,32,64,128 --bc 64,128 --heads 1 --causal 0,1 --reps 1"
    echo "--workload skip --variant all --dtype fp16,fp32 --N 100 --d 64 --heads 1 --batch 1 --causal 0,1 --reps 1"
    echo "--workload launch --variant all --dtype all --steps 1,7 --elements 1,1000 --reps 1"
    # flash_wgmma at every tile it offers, and skip's epilogue on it (TMA, mbarriers, wgmma)
    echo "--workload attention --variant flash_wgmma --dtype fp16,bf16 --N 129 --d 64,128 --br 64,128,192 --bc 64,128 --heads 1 --causal 0,1 --reps 1"
    echo "--workload skip --variant wgmma_fused,wgmma_two_pass --dtype fp16 --N 129 --d 64,128 --br 64,128,192 --bc 64,128 --heads 2 --batch 1 --reps 1"
    # decode: ragged kv_len, GQA and not, paged and contiguous, chosen and fixed splits
    echo "--workload decode --variant all --dtype fp16 --batch 3 --kv_len 1,257 --heads 4 --kv_heads 1,4 --d 64,128 --page 0 --splits 0,3 --reps 1"
    echo "--workload decode --variant all --dtype bf16 --batch 3 --kv_len 1,257 --heads 4 --kv_heads 1,4 --d 64,128 --page 16 --splits 0,3 --reps 1"
    # decode: a group of 32 query heads (GQA on the tensor cores in two passes of 16) and of 8
    echo "--workload decode --variant all --dtype fp16 --batch 1 --kv_len 257 --heads 32 --kv_heads 1,4 --d 64,128 --page 0,16 --splits 0,3 --reps 1"
    echo "--workload ffn --variant all --dtype all --M 1,33 --d_model 256,264 --d_ff 0,520 --reps 1"
  else
    # Every workload and variant at ragged sizes, every dtype, causal and not. decode and ffn have
    # sweeps of their own below (decode offers no fp32 and its kv_heads must divide heads, ffn's
    # defaults are GEMMs of thousands): a workload added later needs a line here too.
    echo "--workload chain,bias_gelu,attention,skip,launch --variant all --dtype all --rows 1,33,257 --hidden 1,100,1024 --N 1,100 --d 64 --heads 2 --batch 1,2 --steps 1,7 --elements 1,1000 --causal 0,1 --reps 1"
    # Attention shapes: ragged N, odd and large d.
    echo "--workload attention --variant all --dtype all --N 17,257 --d 32,80,128 --heads 2 --causal 0,1 --reps 1"
    # flash: every tile size (Br x Bc); a tile that does not fit shared memory is refused, not run.
    echo "--workload attention --variant flash --dtype all --N 100 --d 64,128 --br 16,32,64,128 --bc 16,32,64,128 --heads 1 --causal 0,1 --reps 1"
    # flash_tc: every tile it offers (16 or 32 rows per warp), and skip's epilogue on it.
    echo "--workload attention --variant flash_tc --dtype fp16,bf16 --N 129 --d 32,64,128 --br 16,32,64,128 --bc 64,128 --heads 1 --causal 0,1 --reps 1"
    echo "--workload skip --variant fused,two_pass,wgmma_fused,wgmma_two_pass --dtype fp16 --N 129 --d 64,128 --br 16,32,64,128 --bc 64,128 --heads 2 --batch 1 --reps 1"
    # flash_wgmma at every tile it offers (Br 64/128/192 x Bc 64/128), and skip's epilogue on it.
    echo "--workload attention --variant flash_wgmma --dtype fp16,bf16 --N 129,1000 --d 64,128 --br 64,128,192 --bc 64,128 --heads 2 --causal 0,1 --reps 1"
    echo "--workload skip --variant wgmma_fused,wgmma_two_pass,teaching_fused,teaching_two_pass --dtype fp16,bf16 --N 129 --d 64,128 --br 64,128,192 --bc 64,128 --heads 2 --batch 1 --reps 1"
    # decode: every variant, ragged kv_len, GQA and multi-head, paged and contiguous, splits.
    echo "--workload decode --variant all --dtype fp16 --batch 1,3 --kv_len 1,257,1000 --heads 4 --kv_heads 1,4 --d 64,128 --page 0,16 --splits 0,3 --reps 1"
    echo "--workload decode --variant all --dtype bf16 --batch 1,3 --kv_len 1,257,1000 --heads 4 --kv_heads 1,4 --d 64,128 --page 0,16 --splits 0,3 --reps 1"
    # decode: a group of 32 query heads (GQA on the tensor cores in two passes of 16) and of 8
    echo "--workload decode --variant all --dtype fp16,bf16 --batch 1 --kv_len 257,1000 --heads 32 --kv_heads 1,4 --d 64,128 --page 0,16 --splits 0,3 --reps 1"
    echo "--workload ffn --variant all --dtype all --M 1,33,257 --d_model 256,264 --d_ff 0,520 --reps 1"
  fi
}

tool_flags() {
  case "$1" in
    memcheck) echo "--tool memcheck --leak-check full" ;;
    racecheck) echo "--tool racecheck --racecheck-report all --show-backtrace no" ;;
    initcheck) echo "--tool initcheck" ;;
    synccheck) echo "--tool synccheck" ;;
  esac
}

# ---- running and counting ---------------------------------------------------------------------
# Each run writes its table row and result code to $ROWS_DIR/NNN.row (NNN: the order runs were
# started), so runs in the background report the same way as runs in the foreground.
ROWS_DIR=$OUT/rows
rm -rf "$ROWS_DIR"; mkdir -p "$ROWS_DIR"
RUN_SEQ=0
record_row() { # code row
  printf '%s\t%s\n' "$1" "$2" > "$ROWS_DIR/$(printf '%03d' "$RUN_SEQ").row"
}

# Errors as compute-sanitizer counts them: "ERROR SUMMARY: N error(s)" (summed over processes);
# racecheck also says "RACECHECK SUMMARY: K hazards displayed (E errors, W warnings)".
count_errors() {
  { grep -Eo 'ERROR SUMMARY: [0-9]+ errors?$' "$1" | awk '{print $3}'
    grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ error' "$1" | grep -Eo '\([0-9]+' | tr -d '('; } |
    awk '{s += $1} END {print s + 0}'
}
# racecheck errors whose kernel is cuBLAS's (nvjet*, *gemm*, *xmma*, cutlass*): a hazard block
# names its kernel on the line after "hazard detected", a race report on its own line.
count_cublas_errors() {
  awk '/hazard detected/ { pending = 1; next }
       pending && / at / { pending = 0; k = $0; sub(/.* at /, "", k); sub(/\+0x.*/, "", k); tally(k); next }
       /Race reported between/ { k = $0; sub(/.* access at /, "", k); sub(/\+0x.*/, "", k); sub(/ .*/, "", k); tally(k) }
       function tally(k) { if (k ~ /^nvjet|gemm|xmma|^cutlass/) n++ }
       END { print n + 0 }' "$1"
}
count_summaries() { grep -cE '(ERROR|RACECHECK) SUMMARY:' "$1"; }
count_warnings() { grep -Eo '[0-9]+ warnings?\)' "$1" | awk '{s += $1} END {print s + 0}'; }

# run_one TOOL TARGET LABEL COMMAND...
run_one() {
  local tool=$1 target=$2 label=$3; shift 3
  local log="$OUT/${tool}_${label}.log"
  local start end rc errors warnings summaries result code limit=$TIMEOUT
  if [ -n "$BUDGET" ]; then
    local left=$((BUDGET - ($(date +%s) - SCRIPT_START)))
    if [ "$left" -lt 10 ]; then
      record_row 3 "$(printf '%-10s %-7s %-26s %7s %9s %7s  %s' "$tool" "$target" "$label" - - 0 "NOT RUN: --budget spent")"
      echo "== $tool / $label: not run, --budget ${BUDGET}s spent"
      return
    fi
    [ "$left" -lt "$limit" ] && limit=$left
  fi
  echo "== $tool / $label: $*" | tee "$log"
  start=$(date +%s)
  # racecheck exits with the program's code (errors are counted from its log): cuBLAS's hazards,
  # which are not ours, would otherwise set --error-exitcode on every run and hide a failing test.
  local exit_flags="--error-exitcode 99 --print-limit 200"
  [ "$tool" = racecheck ] && exit_flags="--print-limit 1000000"
  # shellcheck disable=SC2046,SC2086
  timeout --kill-after=30 "$limit" "$SAN" $(tool_flags "$tool") $exit_flags "$@" >>"$log" 2>&1
  rc=$?
  end=$(date +%s)
  errors=$(count_errors "$log"); warnings=$(count_warnings "$log"); summaries=$(count_summaries "$log")
  local cublas=0 note=""
  if [ "$tool" = racecheck ]; then
    cublas=$(count_cublas_errors "$log")
    [ "$cublas" -gt "$errors" ] && cublas=$errors
    errors=$((errors - cublas))
    [ "$cublas" -gt 0 ] && note=" (+$cublas in cuBLAS, not ours)"
  fi
  if grep -q "Internal Sanitizer Error" "$log"; then
    result="SANITIZER INTERNAL ERROR (see log)"; code=1
  elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    result="TIMEOUT after ${limit}s"; code=3
    [ "$errors" -gt 0 ] && { result="ERRORS (then timeout)"; code=1; }
  elif [ "$errors" -gt 0 ] || [ "$rc" = 99 ]; then
    result="ERRORS"; code=1
    [ "$errors" = 0 ] && errors="?"
  elif [ "$target" = bench ] && grep -q "using the simulated" "$log"; then
    result="NO GPU USED: bench fell back to the simulated backend"; code=3
  elif [ "$rc" = 77 ]; then
    result="SKIPPED (exit 77): no GPU, or test cases skipped, each with its reason in the log"; code=3
  elif [ "$rc" != 0 ]; then
    result="FAILED: exit $rc (see log)"; code=1
  elif [ "$summaries" = 0 ]; then
    result="NO SUMMARY: did compute-sanitizer run?"; code=3
  else
    result="clean"; code=0
  fi
  result="$result$note"
  record_row "$code" "$(printf '%-10s %-7s %-26s %7s %9s %7s  %s' "$tool" "$target" "$label" "$errors" "$warnings" "$((end - start))" "$result")"
  echo "   -> $result ($errors errors, $warnings warnings, $((end - start)) s; log $log)"
}

# Read by the GPU backend, in the bench and in the test binary alike (the tests that check rep
# counts or timing notes know what a sanitizer run changes).
export FUSIONLAB_SANITIZER_RUN=1
# The timeline's CUPTI activity tracing and compute-sanitizer both want CUPTI: use the event fallback.
export FUSIONLAB_TIMELINE=events
# start TOOL TARGET LABEL COMMAND...: run_one now, or in the background with at most $PARALLEL at once.
start() {
  RUN_SEQ=$((RUN_SEQ + 1))
  if [ "$PARALLEL" = 1 ]; then run_one "$@"; return; fi
  while [ "$(jobs -rp | wc -l)" -ge "$PARALLEL" ]; do wait -n 2>/dev/null || sleep 1; done
  run_one "$@" &
}

# The test cases the spec selects, as shard files for Catch2's --input-file: one name per line,
# with the characters Catch2 reads as spec syntax escaped (\ , [ ]). Prints the shard files made.
make_shards() { # tool spec
  local names="$OUT/test_names_$1.txt" i=0 name
  "$GPU_TESTS" --list-test-names-only "$2" 2>/dev/null | sed '/^$/d; s/\\/\\\\/g; s/,/\\,/g; s/\[/\\[/g; s/\]/\\]/g' |
    awk -v i="$SHARD_I" -v n="$SHARD_N" '(NR - 1) % n == i' > "$names"
  rm -f "$OUT/shard_$1"_*.txt
  while IFS= read -r name; do
    printf '%s\n' "$name" >> "$OUT/shard_$1_$((i % PARALLEL + 1)).txt"
    i=$((i + 1))
  done < "$names"
  ls "$OUT/shard_$1"_*.txt 2>/dev/null
}

for tool in ${TOOLS//,/ }; do
  for target in ${TARGETS//,/ }; do
    if [ "$target" = tests ]; then
      shards=""
      { [ "$PARALLEL" -gt 1 ] || [ "$SHARD_N" -gt 1 ]; } && shards=$(make_shards "$tool" "$(tests_spec "$tool")")
      if [ -z "$shards" ] && [ "$SHARD_N" -gt 1 ]; then
        RUN_SEQ=$((RUN_SEQ + 1))
        record_row 0 "$(printf '%-10s %-7s %-26s %7s %9s %7s  %s' "$tool" tests "gpu_tests" - - 0 "no test case in shard $TEST_SHARD")"
      elif [ -z "$shards" ]; then
        start "$tool" tests gpu_tests "$GPU_TESTS" --durations yes "$(tests_spec "$tool")"
      else
        for shard in $shards; do
          label=gpu_tests_${shard##*_}; label=${label%.txt}
          start "$tool" tests "$label" "$GPU_TESTS" --durations yes --input-file "$shard"
        done
      fi
    else
      n=0
      while IFS= read -r sweep; do
        n=$((n + 1))
        case ",${SWEEPS:-$n}," in *",$n,"*) ;; *) continue ;; esac
        # shellcheck disable=SC2086
        start "$tool" bench "bench_sweep$n" "$FL" bench $sweep
      done < <(bench_sweeps "$tool")
    fi
  done
done
wait

WORST=0    # 0 clean, 3 incomplete, 1 errors
ROWS=()
for row in "$ROWS_DIR"/*.row; do
  [ -e "$row" ] || continue
  IFS=$'\t' read -r code text < "$row"
  if [ "$code" = 1 ]; then WORST=1; elif [ "$code" = 3 ] && [ "$WORST" = 0 ]; then WORST=3; fi
  ROWS+=("$text")
done

# ---- summary ----------------------------------------------------------------------------------
{
  echo
  echo "compute-sanitizer summary ($(date -u '+%Y-%m-%d %H:%M UTC'), $( [ "$QUICK" = 1 ] && echo quick || echo full ))"
  printf '%-10s %-7s %-26s %7s %9s %7s  %s\n' tool target run errors warnings seconds result
  for r in "${ROWS[@]}"; do echo "$r"; done
  case "$WORST" in
    0) echo "RESULT: 0 errors in every run" ;;
    1) echo "RESULT: ERRORS found, or a program failed under the tool (see the logs in $OUT)" ;;
    3) echo "RESULT: no errors found, but not every run finished (see above)" ;;
  esac
} | tee "$OUT/summary.txt"
# One archive beside the folder: the device tool brings back a limited number of files per call.
tar czf "$OUT.tgz" -C "$(dirname "$OUT")" "$(basename "$OUT")" 2>/dev/null && echo "logs: $OUT.tgz"
exit "$WORST"
