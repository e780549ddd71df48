// Attention on the GPU: O = softmax(Q Kᵀ / sqrt(d) [+ causal mask]) V, batch_heads x N x d.
//
// Versions (each computes the same function; see attention.h for the model of each):
//   naive     What framework eager mode does. cuBLAS strided-batched GEMM writes S = Q Kᵀ / sqrt(d)
//             (N x N per head) to HBM; a row-softmax kernel reads S and writes P; cuBLAS reads P and V
//             and writes O. fp16/bf16 run on tensor cores with fp32 accumulation; fp32 runs in true
//             fp32 (CUBLAS_COMPUTE_32F, default math mode: no TF32).
//   flash     The teaching kernel. What changes: S and P never reach HBM. One thread block owns Br rows
//             of Q (Qi) and loops over tiles Kj, Vj of Bc rows staged in shared memory; it keeps the
//             running row max m and row sum l, rescales its Oi accumulator when m grows, and stores Oi
//             once at the end. Plain fp32 FMAs from shared memory, one loop per step of the paper,
//             so the code reads like the animation. Any d <= 128; Br, Bc in {16, 32, 64, 128}.
//   flash_tc  The same loop on tensor cores (sm_80+, mma.sync, ldmatrix, cp.async): its own file,
//             attention_tc.cu (its header comment says what changes and which tiles it takes).
//   flash_wgmma  The same loop on Hopper's wgmma and TMA with warp roles: its own file,
//             attention_wgmma.cu, built for sm_90a only (its header comment has its versions).
// The three flash kernels take an optional skip-connection epilogue (attention_epilogue.cuh, for
// kernels/skip): instead of storing O they load the x tile into SRAM (Qi's space, free by then) and
// write out = c_skip x + c_out O, so O never reaches HBM. The epilogue is a template flag (kSkip):
// the instances without it compile to the code they had before it existed (same registers; a
// runtime branch instead cost flash_tc 1.1%), at the price of twice the instances.
//
// [SECTION] Element types and small helpers
// [SECTION] naive: cuBLAS GEMMs + softmax kernel
// [SECTION] flash: the teaching kernel
// [SECTION] Buffers, launch, checks
// [SECTION] Skip epilogue entry point (attention_epilogue.cuh)
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
#include "kernels/attention/attention.h"
#include "kernels/attention/attention_device.cuh"
#include "kernels/attention/attention_epilogue.cuh"
#include "kernels/attention/attention_tc.cuh"
#include "kernels/attention/attention_wgmma.cuh"
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/cuda/gpu_dtype.cuh"
#include "kernels/cuda/gpu_memory.cuh"
#include "kernels/gpu/gpu_memory_info.h"
#include "kernels/gpu/gpu_workload.h"
#include "kernels/core/philox.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kernels::attention::gpu {

using kernels::gpu::check;
using kernels::gpu::DeviceMemory;
using kernels::gpu::from_float;
using kernels::gpu::to_float;
using kernels::gpu::with_type;
using kernels::gpu::check_launch;

namespace {

// =============================================================================================
// [SECTION] Element types and small helpers
// =============================================================================================
// 8 consecutive elements as float: one 16-byte load for 2-byte types, two for fp32.
template <typename T> __device__ __forceinline__ void load8(const T* src, float (&v)[8]) {
    if constexpr (sizeof(T) == 4) {
        const float4 a = reinterpret_cast<const float4*>(src)[0], b = reinterpret_cast<const float4*>(src)[1];
        v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w; v[4] = b.x; v[5] = b.y; v[6] = b.z; v[7] = b.w;
    } else {
        const uint4 raw = *reinterpret_cast<const uint4*>(src);
        const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = to_float(e[i]);
    }
}

template <typename T> __device__ __forceinline__ void store8(T* dst, const float (&v)[8]) {
    if constexpr (sizeof(T) == 4) {
        reinterpret_cast<float4*>(dst)[0] = make_float4(v[0], v[1], v[2], v[3]);
        reinterpret_cast<float4*>(dst)[1] = make_float4(v[4], v[5], v[6], v[7]);
    } else {
        uint4 raw;
        T* e = reinterpret_cast<T*>(&raw);
#pragma unroll
        for (int i = 0; i < 8; ++i) e[i] = from_float<T>(v[i]);
        *reinterpret_cast<uint4*>(dst) = raw;
    }
}

// Block-wide reductions through 32 floats of shared memory; every thread gets the result.
template <bool kMax> __device__ float block_reduce(float v, float* scratch) {
    for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = kMax ? fmaxf(v, w) : v + w;
    }
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const int warps = static_cast<int>(blockDim.x) / 32;
    __syncthreads();  // scratch may still be read by a previous reduction
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < warps ? scratch[lane] : (kMax ? -INFINITY : 0.0f);
    for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = kMax ? fmaxf(v, w) : v + w;
    }
    return v;
}

