// gpu_memory_use() with CUDA: cudaMemGetInfo on the current device. Called from the GUI thread
// while the runner's worker owns the streams; the runtime API's primary context is shared by
// every thread of the process, so this reads the same device the runner allocates on.
#include "kernels/gpu/gpu_memory_info.h"

#include <cuda_runtime.h>

namespace kernels {

GpuMemoryUse gpu_memory_use() {
    GpuMemoryUse use;
    int count = 0;
    if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
        use.why_not = e != cudaSuccess ? std::string("no GPU (") + cudaGetErrorString(e) + ")" : "no GPU";
        cudaGetLastError();  // clear the sticky-free error so later calls start clean
        return use;
    }
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaError_t e = cudaMemGetInfo(&free_bytes, &total_bytes); e != cudaSuccess) {
        use.why_not = std::string("cudaMemGetInfo failed: ") + cudaGetErrorString(e);
        cudaGetLastError();
        return use;
    }
    use.available = true;
    use.total_bytes = static_cast<int64_t>(total_bytes);
    use.used_bytes = static_cast<int64_t>(total_bytes - free_bytes);
    return use;
}

}  // namespace kernels
