// Decode attention on the GPU: one query row per (sequence, head) against a KV cache of kv_len keys.
//   out[b, h] = softmax(q[b, h] K[b, g]ᵀ / sqrt(d)) V[b, g],  g = h / (heads / kv_heads)
//
// Versions (each computes the same function; decode_model.cpp has the bytes of each):
//   naive           What eager mode runs: naive_scores writes S = q Kᵀ / sqrt(d) to HBM (in the dtype),
//                   naive_softmax reads it twice and writes P, naive_pv reads P and V and writes out.
//                   Every query head reads its group's K and V itself (no GQA sharing).
//   flash           FlashAttention-2's decode: one block per (sequence, KV head) walks the whole cache
//                   with an online softmax; S and P never leave the registers. batch x kv_heads blocks:
//                   at batch 1 with 8 KV heads, 8 blocks on 132 SMs, each waiting a DRAM latency a step.
//   split_kv        Flash-Decoding: the same loop over a chunk of the keys, one block per (sequence, KV
//                   head, chunk), chunks enough for 4 blocks per SM (decode.h, auto_splits). Each block
//                   writes its partial (m, l, O) in fp32; split_kv_combine merges them exactly:
//                   M = max m_s, O = sum O_s 2^(m_s - M), l = sum l_s 2^(m_s - M), out = O / l.
//   split_kv_fused  The same blocks; the last one of each (sequence, KV head) to finish merges the
//                   partials itself: __threadfence() makes its partials visible, an atomicAdd on the
//                   group's counter says which block is last, and that block resets the counter.
//                   No second launch, and the partials are read back from L2 moments after they were
//                   written.
// GQA (kv_heads < heads): flash, split_kv and split_kv_fused run the same blocks and the same merges,
// but their key loop is decode_loop_mma (v5): the group's query rows (up to 16 heads; FlashDecoding's
// and FlashInfer's way for GQA) are the M side of S = Q Kᵀ and O = P V on the tensor cores, mma.sync
// m16n8k16 (FlashAttention-2's register reuse: S's C fragments are P's A fragment), with K and V copied
// DRAM -> shared memory by cp.async into a 3-slot ring per warp, so each tile is loaded once for every
// head of the group. decode.h says why this is not a variant of its own.
// Multi-head (kv_heads = heads): decode_loop, one query head a block on CUDA cores (fp32 FMAs): at one
// query row a head, a key costs 2 d FLOPs against 2 d es bytes, far under the FP32 roof.
// Layout of decode_loop's block: 4 warps; a token's d elements over d / 8 lanes (16-byte loads), so a
// warp walks 256 / d tokens side by side ("streams"), each with its own m, l, O; a stream loads
// kUnroll tokens before it uses any (the bytes in flight); at the end the streams merge by shuffles
// and the warps through shared memory. decode_emulate.cpp repeats both loops' order of operations.
// Tuning, measured on an H100 (kernels/PERF.md, "Decode"):
//   v1   one block per (sequence, KV head, split), up to 8 query heads a block on CUDA cores: GQA 8:1 at
//        41-49 % of the copy ceiling (255 registers, 2 blocks an SM)
//   v2   at most 4 query heads a block (passes), the merge over the splits unrolled 8 deep
//   v3   the key loop software-pipelined (Kj+1 under the softmax and Pj Vj), splits sized to one wave
//   v4   __launch_bounds__(128, 4) everywhere: the 4-head instance spilled (27-30 %)
//   v4b  launch bounds per instance (3 blocks of 4 heads, 4 of 1 or 2): GQA 8:1 at 44-56 %, latency- and
//        issue-bound on CUDA cores (ncu: 167 registers, DRAM 34 %); multi-head at 86-104 %
//   v5   GQA on tensor cores (decode_loop_mma): mma.sync m16n8k16, cp.async rings, one load per group;
//        149 registers at d = 128 (2 blocks an SM by their 96 KiB rings), 98-100 at d = 64
//   v6   a persistent grid for split_kv and split_kv_fused on tensor cores (decode_loop_mma_persistent,
//        FUSIONLAB_DECODE_GRID=persistent): one block per SM slot walks (sequence, KV head, split) units,
//        its rings running on across them. Round 1 (H200) timed its first form, which claimed units two
//        ahead from a counter and so handed them out unevenly: 1.5x slower at two units a block; this
//        static order passed the tests and sanitizers in round 2 but was not timed: waves stay the default
//   v6b  split_kv_fused's last block merges with the splits' weights found once, 16-byte loads of the
//        partial O (merge_splits_weighted): its GQA instance 255 -> 149 registers
//   v7   fewer instructions a step: a warp's 16 keys addressed once (one page-table entry), and O rescaled
//        only when a row's max moved: 30 % fewer instructions (ncu), GQA flash 1.9-2x faster; batch 8 x 8k
//        unchanged at 75 % of copy (H200): bound by its tail, not its issue (kernels/PERF.md, v7)
// [SECTION] Loads, conversions and the cache's addresses
// [SECTION] Inputs
// [SECTION] naive: scores, softmax, P V
// [SECTION] flash, split_kv, split_kv_fused: the key loop
// [SECTION] The GQA key loop on tensor cores (v5; v6: the persistent grid)
// [SECTION] split_kv_combine
// [SECTION] Buffers and launches
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/cuda/gpu_dtype.cuh"
#include "kernels/cuda/gpu_memory.cuh"
#include "kernels/cuda/gpu_mma.cuh"
#include "kernels/gpu/gpu_workload.h"
#include "kernels/core/philox.h"
#include "kernels/decode/decode.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernels::decode::gpu {

using kernels::gpu::check;
using kernels::gpu::check_launch;
using kernels::gpu::cp_async16_zfill;
using kernels::gpu::cp_async_commit;
using kernels::gpu::cp_async_wait;
using kernels::gpu::ldmatrix_x4;
using kernels::gpu::ldmatrix_x4_trans;
using kernels::gpu::mma_16816;
using kernels::gpu::pack2;
using kernels::gpu::smem_addr;
using kernels::gpu::DeviceMemory;
using kernels::gpu::from_float;
using kernels::gpu::Stream;
using kernels::gpu::to_float;
using kernels::gpu::with_type;

namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr unsigned kFull = 0xffffffffu;

// =============================================================================================
// [SECTION] Loads, conversions and the cache's addresses
// =============================================================================================
// 8 elements (16 bytes) to float.
__device__ __forceinline__ void unpack8(const uint4& r, float* f, __half) {
    const __half2* h = reinterpret_cast<const __half2*>(&r);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 x = __half22float2(h[i]);
        f[2 * i] = x.x;
        f[2 * i + 1] = x.y;
    }
}
__device__ __forceinline__ void unpack8(const uint4& r, float* f, __nv_bfloat16) {
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&r);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 x = __bfloat1622float2(h[i]);
        f[2 * i] = x.x;
        f[2 * i + 1] = x.y;
    }
}

// Read-only 16-byte load of the cache, kept out of L1 (each byte is used once: L1 would only evict).
__device__ __forceinline__ uint4 load16_stream(const void* p) {
    uint4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
}

struct Args {
    const void* q = nullptr;
    const void* k = nullptr;
    const void* v = nullptr;
    const int* table = nullptr;  // [batch, pages_per_seq] pool pages (paged caches)
    void* out = nullptr;
    float* o_split = nullptr;    // [batch, heads, splits, d] partial O (not divided by l)
    float* m_l = nullptr;        // [batch, heads, splits, 2] partial m (log2 units), l
    unsigned* counters = nullptr;  // [batch, kv_heads, passes] splits finished (split_kv_fused)
    void* S = nullptr;           // naive: [batch, heads, kv_len]
    void* P = nullptr;
    int batch = 0, heads = 0, kv_heads = 0, kv_len = 0;
    int page_shift = 0, pages_per_seq = 0;  // page = 1 << page_shift; 0 pages: contiguous
    int group = 1, passes = 1, gp = 1, splits = 1, chunk = 0;  // gp: query heads a block serves
    float scale = 0, scale_log2 = 0;  // 1 / sqrt(d) and log2(e) / sqrt(d)
};

