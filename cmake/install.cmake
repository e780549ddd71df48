# Install rules and the Debian package (README "Install for a classroom"). Included from the top
# CMakeLists.txt after the fusionlab target; GNUInstallDirs is already included there.
#
#   cmake --install build --prefix /usr/local      bin/fusionlab, share/fusionlab/{lessons,assets},
#                                                  share/doc/fusionlab; lib/fusionlab/libfusionlab_gpu.so
#   cpack --config build/CPackConfig.cmake -G DEB  fusionlab_<version>_<arch>.deb, and with CUDA
#                                                  fusionlab-gpu_<version>_<arch>.deb
#
# The installed binary finds share/fusionlab relative to its own bin/ (FL_DATA_FROM_BIN, made in
# CMakeLists.txt), so any prefix works and no path is compiled in but the source tree's fallback.

# Two parts (CPack components, two .deb files): `fusionlab`, everything a machine without CUDA uses,
# and `gpu` (fusionlab-gpu), the GPU module the program opens when it is there (cmake/gpu_module.cmake).
# Rules without a COMPONENT belong to fusionlab.
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME fusionlab)
install(TARGETS fusionlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(FUSIONLAB_HAVE_CUDA)
  # <libdir>/fusionlab: a private library of the program, found relative to its bin/.
  install(TARGETS fusionlab_gpu LIBRARY DESTINATION ${FL_GPU_MODULE_INSTALL_DIR} COMPONENT gpu)
endif()
# The lessons the player and `fusionlab lessons` read, and the glossary they link to
# (lessons/glossary.terms). pending/ (drafts) stays out.
install(DIRECTORY lessons/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fusionlab/lessons
        FILES_MATCHING PATTERN "*.lesson" PATTERN "*.terms" PATTERN "pending" EXCLUDE)
# The kernel exercises (`fusionlab exercises`, the exercise pane) and the header their kernels include.
install(DIRECTORY exercises/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fusionlab/exercises
        FILES_MATCHING PATTERN "*.exercise" PATTERN "*.cuh")
# Data a teacher uses beside the app: the chart palette (for slides), the real-GPU measurements
# (`fusionlab shot --results FILE`) and the recordings the recorded backend replays (--backend,
# the backend menu). The README screenshots are not needed at run time.
install(DIRECTORY assets/palettes assets/measurements DESTINATION ${CMAKE_INSTALL_DATADIR}/fusionlab/assets)
install(DIRECTORY assets/recordings DESTINATION ${CMAKE_INSTALL_DATADIR}/fusionlab/assets OPTIONAL)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES lessons/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/lessons)
install(FILES docs/RELIABILITY.md kernels/PERF.md assets/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/notes
        OPTIONAL)

# ---- CPack: a .deb for a lab of machines ----------------------------------------------------
set(FUSIONLAB_DEB_MAINTAINER "fusionlab developers <dev@fusionlab.invalid>" CACHE STRING
    "Maintainer field of the .deb (put your lab's contact here)")
# fusionlab-gpu's needs (README, Install for a classroom): cuBLAS from NVIDIA's CUDA apt repository
# (Debian 12 packages only CUDA 11.8, in non-free); CUPTI (hardware counters, opened when present)
# and a driver new enough for the module's CUDA runtime are recommended, since labs often install
# the driver from NVIDIA's .run file, which dpkg does not see. Empty FUSIONLAB_GPU_DEB_DEPENDS for
# a lab whose CUDA libraries come from the toolkit's .run file too.
if(FUSIONLAB_HAVE_CUDA)
  set(_fl_cuda_pkg "${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
  set(_fl_driver_min "")
  if(CUDAToolkit_VERSION_MAJOR EQUAL 13)
    set(_fl_driver_min " (>= 580)")
  elseif(CUDAToolkit_VERSION_MAJOR EQUAL 12)
    set(_fl_driver_min " (>= 525)")
  endif()
  set(FUSIONLAB_GPU_DEB_DEPENDS "libcublas-${_fl_cuda_pkg}" CACHE STRING
      "Depends of fusionlab-gpu besides fusionlab (the package providing libcublas/libcublasLt)")
  set(FUSIONLAB_GPU_DEB_RECOMMENDS
      "cuda-cupti-${_fl_cuda_pkg}, cuda-drivers${_fl_driver_min} | nvidia-driver${_fl_driver_min} | nvidia-open${_fl_driver_min}"
      CACHE STRING "Recommends of fusionlab-gpu (CUPTI for the hardware counters, the NVIDIA driver)")
endif()

set(CPACK_PACKAGE_NAME fusionlab)
set(CPACK_PACKAGE_VENDOR "fusionlab")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "interactive lab for GPU kernel fusion")
set(CPACK_PACKAGE_DESCRIPTION
    "Runs unfused and fused GPU kernels side by side (layer-norm chains, attention, FlashAttention,\n"
    "a skip-connection epilogue, launch overhead) and shows time and memory traffic per variant,\n"
    "with a roofline, a memory-hierarchy animation and ten lessons with a classroom mode.\n"
    "Without a CUDA GPU (or in a build without CUDA) it simulates datasheet GPUs and says so.")
