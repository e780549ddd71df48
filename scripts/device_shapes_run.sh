#!/usr/bin/env bash
# The device run of issue 34's shape sweep (kernels/PERF.md "Every shape"): GPU tests of the
# elementwise and ffn kernels (every configuration), the sweep of `fusionlab bench` over the shape
# grid with alternative layouts, PyTorch eager (and torch.compile while time allows) at the same
# shapes, then compute-sanitizer on the configuration tests. Runs from the repo root as
#   bash .device-shapes/run.sh OUTDIR        (the bundle: scripts/device_shapes_prepare.sh)
# under `timeout`; writes as it goes, so a timeout keeps what finished. BUDGET (seconds, default
# 530) paces the phases.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-shapes-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
START=$(date +%s); BUDGET=${BUDGET:-530}
left() { echo $(( START + BUDGET - $(date +%s) )); }
log() { echo "[$(date -u +%T) +$(( $(date +%s) - START ))s] $*" | tee -a "$OUT/progress.log"; }
WORK=$(mktemp -d); tar -xJf "$HERE/bin.tar.xz" -C "$WORK" || { log "unpack failed"; exit 2; }
B=$WORK/bin
export LD_LIBRARY_PATH=$WORK/lib:$B:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 FUSIONLAB_CACHE_DIR=$WORK/cache
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.mem,memory.total --format=csv,noheader;
  python3 -c "import torch; print('torch', torch.__version__)" 2>&1; } > "$OUT/card.txt"
log "card: $(head -2 "$OUT/card.txt" | tail -1)"
cp "$HERE"/*.py "$WORK/" 2>/dev/null

# 1. correctness first: the elementwise and ffn GPU tests (every configuration, ragged, poisoned)
log "gpu tests"
timeout 120 "$B/fusionlab_gpu_tests" "[elementwise],[dropout],[spill],[inputs],[config],[ffn]" > "$OUT/tests.log" 2>&1
log "gpu tests rc=$? $(tail -2 "$OUT/tests.log" | tr '\n' ' ')"
timeout 30 "$B/fusionlab" info > "$OUT/info.txt" 2>&1

# 2. the sweep at the picked configurations (all shapes, three dtypes)
D=$(( START + BUDGET - 330 )); NOW=$(date +%s); [ $(( NOW + 140 )) -gt "$D" ] && D=$(( NOW + 140 ))
log "sweep: default configurations (until +$(( D - START ))s)"
python3 "$WORK/elementwise_sweep.py" --fusionlab "$B/fusionlab" --out "$OUT/sweep" --phase default \
  --deadline "$D" > "$OUT/sweep_default.log" 2>&1
log "sweep default done: $(grep -c . "$OUT/sweep/sweep.csv" 2>/dev/null) lines"

# 3. PyTorch eager at the same shapes (+ a copy of the same bytes)
D=$(( START + BUDGET - 250 )); NOW=$(date +%s); [ $(( NOW + 60 )) -gt "$D" ] && D=$(( NOW + 60 ))
log "torch eager"
timeout $(( D - $(date +%s) > 10 ? D - $(date +%s) : 10 )) python3 "$WORK/elementwise_torch_sweep.py" --out "$OUT/torch" \
  --deadline "$D" > "$OUT/torch_eager.log" 2>&1
log "torch eager rc=$?"

# 4. alternative configurations (forced), then the unfused chain at the largest rows
D=$(( START + BUDGET - 120 ))
log "sweep: alternatives"
python3 "$WORK/elementwise_sweep.py" --fusionlab "$B/fusionlab" --out "$OUT/sweep" --phase alts,unfused \
  --deadline "$D" > "$OUT/sweep_alts.log" 2>&1
log "sweep alts done: $(grep -c . "$OUT/sweep/sweep.csv" 2>/dev/null) lines"

# 5. compute-sanitizer memcheck on the picked configurations (clusters, rows per block)
log "memcheck"
FUSIONLAB_SANITIZER_RUN=1 timeout 60 compute-sanitizer --tool memcheck "$B/fusionlab_gpu_tests" \
  "the picked row configuration at every width matches the reference: clusters and rows per block" \
  > "$OUT/memcheck.log" 2>&1
log "memcheck rc=$? $(tail -3 "$OUT/memcheck.log" | tr '\n' ' ')"

# 6. torch.compile at the largest rows of each hidden, while time allows
D=$(( START + BUDGET - 5 ))
if [ "$(left)" -gt 20 ]; then
  log "torch.compile"
  timeout $(( $(left) - 3 )) python3 "$WORK/elementwise_torch_sweep.py" --out "$OUT/torch" --compile --big-only \
    --dtypes bf16,fp16,fp32 --deadline "$D" > "$OUT/torch_compile.log" 2>&1
  log "torch.compile rc=$?"
fi
log "done"
rm -rf "$WORK"
