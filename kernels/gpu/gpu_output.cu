// Output checks every workload's device side shares (kernels/gpu/gpu_workload.h): counting
// NaN/inf (unwritten poison) in a device tensor and raw dtype bits to float on the host (the error
// sums against the float64 reference are kernels/core/output_check.h's ErrorSum).
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/cuda/gpu_dtype.cuh"
#include "kernels/gpu/gpu_workload.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kernels::gpu {

namespace {

template <typename T>
__global__ void count_nonfinite_kernel(const T* src, int64_t n, unsigned long long* count) {
    unsigned long long bad = 0;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
        bad += isfinite(to_float(src[i])) ? 0u : 1u;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) bad += __shfl_xor_sync(0xFFFFFFFFu, bad, offset);
    if ((threadIdx.x & 31) == 0 && bad) atomicAdd(count, bad);
}

template <typename T>
void count_typed(const void* src, int64_t n, unsigned long long* count, cudaStream_t s) {
    if (n <= 0) return;
    const int threads = 256;
    const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, int64_t{1} << 14);
    count_nonfinite_kernel<T><<<static_cast<unsigned>(blocks), threads, 0, s>>>(static_cast<const T*>(src), n, count);
    check_launch("count_nonfinite");
}

float bf16_bits_to_float(uint16_t bits) {
    const uint32_t w = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &w, sizeof(f));
    return f;
}

}  // namespace

void count_nonfinite(DType t, const void* tensor, int64_t n, unsigned long long* count_device, cudaStream_t stream) {
    switch (t) {
    case DType::f32: count_typed<float>(tensor, n, count_device, stream); return;
    case DType::f16: count_typed<__half>(tensor, n, count_device, stream); return;
    case DType::bf16: count_typed<__nv_bfloat16>(tensor, n, count_device, stream); return;
    }
}

int64_t scan_nonfinite(DType t, const void* tensor, int64_t elements, unsigned long long* counter, cudaStream_t s) {
    check(cudaMemsetAsync(counter, 0, sizeof(unsigned long long), s), "cudaMemsetAsync");
    count_nonfinite(t, tensor, elements, counter, s);
    unsigned long long host = 0;
    check(cudaMemcpyAsync(&host, counter, sizeof(host), cudaMemcpyDeviceToHost, s), "cudaMemcpy");
    check(cudaStreamSynchronize(s), "output scan");
    return static_cast<int64_t>(host);
}

void to_float(DType t, const void* host_bits, float* dst, uint64_t elements) {
    switch (t) {
    case DType::f32: std::memcpy(dst, host_bits, elements * sizeof(float)); return;
    case DType::f16: {
        const __half* src = static_cast<const __half*>(host_bits);
        for (uint64_t i = 0; i < elements; ++i) dst[i] = __half2float(src[i]);
        return;
    }
    case DType::bf16: {
        const uint16_t* src = static_cast<const uint16_t*>(host_bits);
        for (uint64_t i = 0; i < elements; ++i) dst[i] = bf16_bits_to_float(src[i]);
        return;
    }
    }
}

}  // namespace kernels::gpu
