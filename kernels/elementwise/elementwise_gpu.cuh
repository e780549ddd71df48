// What the GPU backend needs from the elementwise CUDA file (kernels/elementwise/elementwise.cu):
// which device buffers a variant uses, filling the inputs, launching one kernel by its model name,
// and its GpuWorkload (the GPU backend reaches it through WorkloadDef::make_gpu). All functions throw CudaError on failure.
#pragma once

#include "kernels/core/types.h"
#include "kernels/elementwise/elementwise.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kernels::gpu {

using elementwise::ElementwiseParams;

// Device tensors of one buffer set. Element type is Params::dtype; a null pointer is "not used".
// Matrices are rows x hidden, row-major; gamma, beta, bias are hidden long.
struct ElementwiseBuffers {
    void* x = nullptr;
    void* residual = nullptr;
    void* gamma = nullptr;
    void* beta = nullptr;
    void* bias = nullptr;
    void* h1 = nullptr;  // chain: layernorm out; bias_gelu: h (bias_add out)
    void* h2 = nullptr;  // chain: gelu out
    void* h3 = nullptr;  // chain: dropout out
    void* out = nullptr;
};

// Which pointer of ElementwiseBuffers a buffer lives in.
using BufferSlot = void* ElementwiseBuffers::*;

// One buffer of a set, for allocation and poisoning. `output` buffers are written by the variant.
struct BufferSpec {
    std::string name;        // model buffer name: "x", "h1", "out"
    BufferSlot member;
    uint64_t elements;
    bool output;             // written by the variant's kernels (poisoned before the checked run)
};

std::vector<BufferSpec> buffer_specs(const std::string& variant, const ElementwiseParams& p);

// Fills every input of b (non-null) with input_value(seed, tensor id, index) rounded to the dtype,
// bit-identical to elementwise::x_value() and friends on the host.
void fill_inputs(const ElementwiseParams& p, const ElementwiseBuffers& b, cudaStream_t stream);

// Launches the kernel that the model calls `kernel_name` ("layernorm", "gelu", "fused_chain", ...)
// for p.workload. Throws std::invalid_argument for a name this workload does not have.
void launch_kernel(const std::string& kernel_name, const ElementwiseParams& p, const ElementwiseBuffers& b, cudaStream_t stream);

}  // namespace kernels::gpu
