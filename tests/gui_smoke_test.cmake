# GUI smoke tests. Two roles, like cli_test.cmake:
#  - included by tests/CMakeLists.txt: builds fl_png_check and registers the tests;
#  - run as `cmake -P gui_smoke_test.cmake -DFL_MODE=shot|nodisplay ...`: one test's steps.
#
# shot:      xvfb-run -a fusionlab shot --out F --size WxH ARGS, then png_check F W H
#            (the PNG exists, has the requested size and is not blank).
# shot_pair: two shots at --step FL_STEP_A and FL_STEP_B, each png_check'ed, then png_diff'ed.
# nodisplay: runs a command with DISPLAY/WAYLAND_DISPLAY unset (and optionally PATH) and
#            checks it exits 1 with a message matching FL_STDERR.

if(CMAKE_SCRIPT_MODE_FILE)
  string(REPLACE "|" ";" args "${FL_ARGS}")
  if(FL_MODE STREQUAL "shot")
    find_program(XVFB_RUN xvfb-run)
    if(NOT XVFB_RUN)
      message(FATAL_ERROR "xvfb-run not found: the GUI smoke test renders under a virtual X server. "
                          "Install it (Debian/Ubuntu: sudo apt-get install xvfb xauth) and run ctest again.")
    endif()
    file(REMOVE "${FL_OUT}")
    string(REPLACE "x" ";" wh "${FL_SIZE}")
    list(GET wh 0 width)
    list(GET wh 1 height)
    execute_process(COMMAND "${XVFB_RUN}" -a -s "-screen 0 1280x1024x24"
                            "${FL_EXE}" shot --out "${FL_OUT}" --size "${FL_SIZE}" ${args}
                    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 180)
    if(NOT code EQUAL 0)
      message(FATAL_ERROR "fusionlab shot failed (exit ${code})\n  stdout: ${out}\n  stderr: ${err}")
    endif()
    if(NOT EXISTS "${FL_OUT}")
      message(FATAL_ERROR "fusionlab shot exited 0 but wrote no ${FL_OUT}\n  stdout: ${out}")
    endif()
    execute_process(COMMAND "${FL_CHECK}" "${FL_OUT}" ${width} ${height}
                    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT code EQUAL 0)
      message(FATAL_ERROR "the screenshot failed its check: ${err}${out}")
    endif()
    message(STATUS "${out}")
  elseif(FL_MODE STREQUAL "shot_pair")
    # Two memory-view shots of the same parameters at different steps (FL_ARGS + --step FL_STEP_A
    # / FL_STEP_B): each must pass png_check, and they must differ by at least FL_MIN_DIFF %.
    find_program(XVFB_RUN xvfb-run)
    if(NOT XVFB_RUN)
      message(FATAL_ERROR "xvfb-run not found: install xvfb and xauth (Debian/Ubuntu: sudo apt-get install xvfb xauth).")
    endif()
    string(REPLACE "x" ";" wh "${FL_SIZE}")
    list(GET wh 0 width)
    list(GET wh 1 height)
    foreach(which A B)
      set(out "${FL_OUT}_${which}.png")
      file(REMOVE "${out}")
      execute_process(COMMAND "${XVFB_RUN}" -a -s "-screen 0 1280x1024x24"
                              "${FL_EXE}" shot --out "${out}" --size "${FL_SIZE}" ${args} --step ${FL_STEP_${which}}
                      RESULT_VARIABLE code OUTPUT_VARIABLE out_text ERROR_VARIABLE err TIMEOUT 180)
      if(NOT code EQUAL 0)
        message(FATAL_ERROR "fusionlab shot --step ${FL_STEP_${which}} failed (exit ${code})\n  stdout: ${out_text}\n  stderr: ${err}")
      endif()
      execute_process(COMMAND "${FL_CHECK}" "${out}" ${width} ${height}
                      RESULT_VARIABLE code OUTPUT_VARIABLE out_text ERROR_VARIABLE err)
      if(NOT code EQUAL 0)
        message(FATAL_ERROR "the screenshot at step ${FL_STEP_${which}} failed its check: ${err}${out_text}")
      endif()
      message(STATUS "${out_text}")
    endforeach()
    execute_process(COMMAND "${FL_DIFF}" "${FL_OUT}_A.png" "${FL_OUT}_B.png" ${FL_MIN_DIFF}
                    RESULT_VARIABLE code OUTPUT_VARIABLE out_text ERROR_VARIABLE err)
    if(NOT code EQUAL 0)
      message(FATAL_ERROR "the two steps render alike: ${err}${out_text}")
    endif()
    message(STATUS "${out_text}")
  elseif(FL_MODE STREQUAL "picture")
    # One chart or view alone (shot --chart / --view-only / .svg / .gif): exits 0, writes FL_OUT,
    # whose text (SVG) or first bytes (PNG, GIF as hex) match FL_CONTAINS.
    find_program(XVFB_RUN xvfb-run REQUIRED)
    file(REMOVE "${FL_OUT}")
    execute_process(COMMAND "${XVFB_RUN}" -a -s "-screen 0 1280x1024x24" "${FL_EXE}" shot --out "${FL_OUT}" ${args}
                    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
    if(NOT code EQUAL 0 OR NOT EXISTS "${FL_OUT}")
      message(FATAL_ERROR "fusionlab shot failed (exit ${code}) or wrote no ${FL_OUT}\n  stdout: ${out}\n  stderr: ${err}")
    endif()
    if(FL_OUT MATCHES "\\.svg$")
      file(READ "${FL_OUT}" content)
    else()
      file(READ "${FL_OUT}" content LIMIT 16 HEX)
    endif()
    if(NOT content MATCHES "${FL_CONTAINS}")
      message(FATAL_ERROR "${FL_OUT} does not match '${FL_CONTAINS}'")
    endif()
    message(STATUS "${out}")
  elseif(FL_MODE STREQUAL "nodisplay")
    set(env_args --unset=DISPLAY --unset=WAYLAND_DISPLAY)
    if(DEFINED FL_PATH)
      list(APPEND env_args "PATH=${FL_PATH}")
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${env_args} "${FL_EXE}" ${args}
                    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
    if(NOT code EQUAL 1)
      message(FATAL_ERROR "expected exit code 1 without a display, got ${code}\n  stdout: ${out}\n  stderr: ${err}")
    endif()
    if(NOT err MATCHES "${FL_STDERR}")
      message(FATAL_ERROR "stderr does not match '${FL_STDERR}'\n  stderr: ${err}")
    endif()
  else()
    message(FATAL_ERROR "gui_smoke_test.cmake: unknown FL_MODE '${FL_MODE}'")
  endif()
  return()
endif()

# ---- included: the checker and the tests -----------------------------------------------------
add_executable(fl_png_check png_check.cpp)
fl_warnings(fl_png_check)
target_link_libraries(fl_png_check PRIVATE PkgConfig::STB)

function(fl_gui_shot_test name size args)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DFL_MODE=shot -DFL_EXE=$<TARGET_FILE:fusionlab>
                   -DFL_CHECK=$<TARGET_FILE:fl_png_check> -DFL_OUT=${CMAKE_BINARY_DIR}/${name}.png
                   -DFL_SIZE=${size} -DFL_ARGS=${args} -P ${CMAKE_CURRENT_SOURCE_DIR}/gui_smoke_test.cmake)
  set_tests_properties(${name} PROPERTIES TIMEOUT 240 LABELS gui)
