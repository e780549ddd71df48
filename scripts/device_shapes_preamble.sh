# The shared start of the shapes helper's device runs (sourced by scripts/device_shapes_run.sh, the
# sweep, and scripts/device_shapes_proof_run.sh, the proof of a kernel change; scripts/
# device_shapes_prepare.sh copies it into the bundle beside run.sh). Before sourcing: HERE (the
# bundle's folder), DEFAULT_BUDGET (seconds when the bundle has no READY) and the run's first
# argument in OUT. Sets OUT (absolute), START, BUDGET, WORK (the unpacked bundle), B (its bin/),
# the library path, left() (seconds left) and log() (a line to stdout and OUT/progress.log), and
# writes OUT/card.txt (date, card, driver, clocks, PyTorch).
OUT=${OUT:-shapes-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
START=$(date +%s); BUDGET=${BUDGET:-$(cat "$HERE/READY" 2>/dev/null || echo "$DEFAULT_BUDGET")}
left() { echo $(( START + BUDGET - $(date +%s) )); }
log() { echo "[$(date -u +%T) +$(( $(date +%s) - START ))s] $*" | tee -a "$OUT/progress.log"; }
WORK=$(mktemp -d); tar -xJf "$HERE/bin.tar.xz" -C "$WORK" || { log "unpack failed"; exit 2; }
B=$WORK/bin
export LD_LIBRARY_PATH=$WORK/lib:$B:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 FUSIONLAB_CACHE_DIR=$WORK/cache
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.mem,memory.total --format=csv,noheader;
  python3 -c "import torch; print('torch', torch.__version__)" 2>&1; } > "$OUT/card.txt"
cp "$HERE"/*.py "$WORK/" 2>/dev/null
