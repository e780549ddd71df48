# Command-line tests. This file has two roles:
#  - included by tests/CMakeLists.txt: registers one ctest test per command line (fl_cli_test);
#  - run as `cmake -P cli_test.cmake -DFL_EXE=... -DFL_ARGS=a|b|c -DFL_CODE=2 -DFL_STDERR=regex ...`:
#    runs the command and checks its exit code and output. ctest's PASS_REGULAR_EXPRESSION alone
#    cannot check the exit code, hence the script.
# Arguments are joined with '|' because ';' does not survive the trip through add_test.

if(CMAKE_SCRIPT_MODE_FILE)
  # ---- script mode: run one command and check it ---------------------------------------------
  string(REPLACE "|" ";" args "${FL_ARGS}")
  string(REPLACE "|" ";" FL_REMOVE "${FL_REMOVE}")
  string(REPLACE "|" ";" FL_FILES "${FL_FILES}")
  foreach(f IN LISTS FL_REMOVE)
    file(REMOVE "${f}")
  endforeach()
  # FL_ENV: NAME=VALUE|NAME=VALUE set for the command (cmake -E env).
  set(env_prefix "")
  if(DEFINED FL_ENV)
    string(REPLACE "|" ";" env_list "${FL_ENV}")
    set(env_prefix ${CMAKE_COMMAND} -E env ${env_list})
  endif()
  execute_process(COMMAND ${env_prefix} "${FL_EXE}" ${args}
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)  # record rehearsals take ~55 s alone, over 120 s beside another on 2 cores
  set(shown "fusionlab ${args}\n  exit: ${code}\n  stdout: ${out}\n  stderr: ${err}")
  if(NOT code STREQUAL "${FL_CODE}")
    message(FATAL_ERROR "expected exit code ${FL_CODE}\n${shown}")
  endif()
  if(DEFINED FL_STDERR AND NOT err MATCHES "${FL_STDERR}")
    message(FATAL_ERROR "stderr does not match '${FL_STDERR}'\n${shown}")
  endif()
  if(DEFINED FL_STDOUT AND NOT out MATCHES "${FL_STDOUT}")
    message(FATAL_ERROR "stdout does not match '${FL_STDOUT}'\n${shown}")
  endif()
  if(FL_CODE STREQUAL "2")
    # A usage error is one clear line, not a wall of text, and nothing on stdout.
    string(STRIP "${err}" stripped)
    if(stripped MATCHES "\n")
      message(FATAL_ERROR "a bad-input message must be one line\n${shown}")
    endif()
  endif()
  foreach(f IN LISTS FL_FILES)
    if(NOT EXISTS "${f}")
      message(FATAL_ERROR "expected file ${f} was not written\n${shown}")
    endif()
  endforeach()
  if(DEFINED FL_JSON_COUNT)
    file(READ "${FL_JSON}" json)
    string(JSON count LENGTH "${json}" measurements)
    if(NOT count EQUAL FL_JSON_COUNT)
      message(FATAL_ERROR "${FL_JSON} holds ${count} measurements, expected ${FL_JSON_COUNT}\n${shown}")
    endif()
  endif()
  if(DEFINED FL_CSV_LINES)
    file(STRINGS "${FL_CSV}" lines)
    list(LENGTH lines n)
    if(NOT n EQUAL FL_CSV_LINES)
      message(FATAL_ERROR "${FL_CSV} holds ${n} lines, expected ${FL_CSV_LINES}\n${shown}")
    endif()
  endif()
  return()
endif()

# ---- included: register the tests -----------------------------------------------------------
set(FL_CLI_SCRIPT ${CMAKE_CURRENT_LIST_FILE})

# fl_cli_test(NAME CODE <exit code> ARGS <args...> [STDERR regex] [STDOUT regex] [DEFS -Dx=y...])
function(fl_cli_test name)
  cmake_parse_arguments(T "" "CODE;STDERR;STDOUT" "ARGS;DEFS" ${ARGN})
  string(REPLACE ";" "|" joined "${T_ARGS}")
  set(defs -DFL_EXE=$<TARGET_FILE:fusionlab> "-DFL_ARGS=${joined}" -DFL_CODE=${T_CODE})
  if(DEFINED T_STDERR)
    list(APPEND defs "-DFL_STDERR=${T_STDERR}")
  endif()
  if(DEFINED T_STDOUT)
    list(APPEND defs "-DFL_STDOUT=${T_STDOUT}")
  endif()
  add_test(NAME cli.${name} COMMAND ${CMAKE_COMMAND} ${defs} ${T_DEFS} -P ${FL_CLI_SCRIPT})
