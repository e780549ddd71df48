# Lesson tests run as commands. Two roles, like cli_test.cmake:
#  - included by tests/CMakeLists.txt: registers the tests;
#  - run as `cmake -P lesson_tests.cmake -DFL_MODE=bundle ...`: one lesson's headless bundle.
#
# bundle: xvfb-run -a fusionlab shot --lesson FL_LESSON --all-steps --sim H100 --size FL_SIZE
#         --out FL_OUT, then: one PNG per @step of the lesson file, each passing png_check at the
#         size asked for, the CSV/JSON/settings/text of each step, lesson.json, and no temporary
#         folder left beside the bundle.

if(CMAKE_SCRIPT_MODE_FILE)
  if(NOT FL_MODE STREQUAL "bundle")
    message(FATAL_ERROR "lesson_tests.cmake: unknown FL_MODE '${FL_MODE}'")
  endif()
  find_program(XVFB_RUN xvfb-run)
  if(NOT XVFB_RUN)
    message(FATAL_ERROR "xvfb-run not found: install xvfb and xauth (Debian/Ubuntu: sudo apt-get install xvfb xauth).")
  endif()
  file(REMOVE_RECURSE "${FL_OUT}")
  string(REPLACE "x" ";" wh "${FL_SIZE}")
  list(GET wh 0 width)
  list(GET wh 1 height)
  string(REPLACE "|" ";" extra "${FL_ARGS}")
  execute_process(COMMAND "${XVFB_RUN}" -a -s "-screen 0 1920x1080x24"
                          "${FL_EXE}" shot --lesson "${FL_LESSON}" --all-steps --sim H100 --reps 3
                          --size "${FL_SIZE}" --out "${FL_OUT}" ${extra}
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "fusionlab shot --lesson ${FL_LESSON} failed (exit ${code})\n  stdout: ${out}\n  stderr: ${err}")
  endif()
  # One step per @step line of the lesson file.
  file(STRINGS "${FL_FILE}" step_lines REGEX "^@step ")
  list(LENGTH step_lines steps)
  if(steps LESS 1)
    message(FATAL_ERROR "${FL_FILE} has no @step line")
  endif()
  file(READ "${FL_OUT}/lesson.json" json)
  string(JSON written LENGTH "${json}" steps)
  if(NOT written EQUAL steps)
    message(FATAL_ERROR "lesson.json lists ${written} steps, the lesson has ${steps}")
  endif()
  foreach(i RANGE 1 ${steps})
    if(i LESS 10)
      set(stem "step-0${i}")
    else()
      set(stem "step-${i}")
    endif()
    foreach(suffix .png -measurements.csv -measurements.json -settings.json .txt)
      if(NOT EXISTS "${FL_OUT}/${stem}${suffix}")
        message(FATAL_ERROR "the bundle lacks ${stem}${suffix}\n  stdout: ${out}")
      endif()
    endforeach()
    execute_process(COMMAND "${FL_CHECK}" "${FL_OUT}/${stem}.png" ${width} ${height}
                    RESULT_VARIABLE code OUTPUT_VARIABLE check_out ERROR_VARIABLE check_err)
    if(NOT code EQUAL 0)
      message(FATAL_ERROR "${stem}.png failed its check: ${check_err}${check_out}")
    endif()
    # A step's text must not still say "measuring": the shot waits for every measurement.
    file(READ "${FL_OUT}/${stem}.txt" text)
    if(text MATCHES "measuring")
      message(FATAL_ERROR "${stem}.txt still says measuring:\n${text}")
    endif()
  endforeach()
  get_filename_component(parent "${FL_OUT}" DIRECTORY)
  get_filename_component(name "${FL_OUT}" NAME)
  file(GLOB leftovers "${parent}/.${name}.tmp-*")
  if(leftovers)
    message(FATAL_ERROR "temporary folders left behind: ${leftovers}")
  endif()
  message(STATUS "${out}")
  return()
endif()

# ---- included --------------------------------------------------------------------------------
set(FL_LESSON_SCRIPT ${CMAKE_CURRENT_LIST_FILE})

# `lessons check` over the shipped lessons passes; a broken file fails with file:line: message.
add_test(NAME lessons.check_shipped COMMAND fusionlab lessons check)
set_tests_properties(lessons.check_shipped PROPERTIES
                     ENVIRONMENT "FUSIONLAB_LESSONS=${PROJECT_SOURCE_DIR}/lessons"
                     PASS_REGULAR_EXPRESSION "ok +.*02-elementwise-chain.lesson"
                     FAIL_REGULAR_EXPRESSION "warning")