// Element offset of token t of (sequence b, KV head g), column 0, in K (or V): contiguous
// [batch, kv_heads, kv_len, d], or through the page table into the pool [pages, kv_heads, page, d].
template <int D>
__device__ __forceinline__ int64_t token_offset(const Args& a, int b, int g, int t) {
    if (a.pages_per_seq == 0) return ((static_cast<int64_t>(b) * a.kv_heads + g) * a.kv_len + t) * D;
    const int pool_page = __ldg(a.table + static_cast<int64_t>(b) * a.pages_per_seq + (t >> a.page_shift));
    const int slot = t & ((1 << a.page_shift) - 1);
    return ((static_cast<int64_t>(pool_page) * a.kv_heads + g) * (1 << a.page_shift) + slot) * D;
}

// The merge of two (m, l) partial softmaxes in log2 units, as every merge here writes it (the
// emulation repeats it): the other's weight first, then one fma, so both sides round the same way
// each time. An empty side (m = -inf) weighs 0.
__device__ __forceinline__ float weight_of(float m, float M) { return m == -INFINITY ? 0.0f : exp2f(m - M); }

// =============================================================================================
// [SECTION] Inputs
// =============================================================================================
// K and V by logical index (b, g, t, c), each stored where the layout puts it (through the table).
template <typename T, int D> __global__ void fill_cache(T* k, T* v, Args a, uint64_t seed) {
    const uint64_t n = static_cast<uint64_t>(a.batch) * a.kv_heads * a.kv_len * D;
    for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
        const int c = static_cast<int>(i % D);
        const uint64_t row = i / D;
        const int t = static_cast<int>(row % static_cast<uint64_t>(a.kv_len));
        const uint64_t bg = row / static_cast<uint64_t>(a.kv_len);
        const int g = static_cast<int>(bg % static_cast<uint64_t>(a.kv_heads)), b = static_cast<int>(bg / static_cast<uint64_t>(a.kv_heads));
        const int64_t at = token_offset<D>(a, b, g, t) + c;
        k[at] = from_float<T>(input_value(seed, kK, i));
        v[at] = from_float<T>(input_value(seed, kV, i));
    }
}

