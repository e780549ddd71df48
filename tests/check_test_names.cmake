# cmake -DEXE=<a Catch2 test binary> -P check_test_names.cmake: fails when a test case's name holds a
# semicolon. catch_discover_tests reads the names as a CMake list, so such a name becomes two ctest
# tests that each match no test case, and Catch2 v2 passes a run that matched nothing.
execute_process(COMMAND "${EXE}" --list-test-names-only OUTPUT_VARIABLE names RESULT_VARIABLE rc)
if(rc STREQUAL "0")
  message(FATAL_ERROR "${EXE} --list-test-names-only listed no test case")
endif()
string(REPLACE "\n" "|" lines "${names}")
string(FIND "${lines}" ";" at)
if(NOT at EQUAL -1)
  string(REGEX MATCHALL "[^|]*;[^|]*" bad "${lines}")
  message(FATAL_ERROR "test names with a semicolon (ctest cannot run them; use another word): ${bad}")
endif()
message(STATUS "no test name holds a semicolon")
