#!/usr/bin/env bash
# Runs on the GPU machine (see scripts/device_prepare.sh): GPU tests, memcheck, info, the bench
# tables of kernels/PERF.md, the PyTorch anchors and the PyTorch reference rows at the bench's
# parameters (reference.json: `fusionlab --reference`), in one call so the numbers sit side by side.
# Writes logs under $OUT (or ./device-out).
set -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-device-out}; mkdir -p "$OUT"
# .device/bin: the GPU module the GPU tests link (fusionlab finds it beside itself).
export LD_LIBRARY_PATH=$PWD/.device/lib:$PWD/.device/bin:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
B=.device/bin; F=$B/fusionlab
chmod +x $B/*
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.mem --format=csv,noheader; } | tee "$OUT/tests.log"
timeout 200 $B/fusionlab_gpu_tests >> "$OUT/tests.log" 2>&1; echo "gpu tests rc=$?" | tee -a "$OUT/tests.log"
FUSIONLAB_SANITIZER_RUN=1 timeout 200 compute-sanitizer --tool memcheck $B/fusionlab_gpu_tests "[elementwise],[attention]~[timing]" 2>&1 | tail -3 | tee -a "$OUT/tests.log"
timeout 60 $F info | tee "$OUT/info.txt"
timeout 120 $F bench --workload chain,bias_gelu --variant all --rows 8192 --hidden 8192 --dtype bf16,fp16,fp32 \
  --reps 50 --kernels --csv "$OUT/elementwise.csv" --json "$OUT/elementwise.json" | tee "$OUT/bench.txt"
for d in 64 128; do for N in 512 1024 2048 4096 8192 16384; do
  v=naive,flash_tc; [ "$N" -le 4096 ] && v=all
  timeout 90 $F bench --workload attention --variant $v --N $N --d $d --heads $((262144 / N)) --dtype fp16 --reps 20 \
    | grep -E "^attention"
done; done | tee "$OUT/attention.txt"
[ -f .device/torch_anchors.py ] && timeout 300 python3 .device/torch_anchors.py | tee "$OUT/anchors.txt"
# What a user would run instead, at the same parameters, timed the same way (scripts/torch_reference.py).
if python3 -c "import torch" 2>/dev/null; then
  timeout 300 python3 scripts/torch_reference.py --from-json "$OUT/elementwise.json" \
    --config 'attention N=1024,4096 d=64,128 heads=64 causal=0,1 dtype=fp16 reps=20' \
    --config 'skip N=4096 d=64,128 heads=64 batch=8 t=2 dtype=fp16 reps=20' \
    --config 'launch steps=1,10,100,1000 elements=65536 dtype=fp32 reps=30' \
    --out "$OUT/reference.json" | tee "$OUT/reference.txt"
else
  echo "note: no PyTorch here; reference rows skipped" | tee "$OUT/reference.txt"
fi