// =============================================================================================
// [SECTION] naive: cuBLAS GEMMs + softmax kernel
// =============================================================================================
void check_cublas(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}

// One handle per process, created on first use by the thread that owns the CUDA work, destroyed at
// exit (compute-sanitizer's leak check counted its 64 MiB workspace as leaked otherwise).
struct CublasHandleOwner {
    cublasHandle_t handle = nullptr;
    ~CublasHandleOwner() {
        if (handle) (void)cublasDestroy(handle);
    }
};

cublasHandle_t cublas_handle() {
    static std::mutex mutex;
    static CublasHandleOwner owner;
    cublasHandle_t& handle = owner.handle;
    std::lock_guard<std::mutex> lock(mutex);
    if (handle == nullptr) {
        check_cublas(cublasCreate(&handle), "cublasCreate");
        // Default math: fp32 GEMMs stay true fp32 (TF32 only with CUBLAS_TF32_TENSOR_OP_MATH).
        check_cublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    }
    return handle;
}

// Each GEMM configuration is counted where it is issued (kernels/gpu/gpu_memory_info.h).
void note_gemm_config(cudaDataType t, cublasOperation_t a, cublasOperation_t b, int m, int n, int k, int batch) {
    note_cublas_gemm_config(static_cast<int>(t), static_cast<int>(a), static_cast<int>(b), m, n, k, batch);
}

cudaDataType cuda_type(DType t) {
    switch (t) {
    case DType::f32: return CUDA_R_32F;
    case DType::f16: return CUDA_R_16F;
    case DType::bf16: return CUDA_R_16BF;
    }
    return CUDA_R_32F;
}

// Row-major S (N x N) = Q Kᵀ is column-major Sᵀ = K Qᵀ: cuBLAS C = op(A) op(B) with A = K read as
// column-major d x N (transposed: N x d) and B = Q as column-major d x N.
// HBM: reads Q, K (2 N d es), writes S (N² es) per head.
void launch_gemm_qk(const AttentionParams& p, const void* Q, const void* K, void* S, cudaStream_t stream) {
    cublasHandle_t h = cublas_handle();
    check_cublas(cublasSetStream(h, stream), "cublasSetStream");
    const float alpha = 1.0f / std::sqrt(static_cast<float>(p.d)), beta = 0.0f;
    const int n = static_cast<int>(p.N), d = static_cast<int>(p.d);
    const long long stride_in = p.N * p.d, stride_s = p.N * p.N;
    const cudaDataType t = cuda_type(p.dtype);
    note_gemm_config(t, CUBLAS_OP_T, CUBLAS_OP_N, n, n, d, static_cast<int>(p.batch_heads));
    check_cublas(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, d, &alpha, K, t, d, stride_in, Q, t, d,
                                            stride_in, &beta, S, t, n, stride_s, static_cast<int>(p.batch_heads),
                                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cuBLAS GEMM S = Q K^T");
}

// Row-major O (N x d) = P V is column-major Oᵀ = Vᵀ Pᵀ: A = V as column-major d x N, B = P as
// column-major N x N (= Pᵀ). HBM: reads P (N² es) and V (N d es), writes O (N d es) per head.
void launch_gemm_pv(const AttentionParams& p, const void* P, const void* V, void* O, cudaStream_t stream) {
    cublasHandle_t h = cublas_handle();
    check_cublas(cublasSetStream(h, stream), "cublasSetStream");
    const float alpha = 1.0f, beta = 0.0f;
    const int n = static_cast<int>(p.N), d = static_cast<int>(p.d);
    const long long stride_in = p.N * p.d, stride_p = p.N * p.N;
    const cudaDataType t = cuda_type(p.dtype);
    note_gemm_config(t, CUBLAS_OP_N, CUBLAS_OP_N, d, n, n, static_cast<int>(p.batch_heads));
    check_cublas(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, d, n, n, &alpha, V, t, d, stride_in, P, t, n,
                                            stride_p, &beta, O, t, d, stride_in, static_cast<int>(p.batch_heads),
                                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cuBLAS GEMM O = P V");
}

// One block per row of S (batch_heads x N rows). The row is held in registers: each thread owns
// kChunks chunks of VEC consecutive elements (VEC = 8: 16-byte loads for fp16/bf16; VEC = 1: the
// ragged-N path). S is already scaled by 1/sqrt(d).
template <typename T, int VEC, int kChunks>
__global__ void __launch_bounds__(1024) softmax_kernel(const T* __restrict__ S, T* __restrict__ P, int64_t N,
                                                         bool causal) {
    __shared__ float scratch[32];
    const int64_t row_id = blockIdx.x;
    const int64_t query = row_id % N;
    const int64_t keys = causal ? query + 1 : N;  // keys after the query are masked out
    const T* s = S + row_id * N;
    T* prow = P + row_id * N;
    float x[kChunks][VEC];
    float row_max = -INFINITY;
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
        const int64_t base = (static_cast<int64_t>(k) * blockDim.x + threadIdx.x) * VEC;
        if constexpr (VEC == 8) {
            if (base < N) load8(s + base, x[k]);  // load S row into registers
        } else {
            if (base < N) x[k][0] = to_float(s[base]);  // load S row into registers
        }
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
            x[k][v] = (base + v < keys) ? x[k][v] * kLog2e : -INFINITY;
            row_max = fmaxf(row_max, x[k][v]);
        }
    }
    row_max = block_reduce<true>(row_max, scratch);
    float sum = 0;
#pragma unroll
    for (int k = 0; k < kChunks; ++k)
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
            x[k][v] = fast_exp2(x[k][v] - row_max);  // masked: exp2(-inf) = 0
            sum += x[k][v];
        }
    const float inv = 1.0f / block_reduce<false>(sum, scratch);
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
        const int64_t base = (static_cast<int64_t>(k) * blockDim.x + threadIdx.x) * VEC;
