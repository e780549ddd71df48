#!/usr/bin/env bash
# Builds the browser version of fusionlab (web/README.md) into BUILD (default build-web/):
# BUILD/imgui (Dear ImGui 1.86 sources, fetched once), BUILD/site (the static site to serve).
# Needs Debian's emscripten (./quickstart.sh web installs it). Everything it makes stays in BUILD.
#   web/build.sh [BUILD]          JOBS=N for parallel compiles (default 2)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-web}
mkdir -p "$build"
build=$(cd "$build" && pwd)
if ! command -v emcmake >/dev/null; then
  echo "web/build.sh: emscripten is not installed (./quickstart.sh web installs it: apt-get install emscripten)" >&2
  exit 1
fi
# Debian 12's emscripten runs its JavaScript tools with node; a node that is not Debian's does not
# find Debian's acorn without this.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
"$root/web/fetch_imgui.sh" "$build/imgui"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
emcmake cmake -S "$root/web" -B "$build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
  -DFUSIONLAB_IMGUI_DIR="$build/imgui/imgui-1.86" >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build" -j "${JOBS:-2}"
site="$build/site"
total=$(du -cb "$site"/* | tail -1 | cut -f1)
echo "site: $site ($(ls "$site" | tr '\n' ' ')= $((total / 1024)) KiB)"
