// Device memory in use, for the soak test's "GPU memory back to baseline" check. Device-wide
// (cudaMemGetInfo: total - free), so other processes on the same GPU count too; the soak
// report says so. No CUDA in this header.
#pragma once

#include <cstdint>
#include <string>

namespace kernels {

struct GpuMemoryUse {
    bool available = false;
    int64_t used_bytes = 0;   // total - free on the current device
    int64_t total_bytes = 0;
    std::string why_not;      // when !available: "built without CUDA", the CUDA error, ...
};

GpuMemoryUse gpu_memory_use();

}  // namespace kernels