#pragma unroll
        for (int v = 0; v < VEC; ++v) x[k][v] *= inv;
        if constexpr (VEC == 8) {
            if (base < N) store8(prow + base, x[k]);  // store P row to HBM
        } else {
            if (base < N) prow[base] = from_float<T>(x[k][0]);  // store P row to HBM
        }
    }
}

// HBM: reads S (N² es), writes P (N² es) per head; one block of softmax_threads(p) per row.
void launch_softmax(const AttentionParams& p, const void* S, void* P, cudaStream_t stream) {
    const unsigned blocks = static_cast<unsigned>(p.batch_heads * p.N);
    const int threads = softmax_threads(p);
    const int width = softmax_vector_width(p), chunks = softmax_chunks(p);
    with_type(p.dtype, [&](auto zero) {
        using T = decltype(zero);
        const T* s = static_cast<const T*>(S);
        T* out = static_cast<T*>(P);
        auto launch = [&](auto kernel) { kernel<<<blocks, threads, 0, stream>>>(s, out, p.N, p.causal); };
        if (width == 8 && chunks == 1) launch(softmax_kernel<T, 8, 1>);
        else if (width == 8 && chunks == 2) launch(softmax_kernel<T, 8, 2>);
        else if (width == 8 && chunks == 4) launch(softmax_kernel<T, 8, 4>);
        else if (width == 8) launch(softmax_kernel<T, 8, 8>);
        else if (chunks == 4) launch(softmax_kernel<T, 1, 4>);
        else if (chunks == 16) launch(softmax_kernel<T, 1, 16>);
        else launch(softmax_kernel<T, 1, 64>);
    });
    check_launch("softmax_kernel");
}

// =============================================================================================
// [SECTION] flash: the teaching kernel
// =============================================================================================
// Grid: (Tr = ceil(N / Br) row blocks, batch_heads). Shared memory (flash_smem_bytes): fp32 Sij
// [Br][Bc + 1], Oi [Br][d], m, l, rescale [Br]; then Qi [Br][ld], Kj, Vj [Bc][ld] in T, where
// ld = flash_tile_row_stride(d) pads each row to an odd number of words (no bank conflicts).
extern __shared__ float flash_smem[];

template <typename T> struct FlashSram {
    float* Sij;      // [Br][Bc + 1] scores, then probabilities
    float* Oi;       // [Br][d] unnormalised output accumulator
    float* m;        // [Br] running row max (log2 units)
    float* l;        // [Br] running row sum of exp
    float* rescale;  // [Br] e^(m_old - m_new) of the current step
    T* Qs;           // [Br][ld]
    T* Ks;           // [Bc][ld]
    T* Vs;           // [Bc][ld]

    __device__ __forceinline__ FlashSram(int Br, int Bc, int d, int ld) {
        Sij = flash_smem;
        Oi = Sij + Br * (Bc + 1);
        m = Oi + Br * d;
        l = m + Br;
        rescale = l + Br;
        Qs = reinterpret_cast<T*>(rescale + Br);
        Ks = Qs + Br * ld;
        Vs = Ks + Bc * ld;
    }
};

