#!/usr/bin/env bash
# Two open questions from the H100 runs of 2026-11-24 (docs/RELIABILITY.md, kernels/PERF.md), in
# one device call of about 8 minutes. Carry .gx (scripts/device_gui_prepare.sh); output goes to
# $OUT as it happens, so a call cut off at its limit still returns what ran.
#  1. The GUI soak's host memory grows on a GPU (+241 MiB, C heap in use +192 MiB in 10 min) but
#     not in simulation, and `bench` on the GPU backend shows no growth per job. Two 300 s soaks
#     side by side split the suspects: (B) NVIDIA GL with the simulated backend, (C) Mesa's
#     llvmpipe with the GPU backend. Growth in B only: the NVIDIA GL driver or our GL use; in C
#     only: the GPU backend under the live loop (cancelled jobs, CUPTI); in both: the app.
#  2. teaching_fused runs ~44% longer than the teaching flash kernel it is built on, although both
#     run the same compiled j-loop (flash_kv_loop) with 32 registers: ncu on both kernels.
set -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-device-out}; mkdir -p "$OUT"
G=/tmp/gx
if [ ! -x $G/bin/fusionlab ]; then
  mkdir -p $G
  if ! tar xJf .gx/gx.tar.xz -C $G; then echo "cannot unpack .gx/gx.tar.xz (carry .gx)"; exit 2; fi
fi
[ -e /usr/bin/xkbcomp ] || cp $G/bin/xkbcomp /usr/bin/xkbcomp
[ -d /usr/share/X11/xkb ] || { mkdir -p /usr/share/X11; cp -r $G/xkb /usr/share/X11/xkb; }
export LD_LIBRARY_PATH=$G/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64
export LIBGL_DRIVERS_PATH=$G/lib/dri FUSIONLAB_LESSONS=$PWD/lessons
F=$G/bin/fusionlab
{
  echo "== 2. ncu: the teaching kernel with and without the skip epilogue (N = 1024)"
  for v in "attention flash" "skip teaching_two_pass" "skip teaching_fused"; do
    # shellcheck disable=SC2086
    set -- $v
    echo "-- $1 $2"
    timeout 120 ncu --clock-control none -k regex:flash_kernel -c 1 --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
      "$F" bench --workload "$1" --variant "$2" --N 1024 --d 64 --heads 64 --batch 8 --dtype fp16 --reps 1 2>&1 |
      grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|Stall|Shared Memory Configuration|Dynamic Shared|L1/TEX Hit|L2 Hit|Mem Busy|Compute \(SM\) Throughput"
  done
} 2>&1 | tee "$OUT/ncu.txt"
setsid $G/bin/Xvfb :98 -screen 0 1920x1080x24 -nolisten tcp > /tmp/xvfb98.log 2>&1 < /dev/null &
setsid $G/bin/Xvfb :97 -screen 0 1920x1080x24 -nolisten tcp > /tmp/xvfb97.log 2>&1 < /dev/null &
sleep 3
mkdir -p /tmp/sb /tmp/sc
(cd /tmp/sb && DISPLAY=:98 __GLX_VENDOR_LIBRARY_NAME=nvidia timeout 400 "$F" --sim H100 --soak 300 --soak-seed 7 \
   --soak-size 1280x720 > "$OUT/soak-nvidia-gl-sim.txt" 2>&1) &
(cd /tmp/sc && DISPLAY=:97 __GLX_VENDOR_LIBRARY_NAME=mesa timeout 400 "$F" --soak 300 --soak-seed 7 \
   --soak-size 1280x720 > "$OUT/soak-mesa-gl-gpu.txt" 2>&1) &
wait
echo "== 1B. NVIDIA GL, simulated backend"; cat "$OUT/soak-nvidia-gl-sim.txt"
echo "== 1C. Mesa GL (llvmpipe), GPU backend"; cat "$OUT/soak-mesa-gl-gpu.txt"
