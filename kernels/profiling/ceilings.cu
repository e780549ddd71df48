// Compute ceilings measured on the GPU: the roofs of the roofline.
//
// Versions (each measured once per device, driver and clocks; the numbers are cached, ceilings.cpp):
//   gemm_fp16 / gemm_bf16  cublasGemmEx, n = m = k = 8192 (1.1 TFLOP per call: long enough that
//                          launch cost is noise), fp16/bf16 in and out, CUBLAS_COMPUTE_32F (fp32
//                          accumulation, what the attention kernels use). Inputs uniform in
//                          [-1, 1) from the one input fill: tensor cores draw less power (and
//                          clock higher) on zeros.
//   fma_chain              kKernelChains independent chains of dependent fmaf per thread: each
//                          chain waits ~4 cycles per FMA, so 8 chains x many warps per SM keep
//                          every FP32 lane busy. 2 FLOPs per FMA.
// Timing: warm-up, then CUDA events around each call, median of the reps.
//
// [SECTION] Kernels
// [SECTION] Launchers and timing
// [SECTION] Dispatch: measure, cache
#include "kernels/profiling/ceilings.h"

#include "kernels/core/format.h"
#include "kernels/cuda/gpu_fill.cuh"
#include "kernels/cuda/gpu_memory.cuh"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kernels {

