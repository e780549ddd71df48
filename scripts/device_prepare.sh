#!/usr/bin/env bash
# Prepares .device/ (git-ignored) for a run on a lent GPU machine that has CUDA but none of our
# Debian packages: a command-line-only build (no GUI) for sm_90, the test binaries, Debian's libstb
# (fusionlab links it), and the PyTorch anchor script. Then, on the GPU machine, from the repo root:
#   bash scripts/device_validate.sh        (carry .device)
# Usage: scripts/device_prepare.sh [ARCHS]   (default 90-real: H100/H200)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
archs=${1:-90-real}
cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DFUSIONLAB_GUI=OFF -DFUSIONLAB_CUDA=ON \
      -DFUSIONLAB_CUDA_ARCHS="$archs"
cmake --build build-device -j "$(nproc)" --target fusionlab fusionlab_gpu fusionlab_gpu_tests fusionlab_attention_timing
mkdir -p .device/bin .device/lib
# The GPU module sits beside the program (the loader looks there first) and is what the GPU tests
# link (device_validate.sh puts .device/bin on the library path).
cp build-device/fusionlab build-device/libfusionlab_gpu.so build-device/tests/fusionlab_gpu_tests \
   build-device/tests/fusionlab_attention_timing .device/bin/
cp -L "$(ldconfig -p | awk '/libstb\.so\.0 /{print $NF; exit}')" .device/lib/
cp ../shared/anchors/torch_anchors.py .device/ 2>/dev/null || echo "note: ../shared/anchors/torch_anchors.py not found; anchors will be skipped"
du -sh .device