// The j-loop over the Kj, Vj tiles, a function of its own that both flash_kernel instances call and
// never inline, so the skip epilogue cannot change how the loop compiles. Inlined into the instance
// with the epilogue, ptxas gave the whole kernel 40 registers instead of 48 and the loop ran 43%
// slower on an H200 (kernels/PERF.md, "Skip epilogue"). The tiles are found through flash_smem, not
// passed as pointers, so the loop keeps its shared-memory loads and stores (LDS/STS, not generic).
template <typename T>
__device__ __noinline__ void flash_kv_loop(const T* __restrict__ Kh, const T* __restrict__ Vh, int N, int d, int Br,
                                           int Bc, int ld, int row0, int rows, bool causal, float scale_log2) {
    const FlashSram<T> sram(Br, Bc, d, ld);
    float* Sij = sram.Sij;
    float* Oi = sram.Oi;
    float* m = sram.m;
    float* l = sram.l;
    float* rescale = sram.rescale;
    const T* Qs = sram.Qs;
    T* Ks = sram.Ks;
    T* Vs = sram.Vs;
    const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
    const int s_ld = Bc + 1;
    const int kv_end = causal ? row0 + rows : N;  // keys this block may attend to
    const int tiles = (kv_end + Bc - 1) / Bc;
    for (int j = 0; j < tiles; ++j) {
        const int col0 = j * Bc, cols = min(Bc, N - col0);
        __syncthreads();  // the previous step is done with Kj, Vj and Sij
        for (int idx = tid; idx < cols * d; idx += threads) {
            const int r = idx / d, c = idx % d;
            Ks[r * ld + c] = Kh[static_cast<size_t>(col0 + r) * d + c];  // load Kj, Vj into SRAM
            Vs[r * ld + c] = Vh[static_cast<size_t>(col0 + r) * d + c];
        }
        __syncthreads();

        // compute Sij = Qi Kjᵀ / sqrt(d), in log2 units; masked entries get -inf
        for (int idx = tid; idx < rows * cols; idx += threads) {
            const int r = idx / cols, c = idx % cols;
            float acc = 0.0f;
            for (int k = 0; k < d; ++k) acc += to_float(Qs[r * ld + k]) * to_float(Ks[c * ld + k]);
            const bool masked = causal && col0 + c > row0 + r;
            Sij[r * s_ld + c] = masked ? -INFINITY : acc * scale_log2;
        }
        __syncthreads();

        // update m, l: one thread per row
        for (int r = tid; r < rows; r += threads) {
            float m_new = m[r];
            for (int c = 0; c < cols; ++c) m_new = fmaxf(m_new, Sij[r * s_ld + c]);
            float row_sum = 0.0f;
            for (int c = 0; c < cols; ++c) {
                const float pr = exp2f(Sij[r * s_ld + c] - m_new);  // Pij, unnormalised
                Sij[r * s_ld + c] = pr;
                row_sum += pr;
            }
            // Tile 0 holds key 0, which every row sees, so m is finite from the first step on.
            rescale[r] = exp2f(m[r] - m_new);
            l[r] = l[r] * rescale[r] + row_sum;
            m[r] = m_new;
        }
        __syncthreads();

        // accumulate Oi = Oi e^(m_old - m_new) + Pij Vj
        for (int idx = tid; idx < rows * d; idx += threads) {
            const int r = idx / d, c = idx % d;
            float acc = Oi[r * d + c] * rescale[r];
            for (int k = 0; k < cols; ++k) acc += Sij[r * s_ld + k] * to_float(Vs[k * ld + c]);
            Oi[r * d + c] = acc;
        }
    }
}

