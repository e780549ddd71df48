#!/usr/bin/env bash
# Packs what the GUI needs on a lent GPU machine that has the NVIDIA driver (with its GLX library)
# but no X server, no Mesa and none of our Debian packages: .gx/gx.tar.xz (git-ignored), about
# 55 MB, under the device tool's 64 MiB with the repository beside it. On the GPU machine:
#   bash scripts/device_gui.sh lessons | soak SECONDS | shot ARGS...      (carry .gx)
#
# Contents, all from this Debian 12 machine: Xvfb and xkbcomp with the libraries they and the GUI
# binary load (libc and libstdc++ excepted: the GPU machine's are newer), Mesa's swrast DRI driver
# and its LLVM 15 (Xvfb's GLX extension needs a software renderer even when the NVIDIA driver
# draws the frames), the xkb data, the Inter and DejaVu fonts, build/fusionlab (a GUI build with
# CUDA; build it first, for sm_90: cmake -DFUSIONLAB_CUDA_ARCHS=90-real) with its symbol table
# (0.2 MB packed; heap profiles and backtraces name our functions), and heaptrack when it is
# installed here (apt-get install heaptrack: 1 MB, for scripts/device_diagnose.sh).
# Usage: scripts/device_gui_prepare.sh [FUSIONLAB_BINARY]   (default build/fusionlab)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
binary=${1:-build/fusionlab}
[ -x "$binary" ] || { echo "device_gui_prepare: $binary not found: build the GUI first" >&2; exit 2; }
for f in /usr/bin/Xvfb /usr/bin/xkbcomp /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so /usr/lib/x86_64-linux-gnu/libGLX_mesa.so.0; do
  [ -e "$f" ] || { echo "device_gui_prepare: $f missing (apt-get install xvfb x11-xkb-utils libgl1-mesa-dri libglx-mesa0)" >&2; exit 2; }
done
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib/dri" "$stage/fonts/inter" "$stage/fonts/dejavu"
# Libraries the GPU machine has in newer versions (or that must match its driver) stay behind.
skip=" libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 ld-linux-x86-64.so.2 libstdc++.so.6 libgcc_s.so.1 libutil.so.1 libcublas.so.13 libcublasLt.so.13 libcupti.so.13 "
copy_deps() {
  ldd "$1" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
    case "$skip" in *" $name "*) ;; *) cp -Ln "$path" "$stage/lib/" ;; esac
  done
}
cp /usr/bin/Xvfb /usr/bin/xkbcomp "$stage/bin/"
cp "$binary" "$stage/bin/fusionlab"
# The soak test tool, built beside the program (tests/tools/CMakeLists.txt): scripts/device_gui.sh soak.
soak_binary=$(dirname "$binary")/fusionlab_soak
if [ -x "$soak_binary" ]; then cp "$soak_binary" "$stage/bin/fusionlab_soak"
else echo "device_gui_prepare: note: $soak_binary not built; \`device_gui.sh soak\` will not run" >&2; fi
cp -L /usr/lib/x86_64-linux-gnu/libGLX_mesa.so.0 "$stage/lib/"
cp -L /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so "$stage/lib/dri/"
for f in /usr/bin/Xvfb /usr/bin/xkbcomp "$binary" /usr/lib/x86_64-linux-gnu/libGLX_mesa.so.0 \
         /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so; do copy_deps "$f"; done
cp -r /usr/share/X11/xkb "$stage/xkb"
cp /usr/share/fonts/opentype/inter/Inter-Regular.otf /usr/share/fonts/opentype/inter/Inter-SemiBold.otf "$stage/fonts/inter/"
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf "$stage/fonts/dejavu/"
# heaptrack keeps its layout (the script finds ../lib/heaptrack from its own folder); zstd packs
# its recording; heaptrack_print turns the recording into text on the GPU machine.
if [ -x /usr/bin/heaptrack ] && [ -d /usr/lib/heaptrack ]; then
  mkdir -p "$stage/heaptrack/bin" "$stage/heaptrack/lib"
  cp /usr/bin/heaptrack /usr/bin/heaptrack_print "$stage/heaptrack/bin/"
  [ -x /usr/bin/zstd ] && cp /usr/bin/zstd "$stage/heaptrack/bin/"
  cp -r /usr/lib/heaptrack "$stage/heaptrack/lib/"
  for f in /usr/bin/heaptrack_print /usr/lib/heaptrack/libheaptrack_preload.so /usr/lib/heaptrack/libexec/heaptrack_interpret; do
    copy_deps "$f"
  done
fi
mkdir -p .gx
tar cf - -C "$stage" . | xz -T0 -6 > .gx/gx.tar.xz
du -h .gx/gx.tar.xz
