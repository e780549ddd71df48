// Device helpers both attention kernel files use (attention.cu, attention_wgmma.cu): the exp2 of
// the online softmax and the packing of two fp32 values into one 16-bit pair register.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace kernels::attention::gpu {

inline constexpr float kLog2e = 1.4426950408889634f;

// 2^x on the special-function unit (MUFU.EX2), flushing denormals; exp2(-inf) = 0.
__device__ __forceinline__ float fast_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// 1 / l for a row whose sum four lanes hold a quarter each (a quad: lanes 4g .. 4g + 3, the layout of
// an mma/wgmma accumulator row): every lane of the warp must call it (the shuffles).
__device__ __forceinline__ float quad_sum_reciprocal(float l) {
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    return 1.0f / l;
}

// lo in the low 16 bits, hi in the high: the element order of an mma/wgmma A fragment register.
template <typename T> __device__ __forceinline__ uint32_t pack2(float lo, float hi) {
    uint32_t r;
    if constexpr (std::is_same_v<T, __half>) {
        const __half2 h = __floats2half2_rn(lo, hi);
        r = *reinterpret_cast<const uint32_t*>(&h);
    } else {
        const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        r = *reinterpret_cast<const uint32_t*>(&h);
    }
    return r;
}

}  // namespace kernels::attention::gpu
