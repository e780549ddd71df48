#!/usr/bin/env bash
# Where the GUI soak's C heap growth on a GPU comes from (docs/RELIABILITY.md, "Soak"), in one device
# call of about 7 minutes. Carry .gx (scripts/device_gui_prepare.sh, heaptrack installed here);
# the soaks' reports come back in one file (the device tool returns 8 at most), with the heaptrack
# texts and recordings. GLX_VENDOR=mesa runs it on a machine without the NVIDIA driver (a dry run).
#
# On an H100 (2026-11-25) the C heap in use grew by 9-16 MiB per replayed pass (about 20 KiB per
# GPU job) although pass 3 measured almost no new shape; in simulation it stays flat. Side by side,
# each a soak of the same seeded actions, 3 passes:
#   H1, H3  GPU backend as shipped, under heaptrack, ended (no destructors) right after pass 1 and
#           after pass 3 (FUSIONLAB_SOAK_EXIT_AFTER_PASS), address randomisation off so that
#           unsymbolised driver frames match: heaptrack_print's diff of their "leaks" is what the
#           two replays kept, by call stack
#   C       GPU backend as shipped (the figures without a profiler)
#   E       as C with FUSIONLAB_COUNTERS=off    no CUPTI range-profiler session per full job
#   F       as C with FUSIONLAB_TIMELINE=events no CUPTI activity trace per job
#   G       both off                            what is left is our own code, CUDA or cuBLAS
#   B       simulated backend                   the GUI alone
# and beside them `bench` (no GUI, no cancellations) with FUSIONLAB_HEAP_TRACE and --repeat 3.
# HEAPTRACK_ONLY=1 runs the two heaptrack soaks alone (less contention for the GPU, so the passes
# replay more alike); HEAPTRACK_FROM_PASS=2 diffs pass 3 against pass 2 instead of pass 1.
# DIAGNOSE_NCU=1 adds, after the soaks, ncu on the teaching flash kernel with and without the skip
# epilogue (teaching_fused runs ~44% longer than the flash kernel it is built on; kernels/PERF.md).
set -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-device-out}; mkdir -p "$OUT"
# shellcheck source=scripts/device_gui_env.sh
source scripts/device_gui_env.sh || exit 2
seconds=${SOAK_SECONDS:-240}
from=${HEAPTRACK_FROM_PASS:-1}  # the earlier recording ends after this pass; the later after pass 3
W=/tmp/diagnose; rm -rf $W; mkdir -p $W
norandom=(); setarch "$(uname -m)" -R true 2> /dev/null && norandom=(setarch "$(uname -m)" -R)

pids=()
soak() {  # soak NAME DISPLAY [VAR=VALUE ...] -- [command prefix ...] -- [fusionlab options]
  local name=$1 display=$2; shift 2
  local envs=() prefix=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do prefix+=("$1"); shift; done
  shift
  setsid "$G"/bin/Xvfb ":$display" -screen 0 1920x1080x24 -nolisten tcp > "$W/xvfb$display.log" 2>&1 < /dev/null &
  sleep 2
  mkdir -p "$W/soak-$name"
  (cd "$W/soak-$name" && env DISPLAY=":$display" __GLX_VENDOR_LIBRARY_NAME="${GLX_VENDOR:-nvidia}" "${envs[@]}" \
     timeout $((seconds + 120)) "${prefix[@]}" "$S" "$@" --soak "$seconds" --soak-passes 3 --soak-seed 7 \
     --soak-size 1280x720 > "$W/soak-$name.txt" 2>&1; echo "rc=$?" >> "$W/soak-$name.txt") &
  pids+=($!)  # not the X servers': a bare `wait` would wait for them forever
}
heap_trace() {  # heap_trace NAME [bench options]: first, every 8th and last trace line
  local name=$1; shift
  { echo "== bench $*"
    FUSIONLAB_HEAP_TRACE=1 timeout $((seconds + 60)) "$F" bench "$@" 2>&1 > "$W/bench-$name.txt" |
      awk '/^heap trace/ {n++; if (n == 1 || n % 8 == 0) print; last = $0; next} {print} END {print "last: " last}'
    echo "rc=$? $(grep -c . "$W/bench-$name.txt") table lines"; } > "$W/heap-$name.txt" 2>&1
}

