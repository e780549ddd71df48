#!/usr/bin/env bash
# Two open questions from the H100 runs (docs/RELIABILITY.md, kernels/PERF.md), in one device call
# of about 8 minutes. Carry .gx (scripts/device_gui_prepare.sh); output goes to $OUT as it happens,
# so a call cut off at its limit still returns what ran.
#  1. The GUI soak's C heap still grows by 9-16 MiB per replayed pass on a GPU (2026-11-25:
#     --soak-passes 3, pass 3 measured 2 new shapes and no new cuBLAS GEMM shape), not in
#     simulation. Which part of a GPU job keeps it, side by side, each soak 3 passes of the same
#     actions with its memory at the end of each pass (docs/RELIABILITY.md, "Soak"):
#       C  GPU backend as shipped
#       E  as C with FUSIONLAB_COUNTERS=off    no CUPTI range-profiler session per full job
#       F  as C with FUSIONLAB_TIMELINE=events no CUPTI activity trace per job
#       G  both off                            what is left is our own code or cuBLAS
#       B  simulated backend                   the GUI alone (flat so far)
#     and beside them `bench` (no GUI, no cancellations) with FUSIONLAB_HEAP_TRACE and --repeat 3.
#     Earlier (2026-11-25 morning) this section found cuBLAS taking host memory once per new GEMM
#     configuration, which is why the soak now replays its actions.
#  2. teaching_fused runs ~44% longer than the teaching flash kernel it is built on, although both
#     run the same compiled j-loop (flash_kv_loop) with 32 registers: ncu on both kernels, after
#     the soaks (an idle GPU).
set -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-device-out}; mkdir -p "$OUT"
# shellcheck source=scripts/device_gui_env.sh
source scripts/device_gui_env.sh || exit 2
seconds=${SOAK_SECONDS:-300}

soak() {  # soak NAME DISPLAY [VAR=VALUE ...] -- [fusionlab options]
  local name=$1 display=$2; shift 2
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  setsid $G/bin/Xvfb ":$display" -screen 0 1920x1080x24 -nolisten tcp > "/tmp/xvfb$display.log" 2>&1 < /dev/null &
  sleep 2
  mkdir -p "/tmp/soak-$name"
  (cd "/tmp/soak-$name" && env DISPLAY=":$display" __GLX_VENDOR_LIBRARY_NAME=nvidia "${envs[@]}" \
     timeout $((seconds + 90)) "$F" "$@" --soak "$seconds" --soak-passes 3 --soak-seed 7 --soak-size 1280x720 \
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

soak C-gpu 91 --
soak E-gpu-no-counters 92 FUSIONLAB_COUNTERS=off --
soak F-gpu-no-cupti-trace 93 FUSIONLAB_TIMELINE=events --
soak G-gpu-neither 94 FUSIONLAB_COUNTERS=off FUSIONLAB_TIMELINE=events --
soak B-sim 95 -- --sim H100
{
  # shellcheck disable=SC2054 # the commas are fusionlab's list syntax
  heap_trace all-interactive LAZY --workload all --variant all --interactive --dtype fp16,fp32 --rows 100,3000 \
    --hidden 300,4096 --N 200,1500 --d 64,128 --heads 8 --batch 8 --steps 10,300 --elements 100000 --repeat 3
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
