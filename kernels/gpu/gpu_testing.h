// Plain C++ entry points into the GPU side for the GPU test executable (no CUDA headers needed).
// Only present in builds with CUDA (kernels/gpu/gpu_backend.cu). A workload's device work is
// reached through its GpuWorkload (kernels/gpu/gpu_workload.h).
#pragma once

#include "kernels/core/types.h"

#include <string>

namespace kernels::gpu {

// Number of CUDA devices this process can use; 0 with *why_not filled when there is none
// (no driver: cudaGetDeviceCount fails with error 35; no device; ...).
int usable_device_count(std::string* why_not);

}  // namespace kernels::gpu