namespace {

using gpu::check;
using gpu::check_launch;
using gpu::DeviceMemory;
using gpu::Stream;

constexpr int kGemmN = 8192;
constexpr int kGemmWarmup = 3, kGemmReps = 10;
// The operands' values: input_value(kGemmSeed, tensor, i), tensor ids no workload uses (theirs are 1-99).
constexpr uint64_t kGemmSeed = 1;
constexpr uint32_t kGemmTensorA = 901, kGemmTensorB = 902;
constexpr int kKernelChains = 8;       // independent FMA chains per thread (ILP)
constexpr int kFmaIterations = 16384;  // per chain: ~1 ms per launch on an H100, launch cost is noise
constexpr int kFmaThreads = 256;
constexpr int kFmaBlocksPerSm = 8;
constexpr int kFmaWarmup = 2, kFmaReps = 10;

// =============================================================================================
// [SECTION] Kernels
// =============================================================================================
// kKernelChains chains of a = a * b + c. b slightly below 1 keeps them finite for any length;
// the store is conditional on a value no chain reaches, so the compiler must compute them all.
__global__ void __launch_bounds__(kFmaThreads) fma_chain(float b, float c, int iterations, float* sink) {
    float a[kKernelChains];
#pragma unroll
    for (int k = 0; k < kKernelChains; ++k) a[k] = static_cast<float>(threadIdx.x + k) * 1e-3f;
    for (int i = 0; i < iterations; i += 16) {
#pragma unroll
        for (int u = 0; u < 16; ++u)
#pragma unroll
            for (int k = 0; k < kKernelChains; ++k) a[k] = fmaf(a[k], b, c);
    }
    float sum = 0;
#pragma unroll
    for (int k = 0; k < kKernelChains; ++k) sum += a[k];
    if (sum == -12345.0f) sink[threadIdx.x] = sum;
}

// =============================================================================================
// [SECTION] Launchers and timing
// =============================================================================================
void check_cublas(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}

class CublasHandle {
public:
    CublasHandle() { check_cublas(cublasCreate(&h_), "cublasCreate"); }
    ~CublasHandle() { if (h_) (void)cublasDestroy(h_); }
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;
    cublasHandle_t get() const { return h_; }

private:
    cublasHandle_t h_ = nullptr;
};

class Events {
public:
    explicit Events(size_t n) : e_(n, nullptr) {
        for (cudaEvent_t& e : e_) check(cudaEventCreate(&e), "cudaEventCreate");
    }
    ~Events() {
        for (cudaEvent_t e : e_)
            if (e) (void)cudaEventDestroy(e);
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;
    cudaEvent_t operator[](size_t i) const { return e_[i]; }

private:
    std::vector<cudaEvent_t> e_;
};

// Median ms of `reps` calls of `call` after `warmup` untimed ones, events around each call.
template <typename Call>
double median_ms(cudaStream_t s, int warmup, int reps, Call call) {
    for (int i = 0; i < warmup; ++i) call();
    Events ev(2 * static_cast<size_t>(reps));
    for (int r = 0; r < reps; ++r) {
        check(cudaEventRecord(ev[2 * r], s), "cudaEventRecord");
        call();
        check(cudaEventRecord(ev[2 * r + 1], s), "cudaEventRecord");
    }
    check(cudaStreamSynchronize(s), "ceiling measurement");
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
        float t = 0;
        check(cudaEventElapsedTime(&t, ev[2 * r], ev[2 * r + 1]), "cudaEventElapsedTime");
        ms.push_back(t);
    }
    return summarize(ms).median_ms;
}

// TFLOP/s of C = A B (n x n x n, 2 n^3 FLOPs) through cublasGemmEx with fp32 accumulation.
template <typename T>
double gemm_tflops(cublasHandle_t h, cudaStream_t s, cudaDataType_t type) {
    static_assert(sizeof(T) == 2, "the GEMM ceilings are 16-bit");
    const size_t elements = size_t{kGemmN} * kGemmN;
    // A, B and C: 3 x 128 MiB for 2-byte types: "A", "B", "C" name them in an out-of-memory message.
    DeviceMemory A(elements * sizeof(T), "GEMM ceiling A"), B(elements * sizeof(T), "GEMM ceiling B"),
        C(elements * sizeof(T), "GEMM ceiling C");
    // The one input fill (kernels/cuda/gpu_fill.cuh): uniform in [-1, 1), on the device.
    const DType dtype = std::is_same_v<T, __half> ? DType::f16 : DType::bf16;
    gpu::fill_input(dtype, A.get(), static_cast<int64_t>(elements), kGemmSeed, kGemmTensorA, s);
    gpu::fill_input(dtype, B.get(), static_cast<int64_t>(elements), kGemmSeed, kGemmTensorB, s);
    check_cublas(cublasSetStream(h, s), "cublasSetStream");
    const float alpha = 1.0f, beta = 0.0f;
    const double ms = median_ms(s, kGemmWarmup, kGemmReps, [&] {
        check_cublas(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, kGemmN, kGemmN, kGemmN, &alpha, A.get(), type, kGemmN,
                                  B.get(), type, kGemmN, &beta, C.get(), type, kGemmN, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx");
    });
    const double flops = 2.0 * kGemmN * double(kGemmN) * kGemmN;
    return flops / (ms * 1e-3) / 1e12;
}

double fma_tflops(cudaStream_t s) {
    int device = 0, sms = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
    DeviceMemory sink(kFmaThreads * sizeof(float), "FMA ceiling sink");
    const int blocks = sms * kFmaBlocksPerSm;
    const double ms = median_ms(s, kFmaWarmup, kFmaReps, [&] {
        fma_chain<<<blocks, kFmaThreads, 0, s>>>(0.999f, 1e-4f, kFmaIterations, static_cast<float*>(sink.get()));
        check_launch("fma_chain");
    });
    const double flops = 2.0 * kKernelChains * double(kFmaIterations) * kFmaThreads * blocks;
    return flops / (ms * 1e-3) / 1e12;
}

}  // namespace

// =============================================================================================
// [SECTION] Dispatch: measure, cache
// =============================================================================================
ComputeCeilings measure_compute_ceilings() {
    ComputeCeilings c;
    std::string problems;
    try {
        Stream stream;
        try {
            c.fp32_fma_tflops = fma_tflops(stream.get());
        } catch (const std::exception& e) {
            problems += std::string(" FP32 FMA kernel failed: ") + e.what() + ";";
        }
        try {
            CublasHandle h;
            c.fp16_gemm_tflops = gemm_tflops<__half>(h.get(), stream.get(), CUDA_R_16F);
            c.bf16_gemm_tflops = gemm_tflops<__nv_bfloat16>(h.get(), stream.get(), CUDA_R_16BF);
        } catch (const std::exception& e) {
            problems += std::string(" cuBLAS GEMM failed: ") + e.what() + ";";
        }
    } catch (const std::exception& e) {
        problems += std::string(" ") + e.what() + ";";
    }
    c.how = "cuBLAS GemmEx " + std::to_string(kGemmN) + "^3 fp16 and bf16 in/out, fp32 accumulate, median of " +
            std::to_string(kGemmReps) + " after " + std::to_string(kGemmWarmup) + " warm-ups; FP32: " +
            std::to_string(kKernelChains) + " independent fmaf chains x " + std::to_string(kFmaIterations) +
            " per thread, " + std::to_string(kFmaBlocksPerSm) + " blocks of " + std::to_string(kFmaThreads) +
            " per SM, median of " + std::to_string(kFmaReps) + "; CUDA events";
    if (!problems.empty()) c.how += ";" + problems;
    return c;
}

void load_or_measure_compute_ceilings(DeviceInfo& d) {
    const std::string path = ceilings_cache_path();
    const std::string key = ceilings_cache_key(d);
    const CacheLookup cached = load_cached_ceilings(path, key);
    if (cached.found) {
        apply_compute_ceilings(d, cached.ceilings, cached.ceilings.how);
        return;
    }
    ComputeCeilings c = measure_compute_ceilings();
    std::string note = c.how + " [measured now";
    if (!cached.note.empty()) note += "; " + cached.note;
    if (c.fp16_gemm_tflops || c.bf16_gemm_tflops || c.fp32_fma_tflops) {
        const std::string error = save_cached_ceilings(path, key, c);
        note += error.empty() ? "; cached in " + path : "; not cached: " + error;
    }
    apply_compute_ceilings(d, c, note + "]");
}

}  // namespace kernels
