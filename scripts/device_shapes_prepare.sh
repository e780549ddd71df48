#!/usr/bin/env bash
# Packs the bundle of scripts/device_shapes_run.sh (or, RUN=proof, scripts/device_shapes_proof_run.sh;
# both source scripts/device_shapes_preamble.sh, packed beside them) into DEST (default /work/main/.device-shapes):
# the GUI-less fusionlab, its GPU module and the GPU tests from build-device/ (built as
# scripts/device_prepare.sh does: -DFUSIONLAB_GUI=OFF), stripped and xz-packed with Debian's
# libstb beside them; the sweep scripts; run.sh; `plan` (the sweep phases) and READY (the seconds
# the run needs).
#   scripts/device_shapes_prepare.sh [DEST] [PLAN] [SECONDS] [RESERVE]
#   (PLAN default "default", 300 s; RESERVE: seconds kept after the sweep, default 95)
#   CUBIN_NOW=a.cubin CUBIN_BEFORE=b.cubin: elementwise.cu's cubins whose SASS run.sh counts
#   RESERVE_ALTS=S: seconds kept after torch.compile for the plan's "alts"; COMPILE_DTYPES=bf16,fp32: its dtypes;
#   COMPILE_HIDDENS=16384,65536: its hiddens (default every hidden);
#   PROVES="...": what the call proves (PROVES.txt, for the one who runs it)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dest=${1:-/work/main/.device-shapes}
plan=${2:-default}
seconds=${3:-300}
reserve=${4:-95}
stage=$(mktemp -d)
mkdir -p "$stage/bin" "$stage/lib" "$dest"
cp build-device/fusionlab build-device/libfusionlab_gpu.so build-device/tests/fusionlab_gpu_tests "$stage/bin/"
strip --strip-unneeded "$stage/bin/"*
cp -L "$(ldconfig -p | awk '/libstb\.so\.0 /{print $NF; exit}')" "$stage/lib/"
rm -f "$dest"/READY "$dest"/*.py "$dest"/*.sh "$dest"/bin.tar.xz "$dest"/plan "$dest"/reserve "$dest"/PROVES.txt
tar -cJf "$dest/bin.tar.xz" -C "$stage" bin lib
cp scripts/elementwise_sweep.py scripts/elementwise_torch_sweep.py scripts/ncu_top_stalls.py "$dest/"
# elementwise.cu alone as sm_90 cubins (this version, and the previous one when CUBIN_BEFORE names
# one): run.sh counts each kernel's SASS instructions with cuobjdump on the device
rm -f "$dest"/*.cubin.xz
for c in ${CUBIN_NOW:-} ${CUBIN_BEFORE:-}; do [ -f "$c" ] && xz -9 -c "$c" > "$dest/$(basename "$c").xz"; done
# RUN=proof: the proof of a kernel change (scripts/device_shapes_proof_run.sh) instead of the sweep;
# SANITIZE="tool:tests ...", SWEEP_SECONDS=S and PROFILES="workload:rows:hidden:dtype ...": its sanitizer
# runs, the seconds its sweep may take and its Nsight Compute profiles (v9: "...:NAME=VALUE" profiles with an
# environment setting); STALL_PROFILES="rows:hidden:dtype[:NAME=VALUE] ...": the fused chain's stalls by SASS line
cp "scripts/device_shapes_${RUN:+${RUN}_}run.sh" "$dest/run.sh"
cp scripts/device_shapes_preamble.sh "$dest/"
rm -f "$dest/sanitize" "$dest/sanitize_late" "$dest/sweep_seconds" "$dest/profiles" "$dest/stall_profiles"
[ -n "${SANITIZE:-}" ] && echo "$SANITIZE" > "$dest/sanitize"
[ -n "${SANITIZE_LATE:-}" ] && echo "$SANITIZE_LATE" > "$dest/sanitize_late"  # run last, with the time left
[ -n "${PROFILES:-}" ] && echo "$PROFILES" > "$dest/profiles"
[ -n "${STALL_PROFILES:-}" ] && echo "$STALL_PROFILES" > "$dest/stall_profiles"
[ -n "${SWEEP_SECONDS:-}" ] && echo "$SWEEP_SECONDS" > "$dest/sweep_seconds"
echo "$plan" > "$dest/plan"
echo "$reserve" > "$dest/reserve"
rm -f "$dest/reserve_alts" "$dest/compile_dtypes" "$dest/compile_hiddens"
[ -n "${RESERVE_ALTS:-}" ] && echo "$RESERVE_ALTS" > "$dest/reserve_alts"
[ -n "${COMPILE_DTYPES:-}" ] && echo "$COMPILE_DTYPES" > "$dest/compile_dtypes"
[ -n "${COMPILE_HIDDENS:-}" ] && echo "$COMPILE_HIDDENS" > "$dest/compile_hiddens"
[ -n "${PROVES:-}" ] && echo "$PROVES" > "$dest/PROVES.txt"
rm -rf "$stage"
du -sh "$dest"
echo "$seconds" > "$dest/READY"
