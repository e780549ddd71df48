# The GPU module, libfusionlab_gpu.so (kernels/gpu/gpu_module.h): the CUDA kernels, cuBLAS and
# cuBLASLt (shared, NEEDED by the module only), the CUDA runtime linked statically, CUPTI opened
# with dlopen when first needed (kernels/profiling/cupti_lazy.cpp). The program opens the module at
# start (app/platform/module_loader.cpp) and links none of these. Included from CMakeLists.txt
# after fusionlab_kernels, in builds with CUDA.
#
#   FL_KERNEL_CUDA_AWARE          the kernel library's sources that read FUSIONLAB_HAVE_CUDA: compiled
#                                 again here with it
#   fusionlab_kernels_shared_cpu  the rest, position-independent, shared with the program
#   FL_GPU_MODULE_HOST_SOURCES    the entry point and the CUPTI forwarders (module only)

file(GLOB FL_KERNEL_CUDA CONFIGURE_DEPENDS kernels/*.cu kernels/*/*.cu)
# attention's flash_wgmma (wgmma, TMA, setmaxnreg) exists only as sm_90a machine code, which runs
# on compute capability 9.0 alone: its file is built for 90a by itself, when the list has a 90.
list(FILTER FL_KERNEL_CUDA EXCLUDE REGEX "attention_wgmma\\.cu$")
# SHARED, not MODULE: the GPU test executable links it like any library (tests/CMakeLists.txt).
add_library(fusionlab_gpu SHARED ${FL_KERNEL_CUDA} ${FL_KERNEL_CUDA_AWARE} ${FL_GPU_MODULE_HOST_SOURCES}
            $<TARGET_OBJECTS:fusionlab_kernels_shared_cpu>)
fl_kernel_settings(fusionlab_gpu)
target_compile_definitions(fusionlab_gpu PRIVATE FUSIONLAB_HAVE_CUDA=1 FUSIONLAB_HAVE_CUPTI=1
                           FUSIONLAB_VERSION="${PROJECT_VERSION}")
if(FUSIONLAB_CUDA_ARCHS MATCHES "(^|;)90")
  add_library(fusionlab_wgmma OBJECT kernels/attention/attention_wgmma.cu)
  set_target_properties(fusionlab_wgmma PROPERTIES CUDA_ARCHITECTURES "90a-real" POSITION_INDEPENDENT_CODE ON)
  target_include_directories(fusionlab_wgmma PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(fusionlab_wgmma PRIVATE FUSIONLAB_HAVE_CUDA=1)
  fl_warnings(fusionlab_wgmma)
  target_sources(fusionlab_gpu PRIVATE $<TARGET_OBJECTS:fusionlab_wgmma>)
  target_compile_definitions(fusionlab_gpu PRIVATE FUSIONLAB_HAVE_WGMMA=1)
  message(STATUS "fusionlab: flash_wgmma built for sm_90a")
endif()
# The CUPTI the forwarders open (its headers come with the toolkit; the library is not linked), and
# the CUDA version the messages name ("13.0", NVIDIA's package suffix "13-0").
set(FL_CUDA_VERSION "${CUDAToolkit_VERSION_MAJOR}.${CUDAToolkit_VERSION_MINOR}")
set(FL_CUDA_PKG_VERSION "${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
set_source_files_properties(kernels/profiling/cupti_lazy.cpp PROPERTIES COMPILE_DEFINITIONS
  "FUSIONLAB_CUPTI_SONAME=\"libcupti.so.${CUDAToolkit_VERSION_MAJOR}\";FUSIONLAB_CUDA_VERSION=\"${FL_CUDA_VERSION}\";FUSIONLAB_CUDA_PKG_VERSION=\"${FL_CUDA_PKG_VERSION}\"")
if(NOT EXISTS "${CUDAToolkit_INCLUDE_DIRS}/cupti.h" AND NOT TARGET CUDA::cupti)
  message(WARNING "fusionlab: cupti.h not found in the CUDA toolkit: the GPU module cannot be built without it")
endif()
# attention's naive variant: GEMMs through cuBLAS; ffn's epilogue variants: cuBLASLt. Shared
# libraries, NEEDED by the module: where they are missing the program explains and runs simulated.
target_link_libraries(fusionlab_gpu PRIVATE CUDA::cublas CUDA::cublasLt ${CMAKE_DL_LIBS})
# One runtime, linked in (static cudart): the module needs only the NVIDIA driver besides cuBLAS.
set_target_properties(fusionlab_gpu PROPERTIES
  CUDA_RUNTIME_LIBRARY Static
  # Beside the program in the build tree, where the loader looks first. No VERSION: a private
  # library of the program, opened by path; its soname is its file name (what the GPU tests' NEEDED
  # names, found through their RUNPATH or LD_LIBRARY_PATH), with no symlinks.
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
# -Bsymbolic: the module's calls stay inside it (its own copy of the kernel library's CPU code, its
# CUPTI forwarders), whatever else the process has loaded. --no-undefined: a symbol the module
# lacks (a CUPTI function without a forwarder) fails the link, not the user's start.
target_link_options(fusionlab_gpu PRIVATE -Wl,-Bsymbolic -Wl,--no-undefined)

# The program finds the module beside itself (build tree) or at <libdir>/fusionlab relative to its
# bin/ (lib/fusionlab: any install prefix, the .deb); the messages name the CUDA version it was built with.
set(FL_GPU_MODULE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/fusionlab")
file(RELATIVE_PATH FL_GPU_MODULE_FROM_BIN "${CMAKE_INSTALL_FULL_BINDIR}"
     "${CMAKE_INSTALL_PREFIX}/${FL_GPU_MODULE_INSTALL_DIR}")
set(FL_GPU_MODULE_LOADER_DEFINITIONS
    FUSIONLAB_GPU_MODULE=1 FUSIONLAB_VERSION="${PROJECT_VERSION}"
    FUSIONLAB_GPU_MODULE_NAME="${CMAKE_SHARED_LIBRARY_PREFIX}fusionlab_gpu${CMAKE_SHARED_LIBRARY_SUFFIX}"
    FUSIONLAB_GPU_MODULE_FROM_BIN="${FL_GPU_MODULE_FROM_BIN}"
    FUSIONLAB_CUDA_VERSION="${FL_CUDA_VERSION}" FUSIONLAB_CUDA_PKG_VERSION="${FL_CUDA_PKG_VERSION}")
# What code above the kernels (the GPU tests) sees of a module it links.
target_compile_definitions(fusionlab_gpu INTERFACE FUSIONLAB_HAVE_CUDA=1)