template <typename T, bool kSkip>
__global__ void __launch_bounds__(128) flash_kernel(const T* __restrict__ Q, const T* __restrict__ K,
                                                    const T* __restrict__ V, T* __restrict__ O, int N, int d, int Br,
                                                    int Bc, int ld, bool causal, float scale_log2, SkipEpilogue ep) {
    const FlashSram<T> sram(Br, Bc, d, ld);
    float* Oi = sram.Oi;
    float* m = sram.m;
    float* l = sram.l;
    T* Qs = sram.Qs;

    const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
    const int row0 = static_cast<int>(blockIdx.x) * Br;
    const int rows = min(Br, N - row0);
    const size_t head = static_cast<size_t>(blockIdx.y) * static_cast<size_t>(N) * static_cast<size_t>(d);
    const T* Qh = Q + head;

    for (int idx = tid; idx < rows * d; idx += threads) {
        const int r = idx / d, c = idx % d;
        Qs[r * ld + c] = Qh[static_cast<size_t>(row0 + r) * d + c];  // load Qi into SRAM
        Oi[r * d + c] = 0.0f;
    }
    for (int r = tid; r < rows; r += threads) {
        m[r] = -INFINITY;
        l[r] = 0.0f;
    }

    flash_kv_loop(K + head, V + head, N, d, Br, Bc, ld, row0, rows, causal, scale_log2);
    __syncthreads();
    if constexpr (!kSkip) {
        (void)ep;
        T* Oh = O + head;
        for (int idx = tid; idx < rows * d; idx += threads) {
            const int r = idx / d, c = idx % d;
            Oh[static_cast<size_t>(row0 + r) * d + c] = from_float<T>(Oi[r * d + c] / l[r]);  // store Oi
        }
        return;
    }
    // Skip epilogue: Qi is done, so its SRAM takes the x tile; O = Oi / l never reaches HBM.
    const int bh = static_cast<int>(blockIdx.y);
    const T* x = static_cast<const T*>(ep.x);
    T* out = static_cast<T*>(ep.out);
    for (int idx = tid; idx < rows * d; idx += threads) {
        const int r = idx / d, c = idx % d;
        Qs[r * ld + c] = x[bnc_row_offset(ep, bh, row0 + r, N, d) + c];  // load x tile into SRAM
    }
    __syncthreads();
    const SkipCoefficients k = skip_coefficients(ep, bh);
    for (int idx = tid; idx < rows * d; idx += threads) {
        const int r = idx / d, c = idx % d;
        out[bnc_row_offset(ep, bh, row0 + r, N, d) + c] =
            from_float<T>(skip_value(to_float(Qs[r * ld + c]), Oi[r * d + c] / l[r], k));  // write out tile to HBM
    }
}

// HBM per head: reads Qi once per block (N d es), Kj and Vj once per (block, j) — K and V Tr times
// when not causal, 2 Tr N d es — and writes O once (N d es). See attention_model.cpp.
void launch_flash(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O, cudaStream_t stream,
                  const SkipEpilogue& ep = SkipEpilogue{}) {
    const int Tr = static_cast<int>((p.N + p.Br - 1) / p.Br);
    const dim3 grid(static_cast<unsigned>(Tr), static_cast<unsigned>(p.batch_heads));
    const int smem = static_cast<int>(flash_smem_bytes("flash", p));
    const int ld = static_cast<int>(flash_tile_row_stride(p.d, p.dtype));
    const float scale_log2 = kLog2e / std::sqrt(static_cast<float>(p.d));
    with_type(p.dtype, [&](auto zero) {
        using T = decltype(zero);
        // The skip epilogue is its own instance, so the plain kernel's code is what it was without it.
        auto launch = [&](auto kernel) {
            check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
                  "flash: allowing " + std::to_string(smem) + " bytes of shared memory");
            kernel<<<grid, flash_threads(), static_cast<size_t>(smem), stream>>>(
                static_cast<const T*>(Q), static_cast<const T*>(K), static_cast<const T*>(V), static_cast<T*>(O),
                static_cast<int>(p.N), static_cast<int>(p.d), p.Br, p.Bc, ld, p.causal, scale_log2, ep);
        };
        if (ep.x != nullptr) launch(flash_kernel<T, true>);
        else launch(flash_kernel<T, false>);
    });
    check_launch("flash_kernel");
}

// =============================================================================================
// [SECTION] Buffers, launch, checks
// =============================================================================================
}  // namespace

#if !FUSIONLAB_HAVE_WGMMA
// Builds whose architecture list has no 90 have no flash_wgmma kernel; the workload's device refusal
// (attention_def.cpp, kernel_not_built) refuses it first.
void launch_flash_wgmma(const AttentionParams&, const void*, const void*, const void*, void*, cudaStream_t,
                        const SkipEpilogue&) {
    throw std::invalid_argument("flash_wgmma is not in this build (no sm_90a code)");
}
#endif