endfunction()

# The main window at the default size, and in projector mode (2x, light) at another size.
fl_gui_shot_test(gui_smoke_1280 1280x720 "--sim|H100")
fl_gui_shot_test(gui_smoke_scale2_light 1024x768 "--sim|A100|--font-scale|2|--theme|light|--workload|bias_gelu")
# Attention with its own parameters, a refused tile (flash) and a refused dtype (flash_tc) on screen.
fl_gui_shot_test(gui_smoke_attention 1280x720
                 "--sim|H200|--workload|attention|--N|4096|--d|128|--dtype|fp32|--br|128|--bc|128|--causal|1")

# The roofline and sweep views (simulated), for attention and an elementwise workload, at 1x and 2x.
fl_gui_shot_test(gui_roofline_attention 1280x720 "--sim|H200|--view|roofline|--workload|attention|--N|4096")
fl_gui_shot_test(gui_roofline_chain_scale2 1280x720 "--sim|H100|--view|roofline|--workload|chain|--font-scale|2")
fl_gui_shot_test(gui_sweep_attention 1280x720 "--sim|H200|--view|sweep|--workload|attention")
fl_gui_shot_test(gui_sweep_bias_gelu_light 1024x768 "--sim|A100|--view|sweep|--workload|bias_gelu|--theme|light")

