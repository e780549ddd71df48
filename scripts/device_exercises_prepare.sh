#!/usr/bin/env bash
# Prepares DEST (default /work/main/.device-exercises) for scripts/device_exercises_run.sh on a lent
# GPU machine that has the NVIDIA driver (with its EGL library) and the CUDA toolkit but no X
# server and none of our Debian packages, in the 12 MiB a bundle may take:
#   - the GUI build of fusionlab (build/, sm_90), its GPU module and the GPU tests, stripped;
#   - the shared libraries the GUI binary loads (ldd, less libc/libstdc++ and what the driver
#     brings), and glvnd's libEGL.so.1 + libGLdispatch.so.0: its shots draw through the NVIDIA
#     driver's EGL (FUSIONLAB_GL=egl, app/gui/egl_context.h), so no Xvfb, Mesa or LLVM travels
#     (scripts/device_gui_prepare.sh's 55 MB pack);
#   - the fonts the GUI loads (Inter, DejaVu), the exercise files, the test kernels, every
#     exercise's reference solution and starter as kernel files (what a student would submit:
#     the finished kernel, and the first try), and, with CANDIDATES=DIR, other versions of the
#     solutions to measure beside them;
#   - with PARTS="..." in the environment, DEST/PARTS: the steps run.sh takes when none are given
#     (the lead runs `bash DEST/run.sh OUTDIR`).
#   - packed with tar -cJf.
# Build first: cmake --build build --target fusionlab fusionlab_gpu fusionlab_gpu_tests.
# Usage: scripts/device_exercises_prepare.sh [DEST] [SECONDS]   (SECONDS: written to DEST/READY)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dest=${1:-/work/main/.device-exercises}
seconds=${2:-280}
build=${BUILD:-build}
for f in "$build/fusionlab" "$build/libfusionlab_gpu.so" "$build/tests/fusionlab_gpu_tests"; do
  [ -x "$f" ] || { echo "device_exercises_prepare: $f missing: build it first" >&2; exit 2; }
done
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/fonts" "$stage/src/exercises" "$stage/src/tests/exercises" "$stage/src/solutions" \
         "$stage/src/starters"
cp "$build/fusionlab" "$build/libfusionlab_gpu.so" "$build/tests/fusionlab_gpu_tests" "$stage/bin/"
strip "$stage/bin/fusionlab" "$stage/bin/fusionlab_gpu_tests" "$stage/bin/libfusionlab_gpu.so"
# What the GPU machine has in newer versions (or must match its driver) stays behind.
skip=" libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 ld-linux-x86-64.so.2 libstdc++.so.6 libgcc_s.so.1 libutil.so.1 libcuda.so.1 libcublas.so.13 libcublasLt.so.13 libcupti.so.13 libnvrtc.so.13 "
ldd "$stage/bin/fusionlab" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
  case "$skip" in *" $name "*) ;; *) cp -Ln "$path" "$stage/lib/" ;; esac
done
# glvnd's dispatch libraries: libEGL for the context, and libGL + libGLX because Dear ImGui's
# OpenGL 3 backend (Debian's libimgui) loads its GL functions from libGL.so.1 (glXGetProcAddressARB:
# dispatch stubs that reach whichever context is current, EGL's here). The GPU machine has only the
# NVIDIA vendor libraries (libEGL_nvidia, libGLX_nvidia).
cp -L /usr/lib/x86_64-linux-gnu/libEGL.so.1 /usr/lib/x86_64-linux-gnu/libGLdispatch.so.0 \
      /usr/lib/x86_64-linux-gnu/libGL.so.1 /usr/lib/x86_64-linux-gnu/libGLX.so.0 "$stage/lib/"
cp /usr/share/fonts/opentype/inter/Inter-Regular.otf /usr/share/fonts/opentype/inter/Inter-SemiBold.otf \
   /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf \
   /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf "$stage/fonts/"
cp -r exercises/. "$stage/src/exercises/"
cp tests/exercises/* "$stage/src/tests/exercises/"
# Each reference solution as the file a student would hand in (the text after `== solution`).
for f in exercises/*.exercise; do
  name=$(basename "$f" .exercise)
  awk '/^== /{on = ($0 == "== solution"); next} on' "$f" > "$stage/src/solutions/$name.cu"
  awk '/^== /{on = ($0 == "== starter"); next} on' "$f" > "$stage/src/starters/$name.cu"
done
# Other versions of a reference solution to measure beside it (CANDIDATES=DIR: *.cu, and
# *.exercise files for those that need another launch shape; they find include/ beside them).
if [ -n "${CANDIDATES:-}" ]; then
  mkdir -p "$stage/src/cand"
  cp "$CANDIDATES"/* "$stage/src/cand/"
  cp -r exercises/include "$stage/src/cand/include"
fi
mkdir -p "$dest"
rm -f "$dest/READY" "$dest/PARTS"
tar -cJf "$dest/bundle.tar.xz" -C "$stage" .
cp scripts/device_exercises_run.sh "$dest/run.sh"
[ -n "${PARTS:-}" ] && echo "$PARTS" > "$dest/PARTS"
du -sh "$dest"
size=$(du -sb "$dest" | cut -f1)
[ "$size" -le $((12 * 1024 * 1024)) ] || { echo "device_exercises_prepare: $size bytes: over the 12 MiB a bundle may take" >&2; exit 1; }
echo "$seconds" > "$dest/READY"