string(JOIN "" CPACK_PACKAGE_DESCRIPTION ${CPACK_PACKAGE_DESCRIPTION})
set(CPACK_PACKAGE_CONTACT "${FUSIONLAB_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${FUSIONLAB_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # fusionlab_0.1.0_amd64.deb
set(CPACK_STRIP_FILES ON)
# Explicit Depends rather than dpkg-shlibdeps: it cannot map the CUDA toolkit's libraries to a
# package and would fail a CUDA build's package. The list is the binary's NEEDED libraries on
# Debian 12 mapped with `dpkg -S`, versions from dpkg-shlibdeps on a CUDA-less build (glfw 3.3
# because the build asks for it); the ctest install.package_deb checks the names against the
# binary. ImGui and glad are linked statically; GL is loaded at run time through GLFW (libgl1).
set(_fl_depends "libc6 (>= 2.35)" "libstdc++6 (>= 12)" "libgcc-s1 (>= 3.0)")
if(FUSIONLAB_GUI)
  # GLFW, GL through libglvnd (the vendor's driver or Mesa), stb from pkg-config's imgui flags;
  # a TrueType font (viz/theme.cpp tries Inter, then DejaVu; without one text is blurry).
  list(APPEND _fl_depends "libglfw3 (>= 3.3)" "libgl1" "libstb0 (>= 0.0~git20180212.15.e6afb9c)"
                          "fonts-inter | fonts-dejavu-core")
  # `fusionlab shot` without a display re-runs itself under xvfb-run.
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "xvfb, xauth")
else()
  list(APPEND _fl_depends "libstb0 (>= 0.0~git20180212.15.e6afb9c)")
endif()
string(JOIN ", " CPACK_DEBIAN_PACKAGE_DEPENDS ${_fl_depends})
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
# One .deb per component: fusionlab_<version>_<arch>.deb, and fusionlab-gpu_<version>_<arch>.deb in
# builds with CUDA. The program's Depends above are Debian's alone.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL fusionlab)
set(CPACK_DEBIAN_FUSIONLAB_PACKAGE_NAME fusionlab)
set(CPACK_DEBIAN_FUSIONLAB_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_FUSIONLAB_PACKAGE_DEPENDS "${CPACK_DEBIAN_PACKAGE_DEPENDS}")
# CPack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY before each component's description (the first line).
set(CPACK_COMPONENT_FUSIONLAB_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
if(FUSIONLAB_HAVE_CUDA)
  list(APPEND CPACK_COMPONENTS_ALL gpu)
  set(CPACK_DEBIAN_GPU_PACKAGE_NAME fusionlab-gpu)
  set(CPACK_DEBIAN_GPU_FILE_NAME DEB-DEFAULT)
  set(_fl_gpu_depends "fusionlab (= ${PROJECT_VERSION})")
  if(FUSIONLAB_GPU_DEB_DEPENDS)
    string(APPEND _fl_gpu_depends ", ${FUSIONLAB_GPU_DEB_DEPENDS}")
  endif()
  set(CPACK_DEBIAN_GPU_PACKAGE_DEPENDS "${_fl_gpu_depends}")
  set(CPACK_DEBIAN_GPU_PACKAGE_RECOMMENDS "${FUSIONLAB_GPU_DEB_RECOMMENDS}")
  set(CPACK_DEBIAN_GPU_PACKAGE_SECTION science)
  set(CPACK_COMPONENT_GPU_DESCRIPTION
      "The GPU backend, to measure the kernels on an NVIDIA GPU: the module fusionlab opens at start\n"
      "when it is installed (CUDA ${FL_CUDA_VERSION} kernels, cuBLAS, the CUDA runtime linked in, and CUPTI\n"
      "for the hardware counters when present). Without it, or without the NVIDIA libraries it needs,\n"
      "fusionlab runs on simulated and recorded GPUs and says what is missing.")
  string(JOIN "" CPACK_COMPONENT_GPU_DESCRIPTION ${CPACK_COMPONENT_GPU_DESCRIPTION})
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
