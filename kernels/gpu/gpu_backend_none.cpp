// GPU backend entry points of a simulated-only build (no nvcc at configure time).
#include "kernels/core/backend.h"

namespace kernels {

bool built_with_cuda() { return false; }

std::unique_ptr<Backend> make_gpu_backend(std::string* why_not) {
    if (why_not)
        *why_not = "this build has no CUDA kernels (nvcc was not found when it was configured); "
                   "install the CUDA toolkit and rebuild to measure a real GPU";
    return nullptr;
}

}  // namespace kernels
