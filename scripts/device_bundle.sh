#!/usr/bin/env bash
# Packs a device bundle: a folder of at most 12 MiB that runs on a lent GPU machine (the NVIDIA driver,
# CUDA 13.0 under /usr/local/cuda, none of our Debian packages) as `bash DIR/run.sh OUTDIR`.
#   scripts/device_bundle.sh soak DIR        the GPU soak in passes (scripts/device_soak_passes.sh)
#   scripts/device_bundle.sh sanitize DIR    compute-sanitizer shards, SHARD=I[,J...] in the
#                                            environment (scripts/device_sanitize_shard.sh; default 0,2);
#                                            DIR/SHARDS holds the number of shards
# From a build with CUDA and the GUI (the TEAM flags: build/, sm_90): stripped binaries, the GPU
# module, the shared libraries fusionlab links that the GPU machine lacks (libstb, GLFW and X11's:
# the CLI never opens a window), and the scripts; packed with xz into DIR/payload.tar.xz.
# Usage: scripts/device_bundle.sh soak|sanitize DIR [BUILD_DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
kind=${1:-} dir=${2:-} build=${3:-build}
case "$kind" in soak|sanitize) ;; *) echo "usage: $0 soak|sanitize DIR [BUILD_DIR]" >&2; exit 2 ;; esac
[ -n "$dir" ] || { echo "usage: $0 soak|sanitize DIR [BUILD_DIR]" >&2; exit 2; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/scripts"
need() { [ -f "$1" ] || { echo "device_bundle: $1 missing: build it first" >&2; exit 2; }; cp "$1" "$stage/bin/"; }
need "$build/libfusionlab_gpu.so"
if [ "$kind" = soak ]; then
  need "$build/tests/fusionlab_soak_headless"
  cp scripts/device_soak_passes.sh "$stage/scripts/"
else
  need "$build/fusionlab"
  need "$build/tests/fusionlab_gpu_tests"
  cp scripts/gpu_sanitize.sh scripts/device_sanitize_shard.sh "$stage/scripts/"
fi
strip "$stage"/bin/*
# Shared libraries from this machine, except the C/C++ runtime and CUDA's (the GPU machine's own).
skip=" linux-vdso.so.1 libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 ld-linux-x86-64.so.2 libstdc++.so.6 libgcc_s.so.1 libcuda.so.1 libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcupti.so.13 libnvrtc.so.13 libnvidia-ml.so.1 "
for b in "$stage"/bin/*; do
  ldd "$b" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
    case "$skip" in *" $name "*) ;; *) cp -Ln "$path" "$stage/lib/" ;; esac
  done
done
mkdir -p "$dir"
rm -f "$dir/payload.tar.xz" "$dir/READY"
tar cf - -C "$stage" . | xz -T2 -9 > "$dir/payload.tar.xz"
if [ "$kind" = soak ]; then
  cat > "$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# The GPU soak in passes (fusionlab scripts/device_soak_passes.sh): bash run.sh OUTDIR
set -u -o pipefail
out=${1:?usage: run.sh OUTDIR}; mkdir -p "$out"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d /tmp/fusionlab-soak.XXXXXX)
tar -xJf "$here/payload.tar.xz" -C "$work" || { echo "run.sh: cannot unpack payload" | tee "$out/error.txt"; exit 2; }
bash "$work/scripts/device_soak_passes.sh" "$work" "$out" "${SOAK_SECONDS:-480}" 2>&1 | tee "$out/run.log"
RUN
else
  cat > "$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# compute-sanitizer shards (fusionlab scripts/device_sanitize_shard.sh), one after the other:
#   [SHARD=I[,J...]] [SANITIZE_BUDGET=S] bash run.sh OUTDIR
# SHARD defaults to 0,2 (memcheck, then synccheck); each shard gets SANITIZE_BUDGET seconds (default:
# 280 shared equally), its logs in OUTDIR/shardI/.
set -u -o pipefail
out=${1:?usage: [SHARD=I[,J...]] run.sh OUTDIR}; mkdir -p "$out"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d /tmp/fusionlab-san.XXXXXX)
tar -xJf "$here/payload.tar.xz" -C "$work" || { echo "run.sh: cannot unpack payload" | tee "$out/error.txt"; exit 2; }
# The tests link the GPU module from the program's folder.
export LD_LIBRARY_PATH=$work/bin:${LD_LIBRARY_PATH:-}
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$out/card.txt" 2>&1
shards=${SHARD:-0,2}
count=$(echo "${shards//,/ }" | wc -w)
export SANITIZE_BUDGET=${SANITIZE_BUDGET:-$((280 / count))}
rc=0
for s in ${shards//,/ }; do
  SHARD=$s bash "$work/scripts/device_sanitize_shard.sh" "$work" "$out/shard$s" 2>&1 | tee -a "$out/run.log"
  r=${PIPESTATUS[0]}; [ "$r" -gt "$rc" ] && rc=$r
done
exit "$rc"
RUN
  bash scripts/device_sanitize_shard.sh --count > "$dir/SHARDS"
fi
du -sh "$dir"; du -b "$dir/payload.tar.xz"