endfunction()

# Bad input: exit 2 and a message naming the option, the value and the legal range.
fl_cli_test(rows_zero CODE 2 ARGS bench --sim H100 --rows 0
            STDERR "--rows '0' is out of range \\(legal: 1\\.\\.[0-9]+\\)")
fl_cli_test(rows_negative CODE 2 ARGS bench --sim H100 --rows -5
            STDERR "--rows '-5' is out of range \\(legal: 1\\.\\.[0-9]+\\)")
fl_cli_test(rows_not_a_number CODE 2 ARGS bench --sim H100 --rows abc
            STDERR "--rows 'abc' is not a whole number \\(legal: 1\\.\\.[0-9]+\\)")
fl_cli_test(rows_empty_item CODE 2 ARGS bench --sim H100 --rows 64,,128 STDERR "--rows has an empty value")
fl_cli_test(launch_steps_too_many CODE 2 ARGS bench --sim H100 --workload launch --steps 1001
            STDERR "--steps '1001' is out of range \\(legal: 1..1000\\)")
fl_cli_test(launch_bench_per_step CODE 0 ARGS bench --sim H100 --workload launch --variant all --steps 1000 --elements 65536
            STDOUT "per step 1.26 us \\(simulated\\); 1000 kernels; GPU idle between kernels: 0.08 us median")
fl_cli_test(hidden_too_large CODE 2 ARGS bench --sim H100 --hidden 99999999
            STDERR "--hidden '99999999' is out of range \\(legal: 1\\.\\.[0-9]+\\)")
fl_cli_test(dtype_unknown CODE 2 ARGS bench --sim H100 --dtype fp8 STDERR "--dtype 'fp8' is not a dtype \\(legal: .*bf16")
fl_cli_test(workload_unknown CODE 2 ARGS bench --workload nope STDERR "--workload 'nope' is not a workload \\(legal: .*chain")
fl_cli_test(variant_unknown CODE 2 ARGS bench --variant nope STDERR "--variant 'nope' is not a variant")
fl_cli_test(sim_unknown CODE 2 ARGS bench --sim XYZ STDERR "--sim 'XYZ' is not a simulated GPU \\(legal: .*H100")
fl_cli_test(dropout_out_of_range CODE 2 ARGS bench --sim H100 --dropout 1.5 STDERR "--dropout '1.5' is out of range")
fl_cli_test(reps_zero CODE 2 ARGS bench --sim H100 --reps 0 STDERR "--reps '0' is out of range")
fl_cli_test(csv_unwritable CODE 2 ARGS bench --sim H100 --csv /nonexistent/dir/x.csv
            STDERR "--csv: cannot write /nonexistent/dir/x.csv: .*does not exist")
