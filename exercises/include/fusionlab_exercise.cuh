// What every exercise kernel gets before its first line (fusionlab compiles it with NVRTC):
//   - cuda_fp16.h and cuda_bf16.h, and uint32_t, uint64_t, int64_t;
//   - T, the element type of the exercise's dtype: float, __half or __nv_bfloat16;
//   - this header: loading and storing T as float, GELU, the dropout mask and the skip
//     coefficients, each exactly as fusionlab's own kernels and its float64 CPU reference define them.
// Nothing here does the exercise for you: no reductions, no tiling, no online softmax.
#pragma once

#include "philox.h"  // kernels/core/philox.h: Philox4x32-10, the dropout mask of every variant

// NVRTC has no <cmath>: INFINITY as the bits of +inf.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

// T <-> float (math is in fp32 whatever T is; stores round to nearest even).
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename U> __device__ __forceinline__ U from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// GELU(x) = x Phi(x) = 0.5 x (1 + erf(x / sqrt 2)): the exact form the reference uses.
__device__ __forceinline__ float gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
// The same GELU as fusionlab's fused kernels compute it: erf from Abramowitz & Stegun 7.1.26
// (|error| <= 1.5e-7, ~14 instructions against erff's ~25; kernels/core/gelu_fast.h). Where a
// kernel is short of instruction slots (bf16 on an H200: ~30 per element at full bandwidth) the
// difference shows in its time.
#include "gelu_fast.h"
using kernels::gelu_fast;

// LayerNorm's epsilon (kernels/elementwise/elementwise.h).
#define FL_LAYERNORM_EPS 1e-5f

// Dropout: element `index` (row * hidden + column) is kept when its 16-bit Philox number is >= threshold;
// kept elements are scaled by keep_scale = 1 / (1 - p). The same mask as every fusionlab variant.
__device__ __forceinline__ bool dropout_keep(uint64_t seed, uint64_t index, uint32_t threshold) {
    return kernels::dropout_keep(seed, index, threshold);
}

// Consistency-model skip coefficients for batch element b of `batch`, largest noise level t:
// t_b = t (b + 1) / batch, c_skip = sigma_d^2 / (t_b^2 + sigma_d^2), c_out = sigma_d t_b / sqrt(sigma_d^2 + t_b^2).
// out = c_skip x + c_out O, and exactly c_skip x when c_out is 0 (t = 0).
__device__ __forceinline__ void skip_coefficients(float t, float sigma_d, int b, int batch, float& c_skip, float& c_out) {
    const float tb = t * static_cast<float>(b + 1) / static_cast<float>(batch);
    const float s2 = sigma_d * sigma_d;
    c_skip = s2 / (tb * tb + s2);
    c_out = sigma_d * tb / sqrtf(s2 + tb * tb);
}