// =============================================================================================
// [SECTION] naive: scores, softmax, P V
// =============================================================================================
// naive_scores: block (key tile, sequence x head). Each stream takes kUnroll keys of the tile.
// Per block: q of one head (d es), Kj (tile d es), Sj written (tile es): S makes its trip to HBM.
template <typename T, int D> __global__ void __launch_bounds__(kThreads) naive_scores(Args a) {
    constexpr int LPT = D / 8, SPW = 32 / LPT, STEP = kWarps * SPW, TILE = STEP * kUnroll;
    const int bh = blockIdx.y, b = bh / a.heads, h = bh % a.heads, g = h / a.group;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, sub = lane % LPT, stream = lane / LPT;
    float q[8];
    unpack8(*reinterpret_cast<const uint4*>(static_cast<const T*>(a.q) + static_cast<int64_t>(bh) * D + sub * 8), q, T{});  // load q into registers
    const int base = blockIdx.x * TILE;
    uint4 kr[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {  // load Kj into registers: kUnroll keys a stream in flight
        const int t = base + u * STEP + warp * SPW + stream;
        kr[u] = t < a.kv_len ? load16_stream(static_cast<const T*>(a.k) + token_offset<D>(a, b, g, t) + sub * 8) : uint4{0, 0, 0, 0};
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {  // compute s = q Kjᵀ / sqrt(d), in registers
        const int t = base + u * STEP + warp * SPW + stream;
        float kf[8], acc = 0.0f;
        unpack8(kr[u], kf, T{});
#pragma unroll
        for (int e = 0; e < 8; ++e) acc = fmaf(q[e], kf[e], acc);
#pragma unroll
        for (int off = LPT / 2; off >= 1; off >>= 1) acc += __shfl_xor_sync(kFull, acc, off);
        if (sub == 0 && t < a.kv_len)  // store Sj to HBM, in the dtype
            static_cast<T*>(a.S)[static_cast<int64_t>(bh) * a.kv_len + t] = from_float<T>(__fmul_rn(acc, a.scale));
    }
}

// naive_softmax: one block per (sequence, head) row of S. Pass 1: each thread's running (m, l) over
// its strided elements, merged by shuffles and then across warps; pass 2 writes P = 2^(s - M) / l.
// HBM: S read twice (kv_len es each), P written once.
__device__ __forceinline__ void merge_ml(float& m, float& l, float mo, float lo) {
    const float M = fmaxf(m, mo);
    l = fmaf(l, weight_of(m, M), lo * weight_of(mo, M));
    m = M;
}

template <typename T> __global__ void __launch_bounds__(kSoftmaxThreads) naive_softmax(Args a) {
    __shared__ float sm_m[kSoftmaxThreads / 32], sm_l[kSoftmaxThreads / 32];
    __shared__ float row_M, row_L;
    const int64_t row = static_cast<int64_t>(blockIdx.x) * a.kv_len;
    const T* S = static_cast<const T*>(a.S) + row;
    float m = -INFINITY, l = 0.0f;
    for (int t = threadIdx.x; t < a.kv_len; t += kSoftmaxThreads) {  // load S row into registers
        const float x = __fmul_rn(to_float(S[t]), kLog2e);  // never contracted into an fma
        const float M = fmaxf(m, x);
        l = fmaf(l, weight_of(m, M), exp2f(x - M));
        m = M;
    }
#pragma unroll
    for (int off = 16; off >= 1; off >>= 1) {
        const float mo = __shfl_xor_sync(kFull, m, off), lo = __shfl_xor_sync(kFull, l, off);
        merge_ml(m, l, mo, lo);
    }
    if ((threadIdx.x & 31) == 0) sm_m[threadIdx.x >> 5] = m, sm_l[threadIdx.x >> 5] = l;
    __syncthreads();
    if (threadIdx.x == 0) {  // the block's M and l, warp by warp
        float M = sm_m[0], L = sm_l[0];
        for (int w = 1; w < kSoftmaxThreads / 32; ++w) merge_ml(M, L, sm_m[w], sm_l[w]);
        row_M = M;
        row_L = L;
    }
    __syncthreads();
    const float M = row_M, L = row_L;
    T* P = static_cast<T*>(a.P) + row;
    for (int t = threadIdx.x; t < a.kv_len; t += kSoftmaxThreads)  // load S row again; store P row to HBM
        P[t] = from_float<T>(exp2f(__fmul_rn(to_float(S[t]), kLog2e) - M) / L);
}

// naive_pv: one block per (sequence, head) walks P and V; streams as in the key loop, each summing
// p v for its tokens; the streams' sums merge by shuffles, the warps' through shared memory.
template <typename T, int D> __global__ void __launch_bounds__(kThreads) naive_pv(Args a) {
    constexpr int LPT = D / 8, SPW = 32 / LPT, STEP = kWarps * SPW, TILE = STEP * kUnroll;
    __shared__ float sm_o[kWarps][D];
    const int bh = blockIdx.x, b = bh / a.heads, h = bh % a.heads, g = h / a.group;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, sub = lane % LPT, stream = lane / LPT;
    const T* P = static_cast<const T*>(a.P) + static_cast<int64_t>(bh) * a.kv_len;
    float o[8] = {};
    for (int base = 0; base < a.kv_len; base += TILE) {
        uint4 vr[kUnroll];
        float p[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {  // load Pj, Vj into registers
            const int t = base + u * STEP + warp * SPW + stream;
            const bool ok = t < a.kv_len;
            p[u] = ok ? to_float(P[t]) : 0.0f;
            vr[u] = ok ? load16_stream(static_cast<const T*>(a.v) + token_offset<D>(a, b, g, t) + sub * 8) : uint4{0, 0, 0, 0};
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {  // accumulate O = O + Pj Vj in registers
            float vf[8];
            unpack8(vr[u], vf, T{});
#pragma unroll
            for (int e = 0; e < 8; ++e) o[e] = fmaf(p[u], vf[e], o[e]);
        }
    }
#pragma unroll
    for (int off = LPT; off < 32; off <<= 1)
#pragma unroll
        for (int e = 0; e < 8; ++e) o[e] += __shfl_xor_sync(kFull, o[e], off);
    if (stream == 0)
#pragma unroll
        for (int e = 0; e < 8; ++e) sm_o[warp][sub * 8 + e] = o[e];  // the warps' sums into shared memory
    __syncthreads();
    for (int c = threadIdx.x; c < D; c += kThreads) {
        float O = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) O += sm_o[w][c];
        static_cast<T*>(a.out)[static_cast<int64_t>(bh) * D + c] = from_float<T>(O);  // store out to HBM
    }
}

// =============================================================================================
// [SECTION] flash, split_kv, split_kv_fused: the key loop
// =============================================================================================
enum Mode { kFlash = 0, kSplit = 1, kFused = 2 };

// The merge of NJ consecutive heads' column c (heads bh0 .. bh0 + NJ - 1 of one sequence) over the
// splits: exact, each head in split order. Every split's m, l and O is an L2 round trip: the loops are
// unrolled 8 deep and the NJ heads go side by side, so 8 NJ loads are in flight at once. (v5 in its
// first call merged a block's 8 heads one after another: 8 x 2 x splits / 8 round trips a thread, 28 µs
// of split_kv_fused's 74 at batch 1, 32k, GQA 8:1 on an H200, where split_kv took 45.)
template <int NJ>
__device__ __forceinline__ void combine_columns(const Args& a, int64_t bh0, int c, int D, float (&O)[NJ], float (&L)[NJ]) {
    float M[NJ];
#pragma unroll
    for (int j = 0; j < NJ; ++j) M[j] = -INFINITY, L[j] = 0.0f, O[j] = 0.0f;
#pragma unroll 8
    for (int s = 0; s < a.splits; ++s)
#pragma unroll
        for (int j = 0; j < NJ; ++j) M[j] = fmaxf(M[j], __ldcg(a.m_l + ((bh0 + j) * a.splits + s) * 2));  // load every split's m from L2
#pragma unroll 8
    for (int s = 0; s < a.splits; ++s)
#pragma unroll
        for (int j = 0; j < NJ; ++j) {  // load every split's l and partial O from L2; merge exactly
            const int64_t at = (bh0 + j) * a.splits + s;
            const float w = weight_of(__ldcg(a.m_l + 2 * at), M[j]);
            L[j] = fmaf(__ldcg(a.m_l + 2 * at + 1), w, L[j]);
            O[j] = fmaf(__ldcg(a.o_split + at * D + c), w, O[j]);
        }
}
__device__ __forceinline__ float combine_column(const Args& a, int64_t bh, int c, int D, float* L_out) {
    float O[1], L[1];
    combine_columns<1>(a, bh, c, D, O, L);
    *L_out = L[0];
    return O[0];
}

// split_kv_fused's last block: out of the gp heads (of sequence b from head h0), NJ heads at a time.
template <typename T, int D, int NJ> __device__ __forceinline__ void merge_splits(const Args& a, int b, int h0, int gp) {
    for (int i = threadIdx.x; i < gp / NJ * D; i += kThreads) {
        const int j0 = i / D * NJ, c = i % D;
        const int64_t bh0 = static_cast<int64_t>(b) * a.heads + h0 + j0;
        float O[NJ], L[NJ];
        combine_columns<NJ>(a, bh0, c, D, O, L);
#pragma unroll
        for (int j = 0; j < NJ; ++j) static_cast<T*>(a.out)[(bh0 + j) * D + c] = from_float<T>(O[j] / L[j]);  // store out = O / l to HBM
    }
}

// split_kv_fused's last block, v6b: the same merge with the splits' weights found once. scratch (shared
// memory the block no longer needs, 2 gp splits + gp floats) takes every split's m and l of the gp heads
// (one L2 round trip for all), then each head's M (a warp's max), then the weights 2^(m_s - M) in place
// of m. Each thread then merges 4 columns of one head (16-byte loads of the partial O, 16 splits in
// flight), in split order with the same fmaf's as combine_columns: where the v5b merge loaded m, l and
// O of every split for every column (3 scalar L2 loads per split, head and column), this loads one
// 16-byte vector per split and 4 columns (batch 1, 32k, GQA 8:1: 64 splits x 8 heads merged by one block).
template <typename T, int D>
__device__ __forceinline__ void merge_splits_weighted(const Args& a, int b, int h0, int gp, float* scratch) {
    const int S = a.splits;
    float* const w = scratch;             // [gp][S]: m, then the weight 2^(m - M)
    float* const l = scratch + gp * S;    // [gp][S]
    float* const M = scratch + 2 * gp * S;  // [gp]
    const int64_t bh0 = static_cast<int64_t>(b) * a.heads + h0;
    for (int i = threadIdx.x; i < gp * S; i += kThreads) {  // load every split's m, l from L2 into shared memory
        w[i] = __ldcg(a.m_l + 2 * (bh0 * S + i));
        l[i] = __ldcg(a.m_l + 2 * (bh0 * S + i) + 1);
    }
    __syncthreads();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int j = warp; j < gp; j += kWarps) {  // each head's M = max m_s: a warp's lanes, then shuffles
        float mx = -INFINITY;
        for (int s = lane; s < S; s += 32) mx = fmaxf(mx, w[j * S + s]);
#pragma unroll
        for (int off = 16; off >= 1; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, off));
        if (lane == 0) M[j] = mx;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < gp * S; i += kThreads) w[i] = weight_of(w[i], M[i / S]);
    __syncthreads();
    constexpr int C4 = D / 4;
    for (int i = threadIdx.x; i < gp * C4; i += kThreads) {
        const int j = i / C4, c4 = i % C4;
        const float4* src = reinterpret_cast<const float4*>(a.o_split + (bh0 + j) * S * D) + c4;
        float4 O = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        float L = 0.0f;
#pragma unroll 16
        for (int s = 0; s < S; ++s) {  // load split s's partial O (4 columns) from L2; merge exactly, in split order
            const float4 o = __ldcg(src + static_cast<int64_t>(s) * C4);
            const float ws = w[j * S + s];
            L = fmaf(l[j * S + s], ws, L);
            O.x = fmaf(o.x, ws, O.x);
            O.y = fmaf(o.y, ws, O.y);
            O.z = fmaf(o.z, ws, O.z);
            O.w = fmaf(o.w, ws, O.w);
        }
        T* const out = static_cast<T*>(a.out) + (bh0 + j) * D + 4 * c4;  // store out = O / l to HBM
        out[0] = from_float<T>(O.x / L);
        out[1] = from_float<T>(O.y / L);
        out[2] = from_float<T>(O.z / L);
        out[3] = from_float<T>(O.w / L);
    }
}

// The end of a block of the key loop, both kinds: each warp's (m, l, O) for the block's gp heads is in
// shared memory (warp w's O [gp][D] at sm_o + w o_stride, sm_m and sm_l [kWarps][gp]); merge the warps exactly, then
// store out (flash) or this split's partial (m, l, O); split_kv_fused's last block of each (sequence,
// KV head, pass) then merges the splits' partials and stores out, through scratch (scratch_floats of
// shared memory free once the warps are merged) when its weights fit there (merge_splits_weighted).
template <typename T, int D, int MODE>
__device__ __forceinline__ void finish_block(const Args& a, const float* sm_o, int o_stride, const float* sm_m, const float* sm_l, int gp,
                                             int b, int h0, int split, int item, int& last_block, float* scratch, int scratch_floats) {
    for (int i = threadIdx.x; i < gp * D; i += kThreads) {
        const int j = i / D, c = i % D;
        float M = sm_m[j];
#pragma unroll
        for (int w = 1; w < kWarps; ++w) M = fmaxf(M, sm_m[w * gp + j]);
        float L = 0.0f, O = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
            const float wt = weight_of(sm_m[w * gp + j], M);
            L = fmaf(sm_l[w * gp + j], wt, L);
            O = fmaf(sm_o[w * o_stride + j * D + c], wt, O);
        }
        const int64_t bh = static_cast<int64_t>(b) * a.heads + h0 + j;
        if (MODE == kFlash) {
            static_cast<T*>(a.out)[bh * D + c] = from_float<T>(O / L);  // store out = O / l to HBM
        } else {
            const int64_t at = bh * a.splits + split;
            a.o_split[at * D + c] = O;  // store the partial O of this split (fp32) to HBM
            if (c == 0) a.m_l[2 * at] = M, a.m_l[2 * at + 1] = L;  // store the partial m, l
        }
    }
    if (MODE != kFused) return;
    // __threadfence(), then atomicAdd on the counter of (sequence, KV head, pass): the last split merges.
    __threadfence();
    __syncthreads();
    unsigned* counter = a.counters + static_cast<int64_t>(b) * a.kv_heads * a.passes + item;
    if (threadIdx.x == 0) last_block = atomicAdd(counter, 1u) == static_cast<unsigned>(a.splits - 1);
    __syncthreads();
    if (!last_block) return;
    __threadfence();  // every other split's partials are visible: read them from L2 (__ldcg)
    // The weights fit the scratch but for asked split counts in the hundreds; past that, the column merge
    // of v5 one head at a time (v5b's 8 heads side by side cost 255 registers for a path now that rare).
    if ((2 * a.splits + 1) * gp <= scratch_floats) merge_splits_weighted<T, D>(a, b, h0, gp, scratch);
    else merge_splits<T, D, 1>(a, b, h0, gp);
    if (threadIdx.x == 0) *counter = 0;  // reset the counter for the next run
}