fl_cli_test(unknown_option CODE 2 ARGS bench --bogus STDERR "--bogus")
fl_cli_test(missing_value CODE 2 ARGS bench --rows STDERR "--rows")
fl_cli_test(unknown_command CODE 2 ARGS frobnicate STDERR "frobnicate")
fl_cli_test(shot_bad_size CODE 2 ARGS shot --size 12x STDERR "--size '12x' is not a size \\(legal: WIDTHxHEIGHT")
fl_cli_test(shot_size_out_of_range CODE 2 ARGS shot --out x.png --size 10x10 STDERR "--size '10x10' is out of range")
fl_cli_test(shot_no_out CODE 2 ARGS shot STDERR "--out FILE.png is required")
# The memory animation's options: a view that exists, variants of the workload, a step in range.
fl_cli_test(shot_chart_unknown CODE 2 ARGS shot --out x.png --chart tme STDERR "--chart 'tme' is not a chart \\(legal: time, bytes, roofline, timeline, sweep or sweep_bytes\\)")
fl_cli_test(shot_chart_wrong_view CODE 2 ARGS shot --out x.png --chart roofline --view timeline STDERR "--chart roofline is drawn in the roofline view, not timeline")
fl_cli_test(shot_chart_and_view_only CODE 2 ARGS shot --out x.png --chart time --view-only STDERR "--chart and --view-only: give one of them")
fl_cli_test(shot_out_bad_extension CODE 2 ARGS shot --out x.jpg STDERR "the file's extension says what to write: .png, .svg \\(with --chart\\) or .gif")
fl_cli_test(shot_svg_without_chart CODE 2 ARGS shot --out x.svg STDERR "an SVG holds one chart: add --chart NAME")
fl_cli_test(shot_gif_not_memory CODE 2 ARGS shot --out x.gif --view roofline STDERR "a GIF is the memory animation: use --view memory")
fl_cli_test(shot_gif_with_step CODE 2 ARGS shot --out x.gif --view memory --step 2 STDERR "--step shows one step; a GIF plays them all")
fl_cli_test(shot_frames_without_gif CODE 2 ARGS shot --out x.png --frames 10 STDERR "--frames counts a GIF's frames: give --out F.gif")
fl_cli_test(shot_frames_out_of_range CODE 2 ARGS shot --out x.gif --view memory --frames 1 STDERR "--frames '1' is out of range \\(legal: 2 .. 120\\)")
fl_cli_test(shot_lesson_with_chart CODE 2 ARGS shot --lesson 01 --out bundle --chart time STDERR "--chart, --view-only and --frames make one picture: drop them when using --lesson")
fl_cli_test(shot_bad_view CODE 2 ARGS shot --out x.png --view memroy STDERR "--view 'memroy' is not a view \\(legal: results, memory, timeline, roofline, sweep\\)")
fl_cli_test(shot_step_without_memory CODE 2 ARGS shot --out x.png --step 3 STDERR "add --view memory")
fl_cli_test(shot_memory_bad_variant CODE 2 ARGS shot --out x.png --view memory --workload attention --variant fused
            STDERR "--variant 'fused' is not a variant of attention")
fl_cli_test(shot_memory_same_compare CODE 2 ARGS shot --out x.png --view memory --workload attention --variant flash --compare flash
            STDERR "compare with another one")
fl_cli_test(shot_memory_variant_cannot_run CODE 2 ARGS shot --out x.png --view memory --workload attention --variant flash_tc --dtype fp32
            STDERR "--variant flash_tc: flash_tc runs on tensor cores in fp16 or bf16 only")
fl_cli_test(shot_memory_step_out_of_range CODE 2 ARGS shot --out x.png --view memory --workload attention --variant flash --N 1024 --step 200
            STDERR "--step '200' is out of range \\(legal: 0 .. 82 \\(flash has 82 steps")

# --results: a file that is missing or not a fusionlab export is bad input, named, before any window.
fl_cli_test(shot_results_missing CODE 2 ARGS shot --out x.png --results no-such-export.json
            STDERR "--results no-such-export.json: cannot read")
fl_cli_test(shot_results_not_json CODE 2 ARGS shot --out x.png --results ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.cmake
            STDERR "--results .*cli_test.cmake: not JSON")
fl_cli_test(gui_results_missing CODE 2 ARGS --results no-such-export.json STDERR "--results no-such-export.json: cannot read")
# Files that are not regular files (devices that never end, folders) are refused by the bounded
# reader (app/platform/platform_file.h) before a byte is read: one line, the file, what it is, the limit.
if(UNIX)
  fl_cli_test(shot_results_dev_zero CODE 2 ARGS shot --out x.png --results /dev/zero
              STDERR "--results /dev/zero: a character device, not a regular file; a results file is read only from a regular file of at most 64 MiB")
  fl_cli_test(gui_results_dev_urandom CODE 2 ARGS --results /dev/urandom
              STDERR "--results /dev/urandom: a character device, not a regular file")
  fl_cli_test(reference_folder CODE 2 ARGS bench --sim H100 --reference ${CMAKE_CURRENT_SOURCE_DIR}
              STDERR "--reference .*tests: a folder, not a regular file; a PyTorch reference file is read only from a regular file of at most 16 MiB")
  fl_cli_test(lessons_check_dev_zero CODE 2 ARGS lessons check /dev/zero
              STDERR "/dev/zero:0: a character device, not a regular file; a lesson is read only from a regular file of at most 1 MiB")
