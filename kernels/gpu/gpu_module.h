// The GPU module's one interface. In a build with CUDA the GPU side (the kernels, cuBLAS, cuBLASLt,
// the CUDA runtime linked statically, CUPTI opened lazily) is a shared library of its own,
// libfusionlab_gpu.so, which the program opens when it starts (app/platform/module_loader.cpp).
// The program itself links no CUDA library, so it starts on a machine without any, and says which
// library is missing instead (README, "Install for a classroom").
//
// The module exports one C symbol, kGpuModuleEntry, returning a GpuModuleApi: every call the
// program makes into GPU code goes through it. The table holds C++ types (std::string, the Backend
// class): the module and the program come from the same build, which build_id checks (version,
// compiler, the sizes of the types that cross), so a module of another build is refused with a
// message rather than called. Plain C++, no CUDA header.
#pragma once

#include "kernels/core/backend.h"
#include "kernels/gpu/gpu_memory_info.h"
#include "kernels/core/types.h"

#include <cstdint>
#include <memory>
#include <string>

namespace kernels {

// The name the module exports its table under (dlsym; GetProcAddress on Windows).
inline constexpr const char* kGpuModuleEntry = "fusionlab_gpu_module_v1";

struct GpuModuleApi {
    const char* build_id = nullptr;      // gpu_module_build_id() as the module was compiled
    int cuda_runtime_version = 0;        // CUDART_VERSION it was built with (13000 = CUDA 13.0)
    // The libraries it opens at run time, for the messages: "libcupti.so.13".
    const char* cupti_library = nullptr;
    // backend.h: the GPU backend of device 0, or nullptr with why_not.
    std::unique_ptr<Backend> (*make_gpu_backend)(std::string* why_not) = nullptr;
    // gpu_memory_info.h: for the soak test.
    GpuMemoryUse (*gpu_memory_use)() = nullptr;
    int64_t (*cublas_gemm_configs_issued)() = nullptr;
    // dram_counters.h: the counters tried for real on `device` ("" or "unavailable: why").
    std::string (*probe_hardware_counters)(int device) = nullptr;
    // "" when libcupti was opened (or has not been needed yet and can be), else why not: the
    // hardware counters and the CUPTI timeline are then unavailable, the GPU backend still runs.
    std::string (*cupti_status)() = nullptr;
    // "NVIDIA driver 580.95 (CUDA 13.0)"-style facts, for `fusionlab info`; "" when unknown.
    std::string (*describe_libraries)() = nullptr;
};

// What both sides compare before the program calls anything in the module.
inline std::string gpu_module_build_id() {
    return std::string(FUSIONLAB_VERSION) + " " +
#if defined(__VERSION__)
           __VERSION__ +
#endif
           " | sizes " + std::to_string(sizeof(DeviceInfo)) + "/" + std::to_string(sizeof(Measurement)) + "/" +
           std::to_string(sizeof(Job)) + "/" + std::to_string(sizeof(GpuMemoryUse)) + "/" +
           std::to_string(sizeof(std::string));
}

}  // namespace kernels

// The module's entry point (kernels/gpu/gpu_backend_module.cpp).
extern "C" const kernels::GpuModuleApi* fusionlab_gpu_module_v1();