// The multi-head key loop (v1-v4b on CUDA cores; since v5 launched with GP = 1 only, GQA going to
// decode_loop_mma). One block: (split blockIdx.x, KV head and pass blockIdx.y, sequence blockIdx.z);
// GP query heads. HBM per block: q (GP d es), its chunk of K and V once (chunk 2 d es), then out
// (flash, GP d es) or the partial O and m, l (GP (d + 2) 4 bytes).
// __launch_bounds__(kThreads, kBlocksPerSmTarget): the 4 blocks an SM auto_splits plans for (decode.h).
// (v4 forced 4 on the 4-head GQA instance too: it spilled 380 bytes a thread, 27-30 % of the copy ceiling.)
template <typename T, int D, int GP, int MODE>
__global__ void __launch_bounds__(kThreads, kBlocksPerSmTarget) decode_loop(Args a) {
    constexpr int LPT = D / 8, SPW = 32 / LPT, STEP = kWarps * SPW, TILE = STEP * kUnroll;
    __shared__ float sm_o[kWarps][GP][D];
    __shared__ float sm_m[kWarps][GP], sm_l[kWarps][GP];
    __shared__ int last_block;
    const int split = blockIdx.x, item = blockIdx.y, b = blockIdx.z;
    const int g = item / a.passes, h0 = g * a.group + (item % a.passes) * GP;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, sub = lane % LPT, stream = lane / LPT;
    const int t_begin = split * a.chunk, t_end = min(a.kv_len, t_begin + a.chunk);

    float q[GP][8], m[GP], l[GP], o[GP][8];
#pragma unroll
    for (int j = 0; j < GP; ++j) {  // load q of the group's GP heads into registers
        unpack8(*reinterpret_cast<const uint4*>(static_cast<const T*>(a.q) + (static_cast<int64_t>(b) * a.heads + h0 + j) * D + sub * 8),
                q[j], T{});
        m[j] = -INFINITY;
        l[j] = 0.0f;
#pragma unroll
        for (int e = 0; e < 8; ++e) o[j][e] = 0.0f;
    }

    // load Kj, Vj into registers: kUnroll keys a stream, all in flight before the first is used
    // (paged: each key's pool page from the table). 2 TILE d es bytes a block a step. Software
    // pipelined without more registers (v3): Kj+1 is loaded as soon as Sj has used Kj, under the
    // softmax and Pj Vj; Vj+1 as soon as Pj Vj has used Vj, under Sj+1. A step then costs about the
    // larger of a DRAM latency and its arithmetic, not their sum.
    uint4 kr[kUnroll], vr[kUnroll];
    int64_t at[kUnroll];  // the keys' element offsets, found once for K and V
    bool ok[kUnroll];
    const auto load_k = [&](int base) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const int t = base + u * STEP + warp * SPW + stream;
            ok[u] = t < t_end;
            at[u] = ok[u] ? token_offset<D>(a, b, g, t) + sub * 8 : 0;
            kr[u] = ok[u] ? load16_stream(static_cast<const T*>(a.k) + at[u]) : uint4{0, 0, 0, 0};
        }
    };
    const auto load_v = [&]() {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) vr[u] = ok[u] ? load16_stream(static_cast<const T*>(a.v) + at[u]) : uint4{0, 0, 0, 0};
    };
    if (t_begin < t_end) {
        load_k(t_begin);
        load_v();
    }
    for (int base = t_begin; base < t_end; base += TILE) {
        bool ok_now[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) ok_now[u] = ok[u];
        // compute s = q Kjᵀ / sqrt(d) for the GP heads: each Kj serves them all (log2 units)
        float s[GP][kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            float kf[8];
            unpack8(kr[u], kf, T{});
#pragma unroll
            for (int j = 0; j < GP; ++j) {
                float acc = 0.0f;
#pragma unroll
                for (int e = 0; e < 8; ++e) acc = fmaf(q[j][e], kf[e], acc);
                s[j][u] = acc;
            }
        }
        // Kj is used: load Kj+1 into registers now, under this step's softmax and Pj Vj.
        const bool more = base + TILE < t_end;
        if (more) load_k(base + TILE);
#pragma unroll
        for (int j = 0; j < GP; ++j)
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
                for (int off = LPT / 2; off >= 1; off >>= 1) s[j][u] += __shfl_xor_sync(kFull, s[j][u], off);
                s[j][u] = ok_now[u] ? __fmul_rn(s[j][u], a.scale_log2) : -INFINITY;
            }
        // update m, l in registers: m_new = max(m, max s), p = 2^(s - m_new), l = l 2^(m - m_new) + sum p
        // accumulate O = O 2^(m - m_new) + p Vj in registers
#pragma unroll
        for (int j = 0; j < GP; ++j) {
            float mx = s[j][0];
#pragma unroll
            for (int u = 1; u < kUnroll; ++u) mx = fmaxf(mx, s[j][u]);
            const float m_new = fmaxf(m[j], mx);
            const float m_use = m_new == -INFINITY ? 0.0f : m_new;
            const float corr = exp2f(m[j] - m_use);
            l[j] = __fmul_rn(l[j], corr);  // __fmul_rn: not contracted with the adds below
#pragma unroll
            for (int e = 0; e < 8; ++e) o[j][e] = __fmul_rn(o[j][e], corr);
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                s[j][u] = exp2f(s[j][u] - m_use);  // p
                l[j] += s[j][u];
            }
            m[j] = m_new;
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            float vf[8];
            unpack8(vr[u], vf, T{});
#pragma unroll
            for (int j = 0; j < GP; ++j)
#pragma unroll
                for (int e = 0; e < 8; ++e) o[j][e] = fmaf(s[j][u], vf[e], o[j][e]);
        }
        // Vj is used: load Vj+1 into registers, under Sj+1.
        if (more) load_v();
    }

    // merge the streams' (m, l, O): shuffles inside each warp (stream i with i ^ 1, i ^ 2, ...)
#pragma unroll
    for (int off = LPT; off < 32; off <<= 1)
#pragma unroll
        for (int j = 0; j < GP; ++j) {
            const float mo = __shfl_xor_sync(kFull, m[j], off), lo = __shfl_xor_sync(kFull, l[j], off);
            const float M = fmaxf(m[j], mo), wa = weight_of(m[j], M), wb = weight_of(mo, M);
            l[j] = fmaf(l[j], wa, lo * wb);
#pragma unroll
            for (int e = 0; e < 8; ++e) {
                const float oo = __shfl_xor_sync(kFull, o[j][e], off);
                o[j][e] = fmaf(o[j][e], wa, oo * wb);
            }
            m[j] = M;
        }
    if (stream == 0) {  // then the warps' through shared memory
#pragma unroll
        for (int j = 0; j < GP; ++j) {
#pragma unroll
            for (int e = 0; e < 8; ++e) sm_o[warp][j][sub * 8 + e] = o[j][e];
            if (sub == 0) sm_m[warp][j] = m[j], sm_l[warp][j] = l[j];
        }
    }
    __syncthreads();
    finish_block<T, D, MODE>(a, &sm_o[0][0][0], GP * D, &sm_m[0][0], &sm_l[0][0], GP, b, h0, split, item, last_block, &sm_o[0][0][0],
                             kWarps * GP * D);
}