add_test(NAME lessons.list COMMAND fusionlab lessons list)
set_tests_properties(lessons.list PROPERTIES ENVIRONMENT "FUSIONLAB_LESSONS=${PROJECT_SOURCE_DIR}/lessons"
                     PASS_REGULAR_EXPRESSION "03-attention-memory-bound +[0-9]+ steps")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/broken.lesson "@lesson Broken\n@step One\n@view nowhere\ntext\n")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/typed.lesson "@lesson Typed\n@step One\nThe peak is 412 FLOP/B, {=4} kernels.\n")
# The level a highlighted chart shows: L2->SM bytes quoted under the DRAM bytes chart fail.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/level.lesson
     "@lesson Level\n@step One\n@workload chain\n@highlight results.bytes_chart\nThe loads ask for {model.l2sm fused}.\n")
# A limiter typed into prose rather than taken from the live limiter.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/bound.lesson "@lesson Bound\n@step One\n@workload chain\nThe fused chain is memory-bound.\n")
# Malformed predictions: no tolerance; a unit that does not measure the expression; a choice whose
# options both hold (on every device: the check plays each prediction on each one).
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/predict_tolerance.lesson
     "@lesson P\n@step One\n@workload chain\nText.\n@predict model.dram fused\nHow many?\n@reveal\nThis many.\n@end\n")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/predict_unit.lesson
     "@lesson P\n@step One\n@workload chain\nText.\n@predict model.dram fused within 10% in ms\nHow many?\n@reveal\nThis many.\n@end\n")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/predict_both.lesson
     "@lesson P\n@step One\n@workload chain\n@variants unfused fused\nText.\n@predict choice\nWhich?\n"
     "@option more if model.dram unfused > model.dram fused\n@option also more if model.dram unfused >= model.dram fused\n"
     "@reveal\nThis one.\n@end\n")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/predict_one_option.lesson
     "@lesson P\n@step One\n@workload chain\nText.\n@predict choice\nWhich?\n@option more if model.dram unfused > model.dram fused\n"
     "@reveal\nThis one.\n@end\n")
if(COMMAND fl_cli_test)
  fl_cli_test(lessons_check_prediction_tolerance CODE 2 ARGS lessons check ${CMAKE_CURRENT_BINARY_DIR}/predict_tolerance.lesson
              STDERR "predict_tolerance.lesson:5: a number prediction states its tolerance: @predict EXPR within TOL")
  fl_cli_test(lessons_check_prediction_unit CODE 2 ARGS lessons check ${CMAKE_CURRENT_BINARY_DIR}/predict_unit.lesson
              STDERR "predict_unit.lesson:5: unit 'ms' does not measure bytes \\(legal: MiB, B, KiB")
  fl_cli_test(lessons_check_prediction_two_hold CODE 2 ARGS lessons check ${CMAKE_CURRENT_BINARY_DIR}/predict_both.lesson
              STDERR "predict_both.lesson:6: the prediction cannot be answered on simulated [^:]+: more than one option holds")
  fl_cli_test(lessons_check_prediction_one_option CODE 2 ARGS lessons check ${CMAKE_CURRENT_BINARY_DIR}/predict_one_option.lesson
              STDERR "predict_one_option.lesson:5: a choice needs two options or more")
  fl_cli_test(lessons_answers_missing CODE 1 ARGS lessons answers --csv ${CMAKE_CURRENT_BINARY_DIR}/a.csv --answers /nonexistent/answers.json
              STDERR "/nonexistent/answers.json: no answers yet")
  fl_cli_test(lessons_answers_dev_zero CODE 1 ARGS lessons answers --csv - --answers /dev/zero
              STDERR "fusionlab lessons answers: /dev/zero: a character device, not a regular file; an answers file is read only from a regular file of at most 8 MiB")
  fl_cli_test(lessons_check_broken CODE 2 ARGS lessons check ${CMAKE_CURRENT_BINARY_DIR}/broken.lesson
              STDERR "broken.lesson:3: unknown view 'nowhere' \\(legal: results, memory")
  # A number typed into prose: a warning with its line, and the lesson still passes (exit 0).
  fl_cli_test(lessons_check_typed_number CODE 0 ARGS lessons check ${CMAKE_CURRENT_BINARY_DIR}/typed.lesson
              STDERR "typed.lesson:3: warning: '412' typed into prose: write it as a live expression, or mark a definition \\{=412\\}"
              STDOUT "ok .*typed.lesson \\(1 steps, 1 warning\\)")
  fl_cli_test(lessons_check_level CODE 2 ARGS lessons check ${CMAKE_CURRENT_BINARY_DIR}/level.lesson
              STDERR "level.lesson:5: \\{model.l2sm fused\\} quotes L2.+SM bytes, but the highlighted results.bytes_chart shows DRAM")
  fl_cli_test(lessons_check_bound CODE 2 ARGS lessons check ${CMAKE_CURRENT_BINARY_DIR}/bound.lesson
              STDERR "bound.lesson:4: 'memory-bound' typed into prose: say the limiter with \\{model.limiter V\\}")
  fl_cli_test(lessons_check_missing CODE 2 ARGS lessons check /nonexistent/x.lesson
              STDERR "/nonexistent/x.lesson:0: cannot read the file")
  fl_cli_test(shot_lesson_unknown CODE 2 ARGS shot --lesson nope --out x STDERR "--lesson: no lesson 'nope' \\(legal: ")
  fl_cli_test(shot_lesson_bad_step CODE 2 ARGS shot --lesson 02 --step 99 --out x
              STDERR "--step '99' is not a step of 02-elementwise-chain \\(legal: 1 .. [0-9]+\\)")
  fl_cli_test(shot_lesson_step_and_all CODE 2 ARGS shot --lesson 02 --step 1 --all-steps --out x
              STDERR "--step and --all-steps: give one of them")
  fl_cli_test(shot_lesson_no_out CODE 2 ARGS shot --lesson 02 STDERR "--out DIR \\(the bundle folder\\) is required")
  fl_cli_test(shot_lesson_bad_out CODE 2 ARGS shot --lesson 02 --out /nonexistent/dir/b
              STDERR "--out: folder /nonexistent/dir does not exist")
  fl_cli_test(shot_lesson_with_params CODE 2 ARGS shot --lesson 02 --rows 5 --out x
              STDERR "--rows is set by the lesson")
  fl_cli_test(shot_all_steps_without_lesson CODE 2 ARGS shot --all-steps --out x.png STDERR "--all-steps needs --lesson NAME")
  fl_cli_test(shot_predictions_posed_without_lesson CODE 2 ARGS shot --predictions-posed --out x.png
              STDERR "--predictions-posed needs --lesson NAME or --exercise NAME")
  fl_cli_test(gui_unknown_lesson CODE 2 ARGS --lesson nope STDERR "--lesson: no lesson 'nope'")
  foreach(t lessons_check_broken shot_lesson_unknown shot_lesson_bad_step shot_lesson_step_and_all shot_lesson_no_out
            shot_lesson_bad_out shot_lesson_with_params gui_unknown_lesson)
    set_tests_properties(cli.${t} PROPERTIES ENVIRONMENT "FUSIONLAB_LESSONS=${PROJECT_SOURCE_DIR}/lessons")
  endforeach()
  # A $FUSIONLAB_LESSONS that is not a folder is named, not replaced by the installed lessons.
  fl_cli_test(lessons_env_not_a_folder CODE 2 ARGS lessons list
              STDERR "^fusionlab lessons: \\$FUSIONLAB_LESSONS is '/nonexistent/lessons', which is not a folder")
  set_tests_properties(cli.lessons_env_not_a_folder PROPERTIES ENVIRONMENT "FUSIONLAB_LESSONS=/nonexistent/lessons")