endif()
# --reference: the PyTorch rows of scripts/torch_reference.py; a missing or malformed file is bad input,
# named with the field, before anything runs. tests/data/torch_reference_test.json is hand-written test data.
set(_fl_ref ${CMAKE_CURRENT_SOURCE_DIR}/data/torch_reference_test.json)
fl_cli_test(reference_missing CODE 2 ARGS bench --sim H100 --reference no-such-reference.json
            STDERR "--reference no-such-reference.json: cannot read")
fl_cli_test(reference_not_json CODE 2 ARGS shot --out x.png --reference ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.cmake
            STDERR "--reference .*cli_test.cmake: not JSON")
fl_cli_test(reference_not_a_reference_file CODE 2
            ARGS shot --out x.png --reference ${PROJECT_SOURCE_DIR}/assets/measurements/h200-chain-8192.json
            STDERR "--reference .*h200-chain-8192.json: \\$.tool: not a reference file")
fl_cli_test(gui_reference_missing CODE 2 ARGS --reference no-such-reference.json
            STDERR "--reference no-such-reference.json: cannot read")
fl_cli_test(bench_reference CODE 0
            ARGS bench --sim H100 --workload chain --rows 64 --hidden 1000 --reference ${_fl_ref}
            STDOUT "PyTorch reference rows from .*not fusionlab's kernels.*reference +chain bf16 64 x 1000 +PyTorch 9.9 eager +0.5000 ms \\(0.4000-0.7000\\) .*GB/s at minimum bytes.*measured on Test GPU \\(hand-written test data\\), 2026-01-02.*PyTorch 9.9 torch.compile +0.2500 ms.*1 rows of workloads this build does not have: a_future_workload")
fl_cli_test(bench_reference_none CODE 0
            ARGS bench --sim H100 --workload chain --rows 128 --hidden 1000 --reference ${_fl_ref}
            STDOUT "reference +chain bf16 128 x 1000: no PyTorch reference for these parameters in .*run scripts/torch_reference.py")
fl_cli_test(info_sim_unknown CODE 2 ARGS info --sim XYZ STDERR "--sim 'XYZ' is not a simulated GPU")
# The held-out study in one command (issue 34, point 4): the repository's recordings and bench tables,
# the error on held-out points, the fit of the constants on the rest (kernels/PERF.md, "Held out").
fl_cli_test(info_sim_heldout CODE 0 ARGS info --sim-heldout --repository ${PROJECT_SOURCE_DIR}
            STDOUT "H100: [0-9]+ points, [0-9]+ held out.*H100 +all +[0-9]+ held out: mean .*fit_calibration, H100, on its [0-9]+ fitted points.*c.host_launch_us = .*with the fitted constants:.*H200 +all")
fl_cli_test(info_sim_heldout_no_repository CODE 2 ARGS info --sim-heldout --repository ${CMAKE_CURRENT_SOURCE_DIR}
            STDERR "--repository '.*': no assets/measurements folder there")
fl_cli_test(info_repository_alone CODE 2 ARGS info --repository ${PROJECT_SOURCE_DIR} STDERR "--repository goes with --sim-heldout")
# --points-csv: every point of the study as CSV (scripts/wgmma_turn_fit.py reads it); alone it is a usage error, and a
# file that cannot be written fails the command, naming the file and why.
set(_fl_points ${CMAKE_CURRENT_BINARY_DIR}/heldout_points.csv)
fl_cli_test(info_sim_heldout_points_csv CODE 0 ARGS info --sim-heldout --repository ${PROJECT_SOURCE_DIR} --points-csv ${_fl_points}
            STDOUT "points written to .*heldout_points.csv.*fit_calibration, H200"
            DEFS "-DFL_REMOVE=${_fl_points}" "-DFL_FILES=${_fl_points}")
fl_cli_test(info_points_csv_alone CODE 2 ARGS info --points-csv ${_fl_points} STDERR "--points-csv goes with --sim-heldout")
fl_cli_test(info_points_csv_unwritable CODE 1
            ARGS info --sim-heldout --repository ${PROJECT_SOURCE_DIR} --points-csv ${CMAKE_CURRENT_BINARY_DIR}/no-such-folder/p.csv
            STDOUT "--points-csv: cannot write '.*no-such-folder/p.csv': No such file or directory")