// =============================================================================================
// [SECTION] The GQA key loop on tensor cores (v5; v6: the persistent grid)
// =============================================================================================
// One block: (split blockIdx.x, KV head and pass blockIdx.y, sequence blockIdx.z), gp = a.gp query
// heads of one group (2..16), 4 warps. The group's query rows are the M side of two small matrix
// products per 16 keys, as FlashAttention-2 runs a query tile, here with the heads padded to 16 rows:
//   S (16 x 16) = Q (16 x d) Kjᵀ      d / 16 k steps x 2 n-tiles of mma.sync m16n8k16
//   O (16 x d) += P (16 x 16) Vj      one k step x d / 8 n-tiles
// S's C fragments are P's A fragment (kernels/cuda/gpu_mma.cuh), so S and P stay in registers; a
// thread holds O of 2 rows x d / 4 columns (64 fp32 at d = 128), not 4-8 heads x 8 columns each plus
// their dot products, shuffles and updates on CUDA cores as v1-v4b did (167-255 registers).
// Loads: each warp owns a ring of kMmaStages slots in shared memory, one slot = K and V of its 16 keys
// of a block step (the block step is 64 keys: warp w takes keys 16 w .. 16 w + 15). Each lane issues
// 16-byte cp.async copies DRAM -> shared memory (L2 only, no register round trip), paged keys through
// the table; a warp keeps the next two steps in flight while it computes one (3 stages), and waits
// only for its own copies (cp.async.wait_group + __syncwarp): the warps never wait for each other in
// the loop. One copy of K and V serves every head of the group (the point of GQA).
// Rows of shared memory are d es = 128 or 256 bytes; the 16-byte chunk c of key row k is stored at
// chunk c ^ (k & 7), so the 8 row addresses of an ldmatrix hit 8 different bank groups.
// HBM per block: q (gp d es), its chunk of K and V once, then out or the partials (gp (d + 2) 4 bytes).

// load q of the group's gp heads (from head h0 of sequence b) from HBM into registers, as A fragments
// (rows past gp are zeros)
template <typename T, int D>
__device__ __forceinline__ void load_q_fragments(const Args& a, int b, int h0, int gp, int r, int t4, uint32_t (&qa)[D / 16][4]) {
    const T* q = static_cast<const T*>(a.q) + (static_cast<int64_t>(b) * a.heads + h0) * D + 2 * t4;
#pragma unroll
    for (int ks = 0; ks < D / 16; ++ks) {
        qa[ks][0] = r < gp ? *reinterpret_cast<const uint32_t*>(q + r * D + ks * 16) : 0u;
        qa[ks][1] = r + 8 < gp ? *reinterpret_cast<const uint32_t*>(q + (r + 8) * D + ks * 16) : 0u;
        qa[ks][2] = r < gp ? *reinterpret_cast<const uint32_t*>(q + r * D + ks * 16 + 8) : 0u;
        qa[ks][3] = r + 8 < gp ? *reinterpret_cast<const uint32_t*>(q + (r + 8) * D + ks * 16 + 8) : 0u;
    }
}

// Issue this warp's copies of K and V for the 16 keys from key0 (of sequence b, KV head g; keys at or
// past t_end are zero-filled and never read) into one ring slot [K, V][key][D] (not committed here).
template <typename T, int D>
__device__ __forceinline__ void issue_slot(const Args& a, T* slot, int b, int g, int key0, int t_end, int lane) {
    // v7: a warp's 16 keys lie in one page (pages are 16-256 keys and key0 is a multiple of 16) or in one
    // contiguous run, so key key0's address is found once (one table entry when paged) and each copy adds
    // kk d to it. v5 found every copy's address through token_offset (a 64-bit multiply-add and the paged
    // branch, 16 times a step): with about 800 instructions a step and 4 cycles between a warp's
    // instructions (ncu, H200, 2026-11-28), the issue, not DRAM, set the pace of a 16-step block.
    constexpr int CH = D / 8, TILE = kMmaWarpKeys * D, COPIES = kMmaWarpKeys * CH / 32, KPC = 32 / CH;
    const int c = lane % CH, kk0 = lane / CH;  // copy j of this lane: chunk c of key kk0 + KPC j
    const int64_t base = key0 < t_end ? token_offset<D>(a, b, g, key0) + c * 8 : 0;  // warp-uniform test
    const T* const K = static_cast<const T*>(a.k) + base;
    const T* const V = static_cast<const T*>(a.v) + base;
    const uint32_t s = smem_addr(slot);
#pragma unroll
    for (int j = 0; j < COPIES; ++j) {
        const int kk = kk0 + KPC * j;
        const bool ok = key0 + kk < t_end;
        const int off = ok ? kk * D : 0;
        const uint32_t to = static_cast<uint32_t>((kk * CH + (c ^ (kk & 7))) * 16);  // bytes: row kk, chunk c swizzled
        cp_async16_zfill(s + to, K + off, ok);                                         // copy Kj: DRAM -> shared memory (cp.async)
        cp_async16_zfill(s + static_cast<uint32_t>(TILE * sizeof(T)) + to, V + off, ok);  // copy Vj: DRAM -> shared memory (cp.async)
    }
}

// One step of a warp: its 16 keys from key0 (those at or past t_end masked) in the ring slot at
// shared address kt (K) and kt + TILE es (V), folded into the running (m, l, O) of rows r and r + 8.
template <typename T, int D>
__device__ __forceinline__ void mma_step(const Args& a, uint32_t kt, int key0, int t_end, int lane, const uint32_t (&qa)[D / 16][4],
                                         float (&o)[D / 8][4], float (&m)[2], float (&l)[2]) {
    constexpr int CH = D / 8, TILE = kMmaWarpKeys * D;
    const int t4 = lane & 3;
    const uint32_t vt = kt + TILE * 2;
    // compute S = Q Kjᵀ on tensor cores: Kj shared memory -> registers (ldmatrix), 2 n-tiles of 8 keys
    float s0[4] = {0.0f, 0.0f, 0.0f, 0.0f}, s1[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int ks = 0; ks < D / 16; ++ks) {
        uint32_t kb[4];
        const int kk = (lane & 7) + ((lane >> 4) << 3), c = 2 * ks + ((lane >> 3) & 1);
        ldmatrix_x4(kb, kt + static_cast<uint32_t>((kk * CH + (c ^ (kk & 7))) * 16));
        mma_16816<T>(s0, qa[ks], kb[0], kb[1]);
        mma_16816<T>(s1, qa[ks], kb[2], kb[3]);
    }
    // update m, l in registers (log2 units, keys past the chunk -inf): row max over the quad's
    // 16 keys by shuffles, m_new = max(m, max s), p = 2^(s - m_new), O and l rescaled by 2^(m - m_new)
    float x[2][4];  // [row r, r + 8][keys 2 t4, 2 t4 + 1, 8 + 2 t4, 9 + 2 t4]
    float corr[2];
#pragma unroll
    for (int e = 0; e < 2; ++e) {
        const bool lo = key0 + 2 * t4 + e < t_end, hi = key0 + 8 + 2 * t4 + e < t_end;
        x[0][e] = lo ? __fmul_rn(s0[e], a.scale_log2) : -INFINITY;
        x[1][e] = lo ? __fmul_rn(s0[2 + e], a.scale_log2) : -INFINITY;
        x[0][2 + e] = hi ? __fmul_rn(s1[e], a.scale_log2) : -INFINITY;
        x[1][2 + e] = hi ? __fmul_rn(s1[2 + e], a.scale_log2) : -INFINITY;
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float mx = fmaxf(fmaxf(x[h][0], x[h][1]), fmaxf(x[h][2], x[h][3]));
        mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, 2));
        const float m_new = fmaxf(m[h], mx);
        const float m_use = m_new == -INFINITY ? 0.0f : m_new;
        corr[h] = exp2f(m[h] - m_use);
#pragma unroll
        for (int e = 0; e < 4; ++e) x[h][e] = exp2f(x[h][e] - m_use);  // p
        m[h] = m_new;
    }
    // v7: O and l rescaled by 2^(m - m_new) only when a row's max moved somewhere in the warp (x 1.0f is
    // exact, so skipping it changes no bit; once the maxima settle most steps skip the 2 + d / 2 multiplies).
    if (__any_sync(kFull, corr[0] != 1.0f || corr[1] != 1.0f)) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            l[h] = __fmul_rn(l[h], corr[h]);
#pragma unroll
            for (int nt = 0; nt < D / 8; ++nt) {
                o[nt][2 * h] = __fmul_rn(o[nt][2 * h], corr[h]);
                o[nt][2 * h + 1] = __fmul_rn(o[nt][2 * h + 1], corr[h]);
            }
        }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 4; ++e) l[h] += x[h][e];
    // accumulate O = O + Pj Vj on tensor cores: P (rounded to the dtype) stays in registers as the
    // A fragment; Vj shared memory -> registers transposed (ldmatrix.trans), 2 n-tiles of 8 columns a load
    const uint32_t pa[4] = {pack2<T>(x[0][0], x[0][1]), pack2<T>(x[1][0], x[1][1]), pack2<T>(x[0][2], x[0][3]),
                            pack2<T>(x[1][2], x[1][3])};
