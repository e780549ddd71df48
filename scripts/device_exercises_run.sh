#!/usr/bin/env bash
# The exercises' run on a lent GPU machine (prepared by scripts/device_exercises_prepare.sh into a
# folder .device-exercises/ at the repo root; run from the repo root, one GPU to itself):
#   CUDA_VISIBLE_DEVICES=<gpu> bash .device-exercises/run.sh OUTDIR [PARTS]
# PARTS (default: the bundle's PARTS file when it has one, else "solutions plain shots tests memcheck
# direct"; "candidates" and "flash" on request): which steps, in this order.
# Writes into OUTDIR as it goes (a timeout keeps what is done), small files only:
#   solutions  `fusionlab exercises run NAME --solution` of every exercise: rows, goals, JSON
#   candidates other versions of the reference solutions (src/cand/, when the bundle has them):
#              which one ships is decided by these numbers
#   plain      the plain (scalar) student kernels of tests/exercises/plain_*.cu: correct, but do
#              they meet the time goals? (what the goals must turn away)
#   flash      the teaching flash kernel's DRAM bytes: in-app counters alone, then beside another
#              process's traffic on the same GPU (a streaming kernel; compute-sanitizer memcheck),
#              then Nsight Compute (ncu)
#   shots      the GUI through the NVIDIA driver's EGL (FUSIONLAB_GL=egl): the exercise pane with a
#              compile error on its line, a failing check, the passing kernel on the roofline and in
#              the results table; PNGs
#   tests      tests/gpu_exercises_test.cpp ([exercises]: in process and `exercises run` end to end;
#              the reference solutions' case only where the solutions step did not run)
#   direct     compute-sanitizer memcheck with `exercises run` itself as its target, on every
#              reference solution, every starter (what a student first submits), the wrong kernels,
#              and the out-of-bounds and faulting ones as controls (the tests' `exercises run`
#              children are not instrumented through --target-processes all); it runs first:
#              it is the only memcheck the `exercises run` path gets
#   memcheck   the in-process ([harness]) exercise tests under compute-sanitizer memcheck, then the
#              never-ending kernel as memcheck's own target (the watchdog must still stop it)
set -u
out=${1:?usage: run.sh OUTDIR [PARTS]}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
default_parts="solutions plain shots tests memcheck direct"
[ -f "$here/PARTS" ] && default_parts=$(cat "$here/PARTS")
parts=${2:-$default_parts}
mkdir -p "$out"
work=$(mktemp -d)
tar -xJf "$here/bundle.tar.xz" -C "$work"
export LD_LIBRARY_PATH="$work/lib:$work/bin:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
export FUSIONLAB_SOURCE_DIR="$work/src" FUSIONLAB_EXE="$work/bin/fusionlab" FUSIONLAB_EXERCISES="$work/src/exercises"
export FUSIONLAB_GPU_MODULE="$work/bin/libfusionlab_gpu.so" HOME="$work/home" FUSIONLAB_EXERCISE_WORK="$work/student"
mkdir -p "$HOME" "$FUSIONLAB_EXERCISE_WORK"
fl="$work/bin/fusionlab"
k="$work/src/tests/exercises"
sol="$work/src/solutions"
starters="$work/src/starters"
cs=/usr/local/cuda/bin/compute-sanitizer
step() { echo "== $(date -u +%T) $*" | tee -a "$out/steps.log"; }
want() { case " $parts " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

step card
nvidia-smi --query-gpu=index,name,memory.total,driver_version,clocks.max.sm,pci.bus_id --format=csv > "$out/card.txt" 2>&1
echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset}" >> "$out/card.txt"
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv >> "$out/card.txt" 2>&1
"$fl" info > "$out/info.txt" 2>&1

