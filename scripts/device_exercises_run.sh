#!/usr/bin/env bash
# The exercises' run on a lent GPU machine (prepared by scripts/device_exercises_prepare.sh into a
# folder .device-exercises/ at the repo root; run from the repo root):
#   CUDA_VISIBLE_DEVICES=<gpu> bash .device-exercises/run.sh OUTDIR
# Writes into OUTDIR as it goes (a timeout keeps what is done): the GPU tests of the exercises
# (tests/gpu_exercises_test.cpp), `fusionlab exercises run` of every reference solution and of the
# test kernels (wrong, out of bounds, hanging, faulting, not compiling), and one compute-sanitizer
# memcheck pass over the in-process tests and every reference solution.
set -u
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
tar -xJf "$here/bundle.tar.xz" -C "$work"
export LD_LIBRARY_PATH="$work/lib:$work/bin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
export FUSIONLAB_SOURCE_DIR="$work/src" FUSIONLAB_EXE="$work/bin/fusionlab" FUSIONLAB_EXERCISES="$work/src/exercises"
export FUSIONLAB_GPU_MODULE="$work/bin/libfusionlab_gpu.so" HOME="$work/home"
mkdir -p "$HOME"
fl="$work/bin/fusionlab"
step() { echo "== $(date -u +%T) $*" | tee -a "$out/steps.log"; }

step card
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv > "$out/card.txt" 2>&1
"$fl" info > "$out/info.txt" 2>&1

step "exercises list / check"
"$fl" exercises list > "$out/list.txt" 2>&1; echo "rc=$?" >> "$out/list.txt"
"$fl" exercises check > "$out/check.txt" 2>&1; echo "rc=$?" >> "$out/check.txt"

step "reference solutions"
for name in bias_gelu chain_fused skip_epilogue online_softmax; do
  timeout -k 5 90 "$fl" exercises run "$name" --solution --json "$out/solution_$name.json" > "$out/solution_$name.txt" 2>&1
  echo "rc=$?" >> "$out/solution_$name.txt"
  tail -4 "$out/solution_$name.txt"
done

step "GPU tests of the harness (in process)"
timeout -k 5 60 "$work/bin/fusionlab_gpu_tests" "[harness]" -r console -d yes > "$out/gpu_tests_harness.txt" 2>&1
echo "rc=$?" >> "$out/gpu_tests_harness.txt"
tail -5 "$out/gpu_tests_harness.txt"

step "test kernels"
k="$work/src/tests/exercises"
for case in "bias_gelu wrong_bias_gelu" "chain_fused wrong_chain" "bias_gelu oob_bias_gelu" \
            "bias_gelu compile_error_bias_gelu" "bias_gelu fault_bias_gelu" "bias_gelu hang_bias_gelu"; do
  set -- $case
  start=$(date +%s)
  timeout -k 5 120 "$fl" exercises run "$1" --kernel "$k/$2.cu" --json "$out/kernel_$2.json" > "$out/kernel_$2.txt" 2>&1
  echo "rc=$? seconds=$(( $(date +%s) - start ))" >> "$out/kernel_$2.txt"
  tail -3 "$out/kernel_$2.txt"
done
# The app keeps working after the hang and the fault: a built-in variant on the same GPU.
"$fl" bench --workload bias_gelu --variant fused --rows 1024 --hidden 1024 > "$out/after_hang.txt" 2>&1
echo "rc=$?" >> "$out/after_hang.txt"


step "compute-sanitizer memcheck"
cs=/usr/local/cuda/bin/compute-sanitizer
if [ -x "$cs" ]; then
  export FUSIONLAB_SANITIZER_RUN=1
  timeout -k 5 150 "$cs" --tool memcheck --leak-check no --target-processes all --error-exitcode 99 \
      "$work/bin/fusionlab_gpu_tests" "[harness]" > "$out/memcheck_harness.txt" 2>&1
  echo "rc=$?" >> "$out/memcheck_harness.txt"
  tail -4 "$out/memcheck_harness.txt"
  for name in bias_gelu online_softmax; do
    timeout -k 5 60 "$cs" --tool memcheck --leak-check no --error-exitcode 99 \
        "$fl" exercises run "$name" --solution > "$out/memcheck_solution_$name.txt" 2>&1
    echo "rc=$?" >> "$out/memcheck_solution_$name.txt"
    tail -3 "$out/memcheck_solution_$name.txt"
  done
  unset FUSIONLAB_SANITIZER_RUN
else
  echo "no compute-sanitizer at $cs" > "$out/memcheck_harness.txt"
fi
step "GPU tests of exercises run (subprocesses; repeats the runs above as assertions)"
timeout -k 5 200 "$work/bin/fusionlab_gpu_tests" "[cli]" -r console -d yes > "$out/gpu_tests_cli.txt" 2>&1
echo "rc=$?" >> "$out/gpu_tests_cli.txt"
tail -5 "$out/gpu_tests_cli.txt"
step done
