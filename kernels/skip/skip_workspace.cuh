// What the GPU backend (kernels/gpu/gpu_backend.cu) needs from the skip CUDA file: the device
// buffers of one configuration, filling and poisoning them, launching one kernel of a variant by
// its model index (so the backend's timing loop puts CUDA events at every kernel boundary), and
// reading rows of the result back for the check. Members throw on failure; the backend catches.
#pragma once

#include "kernels/skip/skip.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

namespace kernels::skip::gpu {

class Workspace {
public:
    Workspace();
    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    // Allocates the variant's buffers (q, k, v; attn_out unless fused; x and out unless attention);
    // keeps them when the sizes and the set of buffers are unchanged.
    void prepare(const std::string& variant, const SkipParams& p);
    void release();
    uint64_t bytes() const;  // device bytes held

    void fill_inputs(cudaStream_t stream) const;     // q, k, v, x from input_value(), rounded to the dtype
    void poison_outputs(cudaStream_t stream) const;  // attn_out, out := 0xFF bytes (NaN)
    // Kernel k in the model's order: 0 the attention kernel (with the epilogue when fused), 1 skip.
    void launch_kernel(size_t k, cudaStream_t stream) const;
    size_t kernel_count() const;
    // d raw elements of the result (out, or attn_out for the variant attention) of problem bh, row.
    void copy_result_row(int64_t bh, int64_t row, void* host_bits) const;
    const void* result() const;
    int64_t result_elements() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace kernels::skip::gpu
