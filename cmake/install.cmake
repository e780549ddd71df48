# Install rules and the Debian package (README "Install for a classroom"). Included from the top
# CMakeLists.txt after the fusionlab target; GNUInstallDirs is already included there.
#
#   cmake --install build --prefix /usr/local      bin/fusionlab, share/fusionlab/{lessons,assets},
#                                                  share/doc/fusionlab
#   cpack --config build/CPackConfig.cmake -G DEB  fusionlab_<version>_<arch>.deb
#
# The installed binary finds share/fusionlab relative to its own bin/ (FL_DATA_FROM_BIN, made in
# CMakeLists.txt), so any prefix works and no path is compiled in but the source tree's fallback.

install(TARGETS fusionlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The lessons the player and `fusionlab lessons` read, and the glossary they link to
# (lessons/glossary.terms). pending/ (drafts) stays out.
install(DIRECTORY lessons/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fusionlab/lessons
        FILES_MATCHING PATTERN "*.lesson" PATTERN "*.terms" PATTERN "pending" EXCLUDE)
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
# A CUDA build links cuBLAS and CUPTI from the CUDA toolkit, which Debian 12 does not package
# (its nvidia-cuda-toolkit is CUDA 11.8, in non-free). Name the packages your machines get them
# from, e.g. "libcublas-12-6, cuda-cupti-12-6" from NVIDIA's apt repository; README says more.
set(FUSIONLAB_DEB_CUDA_DEPENDS "" CACHE STRING
    "Extra Depends of a CUDA-built .deb (packages providing libcublas and libcupti)")

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
if(FUSIONLAB_HAVE_CUDA AND FUSIONLAB_DEB_CUDA_DEPENDS)
  list(APPEND _fl_depends ${FUSIONLAB_DEB_CUDA_DEPENDS})
endif()
string(JOIN ", " CPACK_DEBIAN_PACKAGE_DEPENDS ${_fl_depends})
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_GENERATOR DEB)
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