# The timeline with flash_wgmma shown: one block lane by lane under the kernels (2 consumer warpgroups),
# and at 2x in the light theme with one warpgroup, causal, bf16.
fl_gui_shot_test(gui_timeline_wgmma_block 1280x720
                 "--sim|H100|--view|timeline|--workload|attention|--N|4096|--heads|64|--dtype|fp16|--br|128|--bc|128")
fl_gui_shot_test(gui_timeline_wgmma_block_scale2 1280x720
                 "--sim|H200|--view|timeline|--workload|attention|--N|4096|--d|128|--dtype|bf16|--br|64|--bc|128|--causal|1|--font-scale|2|--theme|light")

# The memory-hierarchy animation: two steps of flash vs naive side by side render, and differ
# (step 40 at N = 1024: the issue's example, inside flash's j-loop now that every tile is a step).
add_executable(fl_png_diff png_diff.cpp)
fl_warnings(fl_png_diff)
target_link_libraries(fl_png_diff PRIVATE PkgConfig::STB)
add_test(NAME gui_memory_view_steps
         COMMAND ${CMAKE_COMMAND} -DFL_MODE=shot_pair -DFL_EXE=$<TARGET_FILE:fusionlab>
                 -DFL_CHECK=$<TARGET_FILE:fl_png_check> -DFL_DIFF=$<TARGET_FILE:fl_png_diff>
                 -DFL_OUT=${CMAKE_BINARY_DIR}/gui_memory_view -DFL_SIZE=1280x720 -DFL_STEP_A=3 -DFL_STEP_B=40
                 -DFL_MIN_DIFF=0.5
                 "-DFL_ARGS=--sim|H100|--view|memory|--workload|attention|--variant|flash|--compare|naive|--N|1024"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/gui_smoke_test.cmake)
set_tests_properties(gui_memory_view_steps PROPERTIES TIMEOUT 360 LABELS gui)
# A kernel that spills: fused_spill's spill step beside the fused kernel (local memory in HBM).
fl_gui_shot_test(gui_memory_spill 1280x720
                 "--sim|H100|--view|memory|--workload|chain|--variant|fused_spill|--compare|fused|--dtype|bf16|--step|5")

# No display: the GUI says so and points to xvfb-run / shot / bench; shot without xvfb-run on
# PATH says what to install.
add_test(NAME gui_no_display_message
         COMMAND ${CMAKE_COMMAND} -DFL_MODE=nodisplay -DFL_EXE=$<TARGET_FILE:fusionlab> -DFL_ARGS=
                 "-DFL_STDERR=no display found.*xvfb-run -a fusionlab.*fusionlab shot.*fusionlab bench"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/gui_smoke_test.cmake)
add_test(NAME gui_shot_without_xvfb
         COMMAND ${CMAKE_COMMAND} -DFL_MODE=nodisplay -DFL_EXE=$<TARGET_FILE:fusionlab> -DFL_PATH=/nonexistent
                 "-DFL_ARGS=shot|--out|${CMAKE_BINARY_DIR}/gui_no_xvfb.png|--sim|H100"
                 "-DFL_STDERR=xvfb-run is not installed.*apt-get install xvfb"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/gui_smoke_test.cmake)