# --backend and recordings of real GPUs (assets/recordings; tests/data/recordings* are hand-made test
# data, not measurements). A broken recording is named with its field and left out; the rest goes on.
set(_fl_recordings ${CMAKE_CURRENT_SOURCE_DIR}/data/recordings)
set(_fl_broken ${CMAKE_CURRENT_SOURCE_DIR}/data/recordings-broken)
fl_cli_test(backend_unknown CODE 2 ARGS bench --backend nope
            STDERR "--backend 'nope' is not a backend \\(legal: gpu, V100, .*H100.*h100-2026-11-27")
fl_cli_test(backend_and_sim CODE 2 ARGS bench --sim H100 --backend H200 STDERR "--sim and --backend: give one of them")
fl_cli_test(gui_backend_unknown CODE 2 ARGS --backend nope STDERR "--backend 'nope' is not a backend")
fl_cli_test(shot_backend_unknown CODE 2 ARGS shot --out x.png --backend h100-1999-01-01
            STDERR "--backend 'h100-1999-01-01' is not a backend")
fl_cli_test(recording_broken_listed CODE 0 ARGS info DEFS "-DFL_ENV=FUSIONLAB_RECORDINGS=${_fl_broken}"
            STDOUT "recordings .*recordings-broken \\(1 readable\\).*h100-2026-01-02 +H100 \\(recorded 2026-01-02\\).*not loaded: .*h200-2026-01-03/recording.json: not JSON \\(truncated\\? it ends too early\\)")
fl_cli_test(recording_broken_not_a_backend CODE 2 ARGS bench --backend h200-2026-01-03
            DEFS "-DFL_ENV=FUSIONLAB_RECORDINGS=${_fl_broken}" STDERR "--backend 'h200-2026-01-03' is not a backend")
fl_cli_test(bench_recorded CODE 0 ARGS bench --backend h100-2026-01-02 --workload chain --variant all --rows 8192,4096 --hidden 8192
            DEFS "-DFL_ENV=FUSIONLAB_RECORDINGS=${_fl_recordings}"
            STDOUT "RECORDED: rows tagged .*chain +unfused +bf16 +8192 x 8192[ ,].*\\[recorded 2026-01-02\\].*chain +unfused +bf16 +4096 x 8192[ ,].*\\(model\\).*\\[simulated\\]")
fl_cli_test(bench_recorded_shipped CODE 0 ARGS bench --backend recorded:h100 --workload attention --N 4096 --heads 16 --dtype fp16
            STDOUT "measured on NVIDIA H100 80GB HBM3 on 2026-11-28.*attention +flash_tc +fp16 .*\\[recorded 2026-11-28\\]")
# fusionlab record: the points it would measure, and a rehearsal on a simulated GPU.
fl_cli_test(record_list CODE 0 ARGS record --list --sim H100 STDOUT "lesson 01-roofline step 1.*[0-9]+ points, [0-9]+ jobs; estimated")
fl_cli_test(record_no_out CODE 2 ARGS record --sim H100 STDERR "--out DIR is required")
fl_cli_test(record_out_missing CODE 2 ARGS record --out /nonexistent/dir STDERR "--out: folder /nonexistent/dir does not exist")
fl_cli_test(record_bad_budget CODE 2 ARGS record --list --budget 0 STDERR "--budget '0' is out of range")
fl_cli_test(record_rehearsal CODE 0 ARGS record --sim H100 --reps 3 --out ${CMAKE_CURRENT_BINARY_DIR}
            STDOUT "REHEARSAL on the simulated H100.*wrote .*/h100-[0-9-]+/recording.json .*measurements of [0-9]+ points")
fl_cli_test(gui_font_scale CODE 2 ARGS --font-scale 9 STDERR "--font-scale '9' is out of range \\(legal: 1\\.\\.3\\)")

