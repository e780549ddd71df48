#!/usr/bin/env bash
# The decode workload on a lent GPU in one call (issue 33): its GPU tests, compute-sanitizer
# (memcheck, racecheck, synccheck) on a small case of each variant, `fusionlab bench` at the issue's
# shapes and PyTorch's SDPA at the same shapes, in that order, each step under its own time limit so a
# slow one cannot starve the others. Logs go under $OUT; the last lines printed are the summary.
#
# Layout (made here, carried with the call): DIR/bin/fusionlab and DIR/bin/fusionlab_gpu_tests from a
# GUI-less build for sm_90 (scripts/device_prepare.sh shows how), DIR/lib/libstb.so.0, and
# DIR/torch_reference.py (scripts/torch_reference.py of the same commit).
# Usage, from the repository root on the GPU machine:
#   bash DIR/device_decode.sh [DIR] [STEPS]     STEPS: a comma list, run in that order, of tests, sanitize (or
#                                               memcheck, racecheck, synccheck), goal, gqa (or gqa_b1, gqa_b8,
#                                               gqa_b64, gqa_paged, mh), bench, torch, ncu, and v6's
#                                               tests_p, sanitize_p (memcheck_p, ...), grid, ncu_p (below)
#                                               (default tests,sanitize,bench,torch); TORCH_CONFIG='decode ...' narrows torch
# Each step's limit can be set from outside (T_TESTS, T_SANITIZE (each tool), T_GQA, T_BENCH (each
# batch), T_TORCH, T_NCU seconds); BUDGET=S (seconds from the start) shortens any limit to what is left
# of S less 8 s for the table at the end, and skips a step with less than 10 s left.
set -o pipefail
D=${1:-.device-decode}
STEPS=${2:-tests,sanitize,bench,torch}
OUT=${OUT:-device-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$D/bin:$PWD/$D/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
B=$D/bin; F=$B/fusionlab
# The binaries may travel compressed (the call's tree is limited to 64 MiB): bin.tar.xz holds bin/.
[ -x $B/fusionlab ] || python3 -c "import sys, tarfile; tarfile.open(sys.argv[1] + '/bin.tar.xz').extractall(sys.argv[1])" "$D"
chmod +x "$B"/* 2>/dev/null
summary=()
SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# The limit for a step that wants $1 seconds: shortened to what BUDGET leaves (1 s: no time left; `timeout 0` would mean none).
lim() {
  local want=$1
  [ -z "${BUDGET:-}" ] && { echo "$want"; return; }
  local left=$((BUDGET - 8 - SECONDS))
  if [ "$left" -lt 10 ]; then echo 1; elif [ "$left" -lt "$want" ]; then echo "$left"; else echo "$want"; fi
}
# A step's line goes to progress.txt at once: a run cut short by its limit keeps what finished.
say() { summary+=("$1"); echo "$1" >> "$OUT/progress.txt"; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.mem --format=csv,noheader; } | tee "$OUT/gpu.txt"

step_tests() {
  start=$SECONDS
  timeout $(lim ${T_TESTS:-240}) $B/fusionlab_gpu_tests "[decode]" > "$OUT/tests.log" 2>&1; rc=$?
  say "gpu tests [decode]: rc=$rc, $((SECONDS - start)) s: $(grep -E '^(All tests passed|test cases:)' "$OUT/tests.log" | tail -1)"
}

step_sanitize() { for tool in memcheck racecheck synccheck; do step_tool $tool; done; }
step_memcheck() { step_tool memcheck; }
step_racecheck() { step_tool racecheck; }
step_synccheck() { step_tool synccheck; }
step_tool() {
  for tool in $1; do
    start=$SECONDS
    FUSIONLAB_SANITIZER_RUN=1 timeout $(lim ${T_SANITIZE:-120}) $SANITIZER --tool $tool --error-exitcode 9 \
      $B/fusionlab_gpu_tests "decode small*" > "$OUT/sanitize-$tool.log" 2>&1; rc=$?
    say "compute-sanitizer $tool on 'decode small*': rc=$rc, $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool.log" | tail -1)"
  done
}

step_goal() {
  # The goals' shapes alone (issue 33), every variant: a first look in a short call.
  start=$SECONDS
  {
    timeout $(lim 90) $F bench --workload decode --variant all --batch 1 --kv_len 32768 --heads 32 --kv_heads 32 --d 128 \
      --page 0 --dtype fp16 --reps 20 --kernels --json "$OUT/goal-batch1.json"
    timeout $(lim 90) $F bench --workload decode --variant flash,split_kv,split_kv_fused --batch 8 --kv_len 8192,32768 --heads 32 \
      --kv_heads 4 --d 128 --page 0,16,64 --dtype fp16 --reps 20 --json "$OUT/goal-batch8.json"
  } > "$OUT/goal.txt" 2>&1
  say "goal bench: $((SECONDS - start)) s"
}

step_gqa() { step_gqa_b8; step_gqa_b64; step_gqa_b1; step_gqa_paged; step_mh; }
# GQA 8:1 alone (the tensor-core loop), the loop variants: every kv_len of the goals at one batch,
# contiguous; gqa_paged: paged 16 and 64 at the goal's kv_len >= 8192; mh: multi-head at one shape.
gqa_batch() {
  local start=$SECONDS
  timeout $(lim ${T_GQA:-60}) $F bench --workload decode --variant flash,split_kv,split_kv_fused --batch $1 \
    --kv_len 1024,8192,32768,131072 --heads 32 --kv_heads 4 --d 128 --page 0 --dtype fp16 --reps 20 \
    --json "$OUT/bench-gqa-b$1.json" > "$OUT/bench-gqa-b$1.txt" 2>&1
  say "gqa bench batch $1: rc=$?, $((SECONDS - start)) s"
}
step_gqa_b1() { gqa_batch 1; }
step_gqa_b8() { gqa_batch 8; }
step_gqa_b64() { gqa_batch 64; }
step_gqa_paged() {
  local start=$SECONDS
  timeout $(lim ${T_GQA:-60}) $F bench --workload decode --variant split_kv_fused --batch 8,64 --kv_len 8192,32768 --heads 32 \
    --kv_heads 4 --d 128 --page 16,64 --dtype fp16 --reps 20 --json "$OUT/bench-gqa-paged.json" > "$OUT/bench-gqa-paged.txt" 2>&1
  say "gqa bench paged: rc=$?, $((SECONDS - start)) s"
}
step_mh() {
  local start=$SECONDS
  timeout $(lim ${T_GQA:-60}) $F bench --workload decode --variant split_kv_fused --batch 1,8 --kv_len 32768 --heads 32 \
    --kv_heads 32 --d 128 --page 0 --dtype fp16 --reps 20 --json "$OUT/bench-mh.json" > "$OUT/bench-mh.txt" 2>&1
  say "multi-head bench: rc=$?, $((SECONDS - start)) s"
}

step_bench() {
  # Contiguous, every variant, one bench a batch (a JSON each: a cut-short call keeps what ran);
  # batch 64 x 128k multi-head (137 GB) is refused with the numbers. Then paged at the goal's shapes.
  start=$SECONDS
  for b in 1 8 64; do
    timeout $(lim ${T_BENCH:-100}) $F bench --workload decode --variant all --batch $b --kv_len 1024,8192,32768,131072 --heads 32 \
      --kv_heads 4,32 --d 128 --page 0 --dtype fp16 --reps 20 --json "$OUT/bench-b$b.json"
  done > "$OUT/bench.txt" 2>&1
  timeout $(lim 120) $F bench --workload decode --variant flash,split_kv_fused --batch 1,8,64 --kv_len 8192,32768 \
    --heads 32 --kv_heads 4,32 --d 128 --page 16,64 --dtype fp16 --reps 20 --json "$OUT/bench-paged.json" \
    > "$OUT/bench-paged.txt" 2>&1
  say "bench: $((SECONDS - start)) s"
}

step_torch() {
  start=$SECONDS
  if python3 -c "import torch" 2>/dev/null; then
    # The bench's shapes (multi-head at batch 64 x 128k, 137 GB, left out as fusionlab refuses it).
    cfg=(--config "decode batch=1,8,64 kv_len=1024,8192,32768,131072 heads=32 kv_heads=4 d=128 dtype=fp16 reps=20"
         --config "decode batch=1,8 kv_len=1024,8192,32768,131072 heads=32 kv_heads=32 d=128 dtype=fp16 reps=20"
         --config "decode batch=64 kv_len=1024,8192,32768 heads=32 kv_heads=32 d=128 dtype=fp16 reps=20")
    [ -n "${TORCH_CONFIG:-}" ] && cfg=(--config "$TORCH_CONFIG")
    timeout $(lim ${T_TORCH:-200}) python3 $D/torch_reference.py "${cfg[@]}" --out "$OUT/reference.json" > "$OUT/reference.txt" 2>&1
    say "torch: rc=$?, $((SECONDS - start)) s"
  else
    say "torch: no PyTorch here"
  fi
}
step_ncu() {
  # The tensor-core GQA loop under Nsight Compute at batch 8, 8k, GQA 8:1 (split_kv_fused): one launch
  # after the checked run, the sections that say what bounds it. Text only (the report file is large).
  start=$SECONDS
  NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  timeout $(lim ${T_NCU:-60}) $NCU --clock-control none -k regex:decode_loop -s 1 -c 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
    --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    $F bench --workload decode --variant split_kv_fused --batch 8 --kv_len 8192 --heads 32 --kv_heads 4 --d 128 \
    --page 0 --dtype fp16 --reps 2 > "$OUT/ncu-gqa.txt" 2>&1
  say "ncu (decode_loop_mma, batch 8, 8k, GQA 8:1): rc=$?, $((SECONDS - start)) s"
}
# v6 (issue 33): the persistent grid of the tensor-core loop (decode.cu; the default since v6, waves with
# FUSIONLAB_DECODE_GRID=waves). tests_p, memcheck_p, racecheck_p, synccheck_p (or sanitize_p): the same
# checks as tests and sanitize with FUSIONLAB_DECODE_GRID=$ALT_GRID (default waves: the grid that is not
# the default); grid: split_kv_fused at the goal's missed shapes over the asked split counts (SPLITS,
# default 8,16,24,32,48), waves then persistent, each its own JSON; ncu_p: step ncu with the persistent
# grid at SPLITS_NCU splits (default 0: chosen).
step_tests_p() {
  start=$SECONDS
  FUSIONLAB_DECODE_GRID=${ALT_GRID:-waves} timeout $(lim ${T_TESTS:-240}) $B/fusionlab_gpu_tests "[decode]" > "$OUT/tests-${ALT_GRID:-waves}.log" 2>&1; rc=$?
  say "gpu tests [decode], FUSIONLAB_DECODE_GRID=${ALT_GRID:-waves}: rc=$rc, $((SECONDS - start)) s: $(grep -E '^(All tests passed|test cases:)' "$OUT/tests-${ALT_GRID:-waves}.log" | tail -1)"
}
step_sanitize_p() { for tool in memcheck racecheck synccheck; do step_tool_p $tool; done; }
step_memcheck_p() { step_tool_p memcheck; }
step_racecheck_p() { step_tool_p racecheck; }
step_synccheck_p() { step_tool_p synccheck; }
step_tool_p() {
  start=$SECONDS
  FUSIONLAB_DECODE_GRID=${ALT_GRID:-waves} FUSIONLAB_SANITIZER_RUN=1 timeout $(lim ${T_SANITIZE:-120}) $SANITIZER --tool $1 --error-exitcode 9 \
    $B/fusionlab_gpu_tests "decode small*" > "$OUT/sanitize-$1-${ALT_GRID:-waves}.log" 2>&1; rc=$?
  say "compute-sanitizer $1 on 'decode small*', FUSIONLAB_DECODE_GRID=${ALT_GRID:-waves}: rc=$rc, $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$1-${ALT_GRID:-waves}.log" | tail -1)"
}
step_grid() {
  local start=$SECONDS sp=${SPLITS:-8,16,24,32,48}
  for grid in waves persistent; do
    FUSIONLAB_DECODE_GRID=$grid timeout $(lim ${T_GRID:-60}) $F bench --workload decode --variant split_kv,split_kv_fused --batch 8 \
      --kv_len 8192 --heads 32 --kv_heads 4 --d 128 --page 0,16,64 --dtype fp16 --splits 0,$sp --reps 20 \
      --json "$OUT/grid-$grid-b8.json" > "$OUT/grid-$grid-b8.txt" 2>&1
    say "grid $grid, batch 8 x 8k GQA 8:1, splits 0,$sp: rc=$?, $((SECONDS - start)) s"
    FUSIONLAB_DECODE_GRID=$grid timeout $(lim ${T_GRID:-60}) $F bench --workload decode --variant split_kv,split_kv_fused --batch 1,8,64 \
      --kv_len 32768 --heads 32 --kv_heads 4 --d 128 --page 0 --dtype fp16 --splits 0,$sp --reps 20 \
      --json "$OUT/grid-$grid-32k.json" > "$OUT/grid-$grid-32k.txt" 2>&1
    say "grid $grid, batch 1, 8, 64 x 32k GQA 8:1: rc=$?, $((SECONDS - start)) s"
  done
  # Multi-head (the CUDA-core loop, waves only) at batch 1 x 8k, the other missed shape, over the splits.
  timeout $(lim ${T_GRID:-60}) $F bench --workload decode --variant split_kv,split_kv_fused --batch 1 --kv_len 8192 --heads 32 \
    --kv_heads 32 --d 128 --page 0,16,64 --dtype fp16 --splits 0,$sp,64,96,128 --reps 20 --json "$OUT/grid-mh-b1.json" > "$OUT/grid-mh-b1.txt" 2>&1
  say "grid multi-head batch 1 x 8k: rc=$?, $((SECONDS - start)) s"
}
step_ncu_p() {
  start=$SECONDS
  NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  FUSIONLAB_DECODE_GRID=persistent timeout $(lim ${T_NCU:-60}) $NCU --clock-control none -k regex:decode_loop -s 1 -c 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
    --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    $F bench --workload decode --variant split_kv_fused --batch 8 --kv_len 8192 --heads 32 --kv_heads 4 --d 128 \
    --page 0 --dtype fp16 --splits ${SPLITS_NCU:-0} --reps 2 > "$OUT/ncu-gqa-persistent.txt" 2>&1
  say "ncu (decode_loop_mma_persistent, batch 8, 8k, GQA 8:1, splits ${SPLITS_NCU:-0}): rc=$?, $((SECONDS - start)) s"
}
# The steps in the order given.
for step in ${STEPS//,/ }; do
  if declare -F "step_$step" > /dev/null; then "step_$step"; else say "unknown step $step"; fi
done
date -u | tee -a "$OUT/gpu.txt"
# The table beside PyTorch, and the failed assertions of the tests, if any.
jsons=$(ls "$OUT"/bench*.json "$OUT"/goal*.json 2>/dev/null)
# The grid step's tables, one per JSON (waves and persistent side by side in the names).
ls "$OUT"/grid-*.json > /dev/null 2>&1 && python3 $D/decode_grid_table.py "$OUT"/grid-*.json > "$OUT/grid.md" 2>&1
[ -n "$jsons" ] && python3 $D/decode_table.py $jsons $([ -f "$OUT/reference.json" ] && echo --reference "$OUT/reference.json") \
  > "$OUT/table.md" 2>&1
[ -f "$OUT/tests.log" ] && grep -B3 -A12 -E "FAILED|REQUIRE\(|CHECK\(" "$OUT/tests.log" | head -80 > "$OUT/test-failures.txt"
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
# PACK=1: a call that brings back at most 8 files gets everything in one archive, with the summary and
# the table beside it.
if [ "${PACK:-0}" = 1 ]; then
  (cd "$OUT" && tar czf all.tgz --exclude=all.tgz --exclude=summary.txt --exclude=table.md . && \
    find . -type f ! -name all.tgz ! -name summary.txt ! -name table.md -delete)
fi
