#!/usr/bin/env bash
# Runs the GUI on a lent GPU machine from .gx/gx.tar.xz (scripts/device_gui_prepare.sh): a carried
# Xvfb on :99, frames drawn by the NVIDIA driver through GLX (__GLX_VENDOR_LIBRARY_NAME=nvidia;
# Mesa's llvmpipe when that fails), the real GPU backend. Output under $OUT (default device-out).
#   bash scripts/device_gui.sh lessons          every lesson's bundle, measured on the GPU (bundles.tgz)
#   bash scripts/device_gui.sh soak [SECONDS] [PASSES]
#                                               the soak (default 600 s, 1 pass; 2 passes replay the
#                                               same actions, memory judged over the replay) in its own session, so it can
#                                               outlive a 10-minute call: the call waits up to 570 s and
#                                               `bash scripts/device_gui.sh collect` in the next call
#                                               prints the report (the machine must still be warm)
#   bash scripts/device_gui.sh shot ARGS...     fusionlab shot ARGS (e.g. --out $OUT/x.png --view memory)
# It writes to /usr/bin/xkbcomp, /usr/share/X11/xkb and /usr/share/fonts only where nothing is
# there (Xvfb runs xkbcomp from its build-time path; the app loads fonts from Debian's paths).
# Everything goes to $OUT as it happens, so a call cut off at its time limit still returns what ran.
# Send its output to a file, not through a pipe (`... | tail`): in soak mode such a call once waited
# past its 570 s for the pipe to close and was cut off at the device tool's 600 s.
set -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-device-out}; mkdir -p "$OUT"
mode=${1:-lessons}; shift || true
if [ "$mode" = collect ]; then
  for _ in $(seq 1 110); do grep -q "^rc=" /tmp/soak/soak.txt 2>/dev/null && break; sleep 5; done
  tee "$OUT/soak.txt" < /tmp/soak/soak.txt; exit 0
fi
# shellcheck source=scripts/device_gui_env.sh
source scripts/device_gui_env.sh || exit 2
export DISPLAY=:99
pgrep -x Xvfb > /dev/null || { setsid $G/bin/Xvfb :99 -screen 0 1920x1080x24 -nolisten tcp > /tmp/xvfb.log 2>&1 < /dev/null & sleep 3; }
for vendor in nvidia mesa; do
  if __GLX_VENDOR_LIBRARY_NAME=$vendor FUSIONLAB_PRINT_GL=1 timeout 120 $F shot --out "$OUT/main.png" > /tmp/gl.txt 2>&1; then
    export __GLX_VENDOR_LIBRARY_NAME=$vendor; break
  fi
  echo "device_gui: GL through $vendor failed: $(tail -1 /tmp/gl.txt)" | tee -a "$OUT/device_gui.txt"
done
[ -n "${__GLX_VENDOR_LIBRARY_NAME:-}" ] || { cp /tmp/xvfb.log "$OUT/"; echo "device_gui: no GL"; exit 1; }
grep "GL renderer" /tmp/gl.txt | tee -a "$OUT/device_gui.txt"
case "$mode" in
  lessons)
    rm -rf /tmp/bundles; mkdir -p /tmp/bundles
    for file in lessons/*.lesson; do
      lesson=${file##*/}; lesson=${lesson%%-*}
      start=$SECONDS
      timeout 200 $F shot --lesson "$lesson" --all-steps --out "/tmp/bundles/lesson-$lesson" > "/tmp/bundles/lesson-$lesson.log" 2>&1
      echo "lesson $lesson rc=$? $(grep -v '^GL renderer' "/tmp/bundles/lesson-$lesson.log" | tail -1) ($((SECONDS - start)) s)" | tee -a "$OUT/lessons.txt"
    done
    tar czf "$OUT/bundles.tgz" -C /tmp bundles ;;
  soak)
    seconds=${1:-600} passes=${2:-1}
    rm -rf /tmp/soak; mkdir -p /tmp/soak
    (cd /tmp/soak && setsid bash -c "timeout $((seconds + 120)) $S --soak $seconds --soak-passes $passes --soak-seed 7 --soak-size 1280x720 > /tmp/soak/soak.txt 2>&1; echo rc=\$? >> /tmp/soak/soak.txt" < /dev/null > /dev/null 2>&1 &)
    while [ $SECONDS -lt 570 ]; do grep -q "^rc=" /tmp/soak/soak.txt 2>/dev/null && break; sleep 5; done
    cp /tmp/soak/soak.txt "$OUT/" 2>/dev/null; cat /tmp/soak/soak.txt ;;
  shot) $F shot "$@" ;;
  *) echo "usage: $0 lessons | soak [SECONDS] [PASSES] | collect | shot ARGS..." >&2; exit 2 ;;
esac
