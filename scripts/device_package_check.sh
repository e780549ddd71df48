#!/usr/bin/env bash
# The installed GPU package on a lent GPU machine (README, Install for a classroom): the program's
# NEEDED libraries, its `info` with the CUDA libraries on the loader's path (the installed GPU module
# loads and finds the GPU), then with CUPTI alone hidden (the GPU backend measures, the counters say
# why not), and the GPU tests against the installed module. Log: $OUT/package-gpu.log.
# Prepare here (GUI-less build installed into a prefix, the GPU tests, Debian's libstb beside them):
#   cmake -S . -B build-device -DFUSIONLAB_GUI=OFF -DFUSIONLAB_CUDA=ON -DFUSIONLAB_CUDA_ARCHS=90
#   cmake --build build-device -j --target fusionlab fusionlab_gpu fusionlab_gpu_tests
#   cmake --install build-device --prefix D/prefix; cp build-device/tests/fusionlab_gpu_tests D/; libstb.so.0 -> D/lib/
# Usage (on the GPU machine, from the repo root): bash scripts/device_package_check.sh [D] [GPU TEST SPEC]
set -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
D=${1:-.device-package}; SPEC=${2:-}
OUT=${OUT:-device-out}; mkdir -p "$OUT"; LOG=$OUT/package-gpu.log
P=$PWD/$D/prefix; F=$P/bin/fusionlab; M=$(ls "$P"/lib*/fusionlab/libfusionlab_gpu.so "$P"/lib/*/fusionlab/libfusionlab_gpu.so 2>/dev/null | head -1)
chmod +x "$F" "$D/fusionlab_gpu_tests"
# Where this machine keeps a library: the loader's cache, else the toolkit's folders.
find_lib() {
  local p; p=$(ldconfig -p | awk -v l="$1" '$1 == l { print $NF; exit }')
  [ -z "$p" ] && for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/extras/CUPTI/lib64; do
    [ -e "$d/$1" ] && p=$d/$1 && break; done
  echo "$p"
}
CUBLAS=$(find_lib libcublas.so.13); CUPTI=$(find_lib libcupti.so.13); CUDA=$(find_lib libcuda.so.1)
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "== the program's NEEDED (readelf -d $F)"; readelf -d "$F" | grep NEEDED
  echo "== the module: $M"; ls -l "$M"; readelf -d "$M" | grep NEEDED
  echo "== this machine: cuBLAS $CUBLAS, CUPTI $CUPTI, driver $CUDA"
  # As an administrator would: the toolkit's folders on the loader's path (ld.so.conf.d or this).
  export LD_LIBRARY_PATH=$PWD/$D/lib:$(dirname "$CUBLAS"):$(dirname "$CUPTI")
  echo "== fusionlab info, CUDA libraries present"; timeout 60 "$F" info | sed -n '1,20p'
  echo "== bench on the GPU through the installed module"
  timeout 60 "$F" bench --workload chain --variant all --rows 4096 --hidden 4096 --dtype bf16 --reps 20
  # CUPTI alone hidden: a private folder with cuBLAS, the driver and libstb; no cache (--inhibit-cache).
  H=/tmp/no-cupti; mkdir -p $H
  for f in "$CUBLAS" "$(dirname "$CUBLAS")/libcublasLt.so.13" "$CUDA" "$PWD/$D/lib/libstb.so.0"; do ln -sf "$f" $H/; done
  interp=$(readelf -l "$F" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
  echo "== CUPTI hidden: info and a bench"
  env -u LD_LIBRARY_PATH "$interp" --inhibit-cache --library-path $H "$F" info | sed -n '1,20p'
  env -u LD_LIBRARY_PATH "$interp" --inhibit-cache --library-path $H "$F" bench --workload chain --variant fused \
    --rows 4096 --hidden 4096 --dtype bf16 --reps 20 --kernels
  echo "== GPU tests against the installed module ($M)"
  LD_LIBRARY_PATH=$(dirname "$M"):$LD_LIBRARY_PATH timeout ${GPU_TESTS_TIMEOUT:-150} "$D/fusionlab_gpu_tests" $SPEC
  echo "gpu tests rc=$?"
} 2>&1 | tee "$LOG"
