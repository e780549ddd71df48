#!/usr/bin/env bash
# Records, on the GPU in front of it, every lesson step and the GUI's sweeps (every variant of each
# point) into one recording the app replays without a GPU (the backend menu, --backend):
#   OUT/<card>-<date>/recording.json   the recording (app/recordings/recording_file.h; `fusionlab record` writes it)
#   OUT/record-log.txt                 what was measured, point by point, and what was cut and why
#   OUT/device.txt                     `fusionlab info` and nvidia-smi: device, driver, clocks, memory
# Commit the folder as assets/recordings/<card>-<date>/ (with a README: device, date, command).
#
# Usage: scripts/record_gpu.sh [--out DIR] [--reps N] [--budget SECONDS] [--sim KEY] [--list]
#   --reps N       timed repetitions per variant (default 10; slow kernels get fewer, down to 3)
#   --budget S     start no point expected to end after S seconds (default 240: one device call)
#   --sim KEY      rehearse on a simulated GPU (no GPU needed; the app refuses the file it writes)
#   --list         print the points and the time they should take, measure nothing
# The binary: $FUSIONLAB_BIN, else bin/fusionlab beside this script (a folder prepared for a lent
# GPU: bin/, lib/ with Debian's libstb, lessons/, this script), else build-device/ or build/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

out="${OUT:-record-out}"
reps=10
budget=240
sim=""
list=0
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --reps) reps="$2"; shift 2 ;;
        --budget) budget="$2"; shift 2 ;;
        --sim) sim="$2"; shift 2 ;;
        --list) list=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "record_gpu.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

bin="${FUSIONLAB_BIN:-}"
if [ -z "$bin" ]; then
    for candidate in "$here/bin/fusionlab" "$repo/build-device/fusionlab" "$repo/build/fusionlab"; do
        if [ -x "$candidate" ]; then bin="$candidate"; break; fi
    done
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "record_gpu.sh: no fusionlab binary (set FUSIONLAB_BIN, or build: scripts/device_prepare.sh)" >&2
    exit 1
fi
# Libraries beside a prepared folder (libstb), CUPTI and the CUDA runtime's companions.
export LD_LIBRARY_PATH="$here/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The lessons the points come from: those beside this script when prepared, else the repository's.
if [ -z "${FUSIONLAB_LESSONS:-}" ]; then
    if [ -d "$here/lessons" ]; then export FUSIONLAB_LESSONS="$here/lessons"; else export FUSIONLAB_LESSONS="$repo/lessons"; fi
fi

args=(record --reps "$reps" --budget "$budget" --via "scripts/record_gpu.sh")
[ -n "$sim" ] && args+=(--sim "$sim")
if [ "$list" = 1 ]; then
    exec "$bin" "${args[@]}" --list
fi

mkdir -p "$out"
{
    echo "== fusionlab info"
    "$bin" info || true
    echo
    echo "== nvidia-smi"
    nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,memory.total,temperature.gpu,power.draw,power.limit --format=csv 2>&1 || echo "nvidia-smi: not available"
    echo
    echo "== date"
    date -u +%Y-%m-%dT%H:%M:%SZ
} > "$out/device.txt" 2>&1

set -o pipefail
"$bin" "${args[@]}" --out "$out" 2>&1 | tee "$out/record-log.txt"
