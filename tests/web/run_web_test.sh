#!/usr/bin/env bash
# ctest `web` (tests/web/CMakeLists.txt): builds the browser version into BUILD with web/build.sh,
# then runs tests/web/web_test.py against it and the desktop binary FUSIONLAB (for its shots).
#   tests/web/run_web_test.sh BUILD FUSIONLAB OUT
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$1 fusionlab=$2 out=$3
missing=()
command -v emcmake >/dev/null || missing+=(emscripten)
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
/usr/bin/python3 -c 'import selenium' 2>/dev/null || missing+=(python3-selenium)
/usr/bin/python3 -c 'import PIL' 2>/dev/null || missing+=(python3-pil)
if [ ${#missing[@]} -gt 0 ]; then
  echo "web test skipped: missing ${missing[*]} (./quickstart.sh web or ./quickstart.sh test installs them)"
  exit 77
fi
start=$(date +%s)
JOBS=${JOBS:-2} "$root/web/build.sh" "$build"
echo "web build: $(( $(date +%s) - start )) s"
start=$(date +%s)
/usr/bin/python3 "$root/tests/web/web_test.py" --site "$build/site" --fusionlab "$fusionlab" --out "$out"
echo "web test in the browser: $(( $(date +%s) - start )) s"
