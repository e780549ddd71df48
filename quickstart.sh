#!/usr/bin/env bash
# fusionlab quick start: installs what is missing (Debian 12 / Ubuntu packages), configures,
# builds, then either starts the GUI (`run`) or runs every test (`test`).
#
#   ./quickstart.sh run     build and start the app (simulated GPUs when there is no CUDA GPU)
#   ./quickstart.sh test    build and run all tests (ctest); what CI runs
#   ./quickstart.sh web     build the browser version into build-web/site/ and serve it on
#                           127.0.0.1 (PORT, default 8000); web/README.md puts it on a web host
#
# Environment: BUILD_DIR (default build), BUILD_TYPE (Release), JOBS (nproc),
# FUSIONLAB_CUDA_ARCHS (e.g. 90 to build one GPU architecture only), FUSIONLAB_SKIP_INSTALL=1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

mode=${1:-}
case "$mode" in
  run|test|web) ;;
  *) echo "usage: $0 run|test|web" >&2; exit 2 ;;
esac

BUILD_DIR=${BUILD_DIR:-build}
BUILD_TYPE=${BUILD_TYPE:-Release}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# ---- 1. packages -----------------------------------------------------------------------------
packages=(cmake g++ make pkg-config libimgui-dev libglfw3-dev libgl-dev libgl1-mesa-dri catch2 libcli11-dev
          nlohmann-json3-dev libstb-dev fonts-dejavu-core fonts-inter xvfb xauth)
# The browser version (web/README.md) and its test in headless Chromium (ctest -L web).
web_packages=(emscripten chromium chromium-driver python3-selenium python3-pil)
[ "$mode" = web ] && packages=(cmake make libcli11-dev nlohmann-json3-dev libstb-dev fonts-inter "${web_packages[@]}")
[ "$mode" = test ] && packages+=("${web_packages[@]}")

install_missing() {
  if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "quickstart: this is not a Debian/Ubuntu system (no dpkg/apt-get). Install these equivalents by hand:" >&2
    echo "  ${packages[*]}" >&2
    return 0
  fi
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "quickstart: installing ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "quickstart: missing packages (${missing[*]}) and you are not root and sudo is not installed." >&2
      echo "  Ask an administrator to run: apt-get install ${missing[*]}" >&2
      exit 1
    fi
  fi
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq ||
     ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    echo "quickstart: could not install ${missing[*]} (see apt's message above)." >&2
    echo "  Install them by hand, or set FUSIONLAB_SKIP_INSTALL=1 if you provide them another way." >&2
    exit 1
  fi
}
[ "${FUSIONLAB_SKIP_INSTALL:-0}" = 1 ] || install_missing

# ---- web: the browser version, served on 127.0.0.1 ---------------------------------------------
if [ "$mode" = web ]; then
  JOBS=$JOBS web/build.sh build-web
  port=${PORT:-8000}
  echo "quickstart: serving build-web/site/ at http://127.0.0.1:$port/  (Ctrl-C stops; web/README.md: any static host)"
  exec /usr/bin/python3 -m http.server "$port" --bind 127.0.0.1 --directory build-web/site
fi

# ---- 2. configure and build ------------------------------------------------------------------
# CUDA is optional: nvcc found -> real kernels; not found -> simulated GPUs only.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake_args=(-S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE")
[ -n "${FUSIONLAB_CUDA_ARCHS:-}" ] && cmake_args+=(-DFUSIONLAB_CUDA_ARCHS="$FUSIONLAB_CUDA_ARCHS")
cmake "${cmake_args[@]}"
cmake --build "$BUILD_DIR" -j "$JOBS"

# ---- 3. run or test --------------------------------------------------------------------------
if [ "$mode" = test ]; then
  exec ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
fi
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "quickstart: no display. Headless alternatives:" >&2
  echo "  $BUILD_DIR/fusionlab shot --out fusionlab.png     (renders the window to a PNG)" >&2
  echo "  $BUILD_DIR/fusionlab bench --workload all         (measures from the command line)" >&2
  echo "  xvfb-run -a $BUILD_DIR/fusionlab                  (GUI on a virtual display)" >&2
fi
exec "$BUILD_DIR/fusionlab"