namespace {

struct Buffers {
    DeviceMemory q, k, v, o, s, p;  // s, p: naive only
};

void allocate(Variant variant, const AttentionParams& p, Buffers& b) {
    const size_t tensor = static_cast<size_t>(p.batch_heads * p.N * p.d) * static_cast<size_t>(dtype_bytes(p.dtype));
    b.q = DeviceMemory(tensor, "Q");
    b.k = DeviceMemory(tensor, "K");
    b.v = DeviceMemory(tensor, "V");
    b.o = DeviceMemory(tensor, "O");
    if (variant == Variant::naive) {
        const size_t nn = static_cast<size_t>(naive_scratch_bytes(p) / 2);
        b.s = DeviceMemory(nn, "S");
        b.p = DeviceMemory(nn, "P");
    }
}

// Q, K, V from input_value() rounded to the dtype (bit-identical to q_value() and friends).
void fill_inputs(const AttentionParams& p, const Buffers& b, cudaStream_t stream) {
    const int64_t n = p.batch_heads * p.N * p.d;
    kernels::gpu::fill_input(p.dtype, b.q.get(), n, p.seed, kQ, stream);
    kernels::gpu::fill_input(p.dtype, b.k.get(), n, p.seed, kK, stream);
    kernels::gpu::fill_input(p.dtype, b.v.get(), n, p.seed, kV, stream);
}

// 0xFF bytes are NaN in fp32, fp16 and bf16: an element a kernel leaves unwritten shows up.
void poison_outputs(const AttentionParams& p, const Buffers& b, cudaStream_t stream) {
    const size_t tensor = static_cast<size_t>(p.batch_heads * p.N * p.d) * static_cast<size_t>(dtype_bytes(p.dtype));
    check(cudaMemsetAsync(b.o.get(), 0xFF, tensor, stream), "poisoning O");
    if (b.s.get()) {
        const size_t nn = static_cast<size_t>(naive_scratch_bytes(p) / 2);
        check(cudaMemsetAsync(b.s.get(), 0xFF, nn, stream), "poisoning S");
        check(cudaMemsetAsync(b.p.get(), 0xFF, nn, stream), "poisoning P");
    }
}

size_t kernel_count_of(Variant variant) {
    if (variant == Variant::naive) return 3;
    if (is_flash(variant)) return 1;
    throw std::invalid_argument(std::string("attention has no kernels for ") + name_of(variant));
}

// Kernel k of the variant, in the model's order (attention_model.cpp's schedule).
void launch_kernel_of(Variant variant, size_t k, const AttentionParams& p, const Buffers& b, cudaStream_t stream) {
    if (k >= kernel_count_of(variant))
        throw std::invalid_argument(std::string(name_of(variant)) + " has no kernel " + std::to_string(k));
    switch (variant) {
    case Variant::naive:
        if (k == 0) launch_gemm_qk(p, b.q.get(), b.k.get(), b.s.get(), stream);
        else if (k == 1) launch_softmax(p, b.s.get(), b.p.get(), stream);
        else launch_gemm_pv(p, b.p.get(), b.v.get(), b.o.get(), stream);
        return;
    case Variant::flash: return launch_flash(p, b.q.get(), b.k.get(), b.v.get(), b.o.get(), stream);
    case Variant::flash_tc: return launch_flash_tc(p, b.q.get(), b.k.get(), b.v.get(), b.o.get(), stream);
    case Variant::flash_wgmma: return launch_flash_wgmma(p, b.q.get(), b.k.get(), b.v.get(), b.o.get(), stream);
    }
}

}  // namespace

// =============================================================================================
// [SECTION] Skip epilogue entry point (attention_epilogue.cuh)
// =============================================================================================
std::string kernel_not_built(const std::string& kernel) {
#if !FUSIONLAB_HAVE_WGMMA
    if (find_variant(kernel) == Variant::flash_wgmma)
        return "flash_wgmma is not in this build: its kernel is sm_90a code, built only when FUSIONLAB_CUDA_ARCHS "
               "contains 90";
#endif
    (void)kernel;
    return "";
}

void launch_attention_kernel(Variant kernel, const AttentionParams& p, const void* Q, const void* K, const void* V,
                             void* O, const SkipEpilogue& ep, cudaStream_t stream) {
    switch (kernel) {
    case Variant::flash: return launch_flash(p, Q, K, V, O, stream, ep);
    case Variant::flash_tc: return launch_flash_tc(p, Q, K, V, O, stream, ep);
    case Variant::flash_wgmma: return launch_flash_wgmma(p, Q, K, V, O, stream, ep);
    default: break;
    }
    throw std::invalid_argument(std::string("no attention kernel '") + name_of(kernel) +
                                "' with a skip epilogue: flash, flash_tc or flash_wgmma");
}

}  // namespace kernels::attention::gpu

