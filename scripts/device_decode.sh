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
#   bash DIR/device_decode.sh [DIR] [STEPS]     STEPS: a comma list of tests,sanitize,goal,bench,torch
#                                               (default tests,sanitize,bench,torch); TORCH_CONFIG='decode ...' narrows torch
set -o pipefail
D=${1:-.device-decode}
STEPS=${2:-tests,sanitize,bench,torch}
OUT=${OUT:-device-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$D/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
B=$D/bin; F=$B/fusionlab
# The binaries may travel compressed (the call's tree is limited to 64 MiB): bin.tar.xz holds bin/.
[ -x $B/fusionlab ] || python3 -c "import sys, tarfile; tarfile.open(sys.argv[1] + '/bin.tar.xz').extractall(sys.argv[1])" "$D"
chmod +x "$B"/* 2>/dev/null
has() { [[ ",$STEPS," == *",$1,"* ]]; }
summary=()
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.mem --format=csv,noheader; } | tee "$OUT/gpu.txt"

if has tests; then
  start=$SECONDS
  timeout 240 $B/fusionlab_gpu_tests "[decode]" > "$OUT/tests.log" 2>&1; rc=$?
  summary+=("gpu tests [decode]: rc=$rc, $((SECONDS - start)) s: $(grep -E '^(All tests passed|test cases:)' "$OUT/tests.log" | tail -1)")
fi

if has sanitize; then
  for tool in memcheck racecheck synccheck; do
    start=$SECONDS
    FUSIONLAB_SANITIZER_RUN=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 \
      $B/fusionlab_gpu_tests "decode small*" > "$OUT/sanitize-$tool.log" 2>&1; rc=$?
    summary+=("compute-sanitizer $tool on 'decode small*': rc=$rc, $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool.log" | tail -1)")
  done
fi

if has goal; then
  # The goals' shapes alone (issue 33), every variant: a first look in a short call.
  start=$SECONDS
  {
    timeout 90 $F bench --workload decode --variant all --batch 1 --kv_len 32768 --heads 32 --kv_heads 32 --d 128 \
      --page 0 --dtype fp16 --reps 20 --kernels --json "$OUT/goal-batch1.json"
    timeout 90 $F bench --workload decode --variant flash,split_kv,split_kv_fused --batch 8 --kv_len 8192,32768 --heads 32 \
      --kv_heads 4 --d 128 --page 0,16,64 --dtype fp16 --reps 20 --json "$OUT/goal-batch8.json"
  } > "$OUT/goal.txt" 2>&1
  summary+=("goal bench: $((SECONDS - start)) s")
fi

if has bench; then
  # Contiguous, every variant, one bench a batch (a JSON each: a cut-short call keeps what ran);
  # batch 64 x 128k multi-head (137 GB) is refused with the numbers. Then paged at the goal's shapes.
  start=$SECONDS
  for b in 1 8 64; do
    timeout 100 $F bench --workload decode --variant all --batch $b --kv_len 1024,8192,32768,131072 --heads 32 \
      --kv_heads 4,32 --d 128 --page 0 --dtype fp16 --reps 20 --json "$OUT/bench-b$b.json"
  done > "$OUT/bench.txt" 2>&1
  timeout 120 $F bench --workload decode --variant flash,split_kv_fused --batch 1,8,64 --kv_len 8192,32768 \
    --heads 32 --kv_heads 4,32 --d 128 --page 16,64 --dtype fp16 --reps 20 --json "$OUT/bench-paged.json" \
    > "$OUT/bench-paged.txt" 2>&1
  summary+=("bench: $((SECONDS - start)) s")
fi

if has torch; then
  start=$SECONDS
  if python3 -c "import torch" 2>/dev/null; then
    # The bench's shapes (multi-head at batch 64 x 128k, 137 GB, left out as fusionlab refuses it).
    cfg=(--config "decode batch=1,8,64 kv_len=1024,8192,32768,131072 heads=32 kv_heads=4 d=128 dtype=fp16 reps=20"
         --config "decode batch=1,8 kv_len=1024,8192,32768,131072 heads=32 kv_heads=32 d=128 dtype=fp16 reps=20"
         --config "decode batch=64 kv_len=1024,8192,32768 heads=32 kv_heads=32 d=128 dtype=fp16 reps=20")
    [ -n "${TORCH_CONFIG:-}" ] && cfg=(--config "$TORCH_CONFIG")
    timeout 200 python3 $D/torch_reference.py "${cfg[@]}" --out "$OUT/reference.json" > "$OUT/reference.txt" 2>&1
    summary+=("torch: rc=$?, $((SECONDS - start)) s")
  else
    summary+=("torch: no PyTorch here")
  fi
fi
date -u | tee -a "$OUT/gpu.txt"
# The table beside PyTorch, and the failed assertions of the tests, if any.
jsons=$(ls "$OUT"/bench*.json "$OUT"/goal*.json 2>/dev/null)
[ -n "$jsons" ] && python3 $D/decode_table.py $jsons $([ -f "$OUT/reference.json" ] && echo --reference "$OUT/reference.json") \
  > "$OUT/table.md" 2>&1
[ -f "$OUT/tests.log" ] && grep -B3 -A12 -E "FAILED|REQUIRE\(|CHECK\(" "$OUT/tests.log" | head -80 > "$OUT/test-failures.txt"
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
# A call brings back at most 8 files: everything in one archive, with the summary and the table beside it.
(cd "$OUT" && tar czf all.tgz --exclude=all.tgz --exclude=summary.txt --exclude=table.md . && \
  find . -type f ! -name all.tgz ! -name summary.txt ! -name table.md -delete)
