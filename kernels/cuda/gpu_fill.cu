// The one input fill (declared in kernels/cuda/gpu_fill.cuh), for every device buffer that needs values:
// element i of tensor `tensor_id` is input_value(seed, tensor_id, i) (kernels/core/philox.h) in
// fp32, optionally scaled and offset as the workload's host-side *_value() functions do, then
// rounded to the storage type. Bit-identical to the host: the scale and the offset are applied as
// separate roundings (__fmul_rn, __fadd_rn: no FMA contraction), and only when they are not the
// identity (0 + -0 would turn -0 into +0).
#include "kernels/cuda/gpu_fill.cuh"

#include "kernels/core/philox.h"
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/cuda/gpu_dtype.cuh"

#include <algorithm>

namespace kernels::gpu {

namespace {

template <typename T>
__global__ void fill_kernel(T* dst, int64_t n, uint64_t seed, uint32_t tensor_id, float scale, float offset) {
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        float u = input_value(seed, tensor_id, static_cast<uint64_t>(i));
        if (scale != 1.0f) u = __fmul_rn(scale, u);
        if (offset != 0.0f) u = __fadd_rn(offset, u);
        dst[i] = from_float<T>(u);
    }
}

}  // namespace

void fill_input(DType t, void* dst, int64_t elements, uint64_t seed, uint32_t tensor_id, cudaStream_t stream,
                InputScale map) {
    if (dst == nullptr || elements <= 0) return;
    const int threads = 256;
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((elements + threads - 1) / threads, int64_t{1} << 16));
    with_type(t, [&](auto zero) {
        using T = decltype(zero);
        fill_kernel<T><<<blocks, threads, 0, stream>>>(static_cast<T*>(dst), elements, seed, tensor_id, map.scale,
                                                       map.offset);
    });
    check_launch("fill_input");
}

}  // namespace kernels::gpu
