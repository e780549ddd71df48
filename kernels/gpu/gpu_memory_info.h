// What the soak test reads of the GPU side: device memory in use, for its "GPU memory back to
// baseline" check, and the GEMM configurations cuBLAS has met (below), whichever workload issued them. The memory is device-wide
// (cudaMemGetInfo: total - free), so other processes on the same GPU count too; the soak report
// says so. No CUDA in this header.
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

// How many distinct GEMM configurations (dtype, transposes, m, n, k, batch) the workloads have
// handed to cuBLAS in this process (each notes its own with note_cublas_gemm_config below), counted
// when issued, so a cancelled job's GEMMs count too.
// cuBLAS loads the kernel library a configuration needs the first time (cuLibraryLoadData under
// its heuristics) and keeps it, which heaptrack found to be nearly all of the host memory a GPU
// soak's replays kept (docs/RELIABILITY.md): the soak reports this per pass to tell the two apart.
// 0 without CUDA.
int64_t cublas_gemm_configs_issued();
// A workload's device side calls this next to each cuBLAS GEMM it launches (GPU builds only,
// kernels/gpu/gpu_memory_info.cu): dtype, op A, op B, m, n, k, batch. A set lookup per launch.
void note_cublas_gemm_config(int dtype, int op_a, int op_b, int m, int n, int k, int batch);

}  // namespace kernels
