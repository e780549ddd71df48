#!/usr/bin/env bash
# Prepares DEST (default /work/main/.device-exercises) for scripts/device_exercises_run.sh on a lent
# GPU machine that has the NVIDIA driver and the CUDA toolkit but none of our Debian packages: a
# GUI-less build for sm_90 (the program, its GPU module, the GPU tests), Debian's libstb, the
# exercise files and the test kernels, packed (tar -cJf) under the 12 MiB a bundle may take.
# Usage: scripts/device_exercises_prepare.sh [DEST] [SECONDS]   (SECONDS: written to DEST/READY)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dest=${1:-/work/main/.device-exercises}
seconds=${2:-240}
export PATH=/usr/local/cuda/bin:$PATH CCACHE_BASEDIR=/work CCACHE_DIR=/work/.ccache
cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DFUSIONLAB_GUI=OFF -DFUSIONLAB_CUDA_ARCHS=90 \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache >/dev/null
nice cmake --build build-device -j2 --target fusionlab fusionlab_gpu fusionlab_gpu_tests
stage=$(mktemp -d)
mkdir -p "$stage/bin" "$stage/lib" "$stage/src/exercises" "$stage/src/tests/exercises"
cp build-device/fusionlab build-device/libfusionlab_gpu.so build-device/tests/fusionlab_gpu_tests "$stage/bin/"
strip "$stage/bin/fusionlab" "$stage/bin/fusionlab_gpu_tests" "$stage/bin/libfusionlab_gpu.so"
cp -L "$(ldconfig -p | awk '/libstb\.so\.0 /{print $NF; exit}')" "$stage/lib/"
cp -r exercises/. "$stage/src/exercises/"
cp tests/exercises/* "$stage/src/tests/exercises/"
mkdir -p "$dest"
rm -f "$dest/READY"
tar -cJf "$dest/bundle.tar.xz" -C "$stage" .
cp scripts/device_exercises_run.sh "$dest/run.sh"
rm -rf "$stage"
du -sh "$dest"
echo "$seconds" > "$dest/READY"
