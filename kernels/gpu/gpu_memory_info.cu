// gpu_memory_use() and the cuBLAS GEMM configurations with CUDA. gpu_memory_use(): cudaMemGetInfo on the current device. Called from the GUI thread
// while the runner's worker owns the streams; the runtime API's primary context is shared by
// every thread of the process, so this reads the same device the runner allocates on.
#include "kernels/gpu/gpu_memory_info.h"

#include <cuda_runtime.h>

#include <array>
#include <mutex>
#include <set>

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

namespace {

// The GEMM configurations issued so far: dtype, op A, op B, m, n, k, batch.
std::mutex g_gemm_configs_mutex;
std::set<std::array<long long, 7>> g_gemm_configs;

}  // namespace

void note_cublas_gemm_config(int dtype, int op_a, int op_b, int m, int n, int k, int batch) {
    std::lock_guard<std::mutex> lock(g_gemm_configs_mutex);
    g_gemm_configs.insert({dtype, op_a, op_b, m, n, k, batch});
}

int64_t cublas_gemm_configs_issued() {
    std::lock_guard<std::mutex> lock(g_gemm_configs_mutex);
    return static_cast<int64_t>(g_gemm_configs.size());
}

}  // namespace kernels
