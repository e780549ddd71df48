#!/usr/bin/env bash
# Two open questions from the H100 runs (docs/RELIABILITY.md, kernels/PERF.md), in one device call
# of about 8 minutes. Carry .gx (scripts/device_gui_prepare.sh); output goes to $OUT as it happens,
# so a call cut off at its limit still returns what ran.
#  1. The GUI soak's host memory grows on a GPU (+241 MiB, C heap in use +192 MiB in 10 min) but
#     not in simulation. Suspects, side by side for 300 s each, every soak printing its memory
#     every minute:
#       B  NVIDIA GL, simulated backend       growth here only: the GL driver or our GL use
#       C  NVIDIA GL, GPU backend, lazy CUDA module loading (the default): the failing case
#       D  as C with CUDA_MODULE_LOADING=EAGER: every kernel (ours, cuBLAS's) loaded at start;
#          growth in C but not D is code being loaded as new kernels are first launched
#     and beside them `bench` (no GUI, no cancellations) with FUSIONLAB_HEAP_TRACE over many
#     cuBLAS shapes (attention naive) and every flash tile, lazy and eager.
#     Found (2026-11-25, docs/RELIABILITY.md "Where the growth comes from"): B flat, C and D grow alike,
#     and the bench traces show cuBLAS taking host memory once per new GEMM configuration.
#  2. teaching_fused runs ~44% longer than the teaching flash kernel it is built on, although both
#     run the same compiled j-loop (flash_kv_loop) with 32 registers: ncu on both kernels, after
#     the soaks (an idle GPU).
set -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-device-out}; mkdir -p "$OUT"
# shellcheck source=scripts/device_gui_env.sh
source scripts/device_gui_env.sh || exit 2
seconds=${SOAK_SECONDS:-300}

soak() {  # soak NAME DISPLAY MODULE_LOADING [fusionlab options]
  local name=$1 display=$2 loading=$3; shift 3
  setsid $G/bin/Xvfb ":$display" -screen 0 1920x1080x24 -nolisten tcp > "/tmp/xvfb$display.log" 2>&1 < /dev/null &
  sleep 2
  mkdir -p "/tmp/soak-$name"
  (cd "/tmp/soak-$name" && DISPLAY=":$display" __GLX_VENDOR_LIBRARY_NAME=nvidia CUDA_MODULE_LOADING=$loading \
     timeout $((seconds + 90)) "$F" "$@" --soak "$seconds" --soak-seed 7 --soak-size 1280x720 \
     > "$OUT/soak-$name.txt" 2>&1; echo "rc=$?" >> "$OUT/soak-$name.txt") &
  pids+=($!)  # not the X servers': a bare `wait` would wait for them forever
}
pids=()
heap_trace() {  # heap_trace NAME MODULE_LOADING [bench options]: first, every 8th and last trace line
  local name=$1 loading=$2; shift 2
  { echo "== bench $* (CUDA_MODULE_LOADING=$loading)"
    CUDA_MODULE_LOADING=$loading FUSIONLAB_HEAP_TRACE=1 timeout 150 "$F" bench "$@" 2>&1 > "/tmp/bench-$name.txt" |
      awk '/^heap trace/ {n++; if (n == 1 || n % 8 == 0) print; last = $0; next} {print} END {print "last: " last}'
    echo "rc=$? $(grep -c . "/tmp/bench-$name.txt") table lines"; } > "$OUT/heap-$name.txt" 2>&1
}

soak B-nvidia-gl-sim 91 LAZY --sim H100
soak C-nvidia-gl-gpu-lazy 92 LAZY
soak D-nvidia-gl-gpu-eager 93 EAGER
{
  # shellcheck disable=SC2054 # the commas are fusionlab's list syntax
  naive=(--workload attention --variant naive --dtype fp16,bf16,fp32 --N 100,300,1000,2500 --d 32,64,96,128 --heads 4 --reps 20)
  # shellcheck disable=SC2054
  tiles=(--workload attention --variant flash,flash_tc --dtype fp16,fp32 --br 16,32,64,128 --bc 16,32,64,128 --N 300 --d 64 --heads 4 --reps 20)
  heap_trace naive-lazy LAZY "${naive[@]}"
  heap_trace naive-eager EAGER "${naive[@]}"
  heap_trace tiles-lazy LAZY "${tiles[@]}"
  heap_trace tiles-eager EAGER "${tiles[@]}"
  heap_trace all-interactive LAZY --workload all --variant all --interactive --dtype fp16,fp32 --rows 100,3000 \
    --hidden 300,4096 --N 200,1500 --d 64,128 --heads 8 --batch 8 --steps 10,300 --elements 100000
} &
pids+=($!)
wait "${pids[@]}"
for f in "$OUT"/heap-*.txt "$OUT"/soak-*.txt; do echo "=== ${f##*/}"; cat "$f"; done

{
  echo "== 2. ncu: the teaching kernel with and without the skip epilogue (N = 1024)"
  for v in "attention flash" "skip teaching_two_pass" "skip teaching_fused"; do
    # shellcheck disable=SC2086
    set -- $v
    echo "-- $1 $2"
    timeout 120 ncu --clock-control none -k regex:flash_kernel -c 1 --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
      "$F" bench --workload "$1" --variant "$2" --N 1024 --d 64 --heads 64 --batch 8 --dtype fp16 --reps 1 2>&1 |
      grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|Stall|Shared Memory Configuration|Dynamic Shared|L1/TEX Hit|L2 Hit|Mem Busy|Compute \(SM\) Throughput|Executed Ipc|Issue Slots"
  done
} 2>&1 | tee "$OUT/ncu.txt"
