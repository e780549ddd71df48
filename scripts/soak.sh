#!/usr/bin/env bash
# Soak test of the GUI: `fusionlab_soak --soak SECONDS` under a virtual X server (Xvfb), with random
# parameter changes, workload/variant/view switches, theme and font-scale changes, CSV/JSON/PNG
# exports and lesson steps. The binary prints the report: frame time p50/p95/max, host RSS and GPU
# memory at start, after warm-up and at the end, and with PASSES > 1 a line per pass (frames, frame
# time, actions, exports, RSS and C heap at its end); it exits 1 on a growth beyond the limits
# (tests/tools/soak_driver.h: with passes, RSS and C heap at the end of passes 2..P within 8 MiB of pass 1's
# end) or a failed export, and a crash gives its signal's code. A line a minute goes to stderr.
#
# Usage: scripts/soak.sh [--log FILE] [SECONDS] [SEED] [WIDTHxHEIGHT] [PASSES] [-- extra fusionlab options]
#   defaults: 600 s, seed 1, 1280x720, 1 pass. fusionlab_soak is the test tool (tests/tools/: fusionlab
#   with the soak driver; the program users get has none), built beside fusionlab.
#   FUSIONLAB_SOAK=path/to/fusionlab_soak overrides the binary (default: build-dev/fusionlab_soak,
#   else build/fusionlab_soak, else .device/bin/fusionlab_soak).
#   --log FILE: run in the background (detached, so closing the terminal does not stop it), all
#   output appended to FILE; prints the background process id and returns at once. The last line
#   of FILE is then the verdict: "soak.sh: PASSED ..." or "soak.sh: FAILED ...".
#   The hour-long soak of docs/RELIABILITY.md:
#     nice -n 19 scripts/soak.sh --log /tmp/soak-60min.log 3600 1 1280x720 6
# Exit code: fusionlab's (0 passed, 1 failed, >128 crashed), 2 for bad usage of this script
# (with --log: 0 once the background run started).
set -u
set -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "${1:-}" = "--log" ]; then
  LOG=${2:-}
  [ -n "$LOG" ] || { echo "soak.sh: --log needs a FILE" >&2; exit 2; }
  shift 2
  touch "$LOG" 2>/dev/null || { echo "soak.sh: cannot write the log file '$LOG'" >&2; exit 2; }
  # Detached from the terminal (setsid, stdin from /dev/null); the verdict is the log's last line.
  setsid nohup bash "${BASH_SOURCE[0]}" "$@" </dev/null >>"$LOG" 2>&1 &
  echo "soak.sh: running in the background as process $!; output in $LOG (a line a minute, the verdict last)"
  exit 0
fi
SECONDS_TO_RUN=${1:-600}
SEED=${2:-1}
SIZE=${3:-1280x720}
PASSES=1
if [ $# -ge 4 ] && [ "$4" != "--" ]; then PASSES=$4; shift 4
elif [ $# -ge 3 ]; then shift 3
else shift $#; fi
[ "${1:-}" = "--" ] && shift
case "$PASSES" in ''|*[!0-9]*) echo "soak.sh: PASSES '$PASSES' is not a whole number" >&2; exit 2 ;; esac
case "$SECONDS_TO_RUN" in ''|*[!0-9]*) echo "soak.sh: SECONDS '$SECONDS_TO_RUN' is not a whole number" >&2; exit 2 ;; esac
case "$SEED" in ''|*[!0-9]*) echo "soak.sh: SEED '$SEED' is not a whole number" >&2; exit 2 ;; esac
case "$SIZE" in [0-9]*x[0-9]*) ;; *) echo "soak.sh: size '$SIZE' is not WIDTHxHEIGHT (e.g. 1280x720)" >&2; exit 2 ;; esac

FL=${FUSIONLAB_SOAK:-}
if [ -z "$FL" ]; then
  for candidate in "$ROOT/build-dev/fusionlab_soak" "$ROOT/build/fusionlab_soak" "$ROOT/.device/bin/fusionlab_soak"; do
    [ -x "$candidate" ] && { FL=$candidate; break; }
  done
fi
if [ -z "$FL" ] || [ ! -x "$FL" ]; then
  echo "soak.sh: no fusionlab_soak binary (cmake --build build-dev --target fusionlab_soak, or set FUSIONLAB_SOAK=...)" >&2
  exit 2
fi

W=${SIZE%x*}; H=${SIZE#*x}
ARGS=(--soak "$SECONDS_TO_RUN" --soak-seed "$SEED" --soak-size "$SIZE")
[ "$PASSES" -gt 1 ] && ARGS+=(--soak-passes "$PASSES")
echo "soak.sh: $FL ${ARGS[*]} $*  ($(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), nice $(nice))"
if [ -n "${DISPLAY:-}" ] && [ "${SOAK_USE_DISPLAY:-0}" = 1 ]; then
  "$FL" "${ARGS[@]}" "$@"
  rc=$?
else
  command -v xvfb-run >/dev/null || { echo "soak.sh: xvfb-run not found (Debian/Ubuntu: sudo apt-get install xvfb xauth)" >&2; exit 2; }
  # The screen is a little larger than the window so nothing is clipped.
  xvfb-run -a -s "-screen 0 $((W + 64))x$((H + 64))x24" \
    "$FL" "${ARGS[@]}" "$@"
  rc=$?
fi
STAMP=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
if [ "$rc" -gt 128 ]; then
  echo "soak.sh: fusionlab CRASHED (exit $rc: signal $((rc - 128))); replay with the same seed: $SEED" >&2
  echo "soak.sh: FAILED (crash, signal $((rc - 128))) at $STAMP" >&2
elif [ "$rc" -eq 0 ]; then
  echo "soak.sh: PASSED (${SECONDS_TO_RUN} s, seed $SEED, $SIZE, $PASSES pass(es); report above) at $STAMP" >&2
else
  echo "soak.sh: FAILED (exit $rc; the report's FAILURE lines say why) at $STAMP" >&2
fi
exit "$rc"