# Working runs.
set(_fl_csv ${CMAKE_CURRENT_BINARY_DIR}/b.csv)
set(_fl_json ${CMAKE_CURRENT_BINARY_DIR}/b.json)
fl_cli_test(bench_sim_exports CODE 0
            ARGS bench --sim H100 --workload all --rows 64 --hidden 1000 --csv ${_fl_csv} --json ${_fl_json}
            STDOUT "SIMULATED.*chain +unfused.*bias_gelu +fused"
            DEFS "-DFL_REMOVE=${_fl_csv}|${_fl_json}" "-DFL_FILES=${_fl_csv}|${_fl_json}"
                 -DFL_JSON=${_fl_json} -DFL_JSON_COUNT=27 -DFL_CSV=${_fl_csv} -DFL_CSV_LINES=28)
fl_cli_test(bench_sim_sweep_kernels CODE 0
            ARGS bench --sim A100 --workload chain --variant unfused --rows 8,16 --hidden 32,64 --dtype fp32,bf16 --kernels
            STDOUT "layernorm.*dropout")
fl_cli_test(bench_help CODE 0 ARGS bench --help STDOUT "--rows.*--N")
# Attention: every variant estimated; an fp32 sweep shows flash_tc refused (exit 0: an answer, not a failure).
fl_cli_test(bench_attention_sim CODE 0
            ARGS bench --workload attention --variant all --N 4096 --d 64 --heads 64 --dtype fp16 --causal 1
                 --br 64 --bc 64 --sim H100 --kernels
            STDOUT "attention +naive.*gemm_qk.*softmax.*gemm_pv.*attention +flash .*attention +flash_tc")
fl_cli_test(bench_attention_refused CODE 0
            ARGS bench --workload attention --N 1024 --d 128 --dtype fp32 --br 128 --bc 128 --sim H100
            STDOUT "flash .*refused: flash with Br=128, Bc=128, d=128, fp32 needs [0-9]+ bytes of shared memory")
# The shape column names the tile each kernel uses, from --br/--bc: flash_tc adds its warps.
fl_cli_test(bench_attention_tiles CODE 0
            ARGS bench --workload attention --variant flash,flash_tc --N 1024 --d 64 --br 128 --bc 64 --dtype fp16
                 --sim H100
            STDOUT "flash +fp16 +16 heads, N=1024, d=64, tile 128x64.*flash_tc +fp16 +16 heads, N=1024, d=64, tile 128x64 \\([48] warps x (16|32) rows\\)")
# flash_tc unrolls Bc at compile time (64 or 128): other Bc are refused rows, exit 0; a tile too big
# for the device's shared memory is refused with the bytes (the A100's 163 KiB at 128 x 128, d = 128).
fl_cli_test(bench_tc_bc_refused CODE 0
            ARGS bench --workload attention --variant flash_tc --N 1024 --d 64 --br 64 --bc 32 --dtype fp16 --sim H100
            STDOUT "flash_tc .*refused: flash_tc takes Bc = 64 or 128 .*not Bc = 32")
fl_cli_test(bench_tc_tile_refused CODE 0
            ARGS bench --workload attention --variant flash_tc --N 1024 --d 128 --br 128 --bc 128 --dtype fp16 --sim A100
            STDOUT "flash_tc .*refused: flash_tc with Br=128, Bc=128, d=128, fp16 needs 174080 bytes of shared memory")
# flash_wgmma takes --br/--bc from {64, 128} and runs on compute capability 9.0 only: refused rows, exit 0.
fl_cli_test(bench_wgmma_tile_refused CODE 0
            ARGS bench --workload attention --variant flash_wgmma --N 1024 --d 64 --br 32 --bc 64 --dtype fp16 --sim H100
            STDOUT "flash_wgmma .*refused: flash_wgmma takes Br = 64, 128 or 192 .*not Br = 32")
fl_cli_test(bench_wgmma_tile_spills_refused CODE 0
            ARGS bench --workload attention --variant flash_wgmma --N 1024 --d 128 --br 192 --bc 128 --dtype fp16 --sim H100
            STDOUT "flash_wgmma .*refused: flash_wgmma at Br = 192, Bc = 128, d = 128 would need ~200 registers")
# Bc = 176 and 80 (v11) are flash_wgmma's tiles at d = 128 (128 x 176, 192 x 80) alone: elsewhere, and for flash_tc, a refused row naming them.
fl_cli_test(bench_wgmma_bc176_refused CODE 0
            ARGS bench --workload attention --variant flash_tc,flash_wgmma --N 1024 --d 64 --br 128 --bc 176 --dtype fp16 --sim H100
            STDOUT "flash_tc .*refused: flash_tc takes Bc = 64 or 128 .*flash_wgmma .*refused: flash_wgmma takes Bc = 176 at d = 128 with Br = 128 only")