if want direct; then
  step "compute-sanitizer memcheck on exercises run itself"
  if [ -x "$cs" ]; then
    # Each case is memcheck's own target. Expected: 0 errors everywhere but the faulting kernel,
    # whose write memcheck must name (the control: memcheck does see the student's module); the
    # out-of-bounds kernel writes into the harness's guard zone, inside the allocation, so memcheck
    # reports nothing and the harness names the bytes; a starter's empty kernel fails the check.
    cases=()
    for name in bias_gelu chain_fused skip_epilogue online_softmax; do cases+=("$name --solution"); done
    for name in bias_gelu chain_fused skip_epilogue online_softmax; do
      [ -f "$starters/$name.cu" ] && cases+=("$name --kernel $starters/$name.cu")
    done
    cases+=("bias_gelu --kernel $k/wrong_bias_gelu.cu" "chain_fused --kernel $k/wrong_chain.cu"
            "bias_gelu --kernel $k/oob_bias_gelu.cu" "bias_gelu --kernel $k/fault_bias_gelu.cu")
    for case in "${cases[@]}"; do
      name=$(echo "$case" | sed 's/ --solution/_solution/; s/ --kernel .*\/starters\/.*/_starter/; s/ --kernel .*\//_/; s/\.cu$//')
      start=$SECONDS
      FUSIONLAB_SANITIZER_RUN=1 timeout -k 5 40 "$cs" --tool memcheck --leak-check no --error-exitcode 99 --print-limit 20 \
          "$fl" exercises run $case > "$out/memcheck_direct_$name.txt" 2>&1
      echo "rc=$? seconds=$((SECONDS - start))" >> "$out/memcheck_direct_$name.txt"
      echo "$name: $(grep -E "ERROR SUMMARY: [0-9]+ error|^correct|yours failed|rc=" "$out/memcheck_direct_$name.txt" | head -3 | cut -c1-160 | tr '\n' ' ')" \
        | tee -a "$out/memcheck_direct_summary.txt"
    done
  else
    echo "no compute-sanitizer at $cs" | tee "$out/memcheck_direct_summary.txt"
  fi
fi

if want solutions; then
  step "exercises list / check"
  { "$fl" exercises list; echo "rc=$?"; "$fl" exercises check; echo "rc=$?"; } > "$out/check.txt" 2>&1
  step "reference solutions"
  for name in bias_gelu chain_fused skip_epilogue online_softmax; do
    timeout -k 5 90 "$fl" exercises run "$name" --solution --json "$out/solution_$name.json" > "$out/solution_$name.txt" 2>&1
    echo "rc=$?" >> "$out/solution_$name.txt"
    grep -E "^(unfused|fused|two_pass|naive|flash|yours) |^goal|rc=" "$out/solution_$name.txt"
  done
fi