// =============================================================================================
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
// =============================================================================================
namespace kernels::attention::gpu {
namespace {

// Sampled (head, row) pairs of O (rows_to_check) against the float64 reference; the whole of O
// scanned on the device for poison or non-finite values.
//
// The reference rows do not depend on the variant (nor on Br, Bc), and computing them is the
// slow part (N x d Philox inputs per sampled head, then the rows): ~90 ms at N = 8192 on one core.
// So they are computed once per parameter set, on a thread of their own that starts before the
// checked run and works while the GPU runs and the timed reps follow; every variant of the same
// parameters (the live loop runs them back to back) reuses them. A time is still never reported
// for a run whose output has not been compared (the harness compares before it reports).
struct Reference {
    std::vector<RowRef> rows;
    std::vector<double> want;  // rows.size() x d
};
using SharedReference = std::shared_future<std::shared_ptr<const Reference>>;

SharedReference reference_for(const AttentionParams& a, double max_mults) {
    struct Entry {
        AttentionParams key;
        double max_mults = 0;
        SharedReference reference;
    };
    static std::mutex mutex;
    static Entry last;
    AttentionParams key = a;
    key.Br = key.Bc = 0;  // tiles change how, not what
    std::lock_guard<std::mutex> lock(mutex);
    if (last.reference.valid() && last.key == key && last.max_mults == max_mults) return last.reference;
    last.key = key;
    last.max_mults = max_mults;
    last.reference = std::async(std::launch::async, [key, max_mults] {
                         auto ref = std::make_shared<Reference>();
                         ref->rows = rows_to_check(key, max_mults);
                         const size_t d = static_cast<size_t>(key.d);
                         ref->want.resize(ref->rows.size() * d);
                         for (size_t i = 0; i < ref->rows.size(); ++i)
                             reference_row(key, ref->rows[i].head, ref->rows[i].row, &ref->want[i * d]);
                         return std::shared_ptr<const Reference>(std::move(ref));
                     }).share();
    return last.reference;
}

// The attention workload's device side: Q, K, V, O (and naive's S and P), one buffer set (the timed
// reps rewrite O, S and P and only read Q, K, V), and the check against the float64 reference.
class AttentionGpu final : public GpuWorkload {
public:
    uint64_t bytes_per_set(const std::string& variant, const Params& params) const override {
        return set_bytes(variant_of(variant), to_attention(params));
    }
    std::string buffers_named(const std::string& variant, const Params&) const override {
        return variant_of(variant) == Variant::naive ? "Q, K, V, O and naive's S and P" : "Q, K, V and O";
    }

    // Keeps the buffers when they already have the sizes (tiles, causal and seed do not change
    // them); frees the old ones first otherwise, so a smaller configuration never needs both.
    void prepare(const std::string& variant_name, const Params& params, int, cudaStream_t) override {
        const Variant variant = variant_of(variant_name);
        const AttentionParams a = to_attention(params);
        const bool same = (variant_ == Variant::naive) == (variant == Variant::naive) && a_.batch_heads == a.batch_heads &&
                          a_.N == a.N && a_.d == a.d && a_.dtype == a.dtype;
        kernels::gpu::keep_or_allocate(buffers_, prepared_, same, [&](Buffers& b) { allocate(variant, a, b); });
        variant_ = variant;
        a_ = a;
    }
    void release() override {
        buffers_ = Buffers{};
        prepared_ = false;
    }
    uint64_t bytes_held() const override { return prepared_ ? set_bytes(variant_, a_) : 0; }

    void fill_inputs(cudaStream_t stream) override { gpu::fill_inputs(a_, buffers_, stream); }
    void poison_outputs(cudaStream_t stream) override { gpu::poison_outputs(a_, buffers_, stream); }
    // In the model's order (naive: 0 gemm_qk, 1 softmax, 2 gemm_pv; the flash kernels: one).
    size_t kernel_count() const override { return kernel_count_of(variant_); }
    void launch_kernel(size_t k, int, cudaStream_t stream) override {
        launch_kernel_of(variant_, k, a_, buffers_, stream);
    }

