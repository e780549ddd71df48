#!/usr/bin/env bash
out=${1:?OUT}; mkdir -p "$out"; here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$here/handover" both > "$out/native.txt" 2>&1
for k in 0 1 2; do
  timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 99 "$here/handover" $k > "$out/racecheck_$k.txt" 2>&1
  echo "rc=$?" >> "$out/racecheck_$k.txt"
done
nvidia-smi -L > "$out/card.txt"
