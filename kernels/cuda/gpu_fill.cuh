// The one input fill (kernels/cuda/gpu_fill.cu), for every device buffer that needs values: each
// workload's inputs (its GpuWorkload's fill_inputs), the GEMM ceiling's operands
// (kernels/profiling/ceilings.cu) and the tests' own buffers. Element i of `dst` (`elements` of
// dtype t) is input_value(seed, tensor_id, i) (kernels/core/philox.h: uniform in [-1, 1), never
// zeros), times map.scale plus map.offset when they are not 1 and 0, each a separate fp32 rounding
// as the workload's host-side *_value() functions compute it, rounded to t.
#pragma once

#include "kernels/core/types.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace kernels::gpu {

struct InputScale {
    float scale = 1.0f, offset = 0.0f;
};
void fill_input(DType t, void* dst, int64_t elements, uint64_t seed, uint32_t tensor_id, cudaStream_t stream,
                InputScale map = {});

}  // namespace kernels::gpu