#pragma unroll
    for (int np = 0; np < D / 16; ++np) {
        uint32_t vb[4];
        const int kk = (lane & 7) + (((lane >> 3) & 1) << 3), c = 2 * np + (lane >> 4);
        ldmatrix_x4_trans(vb, vt + static_cast<uint32_t>((kk * CH + (c ^ (kk & 7))) * 16));
        mma_16816<T>(o[2 * np], pa, vb[0], vb[1]);
        mma_16816<T>(o[2 * np + 1], pa, vb[2], vb[3]);
    }
}

// The end of a warp's keys: l summed over the quad's keys (m is already the quad's), then this warp's
// (m, l, O) of its gp rows stored registers -> shared memory: O at sm_o_warp [gp][D], m and l at
// sm_m[warp gp + row], sm_l[warp gp + row].
template <int D>
__device__ __forceinline__ void store_warp_state(float* sm_o_warp, float* sm_m, float* sm_l, int gp, int warp, int lane,
                                                 const float (&o)[D / 8][4], const float (&m)[2], float (&l)[2]) {
    const int r = lane >> 2, t4 = lane & 3;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        l[h] += __shfl_xor_sync(kFull, l[h], 1);
        l[h] += __shfl_xor_sync(kFull, l[h], 2);
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int row = r + 8 * h;
        if (row >= gp) continue;
#pragma unroll
        for (int nt = 0; nt < D / 8; ++nt) {  // store this warp's O rows: registers -> shared memory
            sm_o_warp[row * D + nt * 8 + 2 * t4] = o[nt][2 * h];
            sm_o_warp[row * D + nt * 8 + 2 * t4 + 1] = o[nt][2 * h + 1];
        }
        if (t4 == 0) sm_m[warp * gp + row] = m[h], sm_l[warp * gp + row] = l[h];
    }
}

// v5: one block per (split, KV head and pass, sequence), the grid in waves.
template <typename T, int D, int MODE>
__global__ void __launch_bounds__(kThreads, mma_blocks_per_sm(D)) decode_loop_mma(Args a) {
    constexpr int TILE = kMmaWarpKeys * D;           // elements of a warp's K (or V) slot
    constexpr int STEP = kWarps * kMmaWarpKeys;      // keys a block step
    extern __shared__ __align__(128) unsigned char smem[];  // the rings; at the end the warps' (m, l, O)
    __shared__ int last_block;
    const int split = blockIdx.x, item = blockIdx.y, b = blockIdx.z, gp = a.gp;
    const int g = item / a.passes, h0 = g * a.group + (item % a.passes) * gp;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, r = lane >> 2, t4 = lane & 3;
    const int t_begin = split * a.chunk, t_end = min(a.kv_len, t_begin + a.chunk);
    const int steps = (t_end - t_begin + STEP - 1) / STEP;
    T* const ring = reinterpret_cast<T*>(smem) + warp * kMmaStages * 2 * TILE;  // [stage][K, V][key][D]

    uint32_t qa[D / 16][4];
    load_q_fragments<T, D>(a, b, h0, gp, r, t4, qa);

    // Issue step i's copies of this warp's 16 keys of K and V into ring slot i % kMmaStages, then
    // commit them as one group (an empty group past the last step keeps every lane's count uniform).
    const auto issue = [&](int i) {
        if (i < steps) issue_slot<T, D>(a, ring + (i % kMmaStages) * 2 * TILE, b, g, t_begin + i * STEP + warp * kMmaWarpKeys, t_end, lane);
        cp_async_commit();
    };

    float o[D / 8][4];
#pragma unroll
    for (int nt = 0; nt < D / 8; ++nt) o[nt][0] = o[nt][1] = o[nt][2] = o[nt][3] = 0.0f;
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};  // rows r and r + 8 (l: this lane's keys only)

#pragma unroll
    for (int i = 0; i < kMmaStages - 1; ++i) issue(i);
    for (int i = 0; i < steps; ++i) {
        issue(i + kMmaStages - 1);          // the slot step i - 1 used: refill it, 2 steps ahead
        cp_async_wait<kMmaStages - 1>();    // this lane's copies of step i have landed
        __syncwarp();                       // ... and every lane's: the slot is whole
        const int key0 = t_begin + i * STEP + warp * kMmaWarpKeys;
        if (key0 < t_end)  // warp-uniform: a warp past the chunk's end has nothing this step
            mma_step<T, D>(a, smem_addr(ring + (i % kMmaStages) * 2 * TILE), key0, t_end, lane, qa, o, m, l);
        __syncwarp();  // every lane has read the slot before step i + 1 refills it
    }
    cp_async_wait<0>();

    // the warps' (m, l, O) into shared memory, over the rings (every warp is past its last read of
    // them), and the block's end as in v1-v4b.
    __syncthreads();
    float* const sm_o = reinterpret_cast<float*>(smem);  // [kWarps][gp][D]
    float* const sm_m = sm_o + kWarps * gp * D;           // [kWarps][gp]
    float* const sm_l = sm_m + kWarps * gp;
    store_warp_state<D>(sm_o + warp * gp * D, sm_m, sm_l, gp, warp, lane, o, m, l);
    __syncthreads();
    finish_block<T, D, MODE>(a, sm_o, gp * D, sm_m, sm_l, gp, b, h0, split, item, last_block, sm_o,
                             static_cast<int>(mma_ring_bytes(D) / 4));
}

// v6 ("persistent", split_kv and split_kv_fused; FUSIONLAB_DECODE_GRID=persistent): one block per SM
// slot, min(units, kPlanSms x mma_blocks_per_sm(d)) blocks, block c taking the work units (sequence, KV
// head and pass, split) c, c + G, c + 2 G, ... (G = gridDim.x; v6's first form claimed units from a
// counter two ahead, which handed the first claimers three units and the rest one: 1.5x slower at two
// units a block, H200 2026-11-28). The rings run on across units: while a warp computes the last two
// steps of one unit it already has the first two of the next in flight, so the unit's end (the warps'
// merge, the partials' store, the fence and atomic, split_kv_fused's merge of the splits) runs with the
// next unit's loads under it. A warp's step counter n runs over all its units; the ring slot of step n
// is n % kMmaStages everywhere. At the end of a unit each warp stores its (m, l, O) in its ring's slot
// that the last step freed (the next refill of that slot is the first issue after the unit's end):
// gp x d fp32 = 16 x d x 4 bytes at most, exactly a slot's K and V of 16 keys.
template <typename T, int D, int MODE>
__global__ void __launch_bounds__(kThreads, mma_blocks_per_sm(D)) decode_loop_mma_persistent(Args a) {
    constexpr int TILE = kMmaWarpKeys * D;
    constexpr int STEP = kWarps * kMmaWarpKeys;
    extern __shared__ __align__(128) unsigned char smem[];  // the rings
    __shared__ float sm_m[kWarps * kMmaRows], sm_l[kWarps * kMmaRows];
    __shared__ int last_block;
    const int gp = a.gp, items = a.kv_heads * a.passes, units = a.batch * items * a.splits;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, r = lane >> 2, t4 = lane & 3;
    const int G = static_cast<int>(gridDim.x);
    T* const ring = reinterpret_cast<T*>(smem) + warp * kMmaStages * 2 * TILE;  // [stage][K, V][key][D]

    // The issue cursor: unit iu, its next step ii; copies of step n_issue into slot n_issue % kMmaStages.
    int iu = static_cast<int>(blockIdx.x), ii = 0, n_issue = 0;
    const auto issue = [&]() {
        if (iu < units) {
            const int split = iu % a.splits, rest = iu / a.splits, item = rest % items, b = rest / items;
            const int t_begin = split * a.chunk, t_end = min(a.kv_len, t_begin + a.chunk);
            issue_slot<T, D>(a, ring + (n_issue % kMmaStages) * 2 * TILE, b, item / a.passes, t_begin + ii * STEP + warp * kMmaWarpKeys,
                             t_end, lane);
            if (++ii == (t_end - t_begin + STEP - 1) / STEP) {  // the unit's last step: the next issue starts the block's next unit
                iu += G;
                ii = 0;
            }
        }
        cp_async_commit();
        ++n_issue;
    };
#pragma unroll
    for (int i = 0; i < kMmaStages - 1; ++i) issue();

    int n = 0;  // the compute cursor: steps done
    for (int u = static_cast<int>(blockIdx.x); u < units; u += G) {
        const int split = u % a.splits, rest = u / a.splits, item = rest % items, b = rest / items;
        const int g = item / a.passes, h0 = g * a.group + (item % a.passes) * gp;
        const int t_begin = split * a.chunk, t_end = min(a.kv_len, t_begin + a.chunk);
        const int steps = (t_end - t_begin + STEP - 1) / STEP;
        uint32_t qa[D / 16][4];
        load_q_fragments<T, D>(a, b, h0, gp, r, t4, qa);
        float o[D / 8][4];
#pragma unroll
        for (int nt = 0; nt < D / 8; ++nt) o[nt][0] = o[nt][1] = o[nt][2] = o[nt][3] = 0.0f;
        float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
        for (int i = 0; i < steps; ++i, ++n) {
            issue();                            // refill the slot step n - 1 used, 2 steps ahead (perhaps the next unit's)
            cp_async_wait<kMmaStages - 1>();    // this lane's copies of step n have landed
            __syncwarp();                       // ... and every lane's: the slot is whole
            const int key0 = t_begin + i * STEP + warp * kMmaWarpKeys;
            if (key0 < t_end) mma_step<T, D>(a, smem_addr(ring + (n % kMmaStages) * 2 * TILE), key0, t_end, lane, qa, o, m, l);
            __syncwarp();
        }
        // The unit's end: this warp's (m, l, O) into the slot its last step freed (refilled by the next
        // issue), the warps merged, the partials stored (split_kv_fused: the last split merges, in warp
        // 0's freed slot: TILE floats).
        float* const sm_o = reinterpret_cast<float*>(ring + ((n - 1) % kMmaStages) * 2 * TILE);
        store_warp_state<D>(sm_o, sm_m, sm_l, gp, warp, lane, o, m, l);
        __syncthreads();
        float* const slots = reinterpret_cast<float*>(smem) + ((n - 1) % kMmaStages) * TILE;
        finish_block<T, D, MODE>(a, slots, kMmaStages * TILE, sm_m, sm_l, gp, b, h0, split, item, last_block, slots, TILE);
        __syncthreads();  // every warp's slot is read before it is refilled
    }
    cp_async_wait<0>();
}