fl_cli_test(bench_wgmma_bc176 CODE 0
            ARGS bench --workload attention --variant flash_wgmma --N 1024 --d 128 --br 128 --bc 176 --dtype fp16 --sim H100
            STDOUT "flash_wgmma +fp16 +16 heads, N=1024, d=128, tile 128x176, 2 stages")
fl_cli_test(bench_wgmma_bc80 CODE 0
            ARGS bench --workload attention --variant flash_wgmma --N 1024 --d 128,64 --br 192 --bc 80 --dtype fp16 --sim H100
            STDOUT "flash_wgmma +fp16 +16 heads, N=1024, d=128, tile 192x80, 4 stages.*refused: flash_wgmma takes Bc = 80 at d = 128 with Br = 192 only")
fl_cli_test(attention_bad_bc CODE 2 ARGS bench --workload attention --sim H100 --bc 256
            STDERR "--bc '256' is not one of the choices \\(legal: auto, 16, 32, 64, 80, 128 or 176\\)")
fl_cli_test(bench_br192_flash_tc_refused CODE 0
            ARGS bench --workload attention --variant flash_tc,flash_wgmma --N 1024 --d 64 --br 192 --bc 128 --dtype fp16 --sim H100
            STDOUT "flash_tc .*refused: flash_tc takes Br = 16, 32, 64 or 128, not Br = 192 .*flash_wgmma .*tile 192x128")
fl_cli_test(bench_wgmma_not_hopper CODE 0
            ARGS bench --workload attention --variant flash_wgmma --N 1024 --d 64 --br 128 --bc 128 --dtype fp16 --sim A100
            STDOUT "flash_wgmma .*refused: flash_wgmma needs compute capability 9.0.*is 8.0")
# The skip workload's flash_wgmma variants are refused off compute capability 9.0, naming the kernel.
fl_cli_test(bench_skip_wgmma_not_hopper CODE 0
            ARGS bench --workload skip --variant wgmma_fused,fused --N 1024 --d 64 --heads 8 --batch 2 --br 128 --bc 128
                 --dtype fp16 --sim A100
            STDOUT "wgmma_fused .*refused: wgmma_fused runs flash_wgmma: flash_wgmma needs compute capability 9.0")
fl_cli_test(bench_wgmma_tile CODE 0
            ARGS bench --workload attention --variant flash_wgmma --N 1024 --d 128 --br 128 --bc 64 --dtype bf16 --sim H100
            STDOUT "flash_wgmma +bf16 +16 heads, N=1024, d=128, tile 128x64, 4 stages")
fl_cli_test(attention_bad_br CODE 2 ARGS bench --workload attention --sim H100 --br 48
            STDERR "--br '48' is not one of the choices \\(legal: auto, 16, 32, 64, 128 or 192\\)")
fl_cli_test(attention_bad_d CODE 2 ARGS bench --workload attention --sim H100 --d 0
            STDERR "--d '0' is out of range \\(legal: 1\\.\\.128\\)")
fl_cli_test(attention_bad_n CODE 2 ARGS bench --workload attention --sim H100 --N abc
            STDERR "--N 'abc' is not a whole number")
fl_cli_test(info CODE 0 ARGS info STDOUT "hardware counters +(readable \\(CUPTI|unavailable: ).*H100")
fl_cli_test(info_sim CODE 0 ARGS info --sim h200 STDOUT "SIMULATED.*H200")
if(NOT FUSIONLAB_GUI)
  fl_cli_test(no_gui CODE 1 ARGS STDERR "this build has no GUI \\(built with FUSIONLAB_GUI=OFF\\): use bench/info")
  fl_cli_test(no_gui_shot CODE 1 ARGS shot --out ${CMAKE_CURRENT_BINARY_DIR}/s.png
              STDERR "this build has no GUI")
endif()

# Skip connection: every variant estimated; bad batch / sigma_d / t exit 2 naming the option or the rule.
fl_cli_test(bench_skip_sim CODE 0
            ARGS bench --workload skip --variant all --N 1000 --d 64 --heads 16 --batch 4 --t 2 --sim H100 --kernels
            STDOUT "skip +attention.*skip +two_pass.*kernel +skip.*skip +fused.*teaching_two_pass.*teaching_fused")
