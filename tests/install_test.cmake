# Install tests (README "Install for a classroom"). Two roles, like cli_test.cmake:
#  - included by tests/CMakeLists.txt: registers install.tree and install.package_deb;
#  - run as `cmake -P install_test.cmake -DFL_MODE=tree|deb ...`: one test's steps.
#
# tree: `cmake --install` into a fresh prefix, then from another folder the installed binary's
#       `info` and `lessons check` name the installed lessons, `lessons list` lists the 11 shipped
#       lessons, and `shot` (under xvfb-run, like the GUI smoke tests) writes a PNG that png_check
#       accepts.
#       The GPU module (builds with CUDA) is installed under lib/fusionlab and the program
#       links no CUDA library (readelf -d). Then the installed `info`, `lessons list`, `bench --sim
#       H100` and `shot` run twice: with the CUDA libraries hidden from the loader (an empty
#       environment, the program started through its dynamic loader with --inhibit-cache, so
#       /etc/ld.so.cache, which lists the toolkit's lib folder, is not read and only the system's
#       own folders are searched: as on a lab PC without CUDA), where info must say the module
#       could not be loaded and name the missing library and its package; and with them present,
#       where info must say the module loaded (and, without a GPU, why there is no device).
# deb:  cpack -G DEB into a fresh folder; `dpkg-deb -c` lists the binary, every lesson, the
#       palette and the docs; Depends names the package of every shared library the binary needs,
#       none of them CUDA's; the package unpacked with `dpkg -x` finds its own lessons. In builds
#       with CUDA, fusionlab-gpu holds the module, depends on this fusionlab and recommends CUPTI;
#       the fusionlab package alone says to install it, both unpacked load it.

