// Plain C++ entry points into the GPU side for the GPU test executable (no CUDA headers needed).
// Only present in builds with CUDA (kernels/common/gpu_backend.cu).
#pragma once

#include "kernels/common/types.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kernels::gpu {

// Number of CUDA devices this process can use; 0 with *why_not filled when there is none
// (no driver: cudaGetDeviceCount fails with error 35; no device; ...).
int usable_device_count(std::string* why_not);

// Runs `variant` once on freshly filled inputs with every output and intermediate poisoned
// (0xFF bytes) first, and returns the whole output converted to float.
struct VariantOutput {
    bool ok = false;
    std::string error;
    std::vector<float> out;       // rows * hidden values
    int64_t nonfinite = 0;        // NaN/inf elements (unwritten poison counts here), device scan
};
VariantOutput run_variant_once(const std::string& variant, const Params& p);

// The inputs the GPU fills (x, residual, gamma, beta or x, bias), read back as float, so a test
// can check they are bit-identical to elementwise::x_value() and friends.
struct InputsOnHost {
    bool ok = false;
    std::string error;
    std::vector<std::pair<std::string, std::vector<float>>> tensors;  // name -> values
};
InputsOnHost download_inputs(const Params& p);

}  // namespace kernels::gpu
