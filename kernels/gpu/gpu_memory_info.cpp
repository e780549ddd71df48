// gpu_memory_use() and cublas_gemm_configs_issued() in builds without CUDA (the .cu beside this file
// replaces it in the GPU module; the program of a build with CUDA asks the module,
// app/platform/module_loader.cpp).
#include "kernels/gpu/gpu_memory_info.h"

#if !defined(FUSIONLAB_HAVE_CUDA) && !defined(FUSIONLAB_GPU_MODULE)
namespace kernels {

GpuMemoryUse gpu_memory_use() {
    GpuMemoryUse use;
    use.why_not = "no GPU (built without CUDA)";
    return use;
}

int64_t cublas_gemm_configs_issued() { return 0; }

}  // namespace kernels
#endif