// =============================================================================================
// [SECTION] split_kv_combine
// =============================================================================================
// One block per (sequence, head); thread c merges column c over the splits (m, l, O from L2).
// HBM: the partials back (splits (d + 2) 4 bytes, from L2 when they fit), out written (d es).
template <typename T, int D> __global__ void __launch_bounds__(kCombineThreads) split_kv_combine(Args a) {
    const int64_t bh = blockIdx.x;
    for (int c = threadIdx.x; c < D; c += kCombineThreads) {
        float L;
        const float O = combine_column(a, bh, c, D, &L);
        static_cast<T*>(a.out)[bh * D + c] = from_float<T>(O / L);  // store out = O / l to HBM
    }
}

// =============================================================================================
// [SECTION] Buffers and launches
// =============================================================================================
struct Buffers {
    DeviceMemory q, k, v, table, out, o_split, m_l, counters, S, P;
};

int log2_of(int64_t v) {
    int s = 0;
    while ((int64_t{1} << s) < v) ++s;
    return s;
}

Args args_of(Variant variant, const DecodeParams& p, const Buffers& bf) {
    Args a;
    a.q = bf.q.get();
    a.k = bf.k.get();
    a.v = bf.v.get();
    a.table = static_cast<const int*>(bf.table.get());
    a.out = bf.out.get();
    a.o_split = static_cast<float*>(bf.o_split.get());
    a.m_l = static_cast<float*>(bf.m_l.get());
    a.counters = static_cast<unsigned*>(bf.counters.get());
    a.S = bf.S.get();
    a.P = bf.P.get();
    a.batch = static_cast<int>(p.batch);
    a.heads = static_cast<int>(p.heads);
    a.kv_heads = static_cast<int>(p.kv_heads);
    a.kv_len = static_cast<int>(p.kv_len);
    a.page_shift = p.page > 0 ? log2_of(p.page) : 0;
    a.pages_per_seq = static_cast<int>(pages_per_seq(p));
    a.group = static_cast<int>(group_size(p));
    a.passes = static_cast<int>(head_passes(p));
    a.gp = static_cast<int>(pass_heads(p));
    const Split sp = split_of(name_of(variant), p);
    a.splits = static_cast<int>(sp.splits);
    a.chunk = static_cast<int>(sp.chunk);
    a.scale = 1.0f / std::sqrt(static_cast<float>(p.d));
    a.scale_log2 = kLog2e / std::sqrt(static_cast<float>(p.d));
    return a;
}

void allocate(Variant variant, const DecodeParams& p, Buffers& b) {
    const uint64_t qb = q_bytes(p);
    b.q = DeviceMemory(qb, "q");
    b.out = DeviceMemory(qb, "out");
    b.k = DeviceMemory(pool_bytes(p) / 2, "K cache");
    b.v = DeviceMemory(pool_bytes(p) / 2, "V cache");
    if (p.page > 0) b.table = DeviceMemory(table_bytes(p), "page table");
    if (variant == Variant::naive) {
        b.S = DeviceMemory(scores_bytes(p), "S");
        b.P = DeviceMemory(scores_bytes(p), "P");
    }
    if (is_split(variant)) {
        const uint64_t S = static_cast<uint64_t>(split_of(name_of(variant), p).splits), BH = static_cast<uint64_t>(p.batch * p.heads);
        b.o_split = DeviceMemory(BH * S * static_cast<uint64_t>(p.d) * 4, "O_split");
        b.m_l = DeviceMemory(BH * S * 8, "m_l");
        if (variant == Variant::split_kv_fused) {
            // Zeroed once, here: each run's last block of a (sequence, KV head, pass) sets its counter back
            // to 0, so every later run on these buffers (the backend keeps them from job to job of the same
            // parameters) tests that reset (tests/gpu_decode_test.cpp).
            b.counters = DeviceMemory(static_cast<uint64_t>(work_items(p)) * 4, "counters");
            check(cudaMemset(b.counters.get(), 0, b.counters.bytes()), "zeroing the counters");
        }
    }
}

void fill_inputs(Variant variant, const DecodeParams& p, const Buffers& b, cudaStream_t stream) {
    // The pool's empty slots (a ragged last page) stay NaN: a kernel that read one would show it.
    check(cudaMemsetAsync(b.k.get(), 0xFF, b.k.bytes(), stream), "poisoning the K pool");
    check(cudaMemsetAsync(b.v.get(), 0xFF, b.v.bytes(), stream), "poisoning the V pool");
    if (p.page > 0) {
        const std::vector<int32_t> table = page_table(p);
        check(cudaMemcpyAsync(b.table.get(), table.data(), table.size() * sizeof(int32_t), cudaMemcpyHostToDevice, stream),
              "copying the page table");
        check(cudaStreamSynchronize(stream), "copying the page table");  // `table` leaves scope
    }
    const Args a = args_of(variant, p, b);
    kernels::gpu::fill_input(p.dtype, b.q.get(), p.batch * p.heads * p.d, p.seed, kQ, stream);
    with_type(p.dtype, [&](auto zero) {
        using T = decltype(zero);
        if constexpr (!std::is_same_v<T, float>) {
            if (p.d == 64) fill_cache<T, 64><<<132 * 16, 256, 0, stream>>>(static_cast<T*>(b.k.get()), static_cast<T*>(b.v.get()), a, p.seed);
            else fill_cache<T, 128><<<132 * 16, 256, 0, stream>>>(static_cast<T*>(b.k.get()), static_cast<T*>(b.v.get()), a, p.seed);
        }
    });
    check_launch("decode fill");
}

void poison_outputs(const DecodeParams& p, const Buffers& b, cudaStream_t stream) {
    check(cudaMemsetAsync(b.out.get(), 0xFF, b.out.bytes(), stream), "poisoning out");
    for (const DeviceMemory* m : {&b.S, &b.P, &b.o_split, &b.m_l})
        if (m->get()) check(cudaMemsetAsync(m->get(), 0xFF, m->bytes(), stream), "poisoning the intermediates");
    (void)p;
}

