#!/usr/bin/env bash
# One shard of the whole compute-sanitizer run (every tool over every kernel of every workload and
# tile), sized for one GPU and one lent-machine slot of 540 s: scripts/gpu_sanitize.sh with the
# shard's tool, targets, test cases and sweeps. Shards run side by side on different GPUs, or in
# different calls; together they are the full run (docs/RELIABILITY.md, section 1).
#   SHARD=I bash scripts/device_sanitize_shard.sh DEVICE_DIR OUTDIR      (I from 0 to SHARDS-1)
#   bash scripts/device_sanitize_shard.sh --count                         prints SHARDS
# DEVICE_DIR holds bin/fusionlab, bin/fusionlab_gpu_tests, bin/libfusionlab_gpu.so and lib/
# (scripts/device_prepare.sh makes it: .device). Logs and the summary go to OUTDIR/sanitize.
#
# The shards (test cases are dealt round-robin from the list the tool would run, so a shard's cases
# stay the same while no case is added; each shard's summary names its cases):
#   0 memcheck (+ leak check): every GPU test case and every bench sweep
#   1 initcheck: the same
#   2 synccheck: the same
#   3 racecheck: GPU test cases 0, 3, 6, ...
#   4 racecheck: GPU test cases 1, 4, 7, ...
#   5 racecheck: GPU test cases 2, 5, 8, ...
#   6 racecheck: every bench sweep (every flash, flash_tc and flash_wgmma tile, skip's epilogues,
#     decode, ffn, chain, bias_gelu, launch)
set -u
SHARDS=7
[ "${1:-}" = --count ] && { echo "$SHARDS"; exit 0; }
[ $# -eq 2 ] || { echo "usage: SHARD=I $0 DEVICE_DIR OUTDIR  (I = 0..$((SHARDS - 1)))" >&2; exit 2; }
dir=$1 out=$2
shard=${SHARD:-}
case "$shard" in ''|*[!0-9]*) echo "device_sanitize_shard: SHARD='$shard' is not a number 0..$((SHARDS - 1))" >&2; exit 2 ;; esac
[ "$shard" -lt "$SHARDS" ] || { echo "device_sanitize_shard: SHARD=$shard, but there are $SHARDS shards (0..$((SHARDS - 1)))" >&2; exit 2; }
# 520 s of the 540 s slot for the tool runs (a run that would pass it is cut and says so); 8 runs
# side by side on the one GPU (16 CPU cores: compute-sanitizer's host side is the bottleneck).
common=(--device-dir "$dir" --budget "${SANITIZE_BUDGET:-520}" --timeout 520 --parallel "${SANITIZE_PARALLEL:-8}")
# shellcheck disable=SC2054  # "tests,bench" is one argument (a comma list), not two elements
case "$shard" in
  0) args=(--tools memcheck --targets tests,bench) ;;
  1) args=(--tools initcheck --targets tests,bench) ;;
  2) args=(--tools synccheck --targets tests,bench) ;;
  3|4|5) args=(--tools racecheck --targets tests --test-shard "$((shard - 3))/3") ;;
  6) args=(--tools racecheck --targets bench) ;;
esac
mkdir -p "$out"
echo "shard $shard of $SHARDS: gpu_sanitize.sh ${args[*]} ${common[*]}" | tee "$out/shard.txt"
OUT=$out bash "$(dirname "${BASH_SOURCE[0]}")/gpu_sanitize.sh" "${args[@]}" "${common[@]}"
rc=$?
echo "shard $shard: gpu_sanitize.sh exit $rc (0 clean, 1 errors, 3 not every run finished)" | tee -a "$out/shard.txt"
exit $rc
