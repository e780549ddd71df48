// What the GPU backend (kernels/gpu/gpu_backend.cu) needs from the attention CUDA file: the
// device buffers of one configuration, filling and poisoning them, and launching one kernel of a
// variant by its model index, so the backend's shared timing loop can put CUDA events at every
// kernel boundary. Every member throws CudaError / std::runtime_error on failure (the backend
// catches them); the plain entry points of attention_gpu.h stay non-throwing.
#pragma once

#include "kernels/attention/attention.h"
#include "kernels/attention/attention_gpu.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

namespace kernels::attention::gpu {

class Workspace {
public:
    Workspace();
    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    // Allocates Q, K, V, O (and naive's S, P) for variant and p; keeps the current buffers when
    // they already have those sizes. Frees the old buffers first, so a smaller configuration
    // after a large one never needs both.
    void prepare(const std::string& variant, const AttentionParams& p);
    void release();
    // Device bytes the prepared buffers hold.
    uint64_t bytes() const;

    // Q, K, V from input_value() rounded to the dtype (bit-identical to q_value() and friends).
    void fill_inputs(cudaStream_t stream) const;
    // O (and S, P) set to 0xFF bytes: NaN in every dtype, so an unwritten element is caught.
    void poison_outputs(cudaStream_t stream) const;
    // Kernel `k` of the prepared variant, in the model's order (naive: 0 gemm_qk, 1 softmax,
    // 2 gemm_pv; flash and flash_tc: 0, the one fused kernel).
    void launch_kernel(size_t k, cudaStream_t stream) const;
    size_t kernel_count() const;
    // O of head `head`, row `row`: d raw elements of the dtype, copied to host_bits
    // (d * dtype_bytes bytes). Synchronous.
    void copy_output_row(int64_t head, int64_t row, void* host_bits) const;
    const void* output() const;  // O on the device
    int64_t output_elements() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The device's facts as attention::device_refusal() takes them (with DeviceLimits::free_bytes).
DeviceInfo device_info(const DeviceLimits& dev);

}  // namespace kernels::attention::gpu