set_tests_properties(gui_no_display_message gui_shot_without_xvfb PROPERTIES TIMEOUT 60 LABELS gui)

# Numbers measured on an H200 (assets/measurements, `bench --json` there) drawn here: the import
# path end to end, the timeline of real CUPTI spans, the roofline with measured ceilings.
if(NOT CMAKE_SCRIPT_MODE_FILE)
  fl_gui_shot_test(gui_results_h200_timeline 1280x720
                   "--results|${PROJECT_SOURCE_DIR}/assets/measurements/h200-launch-K100-n65536.json|--view|timeline")
  fl_gui_shot_test(gui_results_h200_roofline 1280x720
                   "--results|${PROJECT_SOURCE_DIR}/assets/measurements/h200-attention-N8192-d64.json|--view|roofline")
  # H100: the spilling fused chain beside the fused one, with their measured times and DRAM bytes.
  fl_gui_shot_test(gui_results_h100_spill 1280x720
                   "--results|${PROJECT_SOURCE_DIR}/assets/measurements/h100-chain-8192-spill.json|--view|memory|--variant|fused_spill|--compare|fused|--step|5")
endif()

# One chart or view alone, for slides (README "Exports for slides"): PNG cropped to the chart, SVG
# from its data (the chart's numbers as text), the memory animation as a GIF.
function(fl_gui_picture_test name out args contains)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DFL_MODE=picture -DFL_EXE=$<TARGET_FILE:fusionlab>
                   -DFL_OUT=${CMAKE_BINARY_DIR}/${out} -DFL_ARGS=${args} -DFL_CONTAINS=${contains}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/gui_smoke_test.cmake)
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS gui)
endfunction()
fl_gui_picture_test(gui_picture_time_svg picture-time.svg "--sim|H100|--chart|time|--workload|chain"
                    ">unfused</text>.*>fused</text>.*>fused_spill</text>")
fl_gui_picture_test(gui_picture_roofline_png picture-roofline.png "--sim|H100|--chart|roofline|--workload|attention"
                    "^89504e470d0a1a0a")
fl_gui_picture_test(gui_picture_memory_gif picture-memory.gif
                    "--sim|H100|--view|memory|--workload|chain|--variant|unfused|--compare|fused|--frames|6"
                    "^474946383961")

# The exercise pane (exercises/): a kernel that does not compile in the editor (its line marked), at
# 1x and 2x (too narrow for pane and views side by side: the pane alone), and in classroom mode.
# Running a kernel needs a GPU: scripts/device_exercises_run.sh takes those pictures on one.
if(NOT CMAKE_SCRIPT_MODE_FILE)
  fl_gui_shot_test(gui_exercise_compile_error 1280x720
                   "--exercise|bias_gelu|--exercise-kernel|${PROJECT_SOURCE_DIR}/tests/exercises/compile_error_bias_gelu.cu|--exercise-hints|1")
  fl_gui_shot_test(gui_exercise_scale2 1280x720
                   "--exercise|chain_fused|--exercise-kernel|${PROJECT_SOURCE_DIR}/tests/exercises/wrong_chain.cu|--font-scale|2")
  fl_gui_shot_test(gui_exercise_classroom 1280x720 "--exercise|online_softmax|--classroom|--view|roofline")
  # FUSIONLAB_GL names how a shot gets its GL context (egl, or unset for GLX): anything else is refused.
  fl_cli_test(shot_gl_unknown CODE 1 ARGS shot --out ${CMAKE_BINARY_DIR}/gl_unknown.png --sim H100
              DEFS "-DFL_ENV=FUSIONLAB_GL=wayland" STDERR "FUSIONLAB_GL='wayland' is unknown: use egl")
  fl_cli_test(shot_exercise_run_without_kernel CODE 2 ARGS shot --out x.png --exercise bias_gelu --exercise-run
              STDERR "--exercise-run needs --exercise NAME --exercise-kernel FILE")
endif()
