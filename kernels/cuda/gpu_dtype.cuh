// Element conversions between the stored dtype and the float every kernel computes in, shared by
// the elementwise and attention kernels (round to nearest even on the way back), and the host-side
// dispatch from a DType to its element type.
#pragma once

#include "kernels/core/types.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace kernels::gpu {

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
    return __float2bfloat16_rn(v);
}

// Calls f(T{}) with T the element type of t: float, __half or __nv_bfloat16.
template <typename F> void with_type(DType t, F&& f) {
    switch (t) {
    case DType::f32: f(float{}); return;
    case DType::f16: f(__half{}); return;
    case DType::bf16: f(__nv_bfloat16{}); return;
    }
}

}  // namespace kernels::gpu