if want candidates && [ -d "$work/src/cand" ]; then
  step "candidate reference solutions"
  c="$work/src/cand"
  for f in "$c"/*.cu; do
    name=$(basename "$f" .cu)
    case "$name" in bias_gelu*) ex=bias_gelu ;; chain_D | chain_E) ex="$c/chain_fused_b512.exercise" ;; chain*) ex=chain_fused ;; *) continue ;; esac
    timeout -k 5 90 "$fl" exercises run "$ex" --kernel "$f" --json "$out/cand_$name.json" > "$out/cand_$name.txt" 2>&1
    echo "rc=$?" >> "$out/cand_$name.txt"
    echo "$name: $(grep -E "^goal time" "$out/cand_$name.txt")"
  done
fi

if want plain; then
  step "plain student kernels (correct; the time goals should turn them away)"
  for case in "bias_gelu plain_bias_gelu" "chain_fused plain_chain" "skip_epilogue plain_skip_epilogue"; do
    set -- $case
    timeout -k 5 90 "$fl" exercises run "$1" --kernel "$k/$2.cu" > "$out/kernel_$2.txt" 2>&1
    echo "rc=$?" >> "$out/kernel_$2.txt"
    grep -E "^yours |^goal|rc=" "$out/kernel_$2.txt"
  done
fi

if want flash; then
  step "teaching flash kernel: DRAM bytes (online_softmax's parameters)"
  attn=(--workload attention --heads 16 --N 2048 --d 64 --br 64 --bc 64 --causal 0 --dtype fp16)
  "$fl" bench "${attn[@]}" --variant flash,flash_tc --reps 5 --json "$out/flash_alone.json" > "$out/flash_alone.txt" 2>&1
  echo "rc=$?" >> "$out/flash_alone.txt"
  # The same measurement while another process streams 512 MiB tensors on this GPU (bias_gelu
  # unfused, over and over): the counters are the whole GPU's (CUPTI range profiler), so its
  # traffic during flash's 4 ms range lands in flash's bytes. Its own process group, ended after.
  # (At most 40 s whatever happens to this script: timeout ends the loop; the trap ends it sooner.)
  setsid timeout 40 bash -c "while :; do '$fl' bench --workload bias_gelu --rows 32768 --hidden 8192 --dtype bf16 --variant unfused --reps 1000; done" > "$out/flash_noise_process.txt" 2>&1 < /dev/null &
  noise=$!
  trap 'kill -- -$noise 2>/dev/null' EXIT
  sleep 5
  "$fl" bench "${attn[@]}" --variant flash --reps 5 --json "$out/flash_shared.json" > "$out/flash_shared.txt" 2>&1
  echo "rc=$?" >> "$out/flash_shared.txt"
  kill -- -"$noise" 2>/dev/null; sleep 1; kill -9 -- -"$noise" 2>/dev/null; wait "$noise" 2>/dev/null
  # ... and beside compute-sanitizer memcheck running the exercise tests (what shared the H100 of
  # 2026-11-28's first round, when flash measured 68.8 MiB).
  if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    FUSIONLAB_SANITIZER_RUN=1 setsid timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --leak-check no \
      "$work/bin/fusionlab_gpu_tests" "[harness]" > "$out/flash_memcheck_process.txt" 2>&1 < /dev/null &
    noise=$!
    sleep 3
    "$fl" bench "${attn[@]}" --variant flash --reps 5 --json "$out/flash_beside_memcheck.json" > "$out/flash_beside_memcheck.txt" 2>&1
    echo "rc=$?" >> "$out/flash_beside_memcheck.txt"
    kill -- -"$noise" 2>/dev/null; sleep 1; kill -9 -- -"$noise" 2>/dev/null; wait "$noise" 2>/dev/null
  fi
  if command -v ncu > /dev/null; then
    FUSIONLAB_COUNTERS=off FUSIONLAB_TIMELINE=events timeout 120 ncu --cache-control all --csv \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,gpu__time_duration.sum -k regex:flash -c 2 \
      "$fl" bench "${attn[@]}" --variant flash,flash_tc --reps 1 > "$out/flash_ncu.csv" 2> "$out/flash_ncu.err"
    echo "rc=$?" >> "$out/flash_ncu.err"
  fi
  grep -iE "^ *(flash|flash_tc) |DRAM" "$out/flash_alone.txt" | head -8
fi

if want shots; then
  step "GUI shots through EGL"
  # Fonts where the app looks for them (Debian's paths), only where nothing is there.
  for f in "$work"/fonts/*; do
    case "${f##*/}" in Inter*) d=/usr/share/fonts/opentype/inter ;; *) d=/usr/share/fonts/truetype/dejavu ;; esac
    mkdir -p "$d" 2>/dev/null; [ -e "$d/${f##*/}" ] || cp "$f" "$d/" 2>/dev/null
  done
  # glvnd's libEGL (carried) finds the NVIDIA driver's EGL through a vendor file.
  vendor=""
  for j in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json \
           /etc/glvnd/egl_vendor.d/10_nvidia.json; do [ -f "$j" ] && { vendor=$j; break; }; done
  if [ -z "$vendor" ]; then
    lib=$(ldconfig -p | awk '/libEGL_nvidia\.so\.0/{print $NF; exit}')
    [ -z "$lib" ] && lib=$(ls /usr/local/nvidia/lib64/libEGL_nvidia.so.0 /usr/lib/x86_64-linux-gnu/libEGL_nvidia.so.0 2>/dev/null | head -1)
    if [ -n "$lib" ]; then
      vendor="$work/10_nvidia.json"
      printf '{"file_format_version":"1.0.0","ICD":{"library_path":"%s"}}\n' "$lib" > "$vendor"
    fi
  fi
  { echo "vendor file: ${vendor:-none}"; [ -n "$vendor" ] && cat "$vendor"; ldconfig -p | grep -iE "libEGL|GLdispatch"; } > "$out/egl.txt" 2>&1
  [ -n "$vendor" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
  export FUSIONLAB_GL=egl FUSIONLAB_PRINT_GL=1
  shot() {  # name, args...
    local name=$1; shift
    local start=$SECONDS
    timeout -k 5 120 "$fl" shot --size 1280x720 --out "$out/$name.png" "$@" > "$out/shot_$name.txt" 2>&1
    echo "rc=$? seconds=$((SECONDS - start))" >> "$out/shot_$name.txt"
    echo "$name: $(grep -E 'GL renderer|rc=' "$out/shot_$name.txt" | tr '\n' ' ')"
  }
  # Through the pane's Run button's path (--exercise-run: an `exercises run` process of its own) ...
  shot ex_compile_error --exercise bias_gelu --exercise-kernel "$k/compile_error_bias_gelu.cu" --exercise-hints 1
  shot ex_compile_error_f2 --exercise bias_gelu --exercise-kernel "$k/compile_error_bias_gelu.cu" --font-scale 2
  shot ex_wrong --exercise bias_gelu --exercise-kernel "$k/wrong_bias_gelu.cu" --exercise-run
  shot ex_oob --exercise bias_gelu --exercise-kernel "$k/oob_bias_gelu.cu" --exercise-run
  shot ex_pass_bias_gelu_roofline --exercise bias_gelu --exercise-kernel "$sol/bias_gelu.cu" --exercise-run --view roofline
  shot ex_pass_chain --exercise chain_fused --exercise-kernel "$sol/chain_fused.cu" --exercise-run
  # ... and from the solutions step's --json (the same rows the GUI imports after a run).
  if [ -f "$out/solution_chain_fused.json" ]; then
    shot ex_pass_chain_f2 --exercise chain_fused --exercise-kernel "$sol/chain_fused.cu" --results "$out/solution_chain_fused.json" --font-scale 2
    shot ex_pass_chain_classroom --exercise chain_fused --exercise-kernel "$sol/chain_fused.cu" --results "$out/solution_chain_fused.json" --classroom
    shot ex_pass_chain_timeline --exercise chain_fused --exercise-kernel "$sol/chain_fused.cu" --results "$out/solution_chain_fused.json" --view timeline
  fi
  [ -f "$out/solution_skip_epilogue.json" ] && shot ex_pass_skip --exercise skip_epilogue --exercise-kernel "$sol/skip_epilogue.cu" --results "$out/solution_skip_epilogue.json"
  [ -f "$out/solution_online_softmax.json" ] && shot ex_pass_softmax_roofline --exercise online_softmax --exercise-kernel "$sol/online_softmax.cu" --results "$out/solution_online_softmax.json" --view roofline
fi

if want tests; then
  step "GPU tests of the exercises (in process, then exercises run end to end)"
  # The reference solutions' test runs the commands of the solutions step again: left out here when
  # that step ran (memcheck below runs it).
  spec="[exercises]"; want solutions && spec="[exercises]~*every shipped reference*"
  start=$SECONDS
  timeout -k 5 150 "$work/bin/fusionlab_gpu_tests" "$spec" -r console -d yes > "$out/gpu_tests.txt" 2>&1
  echo "rc=$? seconds=$((SECONDS - start))" >> "$out/gpu_tests.txt"
  tail -4 "$out/gpu_tests.txt"
fi

if want memcheck; then
  step "compute-sanitizer memcheck over the in-process exercise tests"
  if [ -x "$cs" ]; then
    # Only the [harness] cases: the [cli] ones run `exercises run` as children, which
    # --target-processes all did not instrument (round 2 of 2026-11-28: the fault came back unseen
    # by memcheck); the direct step above makes each of those memcheck's own target instead.
    FUSIONLAB_SANITIZER_RUN=1 timeout -k 5 120 "$cs" --tool memcheck --leak-check no --error-exitcode 99 --print-limit 20 \
        "$work/bin/fusionlab_gpu_tests" "[exercises][harness]" -r console -d yes > "$out/memcheck.txt" 2>&1
    echo "rc=$?" >> "$out/memcheck.txt"
    grep -E "ERROR SUMMARY|test cases|rc=" "$out/memcheck.txt" | sort | uniq -c
    # Last (a round's limit may cut it): the kernel that never ends, memcheck's own target: the
    # watchdog must still stop it after the exercise's 10 s and the process end with its message.
    start=$SECONDS
    FUSIONLAB_SANITIZER_RUN=1 timeout -k 5 45 "$cs" --tool memcheck --leak-check no --error-exitcode 99 --print-limit 20 \
        "$fl" exercises run bias_gelu --kernel "$k/hang_bias_gelu.cu" > "$out/memcheck_direct_bias_gelu_hang_bias_gelu.txt" 2>&1
    echo "rc=$? seconds=$((SECONDS - start))" >> "$out/memcheck_direct_bias_gelu_hang_bias_gelu.txt"
    echo "bias_gelu_hang_bias_gelu: $(grep -E "ERROR SUMMARY: [0-9]+ error|watchdog|rc=" "$out/memcheck_direct_bias_gelu_hang_bias_gelu.txt" | head -3 | cut -c1-160 | tr '\n' ' ')" \
      | tee -a "$out/memcheck_direct_summary.txt"
  else
    echo "no compute-sanitizer at $cs" > "$out/memcheck.txt"
  fi
fi
step done