size_t kernel_count_of(Variant variant) { return variant == Variant::naive ? 3 : variant == Variant::split_kv ? 2 : 1; }

// The key loop of flash, split_kv and split_kv_fused: on tensor cores when kv_heads < heads (its
// rings take more than the 48 KiB of shared memory a launch gets without asking), else one head a block.
template <typename Kernel> void size_mma_kernel(Kernel kernel, int bytes) {
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), "sizing decode_loop_mma's shared memory");
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
          "decode_loop_mma's shared memory carveout");
}

template <typename T, int D, int MODE> void launch_loop(const DecodeParams& p, const Args& a, dim3 grid, cudaStream_t s) {
    if (!uses_mma(p)) {
        decode_loop<T, D, 1, MODE><<<grid, kThreads, 0, s>>>(a);
        return;
    }
    constexpr int bytes = static_cast<int>(mma_ring_bytes(D));
    if constexpr (MODE != kFlash) {
        // v6 (decode.h, persistent_grid): one block per SM slot, as the model plans it (loop_blocks).
        if (uses_persistent(MODE == kSplit ? "split_kv" : "split_kv_fused", p)) {
            static const bool sized = (size_mma_kernel(decode_loop_mma_persistent<T, D, MODE>, bytes), true);
            (void)sized;
            const int64_t blocks = loop_blocks(MODE == kSplit ? "split_kv" : "split_kv_fused", p);
            if (blocks != std::min<int64_t>(static_cast<int64_t>(grid.x) * grid.y * grid.z, int64_t{kPlanSms} * mma_blocks_per_sm(D)))
                throw std::logic_error("decode: the persistent grid differs from the model's loop_blocks()");
            decode_loop_mma_persistent<T, D, MODE><<<static_cast<unsigned>(blocks), kThreads, bytes, s>>>(a);
            return;
        }
    }
    static const bool sized = (size_mma_kernel(decode_loop_mma<T, D, MODE>, bytes), true);
    (void)sized;
    decode_loop_mma<T, D, MODE><<<grid, kThreads, bytes, s>>>(a);
}

template <typename T, int D>
void launch_typed(Variant variant, size_t k, const DecodeParams& p, const Args& a, cudaStream_t s) {
    const unsigned BH = static_cast<unsigned>(p.batch * p.heads);
    if (variant == Variant::naive) {
        const unsigned tiles = static_cast<unsigned>((p.kv_len + kv_tile(D) - 1) / kv_tile(D));
        if (k == 0) naive_scores<T, D><<<dim3(tiles, BH), kThreads, 0, s>>>(a);
        if (k == 1) naive_softmax<T><<<BH, kSoftmaxThreads, 0, s>>>(a);
        if (k == 2) naive_pv<T, D><<<BH, kThreads, 0, s>>>(a);
        return;
    }
    if (variant == Variant::split_kv && k == 1) {
        split_kv_combine<T, D><<<BH, kCombineThreads, 0, s>>>(a);
        return;
    }
    const dim3 grid(static_cast<unsigned>(a.splits), static_cast<unsigned>(p.kv_heads * head_passes(p)), static_cast<unsigned>(p.batch));
    if (variant == Variant::flash) launch_loop<T, D, kFlash>(p, a, grid, s);
    else if (variant == Variant::split_kv) launch_loop<T, D, kSplit>(p, a, grid, s);
    else launch_loop<T, D, kFused>(p, a, grid, s);
}

void launch_kernel_of(Variant variant, size_t k, const DecodeParams& p, const Buffers& b, cudaStream_t s) {
    if (k >= kernel_count_of(variant))
        throw std::invalid_argument(std::string(name_of(variant)) + " has no kernel " + std::to_string(k));
    const Args a = args_of(variant, p, b);
    if (p.dtype == DType::f16) {
        if (p.d == 64) launch_typed<__half, 64>(variant, k, p, a, s);
        else launch_typed<__half, 128>(variant, k, p, a, s);
    } else {
        if (p.d == 64) launch_typed<__nv_bfloat16, 64>(variant, k, p, a, s);
        else launch_typed<__nv_bfloat16, 128>(variant, k, p, a, s);
    }
    check_launch(name_of(variant));
}

}  // namespace

// =============================================================================================
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
// =============================================================================================
namespace {

// One buffer set; the harness flushes L2 before each timed rep when the cache would sit there, so
// each rep reads the cache from DRAM, as a decode step does after the rest of the layer ran.
class DecodeGpu final : public GpuWorkload {
public:
    uint64_t bytes_per_set(const std::string& variant, const Params& params) const override {
        return device_bytes(variant, to_decode(params));
    }
    std::string buffers_named(const std::string& variant, const Params& params) const override {
        const DecodeParams p = to_decode(params);
        return std::string("q, K and V cache") + (p.page > 0 ? ", page table" : "") + ", out" +
               (variant_of(variant) == Variant::naive ? ", S, P" : "") + (is_split(variant) ? ", O_split, m_l" : "") +
               (variant_of(variant) == Variant::split_kv_fused ? ", counters" : "");
    }
    void prepare(const std::string& variant_name, const Params& params, int, cudaStream_t) override {
        const Variant variant = variant_of(variant_name);
        const DecodeParams p = to_decode(params);
        if (prepared_ && p == p_ && variant == variant_) return;
        release();
        allocate(variant, p, b_);
        variant_ = variant;
        p_ = p;
        prepared_ = true;
    }
    void release() override {
        b_ = Buffers{};
        prepared_ = false;
    }
    uint64_t bytes_held() const override { return prepared_ ? device_bytes(name_of(variant_), p_) : 0; }
    void fill_inputs(cudaStream_t s) override { gpu::fill_inputs(variant_, p_, b_, s); }
    void poison_outputs(cudaStream_t s) override { gpu::poison_outputs(p_, b_, s); }
    size_t kernel_count() const override { return kernel_count_of(variant_); }
    void launch_kernel(size_t k, int, cudaStream_t s) override { launch_kernel_of(variant_, k, p_, b_, s); }

    void begin_check(const CheckBudget& budget) override { max_mults_ = budget.max_mults; }
    void gather_output(cudaStream_t s, unsigned long long* counter) override {
        const int64_t n = p_.batch * p_.heads * p_.d;
        nonfinite_ = kernels::gpu::scan_nonfinite(p_.dtype, b_.out.get(), n, counter, s);
        std::vector<unsigned char> bits(static_cast<size_t>(q_bytes(p_)));
        check(cudaMemcpy(bits.data(), b_.out.get(), bits.size(), cudaMemcpyDeviceToHost), "copying out");
        got_.resize(static_cast<size_t>(n));
        kernels::gpu::to_float(p_.dtype, bits.data(), got_.data(), static_cast<uint64_t>(n));
    }
    GpuCheck finish_check() override {
        const std::vector<RowRef> rows = rows_to_check(p_, max_mults_);
        const size_t d = static_cast<size_t>(p_.d);
        std::vector<double> want(d);
        kernels::ErrorSum errors;
        for (const RowRef& r : rows) {
            reference_row(p_, r.b, r.h, want.data());
            errors.add(&got_[static_cast<size_t>(r.b * p_.heads + r.h) * d], want.data(), d);
        }
        const int64_t all_rows = p_.batch * p_.heads;
        GpuCheck c;
        c.nonfinite = nonfinite_;
        c.output_elements = all_rows * p_.d;
        c.elements = static_cast<int64_t>(rows.size() * d);
        c.max_abs = errors.max_abs;
        c.rel_l2 = errors.rel_l2();
        c.note = (static_cast<int64_t>(rows.size()) == all_rows
                      ? "all " + std::to_string(all_rows) + " rows of out"
                      : std::to_string(rows.size()) + " of " + std::to_string(all_rows) + " rows of out (" + sampled_rows_how() + ")") +
                 " vs the float64 CPU reference; all of out scanned for unwritten (poisoned) or non-finite elements";
        return c;
    }

private:
    Variant variant_ = Variant::naive;
    DecodeParams p_;
    bool prepared_ = false;
    Buffers b_;
    double max_mults_ = kFullCheck.max_mults;
    int64_t nonfinite_ = 0;
    std::vector<float> got_;
};

}  // namespace

std::unique_ptr<GpuWorkload> make_gpu_workload() { return std::make_unique<DecodeGpu>(); }

}  // namespace kernels::decode::gpu
