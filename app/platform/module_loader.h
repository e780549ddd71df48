// Opening the GPU module (kernels/gpu/gpu_module.h) when the program starts, and saying exactly
// why not when it cannot be opened: the module not installed, a CUDA library it needs missing or
// too old, the NVIDIA driver missing or older than the module's CUDA runtime. Everything else runs
// on the simulated and recorded backends meanwhile. The OS calls (dlopen) are in the .cpp.
#pragma once

#include <string>

namespace kernels {
struct GpuModuleApi;
}

namespace app::gpu_module {

struct Status {
    bool built = false;   // this build made a GPU module (CUDA was found when it was configured)
    bool loaded = false;  // opened, and from this build
    std::string path;     // the file opened (or the first place looked, when none was found)
    // When !loaded: which library is missing or too old, which version is needed, how to install
    // it (the loader's own error text included). Empty when loaded.
    std::string why_not;
    // When loaded: the CUDA runtime, cuBLAS and driver versions; "" otherwise.
    std::string libraries;
    const kernels::GpuModuleApi* api = nullptr;  // when loaded
};

// Opens the module on the first call (thread-safe; never closed), then returns the same answer.
const Status& status();

// Why the NVIDIA driver cannot run the module's CUDA runtime ("" when it can, or when unknown):
// libcuda.so.1 missing, or a driver that supports an older CUDA than `runtime_version`.
std::string driver_problem(int runtime_version);

// "" when a driver that supports CUDA `driver_version` (cuDriverGetVersion: 12040 = 12.4) runs a
// CUDA `runtime_version` runtime (same major version or newer: CUDA's minor-version compatibility),
// else "NVIDIA driver too old (...)" with the driver version to install. Pure.
std::string driver_too_old(int driver_version, int runtime_version);

// What a dlopen error means for a library of the GPU module, with what to install: the loader's
// text ("libcublas.so.13: cannot open shared object file: ...") in, our explanation out. Pure.
std::string explain_load_error(const std::string& loader_error, const std::string& module_path);

}  // namespace app::gpu_module
