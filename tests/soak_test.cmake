# The GUI soak test, short: 30 s of random actions under Xvfb (scripts/soak.sh runs the test tool
# fusionlab_soak: tests/tools/soak_driver.h).
# Label `soak`: `ctest -L soak` runs it alone, `ctest -LE soak` skips it. The 10-minute version:
# scripts/soak.sh 600; the hour in six replayed passes: scripts/soak.sh 3600 1 1280x720 6 (figures in
# docs/RELIABILITY.md).
if(UNIX)
  add_test(NAME gui_soak_30s
           COMMAND ${CMAKE_COMMAND} -E env FUSIONLAB_SOAK=$<TARGET_FILE:fusionlab_soak>
                   bash ${PROJECT_SOURCE_DIR}/scripts/soak.sh 30 1 800x600)
  set_tests_properties(gui_soak_30s PROPERTIES TIMEOUT 150 LABELS "soak;gui")
endif()
