# `fusionlab exercises` from the command line (included by tests/CMakeLists.txt after cli_test.cmake,
# whose fl_cli_test checks the exit code and the output). GPU runs are in tests/gpu_exercises_test.cpp.
fl_cli_test(exercises_list CODE 0 ARGS exercises list
            STDOUT "bias_gelu +bias_gelu.*chain_fused +chain.*online_softmax +attention.*skip_epilogue +skip")
fl_cli_test(exercises_check_shipped CODE 0 ARGS exercises check STDOUT "ok .*chain_fused.exercise.*ok .*skip_epilogue")
# NVRTC missing: the format is still checked, the compile check says why it was skipped and how to install.
fl_cli_test(exercises_check_without_nvrtc CODE 0 ARGS exercises check
            DEFS "-DFL_ENV=FUSIONLAB_NVRTC=none"
            STDOUT "ok .*not compiled" STDERR "NVRTC \\(libnvrtc.so.13\\) was not found.*install the CUDA toolkit's NVRTC")
# A prediction naming a variant the workload lacks: its line, exit 2.
fl_cli_test(exercises_check_bad_prediction CODE 2 ARGS exercises check ${PROJECT_SOURCE_DIR}/tests/exercises/bad_prediction.exercise
            STDERR "bad_prediction.exercise:[0-9]+: \\{ratio model.dram unfused yours\\}: .*yours")
# `run` and `list` refuse it too: the lesson engine parses the predictions for every action.
fl_cli_test(exercises_run_bad_prediction CODE 2 ARGS exercises run ${PROJECT_SOURCE_DIR}/tests/exercises/bad_prediction.exercise --solution
            STDERR "bad_prediction.exercise:[0-9]+: \\{ratio model.dram unfused yours\\}")
fl_cli_test(exercises_run_no_kernel CODE 2 ARGS exercises run bias_gelu STDERR "give --kernel FILE .* or --solution")
fl_cli_test(exercises_run_unknown CODE 2 ARGS exercises run nope --solution STDERR "no exercise named 'nope' \\(legal: bias_gelu")
fl_cli_test(exercises_run_unreadable_kernel CODE 2 ARGS exercises run bias_gelu --kernel ${PROJECT_SOURCE_DIR}/exercises
            STDERR "--kernel: .*exercises")
# A kernel file that never ends: refused by the bounded reader before anything is compiled.
fl_cli_test(exercises_run_kernel_dev_zero CODE 2 ARGS exercises run bias_gelu --kernel /dev/zero
            STDERR "--kernel: /dev/zero: a character device, not a regular file; a kernel source file is read only from a regular file of at most 1 MiB")
fl_cli_test(exercises_run_malformed CODE 2 ARGS exercises run ${PROJECT_SOURCE_DIR}/tests/exercises/malformed.exercise --solution
            STDERR "malformed.exercise:5: unknown parameter 'widht'")
# Without a GPU (CUDA_VISIBLE_DEVICES empty hides every device): why, and the built-in variants'
# simulated numbers, exit 1.
fl_cli_test(exercises_run_without_gpu CODE 1 ARGS exercises run bias_gelu --kernel ${PROJECT_SOURCE_DIR}/tests/exercises/wrong_bias_gelu.cu
            DEFS "-DFL_ENV=CUDA_VISIBLE_DEVICES="
            STDERR "cannot run bias_gelu: .*runs only on a CUDA GPU"
            STDOUT "SIMULATED on .*fused")