ht=()
if [ -x "$G"/heaptrack/bin/heaptrack ]; then
  ht=(env PATH="$G/heaptrack/bin:$PATH" "${norandom[@]}" "$G"/heaptrack/bin/heaptrack)
  soak "H$from-gpu-heaptrack" 81 FUSIONLAB_SOAK_EXIT_AFTER_PASS="$from" -- "${ht[@]}" -o "$W/ht-p$from" --
  soak H3-gpu-heaptrack 82 FUSIONLAB_SOAK_EXIT_AFTER_PASS=3 -- "${ht[@]}" -o $W/ht-p3 --
else
  echo "no heaptrack in .gx (apt-get install heaptrack here, then scripts/device_gui_prepare.sh)" | tee "$W/soak-H.txt"
fi
if [ "${HEAPTRACK_ONLY:-0}" != 1 ]; then
soak C-gpu 91 -- --
soak E-gpu-no-counters 92 FUSIONLAB_COUNTERS=off -- --
soak F-gpu-no-cupti-trace 93 FUSIONLAB_TIMELINE=events -- --
soak G-gpu-neither 94 FUSIONLAB_COUNTERS=off FUSIONLAB_TIMELINE=events -- --
soak B-sim 95 -- -- --sim H100
{
  # shellcheck disable=SC2054 # the commas are fusionlab's list syntax
  heap_trace all-interactive --workload all --variant all --interactive --dtype fp16,fp32 --rows 100,3000 \
    --hidden 300,4096 --N 200,1500 --d 64,128 --heads 8 --batch 8 --steps 10,300 --elements 100000 --repeat 3
} &
pids+=($!)
fi
wait "${pids[@]}"
# One file for all of them: the device tool brings back 8 files at most.
for f in "$W"/heap-*.txt "$W"/soak-*.txt; do echo "=== ${f##*/}"; grep -v "^soak: minute" "$f"; done | tee "$OUT/soaks.txt"

# What pass 3 held that pass 1 did not, by call stack (heaptrack_print's diff of the two "leak"
# lists), then the pass-3 recording alone; the recordings come back when they fit.
if [ ${#ht[@]} -gt 0 ]; then
  p1=$(compgen -G "$W/ht-p$from.*" | head -1) p3=$(compgen -G "$W/ht-p3.*" | head -1)
  if [ -n "$p1" ] && [ -n "$p3" ]; then
    timeout 120 "$G"/heaptrack/bin/heaptrack_print -f "$p3" -d "$p1" -l 1 -p 0 -a 0 -T 0 > "$W/diff.txt" 2>&1
    echo "heaptrack_print diff rc=$?" >> "$W/diff.txt"
    head -c 3000000 "$W/diff.txt" > "$OUT/heaptrack-diff-p3-p$from.txt"
    timeout 60 "$G"/heaptrack/bin/heaptrack_print -f "$p3" -l 1 -p 0 -a 0 -T 0 > "$W/p3.txt" 2>&1
    head -c 2000000 "$W/p3.txt" > "$OUT/heaptrack-p3.txt"
    for f in "$p1" "$p3"; do [ "$(stat -c %s "$f")" -lt 16000000 ] && cp "$f" "$OUT/"; done
    grep -A3 "MEMORY LEAKS" "$W/diff.txt" | head; grep -E "^total|leaked" "$W/diff.txt" | tail -3
  else
    echo "heaptrack left no recording: $(ls $W)"
  fi
fi

if [ "${DIAGNOSE_NCU:-0}" = 1 ]; then
  echo "== ncu: the teaching kernel with and without the skip epilogue (N = 1024)"
  for v in "attention flash" "skip teaching_two_pass" "skip teaching_fused"; do
    # shellcheck disable=SC2086
    set -- $v
    echo "-- $1 $2"
    timeout 120 ncu --clock-control none -k regex:flash_kernel -c 1 --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
      "$F" bench --workload "$1" --variant "$2" --N 1024 --d 64 --heads 64 --batch 8 --dtype fp16 --reps 1 2>&1 |
      grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|Stall|Shared Memory Configuration|Dynamic Shared|L1/TEX Hit|L2 Hit|Mem Busy|Compute \(SM\) Throughput|Executed Ipc|Issue Slots"
  done 2>&1 | tee "$OUT/ncu.txt"
fi
