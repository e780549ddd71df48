// Plain C++ entry points into the elementwise CUDA file for the GPU tests (no CUDA headers needed).
// Only present in builds with CUDA (kernels/elementwise/elementwise.cu).
#pragma once

#include "kernels/core/schedule.h"
#include "kernels/core/types.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kernels::gpu {

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

// What the device's binary holds for the row-kernel instance that `kernel_name` ("layernorm",
// "fused_chain", "fused_chain_spill") runs for p (16-byte-aligned buffers assumed):
// cudaFuncGetAttributes' registers and local memory per thread (stack_bytes); the spill byte
// counts are not reported by the runtime and stay 0. Throws for another kernel name
// (kernels/elementwise/elementwise.cu).
RegisterUse row_kernel_attributes(const std::string& kernel_name, const Params& p);

}  // namespace kernels::gpu