    void begin_check(const CheckBudget& budget) override {
        max_mults_ = budget.max_mults;
        reference_ = reference_for(a_, max_mults_);  // starts on its own thread
    }
    // The non-finite count and the sampled rows of O, copied right after the checked run (the
    // timed reps that follow overwrite O).
    void gather_output(cudaStream_t s, unsigned long long* counter) override {
        nonfinite_ = kernels::gpu::scan_nonfinite(a_.dtype, buffers_.o.get(), output_elements(), counter, s);
        rows_ = rows_to_check(a_, max_mults_);
        const size_t d = static_cast<size_t>(a_.d), row_bytes = d * static_cast<size_t>(dtype_bytes(a_.dtype));
        std::vector<unsigned char> bits(row_bytes);
        got_.resize(rows_.size() * d);
        for (size_t i = 0; i < rows_.size(); ++i) {
            const auto* src = static_cast<const unsigned char*>(buffers_.o.get()) +
                              static_cast<size_t>(rows_[i].head * a_.N + rows_[i].row) * row_bytes;
            check(cudaMemcpy(bits.data(), src, row_bytes, cudaMemcpyDeviceToHost), "copying a row of O");
            kernels::gpu::to_float(a_.dtype, bits.data(), &got_[i * d], d);
        }
    }
    GpuCheck finish_check() override {
        const Reference& ref = *reference_.get();
        const size_t d = static_cast<size_t>(a_.d);
        if (got_.size() != ref.want.size())
            throw std::logic_error("attention check: the sampled rows differ from the reference's rows");
        ErrorSum errors(a_.dtype);
        for (size_t i = 0; i < ref.rows.size(); ++i)
            errors.add(&got_[i * d], &ref.want[i * d], d, (ref.rows[i].head * a_.N + ref.rows[i].row) * a_.d);
        GpuCheck c;
        c.first_wrong = errors.wrong_element_text([&](int64_t at) {
            return "O[problem " + std::to_string(at / (a_.N * a_.d)) + ", row " + std::to_string((at / a_.d) % a_.N) +
                   ", column " + std::to_string(at % a_.d) + "] (element " + std::to_string(at) + ")";
        });
        c.nonfinite = nonfinite_;
        c.output_elements = output_elements();
        const int64_t all_rows = a_.batch_heads * a_.N;
        c.elements = static_cast<int64_t>(ref.rows.size() * d);
        c.max_abs = errors.max_abs;
        c.rel_l2 = errors.rel_l2();
        c.note = (static_cast<int64_t>(ref.rows.size()) == all_rows
                      ? "all " + std::to_string(all_rows) + " rows of O"
                      : std::to_string(ref.rows.size()) + " of " + std::to_string(all_rows) +
                            " rows of O sampled (first, last, evenly spaced rows of the first, middle and last heads)") +
                 " vs the float64 CPU reference; all of O scanned for unwritten (poisoned) or non-finite elements";
        return c;
    }

    // The variant `yours` (exercises/online_softmax.exercise): Q, K, V in, O out, and the sizes.
    std::optional<StudentArgument> student_argument(const std::string& name) const override {
        if (name == "Q") return StudentArgument::of(buffers_.q.get(), "const T*");
        if (name == "K") return StudentArgument::of(buffers_.k.get(), "const T*");
        if (name == "V") return StudentArgument::of(buffers_.v.get(), "const T*");
        if (name == "O")
            return StudentArgument::of(buffers_.o.get(), "T*",
                                       static_cast<uint64_t>(output_elements()) * static_cast<uint64_t>(dtype_bytes(a_.dtype)));
        if (name == "N") return StudentArgument::of(static_cast<int>(a_.N), "int");
        if (name == "d") return StudentArgument::of(static_cast<int>(a_.d), "int");
        if (name == "batch_heads") return StudentArgument::of(static_cast<int>(a_.batch_heads), "int");
        if (name == "causal") return StudentArgument::of(a_.causal ? 1 : 0, "int");
        if (name == "scale") return StudentArgument::of(static_cast<float>(1.0 / std::sqrt(static_cast<double>(a_.d))), "float");
        return std::nullopt;
    }
    std::vector<std::string> student_argument_names() const override {
        return {"Q", "K", "V", "O", "N", "d", "batch_heads", "causal", "scale"};
    }

private:
    static uint64_t set_bytes(Variant variant, const AttentionParams& a) {
        return io_bytes(a) + (variant == Variant::naive ? naive_scratch_bytes(a) : 0);
    }
    int64_t output_elements() const { return a_.batch_heads * a_.N * a_.d; }

    Variant variant_ = Variant::naive;
    AttentionParams a_;
    bool prepared_ = false;
    Buffers buffers_;
    double max_mults_ = 4e8;
    SharedReference reference_;
    int64_t nonfinite_ = 0;
    std::vector<RowRef> rows_;
    std::vector<float> got_;
};

}  // namespace

std::unique_ptr<GpuWorkload> make_gpu_workload() { return std::make_unique<AttentionGpu>(); }

}  // namespace kernels::attention::gpu