fl_cli_test(skip_bad_batch CODE 2 ARGS bench --workload skip --sim H100 --heads 16 --batch 3
            STDERR "batch = 3 does not divide batch x heads = 16")
fl_cli_test(skip_bad_sigma CODE 2 ARGS bench --workload skip --sim H100 --sigma_d 0.7
            STDERR "--sigma_d '0.7' is not one of the choices \\(legal: 0.5 or 1\\)")
fl_cli_test(skip_bad_t CODE 2 ARGS bench --workload skip --sim H100 --t -1
            STDERR "--t '-1' is out of range \\(legal: 0\\.\\.1000\\)")
fl_cli_test(shot_memory_skip_fp32_refused CODE 2 ARGS shot --out x.png --view memory --workload skip --variant fused --dtype fp32
            STDERR "for fp32 use teaching_two_pass or teaching_fused")
# ---- bad-input table (README.md "Bad input"): rows without a test elsewhere -------------------
fl_cli_test(total_size_too_large CODE 2 ARGS bench --sim H100 --rows 131072 --hidden 16384
            STDERR "rows x hidden = .* elements is too large: at most")
# decode: a kv_heads that does not divide heads and a page size not offered exit 2; a cache larger
# than the GPU is refused with its numbers (a table row, exit 0).
fl_cli_test(decode_kv_heads_not_dividing CODE 2 ARGS bench --sim H100 --workload decode --heads 32 --kv_heads 5
            STDERR "kv_heads = 5 does not divide heads = 32")
fl_cli_test(decode_bad_page CODE 2 ARGS bench --sim H100 --workload decode --page 48
            STDERR "--page '48' is not one of the choices \\(legal: 0, 16, 32, 64, 128 or 256\\)")
fl_cli_test(bench_decode_cache_refused CODE 0
            ARGS bench --sim H100 --workload decode --variant flash --batch 256 --kv_len 131072 --heads 128 --kv_heads 128 --dtype fp16
            STDOUT "flash .*refused: flash needs [0-9.]+ GiB of GPU memory: the KV cache .* is 2048.00 GiB")
fl_cli_test(ffn_d_ff_not_multiple_of_8 CODE 2 ARGS bench --sim H100 --workload ffn --d_model 1024 --d_ff 1004
            STDERR "d_ff = 1004 is not a multiple of 8.*try 1008")
fl_cli_test(ffn_d_model_not_multiple_of_8 CODE 2 ARGS bench --sim H100 --workload ffn --d_model 1001
            STDERR "d_model = 1001 is not a multiple of 8")
fl_cli_test(ffn_d_ff_too_small CODE 2 ARGS bench --sim H100 --workload ffn --d_ff 100
            STDERR "d_ff = 100 is out of range: 256 .. 32768 \\(0 means 4 x d_model\\)")
fl_cli_test(bench_ffn_sim CODE 0 ARGS bench --sim H100 --workload ffn --variant all --M 1,8192 --d_model 1024 --kernels
            STDOUT "ffn +unfused.*weights .* of the model.s bytes.*ffn +epilogue_graph")
fl_cli_test(shot_out_unwritable CODE 2 ARGS shot --sim H100 --out /nonexistent/dir/x.png STDERR "--out: ")
fl_cli_test(soak_not_a_number CODE 2 ARGS --soak abc STDERR "--soak 'abc' is not a whole number \\(legal: 1\\.\\.86400 seconds\\)")
fl_cli_test(soak_out_of_range CODE 2 ARGS --soak 0 STDERR "--soak '0' is out of range")
fl_cli_test(soak_seed_without_soak CODE 2 ARGS --soak-seed 3 STDERR "--soak-seed, --soak-size and --soak-passes need --soak SECONDS")
fl_cli_test(soak_passes_out_of_range CODE 2 ARGS --soak 5 --soak-passes 11 STDERR "--soak-passes '11' is out of range \\(legal: 1\\.\\.10\\)")
fl_cli_test(soak_bad_size CODE 2 ARGS --soak 5 --soak-size 10x10 STDERR "--soak-size '10x10' is out of range")