endif()

# Every step of every shipped lesson renders headless (simulated H100) into a complete bundle.
if(FUSIONLAB_GUI AND TARGET fl_png_check)
  file(GLOB _fl_lessons CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/lessons/*.lesson)
  foreach(file ${_fl_lessons})
    get_filename_component(name ${file} NAME_WE)
    add_test(NAME lessons.render.${name}
             COMMAND ${CMAKE_COMMAND} -DFL_MODE=bundle -DFL_EXE=$<TARGET_FILE:fusionlab>
                     -DFL_CHECK=$<TARGET_FILE:fl_png_check> -DFL_LESSON=${name} -DFL_FILE=${file}
                     -DFL_OUT=${CMAKE_BINARY_DIR}/lesson-bundle-${name} -DFL_SIZE=960x540
                     -P ${FL_LESSON_SCRIPT})
    set_tests_properties(lessons.render.${name} PROPERTIES TIMEOUT 300 LABELS gui
                         ENVIRONMENT "FUSIONLAB_LESSONS=${PROJECT_SOURCE_DIR}/lessons")
  endforeach()
  # Classroom mode (presenter fonts, only the step's controls) at the projector size.
  add_test(NAME lessons.render.classroom_1920
           COMMAND ${CMAKE_COMMAND} -DFL_MODE=bundle -DFL_EXE=$<TARGET_FILE:fusionlab>
                   -DFL_CHECK=$<TARGET_FILE:fl_png_check> -DFL_LESSON=03-attention-memory-bound
                   -DFL_FILE=${PROJECT_SOURCE_DIR}/lessons/03-attention-memory-bound.lesson
                   -DFL_OUT=${CMAKE_BINARY_DIR}/lesson-bundle-classroom -DFL_SIZE=1920x1080 -DFL_ARGS=--classroom
                   -P ${FL_LESSON_SCRIPT})
  set_tests_properties(lessons.render.classroom_1920 PROPERTIES TIMEOUT 300 LABELS gui
                       ENVIRONMENT "FUSIONLAB_LESSONS=${PROJECT_SOURCE_DIR}/lessons")
endif()
