# One fuzz smoke run for ctest (FUSIONLAB_FUZZ builds):
#   cmake -DFL_FUZZER=exe -DFL_CORPUS=seed_dir -DFL_WORK=scratch_dir -P fuzz_smoke.cmake
# New inputs libFuzzer finds go to a scratch folder in the build tree, never into the committed
# seed corpus: replay every seed, then 2000 fresh inputs from a fixed seed.
file(REMOVE_RECURSE "${FL_WORK}")
file(MAKE_DIRECTORY "${FL_WORK}/corpus" "${FL_WORK}/artifacts")
execute_process(COMMAND "${FL_FUZZER}" -runs=2000 -seed=1 -max_total_time=90 -timeout=20
                        -artifact_prefix=${FL_WORK}/artifacts/ "${FL_WORK}/corpus" "${FL_CORPUS}"
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${FL_FUZZER} failed (exit ${code}); the input is in ${FL_WORK}/artifacts\n${err}")
endif()
string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second" done "${err}")
message(STATUS "${done}")
