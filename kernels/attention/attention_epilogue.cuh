// The skip-connection epilogue the attention kernels (attention.cu: flash; attention_tc.cu: flash_tc;
// attention_wgmma.cu: flash_wgmma) can run in place of their store of O, for the skip workload
// (kernels/skip):
//   out = c_skip(t_b) x + c_out(t_b) O,  c_skip = σ_d² / (t_b² + σ_d²),  c_out = σ_d t_b / √(σ_d² + t_b²)
// The launchers pick a kernel instance by ep.x: with x == nullptr the instance without the epilogue
// runs (compiled exactly as before the epilogue existed: a runtime branch cost flash_tc 1.1%).
// x and out are [batch, N, heads d]; attention problem bh is batch element bh / heads, head bh % heads.
#pragma once

#include "kernels/attention/attention.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <string>

namespace kernels::attention::gpu {

struct SkipEpilogue {
    const void* x = nullptr;  // nullptr: no epilogue, the kernel stores O
    void* out = nullptr;
    int heads = 1;            // heads per batch element
    int batch = 1;
    float t = 0;              // largest noise level: batch element b uses t (b + 1) / batch
    float sigma_d = 1;
};

struct SkipCoefficients {
    float c_skip, c_out;
};

// fp32 on the device; the CPU reference takes the same formulas in float64.
__host__ __device__ __forceinline__ SkipCoefficients skip_coefficients(const SkipEpilogue& ep, int bh) {
    const int b = bh / ep.heads;
    const float t = ep.t * static_cast<float>(b + 1) / static_cast<float>(ep.batch);
    const float s2 = ep.sigma_d * ep.sigma_d;
    return {s2 / (t * t + s2), ep.sigma_d * t / sqrtf(s2 + t * t)};
}

// t_b = 0 gives c_skip = 1 and c_out = 0 exactly, and then out is x bit for bit: 1 * x, never
// x + 0 * O (which would turn x = -0 into +0).
__host__ __device__ __forceinline__ float skip_value(float x, float o, SkipCoefficients k) {
    return k.c_out == 0.0f ? k.c_skip * x : fmaf(k.c_out, o, k.c_skip * x);
}

// Element offset of row `row` of attention problem bh (its d columns) in [batch, N, heads d].
__host__ __device__ __forceinline__ size_t bnc_row_offset(const SkipEpilogue& ep, int bh, int row, int N, int d) {
    const size_t b = static_cast<size_t>(bh / ep.heads), h = static_cast<size_t>(bh % ep.heads);
    return ((b * static_cast<size_t>(N) + static_cast<size_t>(row)) * static_cast<size_t>(ep.heads) + h) *
           static_cast<size_t>(d);
}

// "" when this build has the attention kernel `kernel`; else why not ("flash_wgmma is not in this
// build: ..." when the architecture list had no 90, so no sm_90a code was made).
std::string kernel_not_built(const std::string& kernel);

// Launches the attention kernel `kernel` (flash, flash_tc or flash_wgmma) on p. Without an epilogue
// (ep.x == nullptr) it writes O; with one it writes ep.out instead and O is not touched (may be
// nullptr). Throws on a CUDA error or a kernel it does not have (naive).
void launch_attention_kernel(Variant kernel, const AttentionParams& p, const void* Q, const void* K, const void* V,
                             void* O, const SkipEpilogue& ep, cudaStream_t stream);

}  // namespace kernels::attention::gpu
