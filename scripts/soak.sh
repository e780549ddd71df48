#!/usr/bin/env bash
# Soak test of the GUI: `fusionlab --soak SECONDS` under a virtual X server (Xvfb), with random
# parameter changes, workload/variant/view switches, theme and font-scale changes, CSV/JSON/PNG
# exports (and lesson steps once lessons exist). The binary prints the report: frame time
# p50/p95/max, host RSS and GPU memory at start, after warm-up and at the end; it exits 1 on a
# growth beyond the limits (app/core/soak.h) or a failed export, and a crash gives its signal's code.
#
# Usage: scripts/soak.sh [SECONDS] [SEED] [WIDTHxHEIGHT] [-- extra fusionlab options, e.g. --sim H100]
#   defaults: 600 s, seed 1, 1280x720. FUSIONLAB=path/to/fusionlab overrides the binary
#   (default: build-dev/fusionlab, else .device/bin/fusionlab).
# Exit code: fusionlab's (0 passed, 1 failed, >128 crashed), 2 for bad usage of this script.
set -u
set -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_TO_RUN=${1:-600}
SEED=${2:-1}
SIZE=${3:-1280x720}
if [ $# -ge 3 ]; then shift 3; else shift $#; fi
[ "${1:-}" = "--" ] && shift
case "$SECONDS_TO_RUN" in ''|*[!0-9]*) echo "soak.sh: SECONDS '$SECONDS_TO_RUN' is not a whole number" >&2; exit 2 ;; esac
case "$SEED" in ''|*[!0-9]*) echo "soak.sh: SEED '$SEED' is not a whole number" >&2; exit 2 ;; esac
case "$SIZE" in [0-9]*x[0-9]*) ;; *) echo "soak.sh: size '$SIZE' is not WIDTHxHEIGHT (e.g. 1280x720)" >&2; exit 2 ;; esac

FL=${FUSIONLAB:-}
if [ -z "$FL" ]; then
  for candidate in "$ROOT/build-dev/fusionlab" "$ROOT/.device/bin/fusionlab"; do
    [ -x "$candidate" ] && { FL=$candidate; break; }
  done
fi
if [ -z "$FL" ] || [ ! -x "$FL" ]; then
  echo "soak.sh: no fusionlab binary (build build-dev, or set FUSIONLAB=...)" >&2
  exit 2
fi

W=${SIZE%x*}; H=${SIZE#*x}
echo "soak.sh: $FL --soak $SECONDS_TO_RUN --soak-seed $SEED --soak-size $SIZE $*  ($(date -u '+%Y-%m-%d %H:%M UTC'))"
if [ -n "${DISPLAY:-}" ] && [ "${SOAK_USE_DISPLAY:-0}" = 1 ]; then
  "$FL" --soak "$SECONDS_TO_RUN" --soak-seed "$SEED" --soak-size "$SIZE" "$@"
  rc=$?
else
  command -v xvfb-run >/dev/null || { echo "soak.sh: xvfb-run not found (Debian/Ubuntu: sudo apt-get install xvfb xauth)" >&2; exit 2; }
  # The screen is a little larger than the window so nothing is clipped.
  xvfb-run -a -s "-screen 0 $((W + 64))x$((H + 64))x24" \
    "$FL" --soak "$SECONDS_TO_RUN" --soak-seed "$SEED" --soak-size "$SIZE" "$@"
  rc=$?
fi
if [ "$rc" -gt 128 ]; then
  echo "soak.sh: fusionlab CRASHED (exit $rc: signal $((rc - 128))); replay with the same seed: $SEED" >&2
fi
exit "$rc"