if(CMAKE_SCRIPT_MODE_FILE)
  cmake_policy(VERSION 3.24)
  # Runs a command in FL_WORK/elsewhere with $FUSIONLAB_LESSONS unset; fails unless it exits 0.
  function(fl_run_installed exe)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=FUSIONLAB_LESSONS "${exe}" ${ARGN}
                    WORKING_DIRECTORY "${FL_WORK}/elsewhere"
                    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
    if(NOT code EQUAL 0)
      message(FATAL_ERROR "${exe} ${ARGN} (in ${FL_WORK}/elsewhere) exited ${code}\n  stdout: ${out}\n  stderr: ${err}")
    endif()
    set(out "${out}" PARENT_SCOPE)
  endfunction()

  # The lessons the installed binary must find: the source tree's *.lesson files, by name.
  function(fl_expected_lessons var)
    file(GLOB files RELATIVE "${FL_SOURCE_DIR}/lessons" "${FL_SOURCE_DIR}/lessons/*.lesson")
    list(LENGTH files n)
    if(NOT n EQUAL 11)
      message(FATAL_ERROR "expected the 11 shipped lessons in ${FL_SOURCE_DIR}/lessons, found ${n}: ${files}")
    endif()
    set(${var} ${files} PARENT_SCOPE)
  endfunction()

  # `lessons check` names each file it read: all of them must lie in `dir`, none in the source tree.
  function(fl_check_lessons_from exe dir)
    fl_expected_lessons(expected)
    fl_run_installed("${exe}" lessons check)
    foreach(lesson IN LISTS expected)
      string(FIND "${out}" "ok  ${dir}/${lesson} (" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "`fusionlab lessons check` did not read ${dir}/${lesson}\n  stdout: ${out}")
      endif()
    endforeach()
    string(FIND "${out}" "${FL_SOURCE_DIR}/lessons/" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "the installed binary read lessons from the source tree\n  stdout: ${out}")
    endif()
  endfunction()

  # ---- running the installed program with the CUDA libraries hidden, or present ----------------
  # The dynamic loader the program names (PT_INTERP), to start it with --inhibit-cache.
  function(fl_program_interpreter exe var)
    execute_process(COMMAND readelf -l "${exe}" OUTPUT_VARIABLE phdrs RESULT_VARIABLE code ERROR_QUIET)
    if(NOT code EQUAL 0 OR NOT phdrs MATCHES "Requesting program interpreter: ([^]\n]+)\\]")
      message(FATAL_ERROR "readelf -l ${exe} names no program interpreter (exit ${code}): install binutils")
    endif()
    set(${var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  endfunction()
  # Runs `exe ARGN` in FL_WORK/elsewhere; `how` is "hidden" or "present". Fails unless it exits 0.
  # Both get a HOME of their own. hidden: `env -i` (no LD_LIBRARY_PATH, no CUDA_* variables) and the
  # loader started by hand with --inhibit-cache: libraries come only from the system folders
  # (/lib/<arch>, /usr/lib/<arch>, /lib, /usr/lib), where no CUDA library lives on Debian.
  # A shot runs under xvfb-run, itself started normally; the program inside it hidden the same way.
  function(fl_run_as how exe)
    file(MAKE_DIRECTORY "${FL_WORK}/home")
    set(cmd "${exe}" ${ARGN})
    if(how STREQUAL "hidden")
      fl_program_interpreter("${exe}" interp)
      set(cmd "${interp}" --inhibit-cache ${cmd})
    endif()
    if("${ARGN}" MATCHES "^shot;")
      find_program(XVFB_RUN xvfb-run)
      if(NOT XVFB_RUN)
        message(FATAL_ERROR "xvfb-run not found: the installed `fusionlab shot` renders under a virtual X server. "
                            "Install it (Debian/Ubuntu: sudo apt-get install xvfb xauth) and run ctest again.")
      endif()
      set(cmd "${XVFB_RUN}" -a -s "-screen 0 1280x1024x24" ${cmd})
    endif()
    if(how STREQUAL "hidden")
      set(cmd env -i PATH=/usr/bin:/bin HOME=${FL_WORK}/home LANG=C.UTF-8 ${cmd})
    else()
      set(cmd "${CMAKE_COMMAND}" -E env --unset=FUSIONLAB_LESSONS --unset=FUSIONLAB_GPU_MODULE HOME=${FL_WORK}/home ${cmd})
    endif()
    execute_process(COMMAND ${cmd} WORKING_DIRECTORY "${FL_WORK}/elsewhere"
                    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
    if(NOT code EQUAL 0)
      string(REPLACE ";" " " shown "${cmd}")
      message(FATAL_ERROR "${shown} (CUDA libraries ${how}, in ${FL_WORK}/elsewhere) exited ${code}\n  stdout: ${out}\n  stderr: ${err}")
    endif()
    set(out "${out}" PARENT_SCOPE)
  endfunction()

  # info, lessons list, bench --sim H100 and a shot of the installed program, CUDA libraries `how`.
  # `module` is the installed GPU module ("" in a build without CUDA).
  function(fl_check_installed_program how exe module)
    fl_run_as(${how} "${exe}" info)
    set(info "${out}")
    if(NOT module)
      if(NOT info MATCHES "CUDA kernels not built")
        message(FATAL_ERROR "`fusionlab info` of a build without CUDA does not say so:\n${info}")
      endif()
    elseif(how STREQUAL "hidden")
      # The loader must really miss cuBLAS here: else this machine keeps CUDA in a system folder.
      fl_program_interpreter("${exe}" interp)
      execute_process(COMMAND env -i "${interp}" --inhibit-cache --list "${module}" OUTPUT_VARIABLE deps ERROR_VARIABLE deps)
      if(NOT deps MATCHES "libcublas(Lt)?\\.so\\.[0-9]+( => not found|: cannot open shared object file)")
        message(FATAL_ERROR "cannot hide the CUDA libraries on this machine: the loader finds them without "
                            "/etc/ld.so.cache too (a CUDA library in a system folder?):\n${deps}")
      endif()
      if(NOT info MATCHES "GPU module +not loaded: cuBLAS ([0-9]+) not installed \\((libcublas(Lt)?\\.so\\.[0-9]+): cannot open shared object file")
        message(FATAL_ERROR "with the CUDA libraries hidden, `fusionlab info` does not say that the GPU module could not "
                            "be loaded because cuBLAS is missing:\n${info}")
      endif()
      set(lib "${CMAKE_MATCH_2}")
      if(NOT info MATCHES "the GPU module needs ${lib} from CUDA [0-9]+\\.[0-9]+[^\n]*install NVIDIA's libcublas-[0-9]+-[0-9]+ package"
         OR NOT info MATCHES "\nGPU: none usable: cuBLAS [0-9]+ not installed"
         OR NOT info MATCHES "hardware counters +unavailable")
        message(FATAL_ERROR "`fusionlab info` (CUDA libraries hidden) does not say which version of ${lib} to install, "
                            "or still offers a GPU or counters:\n${info}")
      endif()
      message(STATUS "CUDA libraries hidden: info says the GPU module could not be loaded, ${lib} missing")
    else()
      if(NOT info MATCHES "GPU module +loaded: ([^\n]+)")
        message(FATAL_ERROR "with the CUDA libraries present, `fusionlab info` does not say the GPU module loaded:\n${info}")
      endif()
      string(FIND "${CMAKE_MATCH_1}" "${module} (" at)
      if(NOT at EQUAL 0)
        message(FATAL_ERROR "`fusionlab info` loaded a GPU module other than the installed ${module}:\n${info}")
      endif()
      # A machine without a GPU (CI) says why there is none; with one, info describes it.
      if(NOT info MATCHES "\nGPU: none usable: [^\n]+" AND NOT info MATCHES "\nGPU:\n")
        message(FATAL_ERROR "`fusionlab info` (GPU module loaded) says neither which GPU nor why none:\n${info}")
      endif()
      string(REGEX MATCH "\nGPU:[^\n]*" gpu_line "${info}")
      string(STRIP "${gpu_line}" gpu_line)
      message(STATUS "CUDA libraries present: the GPU module loaded from ${module}; ${gpu_line}")
    endif()
    fl_run_as(${how} "${exe}" lessons list)
    string(REGEX MATCHALL "[^\n]+ steps  [^\n]+" rows "${out}")
    list(LENGTH rows n)
    if(NOT n EQUAL 11)
      message(FATAL_ERROR "`fusionlab lessons list` (CUDA libraries ${how}) listed ${n} lessons, expected 11\n  stdout: ${out}")
    endif()
    fl_run_as(${how} "${exe}" bench --sim H100 --workload chain --rows 1024)
    if(NOT out MATCHES "SIMULATED" OR NOT out MATCHES "fused")
      message(FATAL_ERROR "`fusionlab bench --sim H100` (CUDA libraries ${how}) printed no simulated results:\n${out}")
    endif()
    if(FL_GUI)
      file(REMOVE "${FL_WORK}/elsewhere/shot-${how}.png")
      fl_run_as(${how} "${exe}" shot --out shot-${how}.png --size 640x360 --sim H100)
      execute_process(COMMAND "${FL_CHECK}" "${FL_WORK}/elsewhere/shot-${how}.png" 640 360
                      RESULT_VARIABLE code OUTPUT_VARIABLE check_out ERROR_VARIABLE check_err)
      if(NOT code EQUAL 0)
        message(FATAL_ERROR "the installed binary's screenshot (CUDA libraries ${how}) failed its check: ${check_err}${check_out}")
      endif()
    endif()
  endfunction()

  # The program must not need any CUDA library to start (it opens the GPU module instead).
  function(fl_check_no_cuda_needed exe)
    execute_process(COMMAND readelf -d "${exe}" OUTPUT_VARIABLE dyn RESULT_VARIABLE code)
    string(REGEX MATCHALL "\\(NEEDED\\)[^\n]+" needed "${dyn}")
    if(NOT code EQUAL 0 OR NOT needed)
      message(FATAL_ERROR "readelf -d ${exe} failed (exit ${code})")
    endif()
    if(needed MATCHES "lib(cublas|cublasLt|cupti|cudart|cuda|nvperf_host)\\.so")
      message(FATAL_ERROR "${exe} needs a CUDA library at load time: it would not start without CUDA:\n${needed}")
    endif()
  endfunction()

  file(REMOVE_RECURSE "${FL_WORK}")
  file(MAKE_DIRECTORY "${FL_WORK}/elsewhere")
  file(REAL_PATH "${FL_WORK}" FL_WORK)  # the binary sees its own path with links resolved

  if(FL_MODE STREQUAL "tree")
    set(prefix "${FL_WORK}/prefix")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=DESTDIR
                            "${CMAKE_COMMAND}" --install "${FL_BUILD_DIR}" --prefix "${prefix}" --config "${FL_CONFIG}"
                    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT code EQUAL 0)
      message(FATAL_ERROR "cmake --install failed (exit ${code})\n${out}\n${err}")
    endif()
    set(exe "${prefix}/${FL_BINDIR}/fusionlab")
    set(share "${prefix}/${FL_DATADIR}/fusionlab")
    foreach(f "${exe}" "${share}/assets/palettes/okabe-ito.gpl" "${prefix}/${FL_DOCDIR}/README.md"
              "${prefix}/${FL_DOCDIR}/lessons/README.md")
      if(NOT EXISTS "${f}")
        message(FATAL_ERROR "cmake --install did not install ${f}\n${out}")
      endif()
    endforeach()
    if(EXISTS "${share}/assets/screenshots")
      message(FATAL_ERROR "the README screenshots are not runtime assets: ${share}/assets/screenshots should not be installed")
    endif()

    # info says where the lessons are; check reads them from the installed tree.
    fl_run_installed("${exe}" info)
    string(FIND "${out}" "${share}/lessons (11 files)" at)
    if(at EQUAL -1 OR NOT out MATCHES "\n  lessons +/")
      message(FATAL_ERROR "`fusionlab info` does not name the installed lessons (${share}/lessons, 11 files)\n  stdout: ${out}")
    endif()
    fl_check_lessons_from("${exe}" "${share}/lessons")
    # list: one line per lesson, "NAME  N steps  TITLE", in file order.
    fl_expected_lessons(expected)
    fl_run_installed("${exe}" lessons list)
    string(REGEX MATCHALL "[^\n]+ steps  [^\n]+" rows "${out}")
    list(LENGTH rows n)
    if(NOT n EQUAL 11)
      message(FATAL_ERROR "`fusionlab lessons list` listed ${n} lessons, expected 11\n  stdout: ${out}")
    endif()
    foreach(lesson IN LISTS expected)
      string(REGEX REPLACE "\\.lesson$" "" name "${lesson}")
      if(NOT out MATCHES "(^|\n)${name} +[1-9][0-9]* steps  ")
        message(FATAL_ERROR "`fusionlab lessons list` does not list ${name}\n  stdout: ${out}")
      endif()
    endforeach()
    # A $FUSIONLAB_LESSONS that is not a folder is named, not silently replaced by the installed lessons.
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env "FUSIONLAB_LESSONS=${FL_WORK}/missing" "${exe}" lessons list
                    WORKING_DIRECTORY "${FL_WORK}/elsewhere"
                    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
    string(FIND "${err}" "$FUSIONLAB_LESSONS is '${FL_WORK}/missing', which is not a folder" at)
    if(NOT code EQUAL 2 OR at EQUAL -1)
      message(FATAL_ERROR "FUSIONLAB_LESSONS=missing folder: expected exit 2 naming it, got ${code}\n  stderr: ${err}")
    endif()

    # The GPU module beside the program's lib/, none of CUDA in the program; then the program
    # with the CUDA libraries hidden, and present.
    fl_check_no_cuda_needed("${exe}")
    set(module "")
    if(FL_GPU_MODULE)
      set(module "${prefix}/${FL_GPU_MODULE}")
      if(NOT EXISTS "${module}")
        message(FATAL_ERROR "cmake --install did not install the GPU module ${module}")
      endif()
    endif()
    fl_check_installed_program(hidden "${exe}" "${module}")
    fl_check_installed_program(present "${exe}" "${module}")


  elseif(FL_MODE STREQUAL "deb")
    find_program(DPKG_DEB dpkg-deb)
    find_program(DPKG dpkg)
    if(NOT DPKG_DEB OR NOT DPKG)
      message(STATUS "SKIPPED: dpkg-deb not found (the .deb is built and checked on Debian and Ubuntu)")
      return()
    endif()
    execute_process(COMMAND "${FL_CPACK}" --config "${FL_BUILD_DIR}/CPackConfig.cmake" -G DEB -C "${FL_CONFIG}"
                            -B "${FL_WORK}/package"
                    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
    file(GLOB debs "${FL_WORK}/package/fusionlab_*.deb")
    list(LENGTH debs n)
    if(NOT code EQUAL 0 OR NOT n EQUAL 1)
      message(FATAL_ERROR "cpack -G DEB failed (exit ${code}, ${n} .deb files)\n${out}\n${err}")
    endif()
    list(GET debs 0 deb)
    execute_process(COMMAND "${DPKG_DEB}" -c "${deb}" RESULT_VARIABLE code OUTPUT_VARIABLE contents ERROR_VARIABLE err)
    if(NOT code EQUAL 0)
      message(FATAL_ERROR "dpkg-deb -c ${deb} failed: ${err}")
    endif()
    message(STATUS "${deb}:\n${contents}")
    fl_expected_lessons(expected)
    set(share "./usr/${FL_DATADIR}/fusionlab")
    set(wanted "./usr/${FL_BINDIR}/fusionlab" "${share}/assets/palettes/okabe-ito.gpl" "./usr/${FL_DOCDIR}/README.md")
    foreach(lesson IN LISTS expected)
      list(APPEND wanted "${share}/lessons/${lesson}")
    endforeach()
    foreach(path IN LISTS wanted)
      string(FIND "${contents}" " ${path}\n" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "${deb} lacks ${path}")
      endif()
    endforeach()
    if(contents MATCHES "screenshots/")
      message(FATAL_ERROR "${deb} carries the README screenshots, which the app does not need")
    endif()

    # Unpacked, the packaged binary finds the packaged lessons (relative to its own bin/).
    execute_process(COMMAND "${DPKG_DEB}" -x "${deb}" "${FL_WORK}/root" RESULT_VARIABLE code ERROR_VARIABLE err)
    if(NOT code EQUAL 0)
      message(FATAL_ERROR "dpkg-deb -x ${deb} failed: ${err}")
    endif()
    set(exe "${FL_WORK}/root/usr/${FL_BINDIR}/fusionlab")
    fl_check_lessons_from("${exe}" "${FL_WORK}/root/usr/${FL_DATADIR}/fusionlab/lessons")

    # Control fields: the name, and a Depends that names the package of every library it links.
    execute_process(COMMAND "${DPKG_DEB}" -f "${deb}" Package Depends OUTPUT_VARIABLE fields)
    message(STATUS "${fields}")
    if(NOT fields MATCHES "(^|\n)Package: fusionlab\n")
      message(FATAL_ERROR "${deb}: the package is not named fusionlab:\n${fields}")
    endif()
    string(REGEX REPLACE ".*Depends: ([^\n]*).*" "\\1" depends "${fields}")
    string(REGEX REPLACE "\\([^)]*\\)" "" depends_names "${depends}")
    string(REGEX MATCHALL "[^ ,|]+" depends_names "${depends_names}")
    execute_process(COMMAND ldd "${exe}" OUTPUT_VARIABLE ldd_out RESULT_VARIABLE code)
    execute_process(COMMAND objdump -p "${exe}" OUTPUT_VARIABLE dyn)
    string(REGEX MATCHALL "NEEDED +[^\n]+" needed "${dyn}")
    if(NOT code EQUAL 0 OR NOT needed)
      message(FATAL_ERROR "cannot read the shared libraries ${exe} needs (ldd exit ${code}, objdump -p)")
    endif()
    string(REGEX MATCHALL "[^\n]+" ldd_lines "${ldd_out}")
    foreach(line IN LISTS ldd_lines)
      if(line MATCHES "^[ \t]*([^ ]+) => (/[^ ]+)")
        set("path_of_${CMAKE_MATCH_1}" "${CMAKE_MATCH_2}")
      endif()
    endforeach()
    foreach(line IN LISTS needed)
      string(REGEX REPLACE "NEEDED +" "" soname "${line}")
      string(STRIP "${soname}" soname)
      set(path "${path_of_${soname}}")
      set(owner "")
      # The dynamic loader itself (named NEEDED by binaries that link CUDA's static runtime): ldd
      # prints it without "=>"; Debian ships it in libc6.
      if(soname MATCHES "^ld-linux")
        set(owner "libc6")
      endif()
      # Debian 12 has merged /usr: dpkg knows some libraries under /lib, others under /usr/lib.
      string(REGEX REPLACE "^/usr/" "/" other "${path}")
      if(other STREQUAL path)
        set(other "/usr${path}")
      endif()
      foreach(p "${path}" "${other}")
        if(path AND owner STREQUAL "")
          execute_process(COMMAND "${DPKG}" -S "${p}" OUTPUT_VARIABLE owner_out ERROR_QUIET RESULT_VARIABLE code)
          if(code EQUAL 0)
            string(REGEX MATCH "^[^:, ]+" owner "${owner_out}")
          endif()
        endif()
      endforeach()
      if(owner STREQUAL "")
        message(FATAL_ERROR "${exe} needs ${soname} (${path}), which no installed package provides")
      endif()
      if(NOT owner IN_LIST depends_names)
        message(FATAL_ERROR "${exe} needs ${soname} from package ${owner}, which Depends does not name: ${depends}")
      endif()
      message(STATUS "${soname}: ${owner} (in Depends)")
    endforeach()
    fl_check_no_cuda_needed("${exe}")

    # fusionlab-gpu: the module, its Depends and Recommends; the program finds it once both are unpacked.
    if(FL_GPU_MODULE)
      file(GLOB gpu_debs "${FL_WORK}/package/fusionlab-gpu_*.deb")
      list(LENGTH gpu_debs n)
      if(NOT n EQUAL 1)
        message(FATAL_ERROR "cpack made ${n} fusionlab-gpu .deb files in ${FL_WORK}/package, expected 1")
      endif()
      list(GET gpu_debs 0 gpu_deb)
      execute_process(COMMAND "${DPKG_DEB}" -c "${gpu_deb}" OUTPUT_VARIABLE gpu_contents)
      execute_process(COMMAND "${DPKG_DEB}" -f "${gpu_deb}" Package Depends Recommends OUTPUT_VARIABLE gpu_fields)
      message(STATUS "${gpu_deb}:\n${gpu_contents}${gpu_fields}")
      string(FIND "${gpu_contents}" " ./usr/${FL_GPU_MODULE}\n" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "${gpu_deb} lacks ./usr/${FL_GPU_MODULE}")
      endif()
      if(gpu_contents MATCHES "usr/bin/|/lessons/")
        message(FATAL_ERROR "${gpu_deb} carries files of the fusionlab package:\n${gpu_contents}")
      endif()
      if(NOT gpu_fields MATCHES "Package: fusionlab-gpu\n" OR NOT gpu_fields MATCHES "Depends: fusionlab \\(= [0-9.]+\\)"
         OR NOT gpu_fields MATCHES "Recommends: [^\n]*cuda-cupti-")
        message(FATAL_ERROR "${gpu_deb}: expected Package fusionlab-gpu, Depends on this fusionlab, Recommends CUPTI:\n${gpu_fields}")
      endif()
      # The program alone says the module is not installed and how to get it ...
      fl_run_as(present "${exe}" info)
      if(NOT out MATCHES "GPU module +not loaded: GPU module not installed \\([^\n]*install the fusionlab-gpu package")
        message(FATAL_ERROR "`fusionlab info` of the fusionlab package alone does not say to install fusionlab-gpu:\n${out}")
      endif()
      # ... and with fusionlab-gpu unpacked beside it, loads it.
      execute_process(COMMAND "${DPKG_DEB}" -x "${gpu_deb}" "${FL_WORK}/root" RESULT_VARIABLE code ERROR_VARIABLE err)
      if(NOT code EQUAL 0)
        message(FATAL_ERROR "dpkg-deb -x ${gpu_deb} failed: ${err}")
      endif()
      fl_run_as(present "${exe}" info)
      if(NOT out MATCHES "GPU module +loaded: ${FL_WORK}/root/usr/${FL_GPU_MODULE} ")
        message(FATAL_ERROR "`fusionlab info` of both packages unpacked does not load ${FL_WORK}/root/usr/${FL_GPU_MODULE}:\n${out}")
      endif()
    endif()
  else()
    message(FATAL_ERROR "install_test.cmake: unknown FL_MODE '${FL_MODE}'")
  endif()
  return()
endif()

# ---- included: the tests ---------------------------------------------------------------------
set(_fl_install_defs -DFL_BUILD_DIR=${CMAKE_BINARY_DIR} -DFL_SOURCE_DIR=${PROJECT_SOURCE_DIR} -DFL_CONFIG=$<CONFIG>
    -DFL_BINDIR=${CMAKE_INSTALL_BINDIR} -DFL_DATADIR=${CMAKE_INSTALL_DATADIR} -DFL_DOCDIR=${CMAKE_INSTALL_DOCDIR}
    )
if(FUSIONLAB_GUI)
  list(APPEND _fl_install_defs -DFL_GUI=1 -DFL_CHECK=$<TARGET_FILE:fl_png_check>)
endif()
if(FUSIONLAB_HAVE_CUDA)  # where the GPU module lands under the prefix (cmake/gpu_module.cmake)
  list(APPEND _fl_install_defs -DFL_GPU_MODULE=${FL_GPU_MODULE_INSTALL_DIR}/$<TARGET_FILE_NAME:fusionlab_gpu>)
endif()
add_test(NAME install.tree
         COMMAND ${CMAKE_COMMAND} -DFL_MODE=tree -DFL_WORK=${CMAKE_BINARY_DIR}/install_test/tree ${_fl_install_defs}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/install_test.cmake)
add_test(NAME install.package_deb
         COMMAND ${CMAKE_COMMAND} -DFL_MODE=deb -DFL_WORK=${CMAKE_BINARY_DIR}/install_test/deb -DFL_CPACK=${CMAKE_CPACK_COMMAND}
                 ${_fl_install_defs} -P ${CMAKE_CURRENT_SOURCE_DIR}/install_test.cmake)
# Both install the whole build (install_manifest.txt is written in the build folder): one at a time.
set_tests_properties(install.tree install.package_deb PROPERTIES TIMEOUT 300 LABELS install
                     RESOURCE_LOCK fusionlab_install)
set_tests_properties(install.package_deb PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED: dpkg-deb not found")
