// Elementwise workloads on the GPU: LayerNorm -> GELU -> Dropout -> residual add ("chain") and
// bias + GELU, each unfused (one kernel per operation, intermediates through HBM) and fused.
// The function computed, the variants and the tensor ids are defined in elementwise.h; the
// launch layouts in elementwise_shapes.cpp (row_config, flat_config: shared with the model's tile
// schedule, the CPU emulation and the shape the bench and the memory view print).
//
// Variants and what each changes:
//   chain unfused   layernorm  row kernel: load x row into registers, two block reductions (mean,
//                              then squared deviations: two-pass over the register-held row, no
//                              cancellation), normalise, store h1.
//                   gelu       flat kernel h1 -> h2.
//                   dropout    flat kernel h2 -> h3, mask regenerated from Philox (one call per
//                              8 elements), never stored.
//                   add        flat kernel h3 + residual -> out.
//                   This is what eager mode does: 4 launches, 9 tensor passes through HBM.
//   chain fused     fused_chain row kernel: the row stays in registers from the load of x to the
//                   store of out; residual is loaded with x so its latency hides behind the
//                   reductions. 3 tensor passes: the minimum. Its layout is row_config()'s, per
//                   shape: threads per row, rows per block (short rows), or a thread-block cluster
//                   per row whose reductions meet in distributed shared memory (rows up to 65536).
//   chain fused_spill   fused_chain_spill (spill_row_kernel): the fused kernel as it was measured
//                   (one block per row), built for full occupancy (4 blocks of 512
//                   threads per SM) instead of 2: __launch_bounds__ caps it at 32 registers, fewer
//                   than the row it holds needs, so ptxas spills part of the row to local memory
//                   (per-thread, HBM-backed, cached in L1/L2) and reloads it in each pass. What a
//                   "more warps hide latency" tweak does to a fused kernel: the lesson on spills.
//   bias_gelu unf.  bias_add, gelu: two flat kernels, h through HBM (4 passes).
//   bias_gelu fused fused_bias_gelu: one flat kernel (2 passes: the minimum).
//
// Why the kernels look the way they do (memory bound, but at 4 TB/s a bf16 kernel has only ~33
// (4 B/element) to ~49 (6 B/element) instruction slots per element: kernels/PERF.md):
//   * data moves in chunks of 8 elements: one 16-byte vector (fp16/bf16) or two (fp32); a chunk
//     is also exactly one Philox call of the dropout mask, so the RNG costs 1/8 call per element;
//   * every thread issues all of its loads before using any (64 bytes per input in flight), and
//     keeps them packed until used, so enough threads stay resident;
//   * GELU's erf is Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7, ~13 instructions) instead of
//     erff (~25), which made every GELU kernel instruction-bound; 16-bit outputs (v7) a logistic form
//     of the normal CDF (|GELU error| <= 2.6e-5, 9 instructions);
//   * math is in fp32 whatever the storage type; LayerNorm statistics in fp32;
//   * ragged sizes: a row kernel whose hidden is not a multiple of 8 (or whose pointers are not
//     16-byte aligned) runs its scalar instantiation, with bounds checks per element; flat kernels
//     treat the tensor as one flat array, so only the last chunk is partial.
//
// Versions of the row and flat kernels (kernels/PERF.md: each version's prediction and numbers):
//   v1  GELU with erff; rows held as floats.                          (H200 fused chain bf16 51.7 % of copy)
//   v2  GELU with A&S 7.1.26 erf (rcp.approx, ex2.approx).            (60.5 %)
//   v3  the row kept packed in registers, 64 bytes of x per thread.   (70.1 % H200, 90.6 % H100)
//   v4  row_config's layouts per shape: rows per block, 2-4 chunks, clusters past 16384 (their sums
//       pulled through distributed shared memory), fp32 rows past 16384 staged in shared memory.
//   v5  fewer instructions per element: Philox round keys from the constant bank, the odd lanes' keep
//       test on the whole word (same mask), GELU as max(x, 0) - |q| with one FMA (one rounding fewer);
//       v5 as measured also pushed the clusters' partial sums into the peers' shared memory (one
//       cluster barrier per reduction, none at exit); racecheck (H100, 2026-11-28) showed the first
//       push could reach a block that had not started yet, so the clusters pull again as in v4 (the
//       push had measured no faster: kernels/PERF.md).
//   v6  the clusters push again, legally and without a fence: each block readies an mbarrier per
//       reduction and arrives (relaxed) at the cluster barrier at its start, waits on it before its
//       first push (the wait overlaps the loads), and pushes with st.async, which completes bytes on
//       the peer's mbarrier; no release arrive (a MEMBAR.ALL.GPU per thread in the SASS), no serial
//       remote loads, no barrier at exit (FUSIONLAB_CLUSTER_REDUCTION=pull keeps v4's form to compare).
//       Fewer instructions per element in row_kernel: the squared deviations one FFMA per element
//       behind one branch per chunk (ptxas had made the per-element select FMUL, FSEL, FADD for every
//       chunk but the first), dropout's scale and the residual add one FFMA (one rounding fewer), the
//       layout's integer divisions (row, rank: ~60 instructions per thread before the first load)
//       done on the host, vector chunks past the row zeroed without the scalar path's code. 16-bit
//       rows: mean and variance in one pass and one reduction (each element shifted by the row's
//       first: K = x[0], var = (sum d^2 - (sum d)^2 / n) / n), and x rstd + (-mean rstd) as one FFMA;
//       both lose less than the 8 or 11 bits the output keeps (fp32 rows keep the two passes).
//       After round 1 (ncu: the clusters issued 5.4 instructions per element more than one-block
//       rows): the pushes' mbarrier wait sleeps (a suspend hint) instead of polling, the loops over
//       the warps' and blocks' partials unrolled by 4, and rows the layout covers exactly run a path
//       without per-chunk bounds tests (kFull; FUSIONLAB_ROW_BOUNDS=checked forces the other).
//       (H200: bf16 8192^2 44.9 instructions per element (v5 52.9), 79.8 % of copy (v5 68.6);
//       4096 x 65536 70.5 % (53.4); pulled in the same call 61.4 %)
//   v7  16-bit outputs take GELU in a logistic form, x / (1 + 2^{x q(min(x^2, 25))}) (gelu_logistic.h:
//       9 instructions against A&S's 13, |error| <= 2.6e-5 against the float64 GELU, a ninth of fp16's
//       half ulp): the 16-bit chain is issue-bound on an H200 and GELU was its largest part. Every kernel
//       storing fp16 or bf16 takes it (row kernel, gelu and bias+GELU flat kernels, so ffn's too) but
//       fused_chain_spill (its recorded code); fp32 outputs, checked to 1e-5, keep A&S. In the 16-bit fused
//       chain the dropout scale s folds into that form, x / (1/s + 2^{x q + log2(1/s)}) (1/s and log2(1/s)
//       from the host), so a kept element is x * (s Phi(x)) + residual, one FFMA with no s in it: ptxas had
//       reloaded s from the constant bank per element (a predicated LDC). row_sum takes the row's first
//       warp from its caller instead of dividing by warps_per_row (~20 instructions per thread). Static
//       SASS of row_kernel<bf16, 4>'s bounds-free
//       path 1822 -> 1610 instructions per thread of 32 elements; that path no longer spills. fp32 rows past
//       32768 run a register cluster of 8 (elementwise_shapes.cpp) instead of the staged cluster of 2.
//       (H200: bf16 8192^2 38.5 instructions per element (v6 44.9), 87.8 % of copy (v6 79.8); 4096 x 65536
//       77.7 % (70.5); fp32 4096 x 65536 81.7 % (76.9 staged))
//   v8  rows in sequence (row_sequence_kernel): ncu found v7's rows of 512 threads and its clusters latency-bound
//       (0.70 instructions issued a cycle, not issue-bound): a block loads its row, then waits at the reductions
//       with nothing of its own in flight. Where a row takes 512 threads or a cluster (16-bit hidden 16384,
//       every 65536), a block (cluster) now runs 4 rows one after another (2 from 1024 rows), x and the
//       residual through shared memory by cp.async (each thread its own chunks: no barrier): row s + 1's x is
//       copied while row s reduces and finishes, and no row is held in registers across a reduction (the
//       register row with a loop around it spilled). Two scratch sets and, in a cluster, two sets of slots and
//       mbarriers (re-armed each use) alternate between rows. FUSIONLAB_ROW_CONFIG=seq=1 keeps v7's one row a
//       block (row_kernel, unchanged instruction for instruction).
//       (H200, round 1: slower wherever it ran: 8192 x 16384 16-bit 78.0-80.0 % against v7's 82.5-83.3 in the
//       same call, fp32 4096 x 65536 83.7 against 85.6; ncu: 41.25 instructions per element at the same 0.69
//       issued a cycle, so the copies in flight did not raise the issue rate. Not picked: seq=N runs it.)
//   v8b bf16 unpacked on the FMA pipe in the row kernels: the low half as w * 2^16 with the multiplier in the
//       constant bank (an IMAD; a shift by an immediate is an SHF on the half-rate ALU pipe). ncu (H200,
//       65536 x 1024): bf16 and fp16 issued the same 35.9 instructions per element, but bf16's ALU pipe was 54 %
//       busy against fp16's 38 % and it ran 3.5 % longer (fp16 unpacks with HADD2.F32, an FMA-pipe instruction).
//   v9  the row's leader warp reduces (row_sums_leader): after v8 ruled out latency a prefetch hides, what grows with
//       the warps of a row is the reduction itself. In v8's row_sum every warp, after the block barrier, loads and
//       adds all the row's W partials (two sums in 16-bit: 4 W instructions a thread of 32 elements, W / 8 per
//       element; 2.0 at 16 warps) and in a cluster every warp polls the mbarrier and adds the 8 blocks' partials
//       too (~1 per element more); ncu had 38.5 per element at 8 warps a row, 40.0 at 16 and 41.0 in a cluster
//       against 36.0 at one warp. Now the row's first warp alone waits for the partials (named barrier 1: the
//       others arrive without waiting), adds them in the same order (lanes 0 and 1 the two sums side by side),
//       pushes and adds the cluster's, and hands the totals over through shared memory (named barrier 2): the
//       other warps load two floats. Same sums, same order, same bits. FUSIONLAB_ROW_REDUCTION=every_warp keeps
//       v8's form (rows in sequence and pulled clusters keep it always).
//       (H200, round 1: 36.8 instructions per element at 8192 x 16384 against 39.8 for every warp in the same call,
//       37.6 against 40.7 at 4096 x 65536; 16-bit chain 84.2 -> 87.5 % of copy at 16384, 76.4 -> 79.6 at 65536,
//       89.6 -> 91.3 at 8192^2, 86.3 -> 88.0 at 7168 (bf16, same call))
//   v9b 16-bit rows load the statistics' shift x[0] between x's chunks and the residual's instead of after both: its
//       conversion was the most stalled instruction at hidden 768 (14.5 % of ncu's stall samples) and the second at
//       1024 and 16384 (5.5 %). The statistics' roundings spelled out (__fmul_rn: never fused by ptxas), each
//       reduction's totals a place of their own (racecheck, round 1).
//       (H200, round 2: no change at 768, 14.6 % of the stall samples on the same conversion: it is the first
//       instruction to use the row's bytes, and waits for them, not for the residual's; kept, it costs nothing)
//   v9c an fp32 row's second reduction takes named barriers 3 and 4 instead of 1 and 2 again: racecheck (round 2)
//       still reported the other warps' read of a total against the leader's write where fp32's two reductions met
//       the same named barriers (16-bit rows, which reduce once, reported nothing). Not yet run on a GPU.
//
// [SECTION] Element types and chunk moves
// [SECTION] Math: GELU, dropout mask, block reduction
// [SECTION] Kernels: row kernels (layernorm, fused_chain)
// [SECTION] Kernels: flat kernels (gelu, dropout, add, bias_add, fused_bias_gelu)
// [SECTION] Launchers
// [SECTION] Dispatch by kernel name, buffer specs
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/cuda/gpu_dtype.cuh"
#include "kernels/elementwise/elementwise_gpu.cuh"
#include "kernels/cuda/gpu_memory.cuh"
#include "kernels/gpu/gpu_workload.h"
#include "kernels/core/gelu_fast.h"
#include "kernels/core/philox.h"
#include "kernels/elementwise/gelu_logistic.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/row_reduction.h"
#include "kernels/core/registry.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace kernels::gpu {

namespace {

constexpr int kChunk = 8;               // elements per chunk (= one Philox call)
constexpr int kMaxRowThreads = elementwise::kRowMaxThreads;
constexpr int kMaxFlatThreads = 512;

// =============================================================================================
// [SECTION] Element types and chunk moves
// =============================================================================================
template <typename T> __device__ __forceinline__ void unpack2(uint32_t w, float& lo, float& hi);
template <> __device__ __forceinline__ void unpack2<__nv_bfloat16>(uint32_t w, float& lo, float& hi) {
    lo = __uint_as_float(w << 16);
    hi = __uint_as_float(w & 0xFFFF0000u);
}
template <> __device__ __forceinline__ void unpack2<__half>(uint32_t w, float& lo, float& hi) {
    __half2 h;
    memcpy(&h, &w, sizeof(h));
    const float2 f = __half22float2(h);
    lo = f.x;
    hi = f.y;
}

template <typename T> __device__ __forceinline__ uint32_t pack2(float lo, float hi);
template <> __device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float lo, float hi) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    uint32_t w;
    memcpy(&w, &h, sizeof(w));
    return w;
}
template <> __device__ __forceinline__ uint32_t pack2<__half>(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    uint32_t w;
    memcpy(&w, &h, sizeof(w));
    return w;
}

// The raw bits of one chunk, kept packed in registers until used: 16 bytes (fp16/bf16: 4
// registers instead of 8 unpacked floats) or 32 bytes (fp32). Fewer live registers per thread
// means more resident warps, so more loads in flight per SM.
template <typename T> struct RawChunk {
    uint4 w[sizeof(T) / 2];
};

// A whole, 16-byte-aligned chunk: one 16-byte load (fp16/bf16) or two (fp32).
// kReadOnly uses the read-only path (gamma, beta, bias: read by every block, live in L1/L2).
template <typename T, bool kReadOnly = false>
__device__ __forceinline__ void load_raw(const T* p, RawChunk<T>& r) {
    const uint4* q = reinterpret_cast<const uint4*>(p);
#pragma unroll
    for (int j = 0; j < static_cast<int>(sizeof(T)) / 2; ++j) r.w[j] = kReadOnly ? __ldg(q + j) : q[j];
}

// The same with the streaming (evict-first) hint, ld.global.cs: data read once (x, residual, a
// flat kernel's input) need not stay in L1/L2 (the FUSIONLAB_*_CONFIG option cs=1).
template <typename T>
__device__ __forceinline__ void load_raw_streaming(const T* p, RawChunk<T>& r) {
    const uint4* q = reinterpret_cast<const uint4*>(p);
#pragma unroll
    for (int j = 0; j < static_cast<int>(sizeof(T)) / 2; ++j) r.w[j] = __ldcs(q + j);
}

// A partial or unaligned chunk: element by element, only the first `valid` elements (rest 0).
template <typename T>
__device__ __forceinline__ void load_raw_partial(const T* p, int64_t valid, RawChunk<T>& r) {
    T e[kChunk];
#pragma unroll
    for (int i = 0; i < kChunk; ++i) e[i] = i < valid ? p[i] : from_float<T>(0.0f);
    memcpy(&r, e, sizeof(r));
}

// An empty asm that "may change" the packed words: no instruction, but what was derived from them
// before cannot be reused after it (row_kernel's passes).
template <typename T, int kN>
__device__ __forceinline__ void keep_packed(RawChunk<T> (&chunks)[kN]) {
#pragma unroll
    for (int c = 0; c < kN; ++c)
#pragma unroll
        for (int j = 0; j < static_cast<int>(sizeof(T)) / 2; ++j)
            asm volatile("" : "+r"(chunks[c].w[j].x), "+r"(chunks[c].w[j].y), "+r"(chunks[c].w[j].z), "+r"(chunks[c].w[j].w));
}

// v8b: the bf16 multiplier of row kernels' unpack (2^16). In the constant bank, not an immediate, so ptxas
// keeps `w * 2^16` an IMAD with a constant operand (the FMA pipe) instead of turning it into a shift (SHF,
// the integer ALU pipe, which runs at half rate).
__constant__ uint32_t kBf16LowHalfScale = 65536u;
// kFmaPipe (v8b, row kernels): bf16's low half as w * 2^16 on the FMA pipe. ncu (H200, 2026-11-28, 65536 x
// 1024): bf16 and fp16 issue the same 35.9 instructions per element, but bf16's unpack (SHF, LOP3) kept the
// ALU pipe 54 % busy against fp16's 38 % (fp16 unpacks with HADD2.F32 on the FMA pipe), math-pipe throttle
// stalls 0.86 against 0.61 per issue, and bf16 ran 3.5 % longer.
template <typename T, bool kFmaPipe = false>
__device__ __forceinline__ void unpack(const RawChunk<T>& r, float (&v)[kChunk]) {
    if constexpr (sizeof(T) == 2 && kFmaPipe && std::is_same_v<T, __nv_bfloat16>) {
        const uint32_t w[4] = {r.w[0].x, r.w[0].y, r.w[0].z, r.w[0].w};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            v[2 * i] = __uint_as_float(w[i] * kBf16LowHalfScale);  // IMAD (FMA pipe)
            v[2 * i + 1] = __uint_as_float(w[i] & 0xFFFF0000u);    // LOP3 (ALU pipe)
        }
    } else if constexpr (sizeof(T) == 2) {
        unpack2<T>(r.w[0].x, v[0], v[1]);
        unpack2<T>(r.w[0].y, v[2], v[3]);
        unpack2<T>(r.w[0].z, v[4], v[5]);
        unpack2<T>(r.w[0].w, v[6], v[7]);
    } else {
        v[0] = __uint_as_float(r.w[0].x); v[1] = __uint_as_float(r.w[0].y);
        v[2] = __uint_as_float(r.w[0].z); v[3] = __uint_as_float(r.w[0].w);
        v[4] = __uint_as_float(r.w[1].x); v[5] = __uint_as_float(r.w[1].y);
        v[6] = __uint_as_float(r.w[1].z); v[7] = __uint_as_float(r.w[1].w);
    }
}

// streaming: st.global.cs (evict-first: the output is not read again by this kernel)
template <typename T>
__device__ __forceinline__ void store_chunk(T* p, const float (&v)[kChunk], bool streaming = false) {
    if constexpr (sizeof(T) == 2) {
        uint4 raw;
        raw.x = pack2<T>(v[0], v[1]);
        raw.y = pack2<T>(v[2], v[3]);
        raw.z = pack2<T>(v[4], v[5]);
        raw.w = pack2<T>(v[6], v[7]);
        if (streaming) __stcs(reinterpret_cast<uint4*>(p), raw);
        else *reinterpret_cast<uint4*>(p) = raw;
    } else {
        float4* q = reinterpret_cast<float4*>(p);
        if (streaming) {
            __stcs(q, make_float4(v[0], v[1], v[2], v[3]));
            __stcs(q + 1, make_float4(v[4], v[5], v[6], v[7]));
        } else {
            q[0] = make_float4(v[0], v[1], v[2], v[3]);
            q[1] = make_float4(v[4], v[5], v[6], v[7]);
        }
    }
}

template <typename T>
__device__ __forceinline__ void store_partial(T* p, int64_t valid, const float (&v)[kChunk]) {
#pragma unroll
    for (int i = 0; i < kChunk; ++i)
        if (i < valid) p[i] = from_float<T>(v[i]);
}

// =============================================================================================
// [SECTION] Math: GELU, dropout mask, block reduction
// =============================================================================================
// GELU with Abramowitz & Stegun's erf (~14 instructions against erff's ~25): kernels/core/gelu_fast.h,
// shared with the exercises' header so a student's kernel can use the very same function.
__device__ __forceinline__ float gelu(float x) { return kernels::gelu_fast(x); }
// v7: the GELU of a kernel storing T. 16-bit outputs take the logistic form (kernels/elementwise/
// gelu_logistic.h: 9 instructions against 13, |error| <= 2.6e-5, under a ninth of fp16's half ulp);
// fp32 outputs, checked to 1e-5, keep A&S. fused_chain_spill keeps its recorded gelu_fast_select.
template <typename T> __device__ __forceinline__ float gelu_of(float x) {
    if constexpr (sizeof(T) == 2) return elementwise::gelu_logistic(x);
    else return gelu(x);
}

// 16-bit uniform number `lane` (0..7) of a Philox result; same bits as dropout_u16() but with
// selects instead of an indexed array, so a run-time lane does not put r in local memory.
__device__ __forceinline__ uint32_t mask_u16(const Philox4& r, uint32_t lane) {
    const uint32_t w01 = (lane & 2) ? r.v[1] : r.v[0];
    const uint32_t w23 = (lane & 2) ? r.v[3] : r.v[2];
    const uint32_t w = (lane & 4) ? w23 : w01;
    return (lane & 1) ? (w >> 16) : (w & 0xFFFFu);
}

// Applies dropout to one whole chunk whose first element has flat index e0 (a multiple of 8):
// exactly one Philox call. (fused_chain_spill's verbatim kernel only: the others take the keys below.)
__device__ __forceinline__ void dropout_chunk(float (&v)[kChunk], uint64_t e0, uint64_t seed, uint32_t threshold,
                                              float keep_scale) {
    const Philox4 r = dropout_block(seed, e0);
#pragma unroll
    for (int i = 0; i < kChunk; ++i) v[i] = dropout_u16(r, i) >= threshold ? v[i] * keep_scale : 0.0f;
}

// Philox4x32-10's round keys, computed once on the host (philox_round_keys) and passed in the
// kernel's parameters, which live in the constant bank: each round's XOR reads its key from there
// (LOP3 takes a constant-bank operand) instead of adding the Weyl increments to the key per call,
// 20 integer additions per call (2.5 per element) fewer. Same keys, same bits as philox4x32_10.
struct PhiloxKeys {
    uint32_t k0[10], k1[10];
};
PhiloxKeys philox_round_keys(uint64_t seed) {
    PhiloxKeys k{};
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    for (int r = 0; r < 10; ++r) {
        k.k0[r] = k0;
        k.k1[r] = k1;
        k0 += 0x9E3779B9u;  // kernels/core/philox.h's W0, W1
        k1 += 0xBB67AE85u;
    }
    return k;
}
// dropout_block(seed, index) with the round keys read from `keys`.
__device__ __forceinline__ Philox4 dropout_block_keyed(const PhiloxKeys& keys, uint64_t index) {
    constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
    const uint64_t group = index >> 3;  // 8 elements per Philox call
    uint32_t c0 = static_cast<uint32_t>(group), c1 = static_cast<uint32_t>(group >> 32), c2 = 0x5EEDu, c3 = 0u;
#pragma unroll
    for (int r = 0; r < 10; ++r) {
        const uint32_t hi0 = __umulhi(M0, c0), lo0 = M0 * c0;
        const uint32_t hi1 = __umulhi(M1, c2), lo1 = M1 * c2;
        const uint32_t n0 = hi1 ^ c1 ^ keys.k0[r], n2 = hi0 ^ c3 ^ keys.k1[r];
        c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
    }
    return Philox4{{c0, c1, c2, c3}};
}
// The keep test of the odd lanes (the high half of a word) on the whole word: (w >> 16) >= t exactly
// when w >= t << 16, one comparison instead of a shift and a comparison. t << 16 fits 32 bits for
// t <= 65535; t = 65536 (p within 2^-17 of 1: nothing kept) has no such bound, so the launchers pass
// threshold_hi = 0xFFFF0000 and keep_scale = 0 then (an odd lane whose half is 0xFFFF passes and keeps 0).
inline uint32_t threshold_high(uint32_t threshold) { return threshold >= 65536u ? 0xFFFF0000u : threshold << 16; }
// keep[i]: element e0 + i of a whole chunk survives dropout (one Philox call).
__device__ __forceinline__ void keep_chunk_keyed(bool (&keep)[kChunk], uint64_t e0, const PhiloxKeys& keys,
                                                 uint32_t threshold, uint32_t threshold_hi) {
    const Philox4 r = dropout_block_keyed(keys, e0);
#pragma unroll
    for (int i = 0; i < kChunk; ++i) {
        const uint32_t w = r.v[i >> 1];
        keep[i] = (i & 1) ? w >= threshold_hi : (w & 0xFFFFu) >= threshold;
    }
}
__device__ __forceinline__ void dropout_chunk_keyed(float (&v)[kChunk], uint64_t e0, const PhiloxKeys& keys,
                                                    uint32_t threshold, uint32_t threshold_hi, float keep_scale) {
    bool keep[kChunk];
    keep_chunk_keyed(keep, e0, keys, threshold, threshold_hi);
#pragma unroll
    for (int i = 0; i < kChunk; ++i) v[i] = keep[i] ? v[i] * keep_scale : 0.0f;
}

// Sum over the warps of one row of the block (warps_per_row consecutive warps; the block holds
// blockDim / (32 warps_per_row) rows); every thread of the row gets the total: a warp butterfly,
// then the row's warps added one after another from 0 (elementwise_emulate.cpp follows this order).
// `scratch` holds one float per warp. warps_per_row is the same for the whole block, so the
// barrier is reached by all threads or none. first_warp: the row's first warp in the block (v7: the
// caller's local_row x warps_per_row; a division here cost ~20 instructions per thread).
__device__ __forceinline__ float row_sum(float v, float* scratch, int warps_per_row, int first_warp) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
    if (warps_per_row == 1) return 0.0f + v;
    const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    float total = 0.0f;
#pragma unroll 4  // v6: a run-time loop of 8 warps cost 5 instructions a term in every thread (~2.5 per element over two reductions)
    for (int w = 0; w < warps_per_row; ++w) total += scratch[first_warp + w];
    return total;
}
// Two row sums at once (v6, 16-bit rows: the shifted statistics), each in row_sum's order, one block
// barrier for both.
__device__ __forceinline__ void row_sum2(float& a, float& b, float* scratch_a, float* scratch_b, int warps_per_row,
                                         int first_warp) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        a += __shfl_xor_sync(0xFFFFFFFFu, a, offset);
        b += __shfl_xor_sync(0xFFFFFFFFu, b, offset);
    }
    if (warps_per_row == 1) {
        a = 0.0f + a;
        b = 0.0f + b;
        return;
    }
    const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
    if (lane == 0) scratch_a[warp] = a, scratch_b[warp] = b;
    __syncthreads();
    float total_a = 0.0f, total_b = 0.0f;
#pragma unroll 4
    for (int w = 0; w < warps_per_row; ++w) total_a += scratch_a[first_warp + w], total_b += scratch_b[first_warp + w];
    a = total_a;
    b = total_b;
}

// A cluster of `ctas` blocks shares one row; each of its two reductions (the mean's, then the squared
// deviations') adds the blocks' partial sums in rank order (elementwise_emulate.cpp follows this order).
// Two ways to bring the partials together, the same sums either way:
//   push (v6, the default): at its start every block readies two mbarriers in its shared memory (one
//     per reduction, each expecting ctas floats) and arrives at the cluster barrier without waiting
//     (relaxed: no memory fence); it waits on that barrier only before its first push, so the wait
//     overlaps the row's loads, and no block stores into a peer that has not started. Thread r then
//     stores the block's partial into block r's slot [rank] with st.async, whose arrival completes
//     ctas x 4 bytes of the peer's mbarrier transaction count; each block waits on its own mbarrier
//     and adds its own slots. No GPU-scope fence (a release arrive at the cluster barrier is a
//     MEMBAR.ALL.GPU in the SASS), no serial remote loads, no barrier at exit: a block's last access
//     to a peer is a store that peer waits for before it can finish.
//   pull (v4, FUSIONLAB_CLUSTER_REDUCTION=pull, kept to compare in one process): each block writes its
//     partial, the cluster meets at a barrier (arrive.release, wait.acquire), thread 0 loads the ctas
//     partials through distributed shared memory one after another and hands the total over through a
//     block barrier; after its last remote read a block arrives once more and waits before exiting,
//     so no block leaves while a peer still reads it.
// v5 pushed with plain st.shared::cluster stores and no barrier before the first one: racecheck (H100,
// 2026-11-28) showed a push could reach a block that had not started yet.
// v8, rows in sequence: two sets of slots and mbarriers, used by alternate rows (set = step & 1). A peer can
// push row s + 2's partials only after this block pushed row s + 1's, which it does after reading row s's
// slots; so a set is never written while it is read, and each mbarrier's phases follow its rows in order
// (use k of a set waits on phase parity k & 1; it is re-armed, arrive.expect_tx, after each use but the last).
struct ClusterReduction {
    float sum_slots[2][elementwise::kRowMaxClusterCtas];  // push: the blocks' partials of the mean's sum, by rank
    float sq_slots[2][elementwise::kRowMaxClusterCtas];   // push: of the squared deviations
    unsigned long long sum_bar[2], sq_bar[2];             // push: mbarriers, complete when ctas floats have landed
    float pull_partial[2], pull_total[2];                 // pull: this block's partial and the cluster's total
};
// Which set and phase a row's reduction uses (rows in sequence, v8); step 0 alone before v8.
struct ClusterStep {
    int set;          // step & 1
    uint32_t parity;  // (step >> 1) & 1: the phase of that set's mbarriers this row completes
    bool first;       // the kernel's first push waits for every peer to have begun
    bool rearm;       // the set is used again (step + 2 < steps): re-armed after this use
};
__device__ __forceinline__ ClusterStep cluster_step(int step, int steps) {
    return ClusterStep{step & 1, static_cast<uint32_t>((step >> 1) & 1), step == 0, step + 2 < steps};
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // its users are the clusters' (sm_90) code alone
__device__ __forceinline__ uint32_t shared_address(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
#endif
__device__ __forceinline__ void cluster_arrive() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void cluster_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#endif
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// The next phase of `bar` expects `bytes` and has its one arrival (this thread's): it completes when they land.
// Pushes of that phase may land first (the transaction count runs negative until then; the phase cannot
// complete before this arrival).
__device__ __forceinline__ void mbarrier_expect(unsigned long long* bar, uint32_t bytes) {
    asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(
                     shared_address(bar)),
                 "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void mbarrier_ready(unsigned long long* bar, uint32_t bytes) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(shared_address(bar)) : "memory");
    mbarrier_expect(bar, bytes);
}
// Wait until phase `parity` of `bar` has completed; the hint (10 ms) lets a waiting thread sleep until then
// instead of polling, which issued instructions (ncu, 2026-11-28: the clusters issued ~10 % more per element
// than one-block rows).
__device__ __forceinline__ void mbarrier_wait(unsigned long long* bar, uint32_t parity) {
    asm volatile(
        "{\n .reg .pred landed;\n WAIT_PUSHED:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 landed, [%0], %1, 10000000;\n"
        " @!landed bra WAIT_PUSHED;\n}\n" ::"r"(shared_address(bar)),
        "r"(parity)
        : "memory");
}
#endif
// push: the kernel's first step in a cluster (every thread calls it; the push mode only)
// sum_floats: floats each block pushes on sum_bar (2: the shifted statistics' two sums at once).
__device__ __forceinline__ void cluster_push_begin(ClusterReduction& cr, int ctas, int sum_floats) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (threadIdx.x == 0) {
        const uint32_t bytes = static_cast<uint32_t>(ctas) * static_cast<uint32_t>(sizeof(float));
        // one arrival (this thread's, now) and the pushes' bytes complete each barrier's phase 0
        for (int set = 0; set < 2; ++set) {
            mbarrier_ready(&cr.sum_bar[set], bytes * static_cast<uint32_t>(sum_floats));
            mbarrier_ready(&cr.sq_bar[set], bytes);
        }
        // the initialised mbarriers are visible to the peers' pushes after the cluster barrier
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
#else
    (void)cr;
    (void)ctas;
    (void)sum_floats;
#endif
}
// push: one reduction of row step `st` (cluster_step). st.first: the first push of this kernel, which waits
// for every peer to have begun.
__device__ __forceinline__ float cluster_sum_push(float block_total, float* slots, unsigned long long* bar, int rank,
                                                  int ctas, ClusterStep st) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (st.first) asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");  // every peer has readied its mbarriers
    const int t = static_cast<int>(threadIdx.x);
    if (t < ctas) {
        // this block's partial -> block t's slot [rank] (registers -> a peer's shared memory, st.async)
        uint32_t remote_slot, remote_bar;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_slot) : "r"(shared_address(slots + rank)), "r"(t));
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(shared_address(bar)), "r"(t));
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, [%2];\n" ::"r"(remote_slot),
                     "f"(block_total), "r"(remote_bar)
                     : "memory");
    }
    // wait until the ctas partials have landed in this block's slots (the step's phase of its mbarrier completes)
    mbarrier_wait(bar, st.parity);
    float sum = 0.0f;
#pragma unroll 4
    for (int r = 0; r < ctas; ++r) sum += slots[r];  // own shared memory -> registers, rank order
    if (st.rearm && t == 0) mbarrier_expect(bar, static_cast<uint32_t>(ctas) * static_cast<uint32_t>(sizeof(float)));
    return sum;
#else
    (void)slots;
    (void)bar;
    (void)rank;
    (void)ctas;
    (void)st;
    __trap();  // the launcher runs clusters on compute capability 9.0 and later only
    return block_total;
#endif
}
// pull: thread 0 adds the partials (32-bit shared::cluster addresses: few registers while the row is
// held) and hands the total to its block through `total`.
__device__ __forceinline__ float cluster_sum_pull(float block_total, float* partial, float* total, int ctas) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (threadIdx.x == 0) *partial = block_total;
    cluster_arrive();
    cluster_wait();
    if (threadIdx.x == 0) {
        const uint32_t local = shared_address(partial);
        float sum = 0.0f;
        for (int r = 0; r < ctas; ++r) {
            uint32_t remote;
            float v;
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(r));
            asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
            sum += v;
        }
        *total = sum;
    }
    __syncthreads();
    return *total;
#else
    (void)partial;
    (void)total;
    (void)ctas;
    __trap();  // the launcher runs clusters on compute capability 9.0 and later only
    return block_total;
#endif
}
// The row's total of one reduction (which: 0 the mean's, 1 the squared deviations') over the cluster.
// st: the row's step (cluster_step; one row per cluster: step 0 of 1).
__device__ __forceinline__ float cluster_sum(float block_total, ClusterReduction& cr, int which, int rank, int ctas,
                                            bool pull, ClusterStep st) {
    if (pull) return cluster_sum_pull(block_total, &cr.pull_partial[which], &cr.pull_total[which], ctas);
    if (which != 0) st.first = false;
    return which == 0 ? cluster_sum_push(block_total, cr.sum_slots[st.set], &cr.sum_bar[st.set], rank, ctas, st)
                      : cluster_sum_push(block_total, cr.sq_slots[st.set], &cr.sq_bar[st.set], rank, ctas, st);
}
// Both sums of the shifted statistics over the cluster: push, one mbarrier for both (cluster_push_begin
// with sum_floats 2), or pull, one after the other.
__device__ __forceinline__ void cluster_sum2(float& a, float& b, ClusterReduction& cr, int rank, int ctas, bool pull,
                                             ClusterStep st) {
    if (pull) {
        a = cluster_sum_pull(a, &cr.pull_partial[0], &cr.pull_total[0], ctas);
        b = cluster_sum_pull(b, &cr.pull_partial[1], &cr.pull_total[1], ctas);
        return;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (st.first) asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");  // every peer has readied its mbarriers
    const int t = static_cast<int>(threadIdx.x);
    float* sum_slots = cr.sum_slots[st.set];
    float* sq_slots = cr.sq_slots[st.set];
    unsigned long long* bar = &cr.sum_bar[st.set];
    if (t < ctas) {
        // this block's two partials -> block t's slots [rank] (registers -> a peer's shared memory, st.async)
        uint32_t remote_a, remote_b, remote_bar;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_a) : "r"(shared_address(sum_slots + rank)), "r"(t));
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_b) : "r"(shared_address(sq_slots + rank)), "r"(t));
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(shared_address(bar)), "r"(t));
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, [%2];\n" ::"r"(remote_a), "f"(a),
                     "r"(remote_bar)
                     : "memory");
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, [%2];\n" ::"r"(remote_b), "f"(b),
                     "r"(remote_bar)
                     : "memory");
    }
    mbarrier_wait(bar, st.parity);  // both partials of every block have landed in this block's slots
    float sum_a = 0.0f, sum_b = 0.0f;
#pragma unroll 4
    for (int r = 0; r < ctas; ++r) sum_a += sum_slots[r], sum_b += sq_slots[r];  // own shared memory, rank order
    if (st.rearm && t == 0) mbarrier_expect(bar, 2 * static_cast<uint32_t>(ctas) * static_cast<uint32_t>(sizeof(float)));
    a = sum_a;
    b = sum_b;
#else
    (void)rank;
    (void)st;
    __trap();  // the launcher runs clusters on compute capability 9.0 and later only
#endif
}
// After the last reduction (pull only): done reading the peers' shared memory; cluster_exit waits for
// the peers to be done with this block's before the block exits.
__device__ __forceinline__ void cluster_reductions_done(bool pull) {
    if (pull) cluster_arrive();
}
__device__ __forceinline__ void cluster_exit(bool pull) {
    if (pull) cluster_wait();
}

// v9: the row's leader warp reduces (FUSIONLAB_ROW_REDUCTION=leader, the default; every_warp keeps v8's form).
// In row_sum / row_sum2 every warp of a row, after the block barrier, loads and adds all warps_per_row partials
// itself: 2 instructions a warp and a sum, in every warp, so W / 8 per element (one sum) or W / 4 (two) for W
// warps a row of 32-element threads, and in a cluster every warp also polls the mbarrier and adds the ctas
// blocks' partials (ncu, H200: 38.5 instructions per element at 8 warps a row, 40.0 at 16, 41.0 in a cluster of
// 8 blocks of 8 warps, against 36.0 at one warp a row). Here only the row's first warp (the leader) waits for
// the partials and adds them, in the same order (row_sum's, then cluster_sum's rank order: the same bits); the
// others arrive at named barrier 1 without waiting, and wait at named barrier 2 for the leader's totals, one
// load. Lanes 0 and 1 of the leader add the two sums of the 16-bit statistics side by side. In a cluster the
// leader warp alone pushes, waits on the mbarrier and adds the ranks' partials.
// Named barriers 1 and 2 (0 is __syncthreads) with the block's thread count: every thread of the block meets
// each once per reduction (a row past the tensor too), the leaders with bar.sync on 1 and bar.arrive on 2, the
// others the other way round. An fp32 row's second reduction (the squared deviations') takes named barriers 3 and
// 4 and totals of its own (row_kernel_body): every named barrier is met once a kernel, each shared float written
// once. With barriers 1 and 2 and one place for both totals (v9, round 1), racecheck reported the other warps' read
// of a total against the leader's write (H200, fp32 rows only, whose reductions reused them; 16-bit rows, one
// reduction, none); with the totals apart but the barriers shared (v9b, round 2), it still did.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
// The leader warp's cluster step (warp 0 of each block: one row a cluster, so lane = threadIdx.x): kN sums, lane
// k holding sum k of its block. Pushes them to every block (lanes < ctas), waits until every block's have landed
// in this block's slots, adds them in rank order (lane k sum k), re-arms the mbarrier. which (kN == 1): 0 the
// mean's slots and mbarrier, 1 the squared deviations'; kN == 2 takes the sum's mbarrier for both (cluster_push_begin
// with sum_floats 2).
template <int kN>
__device__ __forceinline__ float cluster_sums_leader(float lane_total, ClusterReduction& cr, int which, int rank, int ctas,
                                                     ClusterStep st) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const int lane = static_cast<int>(threadIdx.x);
    float* slots[kN];
    slots[0] = kN == 2 || which == 0 ? cr.sum_slots[st.set] : cr.sq_slots[st.set];
    if constexpr (kN == 2) slots[kN - 1] = cr.sq_slots[st.set];
    unsigned long long* bar = kN == 2 || which == 0 ? &cr.sum_bar[st.set] : &cr.sq_bar[st.set];
    float block_total[kN];
#pragma unroll
    for (int k = 0; k < kN; ++k) block_total[k] = __shfl_sync(0xFFFFFFFFu, lane_total, k);
    if (lane < ctas) {
        // this block's partials -> block `lane`'s slots [rank] (registers -> a peer's shared memory, st.async)
        uint32_t remote_bar;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(shared_address(bar)), "r"(lane));
#pragma unroll
        for (int k = 0; k < kN; ++k) {
            uint32_t remote_slot;
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_slot) : "r"(shared_address(slots[k] + rank)), "r"(lane));
            asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, [%2];\n" ::"r"(remote_slot),
                         "f"(block_total[k]), "r"(remote_bar)
                         : "memory");
        }
    }
    mbarrier_wait(bar, st.parity);  // every block's partials have landed in this block's slots
    const float* mine = kN == 2 && lane == 1 ? slots[kN - 1] : slots[0];  // a select: an indexed array would be local memory
    float sum = 0.0f;
#pragma unroll 4
    for (int r = 0; r < ctas; ++r) sum += mine[r];  // own shared memory -> registers, rank order (cluster_sum's)
    if (st.rearm && lane == 0) mbarrier_expect(bar, static_cast<uint32_t>(kN * ctas) * static_cast<uint32_t>(sizeof(float)));
    return sum;
#else
    (void)cr;
    (void)which;
    (void)rank;
    (void)ctas;
    (void)st;
    __trap();  // the launcher runs clusters on compute capability 9.0 and later only
    return lane_total;
#endif
}
// kN sums of one row (1: an fp32 row's mean, then its squared deviations; 2: a 16-bit row's shifted
// statistics) over its warps and, in a cluster (push form only), its blocks; every thread of the row gets the
// totals. scratch[k]: one float per warp; totals: kN floats per row of the block, where the leader hands them
// over (rows of several warps: at most 512 / 64 = 8 a block). which, st: as cluster_sum's (st.first: the
// kernel's first cluster reduction, which waits for every peer to have begun).
template <int kN>
__device__ __forceinline__ void row_sums_leader(float (&v)[kN], float* const (&scratch)[kN], float* totals, int warps_per_row,
                                                int first_warp, int local_row, ClusterReduction& cr, int which, int rank,
                                                int ctas, ClusterStep st) {
    // named barriers 1 and 2 for the row's first reduction, 3 and 4 for an fp32 row's second (which): each met once
    const int partials_ready = 1 + 2 * which, totals_ready = 2 + 2 * which;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
#pragma unroll
        for (int k = 0; k < kN; ++k) v[k] += __shfl_xor_sync(0xFFFFFFFFu, v[k], offset);
    if (warps_per_row == 1 && ctas == 1) {
#pragma unroll
        for (int k = 0; k < kN; ++k) v[k] = 0.0f + v[k];  // row_sum's order: 0 + the one warp's sum
        return;
    }
    const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
    const int threads = static_cast<int>(blockDim.x);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // every thread met the cluster barrier's arrival at its start (cluster_push_begin): it waits once, here
    if (ctas > 1 && st.first) asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
#endif
    if (lane == 0)
#pragma unroll
        for (int k = 0; k < kN; ++k) scratch[k][warp] = v[k];  // this warp's partials -> shared
    float* row_totals = totals + kN * local_row;
    if (warp != first_warp) {
        named_barrier_arrive(partials_ready, threads);  // this warp's partials are written; it does not wait for the others'
        named_barrier_sync(totals_ready, threads);      // the leader has written the row's totals
#pragma unroll
        for (int k = 0; k < kN; ++k) v[k] = row_totals[k];  // shared -> registers
        return;
    }
    named_barrier_sync(partials_ready, threads);  // every warp's partials are written
    // lane k adds sum k over the row's warps from its first (row_sum's order); the other lanes repeat lane 0's
    const float* mine = kN == 2 && lane == 1 ? scratch[kN - 1] : scratch[0];  // a select: an indexed array would be local memory
    float total = 0.0f;
#pragma unroll 4
    for (int w = 0; w < warps_per_row; ++w) total += mine[first_warp + w];
    if (ctas > 1) total = cluster_sums_leader<kN>(total, cr, which, rank, ctas, st);
    if (lane < kN) row_totals[lane] = total;  // registers -> shared, for the row's other warps
    named_barrier_arrive(totals_ready, threads);
#pragma unroll
    for (int k = 0; k < kN; ++k) v[k] = __shfl_sync(0xFFFFFFFFu, total, k);
}

// =============================================================================================
// [SECTION] Kernels: row kernels (layernorm, fused_chain)
// =============================================================================================
// The layout is elementwise::row_config()'s (elementwise_shapes.cpp): threads_per_row (tpr)
// threads of a block share a row, a block holds rows_per_block rows, or a cluster of ctas_per_row
// blocks shares one row. Thread t of cluster rank k holds chunks k tpr kCpt + c tpr + t,
// c = 0 .. kCpt-1, of its row (coalesced: a warp reads 32 consecutive chunks). kVector: hidden % 8
// == 0 and 16-byte aligned pointers, so every chunk is one or two 16-byte moves and one Philox call.
struct RowArgs {
    const void* x;
    const void* residual;  // fused only
    const void* gamma;
    const void* beta;
    void* out;             // h1 (layernorm) or out (fused_chain)
    int64_t hidden;
    uint64_t seed;
    uint32_t threshold;
    float keep_scale;
    int rows;              // rows x hidden <= 2^30 (elementwise::kMaxElements)
    int threads_per_row;
    int ctas_per_row;
    int chunks_per_thread;  // staged_row_kernel only (row_kernel has it as kCpt)
    int stage_residual;     // staged_row_kernel, fused: residual staged in shared memory too (else read in the last pass)
    int streaming;          // x, residual loaded and out stored with the evict-first hint (.cs)
};
// The second parameter of row_kernel and staged_row_kernel (not in RowArgs: fused_chain_spill takes
// RowArgs as it was recorded, and a longer struct moved its spills): the dropout mask's precomputed
// parts and the cluster reduction's form.
struct RowExtras {
    uint32_t threshold_hi;  // threshold_high(threshold): the odd lanes' keep test
    PhiloxKeys keys;        // Philox's round keys (philox_round_keys(seed))
    int cluster_pull;       // clusters pull their partial sums (v4) instead of pushing them (v6): FUSIONLAB_CLUSTER_REDUCTION=pull
    // v6: the layout's divisions done on the host. Each block's threads found their row and rank with
    // two or three integer divisions by run-time counts (~20 instructions each, ~1.5 per element of a
    // 4-chunk thread), before the first load could issue.
    uint32_t tpr_reciprocal;  // ceil(2^20 / threads_per_row): (i * it) >> 20 == i / threads_per_row for i < 1024
    int rows_per_block;
    int ctas_log2;            // ctas_per_row is 1, 2, 4 or 8
    int full_rows;            // ctas x threads x chunks x 8 == hidden: every chunk of the layout inside its row
    // v7: the dropout scale folded into the 16-bit GELU (gelu_logistic.h's gelu_scale_fold of keep_scale)
    float scale_inverse, scale_log2_inverse;
    int rows_in_sequence;     // v8: rows a block (cluster) runs one after another, the next one's x prefetched (row_kernel)
    int leader_reduction;     // v9: the row's leader warp alone adds the partials (row_sums_leader); 0: every warp (v8),
                              // FUSIONLAB_ROW_REDUCTION=every_warp
};
static_assert(kMaxRowThreads <= 1024, "RowExtras::tpr_reciprocal divides exactly only below 1024 threads");

template <typename T, bool kVector, typename Index>
__device__ __forceinline__ void load_row_chunk(const T* row, Index col0, Index hidden, RawChunk<T>& r,
                                               bool streaming = false) {
    if (kVector && col0 < hidden) {
        if (streaming) load_raw_streaming<T>(row + col0, r);
        else load_raw<T>(row + col0, r);
    } else {
        load_raw_partial<T>(row + col0, hidden - col0, r);  // valid <= 0: all zeros, no access
    }
}

// row_kernel's load of one chunk (v6): a vector chunk past the row is zeros without the scalar path's
// per-element code (fused_chain_spill keeps load_row_chunk, its recorded code).
template <typename T, bool kVector, bool kFull, typename Index>
__device__ __forceinline__ void load_row_chunk_or_zero(const T* row, Index col0, Index hidden, RawChunk<T>& r, bool streaming) {
    if (kVector && kFull) {  // inside the row by the layout: no test
        if (streaming) load_raw_streaming<T>(row + col0, r);
        else load_raw<T>(row + col0, r);
    } else if (!kVector) {
        load_raw_partial<T>(row + col0, hidden - col0, r);  // valid <= 0: all zeros, no access
    } else if (col0 < hidden) {
        if (streaming) load_raw_streaming<T>(row + col0, r);
        else load_raw<T>(row + col0, r);
    } else {
        r = RawChunk<T>{};
    }
}

// Dropout on a chunk of a ragged row (hidden % 8 != 0): it may straddle two Philox groups, so one
// call per group met (at most two per chunk).
__device__ __forceinline__ void dropout_ragged_chunk(float (&v)[kChunk], uint64_t e0, uint64_t seed,
                                                     uint32_t threshold, float keep_scale) {
    uint64_t cached_group = ~uint64_t{0};
    Philox4 r{};
#pragma unroll
    for (int i = 0; i < kChunk; ++i) {
        const uint64_t e = e0 + static_cast<uint64_t>(i);
        if ((e >> 3) != cached_group) {
            r = dropout_block(seed, e);
            cached_group = e >> 3;
        }
        v[i] = mask_u16(r, static_cast<uint32_t>(e & 7)) >= threshold ? v[i] * keep_scale : 0.0f;
    }
}

// keep[i] for a chunk of a ragged row (it may straddle two Philox groups: one call per group met).
// dropout_ragged_chunk above does the same for fused_chain_spill, which keeps its recorded code (written
// through this function, ptxas changes the spill kernels' ragged instances).
__device__ __forceinline__ void keep_ragged_chunk(bool (&keep)[kChunk], uint64_t e0, uint64_t seed, uint32_t threshold) {
    uint64_t cached_group = ~uint64_t{0};
    Philox4 r{};
#pragma unroll
    for (int i = 0; i < kChunk; ++i) {
        const uint64_t e = e0 + static_cast<uint64_t>(i);
        if ((e >> 3) != cached_group) {
            r = dropout_block(seed, e);
            cached_group = e >> 3;
        }
        keep[i] = mask_u16(r, static_cast<uint32_t>(e & 7)) >= threshold;
    }
}

// The last pass over one chunk of a row, shared by row_kernel and staged_row_kernel: normalise
// with the row's mean and rstd, scale and shift by gamma and beta, and (fused) GELU, dropout and
// the residual add, then store. x_raw and res_raw are the chunk's packed bits (res_raw unused by
// layernorm); col0 is the chunk's first column, valid the columns left in the row from it.
template <typename T, bool kVector, bool kFused>
__device__ __forceinline__ void finish_chunk(const RowArgs& a, const RowExtras& m, const RawChunk<T>& x_raw, const RawChunk<T>& res_raw,
                                             int64_t row_start, int col0, int valid, float mean, float rstd, T* out) {
    // load gamma, beta chunk into registers (L1/L2-resident after the first rows)
    RawChunk<T> g_raw, b_raw;
    if (kVector) {
        load_raw<T, true>(static_cast<const T*>(a.gamma) + col0, g_raw);
        load_raw<T, true>(static_cast<const T*>(a.beta) + col0, b_raw);
    } else {
        load_raw_partial<T>(static_cast<const T*>(a.gamma) + col0, valid, g_raw);
        load_raw_partial<T>(static_cast<const T*>(a.beta) + col0, valid, b_raw);
    }
    float v[kChunk], g[kChunk], b[kChunk], h[kChunk];
    unpack<T, true>(x_raw, v);
    unpack<T, true>(g_raw, g);
    unpack<T, true>(b_raw, b);
    if constexpr (sizeof(T) == 2) {
        // v6, 16-bit: (x - mean) rstd as one FFMA, x rstd + (-mean rstd), instead of FADD and FMUL: its
        // error, one rounding of mean rstd, is |mean| / std fp32 ulps of a normalised value, below the
        // output's 8 or 11 bits unless |mean| exceeds ~1000 standard deviations
        const float neg_mean_rstd = -mean * rstd;
#pragma unroll
        for (int i = 0; i < kChunk; ++i) h[i] = fmaf(fmaf(v[i], rstd, neg_mean_rstd), g[i], b[i]);
    } else {
#pragma unroll
        for (int i = 0; i < kChunk; ++i) h[i] = fmaf((v[i] - mean) * rstd, g[i], b[i]);
    }
    if constexpr (kFused) {
        // v7, 16-bit: s Phi(h), the dropout scale s folded into the logistic form (gelu_logistic.h);
        // GELU(h) s = h factor, taken below in one FMA with the residual
        float factor[kChunk];
#pragma unroll
        for (int i = 0; i < kChunk; ++i) {
            if constexpr (sizeof(T) == 2) factor[i] = elementwise::gelu_logistic_factor(h[i], m.scale_inverse, m.scale_log2_inverse);
            else h[i] = gelu(h[i]);
        }
        const uint64_t e0 = static_cast<uint64_t>(row_start + col0);
        bool keep[kChunk];
        if (kVector) keep_chunk_keyed(keep, e0, m.keys, a.threshold, m.threshold_hi);
        else keep_ragged_chunk(keep, e0, a.seed, a.threshold);
        float res[kChunk];
        unpack<T, true>(res_raw, res);
        // v6: dropout's scale and the residual add in one FMA (FFMA, FSEL where the multiply, the select
        // and the add were three; one rounding fewer): a dropped element is the residual exactly
#pragma unroll
        for (int i = 0; i < kChunk; ++i) {
            if constexpr (sizeof(T) == 2) h[i] = keep[i] ? fmaf(h[i], factor[i], res[i]) : res[i];  // v7: GELU(h) s + res
            else h[i] = keep[i] ? fmaf(h[i], a.keep_scale, res[i]) : res[i];
        }
    }
    // store out row chunk to HBM (h1 for the unfused layernorm)
    if (kVector) store_chunk<T>(out + col0, h, a.streaming != 0);
    else store_partial<T>(out + col0, valid, h);
}

// Chunks per thread (row_kernel_shape): 64 bytes of x per thread, i.e. kCpt = 4 for fp16/bf16 and
// 2 for fp32, up to 512 threads; fp32 rows past 8192 take kCpt = 4 in 512 threads (128 registers).
// Vector paths are capped at 64 registers (>= 1024 resident threads per SM); the scalar (ragged)
// path gets 128 so its per-element addressing does not spill. kSpill (fused_chain_spill) asks for
// full occupancy, as many blocks of 512 threads as the SM holds (4 on sm_70/80/90: 32 registers), and
// gets the spills that follow (row_kernel_registers.inc). The SM's thread limit is per architecture
// (kernels::sm_limits): asking an sm_86 for 4 x 512 threads is out of range (ptxas warns, ignores it).
#if defined(__CUDA_ARCH__)
constexpr int kSmMaxThreads = sm_limits(__CUDA_ARCH__ / 100, (__CUDA_ARCH__ % 100) / 10).max_threads;
#else
constexpr int kSmMaxThreads = 2048;  // the host pass: launch bounds are the device passes' business
#endif

template <int kCpt, bool kVector, bool kSpill, int kElementBytes>
constexpr int row_kernel_min_blocks() {
    if (kSpill) return kSmMaxThreads / kMaxRowThreads;
    return kVector && (kCpt == 2 || kElementBytes == 2) ? 2 : 1;
}

// cp.async exists from sm_80; on older parts (the default build's sm_75) the copy is a plain 16-byte
// load and store, done before the call returns, so the commit and the wait have nothing to do.
// kKeepInL1 (v8): the .ca hint, the line kept in L1 too as a plain load's is (row_sequence_kernel's x, whose
// row's first element every thread of the row then reads: the statistics' shift); else .cg (L2 only).
template <bool kKeepInL1 = false>
__device__ __forceinline__ void cp_async16(void* smem, const void* global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    if constexpr (kKeepInL1) asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(global) : "memory");
    else asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(global) : "memory");
#else
    *static_cast<uint4*>(smem) = *static_cast<const uint4*>(global);
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int kPending> __device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}


// row_kernel's work. kFull (v6): every chunk of every thread lies inside its row (the layout covers the
// row exactly and no row of the block is past the tensor), so no chunk needs a bounds test: the loads,
// the statistics and the last pass run without the per-chunk branches (~2 instructions per element).
// kSeq (v8, row_sequence_kernel; vector rows only): the block (or cluster) runs m.rows_in_sequence rows one
// after another, and x and the residual come through shared memory (cp.async, each thread its own chunks:
// no barrier): at the start of row s, row s's residual is copied into buffer 2 and row s + 1's x into the
// other of two x buffers, so the next row's x is in flight while row s reduces and finishes; each pass reads
// its chunks from shared memory, so neither is held in registers across the reductions (a register row
// with a loop around it spilled 32-52 B a thread in 16-bit). The block reductions alternate two scratch
// sets and the clusters two sets of slots and mbarriers (cluster_step), so a fast warp's next row never
// writes a slot a slow warp still reads.
template <typename T, int kCpt, bool kVector, bool kFused, bool kFull, bool kSeq>
__device__ __forceinline__ void row_kernel_body(const RowArgs& a, const RowExtras& m, float* sum_scratch, float* sq_scratch,
                                                ClusterReduction& cluster_reduction, uint4* prefetch) {
    static_assert(!kSeq || kVector, "rows in sequence take whole 16-byte chunks");
    constexpr bool kShiftedStatistics = sizeof(T) == 2;  // v6: one pass for mean and variance (below)
    constexpr int kWords = static_cast<int>(sizeof(T)) / 2;  // 16-byte words per chunk
    constexpr int kScratchSet = kMaxRowThreads / 32;       // floats per scratch set (one per warp)
    // 32-bit indices within a row and of rows (rows x hidden <= 2^30, elementwise.h): fewer
    // registers than 64-bit ones, which this kernel needs for the row it holds.
    using Index = int;
    const Index hidden = static_cast<Index>(a.hidden);
    const int tpr = a.threads_per_row, ctas = a.ctas_per_row;
    const int steps = kSeq ? m.rows_in_sequence : 1;
    const int local_row = static_cast<int>((threadIdx.x * m.tpr_reciprocal) >> 20);  // threadIdx.x / tpr
    const int t = static_cast<int>(threadIdx.x) - local_row * tpr;
    const int rank = static_cast<int>(blockIdx.x) & (ctas - 1);  // the block's rank in its cluster
    const bool pull = m.cluster_pull != 0;
    // v9: the row's leader warp reduces (row_sums_leader), one row a block (cluster) at a time and clusters that push;
    // its totals go through the second scratch sets, which only rows in sequence use: the mean's (and the 16-bit
    // statistics') through sum_scratch's, an fp32 row's squared deviations' through sq_scratch's. One place for
    // both was a write-after-read hazard to racecheck (H200, v9 round 1): the leader's second total written
    // where the other warps had read the first, ordered only by their bar.arrive.
    const bool leader = !kSeq && m.leader_reduction != 0 && !(ctas > 1 && pull);
    float* const totals = sum_scratch + kMaxRowThreads / 32;
    float* const sq_totals = sq_scratch + kMaxRowThreads / 32;
    // push: ready this block's mbarriers and arrive at the cluster barrier (waited on at the first push)
    if (ctas > 1 && !pull) cluster_push_begin(cluster_reduction, ctas, kShiftedStatistics ? 2 : 1);
    // the block's (cluster's) first row of step s is (unit steps + s) rows_per_step; a thread's adds local_row
    const int unit = ctas > 1 ? static_cast<int>(blockIdx.x >> m.ctas_log2) : static_cast<int>(blockIdx.x);
    const int rows_per_step = ctas > 1 ? 1 : m.rows_per_block;
    const Index stride = static_cast<Index>(tpr) * kChunk;
    const Index first_col = (static_cast<Index>(rank) * tpr * kCpt + t) * kChunk;
    const int warps_per_row = tpr >> 5;
    const int first_warp = local_row * warps_per_row;  // the row's first warp in the block (tpr is whole warps)
    const float inv_hidden = 1.0f / static_cast<float>(hidden);
    // kSeq: buffer b holds this thread's chunks at [b][chunk][word][thread] (16-byte words: conflict-free).
    // The block size goes through an empty asm at each use, so ptxas computes the slots' addresses where they
    // are used (one IMAD a chunk) instead of hoisting all of them out of the row loop into registers, which
    // spilled the 16-bit 4-chunk instance (40 B a thread).
    const int me = static_cast<int>(threadIdx.x);
    auto slot_base = [&](int buffer) {
        int threads = static_cast<int>(blockDim.x);
        asm volatile("" : "+r"(threads));
        return std::pair<uint4*, int>{prefetch + buffer * kCpt * kWords * threads + me, threads};
    };
    auto slot = [&](const std::pair<uint4*, int>& base, int c, int j) { return base.first + (c * kWords + j) * base.second; };
    // kSeq: step s's row of `tensor` -> `buffer` (HBM -> shared, cp.async 16 B, every chunk in flight; zeros
    // past the row). x goes to buffer s & 1, the residual to buffer 2.
    auto stage_row = [&](const void* tensor, int step, int buffer) {
        const int row = (unit * steps + step) * rows_per_step + (ctas > 1 ? 0 : local_row);
        const Index limit = row < a.rows ? hidden : 0;
        const T* x = static_cast<const T*>(tensor) + static_cast<int64_t>(row < a.rows ? row : 0) * hidden;
        const auto base = slot_base(buffer);
#pragma unroll
        for (int c = 0; c < kCpt; ++c) {
            const Index col0 = first_col + c * stride;
#pragma unroll
            for (int j = 0; j < kWords; ++j) {
                if (kFull || col0 < limit) cp_async16<true>(slot(base, c, j), reinterpret_cast<const uint4*>(x + col0) + j);
                else *slot(base, c, j) = uint4{0u, 0u, 0u, 0u};
            }
        }
    };
    auto stage_x = [&](int step) { stage_row(a.x, step, step & 1); };
    RawChunk<T> x_raw[kCpt], res_raw[kCpt];
    // kSeq: one pass's x chunks, shared -> registers (they are not kept across the reductions)
    auto read_x = [&](int step) {
        const auto base = slot_base(step & 1);
#pragma unroll
        for (int c = 0; c < kCpt; ++c)
#pragma unroll
            for (int j = 0; j < kWords; ++j) x_raw[c].w[j] = *slot(base, c, j);
    };
    if constexpr (kSeq) {
        stage_x(0);  // the first row's x (the prologue: nothing to overlap it with yet)
        cp_async_commit();
    }

    for (int step = 0; step < steps; ++step) {
        const int step_row = (unit * steps + step) * rows_per_step;
        if (kSeq && step > 0 && step_row >= a.rows) break;  // the whole block (cluster) past the tensor: the same for all its threads
        const int row = step_row + (ctas > 1 ? 0 : local_row);
        // The last block's rows past the tensor load nothing and store nothing (limit 0) but still
        // meet the block's barriers.
        const Index limit = row < a.rows ? hidden : 0;
        const int64_t row_start = static_cast<int64_t>(row < a.rows ? row : 0) * hidden;
        const T* x = static_cast<const T*>(a.x) + row_start;
        float shift = 0.0f;  // 16-bit rows: the statistics' shift, the row's first element (v9b: loaded below)
        if constexpr (kSeq) {
            // This row's residual -> buffer 2 (its last reads, row s - 1's last pass, are done), then the next
            // row's x (its buffer's last reads, row s - 1's, are done); each a group, empty when nothing was
            // staged, so the groups stay x(s), residual(s), x(s + 1) in commit order.
            if constexpr (kFused) stage_row(a.residual, step, 2);
            cp_async_commit();
            if (step + 1 < steps && step_row + rows_per_step < a.rows) stage_x(step + 1);
            cp_async_commit();
            cp_async_wait<2>();  // this row's x has landed (this thread's own chunks: no barrier)
            read_x(step);
        } else {
            // load x row into registers (HBM -> registers, 16-byte vectors, all chunks in flight)
#pragma unroll
            for (int c = 0; c < kCpt; ++c)
                load_row_chunk_or_zero<T, kVector, kFull>(x, first_col + c * stride, limit, x_raw[c], a.streaming != 0);
        }
        // v9b, 16-bit rows: the shift (HBM -> registers; L1 for the row's other threads) loaded between x's chunks and
        // the residual's, so it waits behind x's alone. Loaded after the residual (v6-v9), its conversion was the
        // first or second most stalled instruction of the kernel (ncu, H200, v9 round 1: 14.5 % of the stall samples
        // at hidden 768, 5.5 % at 1024 and 16384, all long-scoreboard, after the wait for x's first chunk): the
        // statistics waited on the residual's bytes. Loaded before x's chunks, it held a register across their
        // address arithmetic, and the 16-bit 4-chunk instance spilled 20 B a thread instead of v9's 4-8.
        if constexpr (kShiftedStatistics) shift = to_float(x[0]);
        if constexpr (kFused && !kSeq) {
            // load residual row into registers now (kept packed), so its latency hides behind the reductions
            const T* residual = static_cast<const T*>(a.residual) + row_start;
#pragma unroll
            for (int c = 0; c < kCpt; ++c)
                load_row_chunk_or_zero<T, kVector, kFull>(residual, first_col + c * stride, limit, res_raw[c], a.streaming != 0);
        }
        // the row stays packed in registers (8 bytes of x per 4 elements for fp16/bf16): each pass
        // below unpacks it again (one instruction per element) rather than holding it as floats, so a
        // thread can own 64 bytes of x and 64 of residual in under 64 registers (PERF.md: 16-bit rows
        // need that many bytes in flight; as floats they capped the SM at 2 rows and 60% of bandwidth).
        float* step_sum_scratch = sum_scratch + (step & 1) * kScratchSet;
        float* step_sq_scratch = sq_scratch + (step & 1) * kScratchSet;
        const ClusterStep cstep = cluster_step(step, steps);

        float mean, rstd;
        if constexpr (kShiftedStatistics) {
            // v6, 16-bit rows: mean and variance in one pass over the row and one reduction, each element
            // shifted by the row's first element K (d = x - K: sum d and sum d^2, var = (sum d^2 - (sum d)^2 / n) / n).
            // K is a sample of the row, so (mean - K)^2 is about one variance and the subtraction loses
            // about one bit, far below the 8 or 11 bits the output keeps. One unpack and one FADD per
            // element fewer than two passes, and one block (and cluster) reduction fewer.
            // the shift: the row's first element, loaded above before the row's chunks (v9b)
            float s = 0.0f, q = 0.0f;
#pragma unroll
            for (int c = 0; c < kCpt; ++c) {
                const Index col0 = first_col + c * stride;
                if (!kFull && kVector && col0 >= limit) continue;  // past the row: zeros, not samples
                float v[kChunk];
                unpack<T, true>(x_raw[c], v);
#pragma unroll
                for (int i = 0; i < kChunk; ++i) {
                    const float d = v[i] - shift;
                    if (kVector || col0 + i < limit) {
                        s += d;
                        q = fmaf(d, d, q);
                    }
                }
            }
            if (leader) {
                float sums[2] = {s, q};
                float* const scratch[2] = {step_sum_scratch, step_sq_scratch};
                row_sums_leader<2>(sums, scratch, totals, warps_per_row, first_warp, local_row, cluster_reduction, 0, rank, ctas, cstep);
                s = sums[0];
                q = sums[1];
            } else {
                row_sum2(s, q, step_sum_scratch, step_sq_scratch, warps_per_row, first_warp);
                if (ctas > 1) {
                    cluster_sum2(s, q, cluster_reduction, rank, ctas, pull, cstep);
                    cluster_reductions_done(pull);  // pull: done reading the peers' shared memory (cluster_exit waits)
                }
            }
            // v9b: the statistics' roundings spelled out (mul.rn, add.rn: never fused). A plain product feeding an
            // add may be fused into one FMA by ptxas where it chooses, and v9's new code moved one such choice: fp32
            // rows at 768 (one warp a row) came out one rounding apart from rows in sequence (round 1's GPU test).
            // These are the roundings elementwise_emulate.cpp follows: mean rounded, then x - mean.
            const float mean_shifted = __fmul_rn(s, inv_hidden);
            mean = __fadd_rn(shift, mean_shifted);
            rstd = rsqrtf(fmaf(fmaxf(fmaf(-mean_shifted, s, q), 0.0f), inv_hidden, elementwise::kLayerNormEps));
        } else {
            // compute mean (block reduction; out-of-row elements were loaded as 0)
            float sum = 0.0f;
#pragma unroll
            for (int c = 0; c < kCpt; ++c) {
                float v[kChunk];
                unpack<T, true>(x_raw[c], v);
#pragma unroll
                for (int i = 0; i < kChunk; ++i) sum += v[i];
            }
            float row_total;
            if (leader) {
                float sums[1] = {sum};
                float* const scratch[1] = {step_sum_scratch};
                row_sums_leader<1>(sums, scratch, totals, warps_per_row, first_warp, local_row, cluster_reduction, 0, rank, ctas, cstep);
                row_total = sums[0];
            } else {
                row_total = row_sum(sum, step_sum_scratch, warps_per_row, first_warp);
                if (ctas > 1) row_total = cluster_sum(row_total, cluster_reduction, 0, rank, ctas, pull, cstep);
            }
            mean = __fmul_rn(row_total, inv_hidden);  // v9b: rounded, never fused into x - mean (above)
            // Each pass unpacks the packed row again (one instruction per element): hiding the packed
            // words from the compiler here keeps it from holding the previous pass's unpacked floats
            // instead (twice the registers in 16-bit: bf16 rows of 4 chunks spilled 124 B per thread).
            if constexpr (kSeq) read_x(step);  // x chunks: shared -> registers again
            else keep_packed(x_raw);

            // compute variance from the register-held row: sum of squared deviations (second pass)
            // v6: one branch per chunk (a vector chunk is all in or all out of the row) and d * d + sq one FMA:
            // the select per element cost ptxas an FMUL, an FSEL and an FADD for every chunk but the first.
            float sq = 0.0f;
#pragma unroll
            for (int c = 0; c < kCpt; ++c) {
                const Index col0 = first_col + c * stride;
                if (!kFull && kVector && col0 >= limit) continue;
                float v[kChunk];
                unpack<T, true>(x_raw[c], v);
#pragma unroll
                for (int i = 0; i < kChunk; ++i) {
                    const float d = v[i] - mean;
                    if (kVector || col0 + i < limit) sq = fmaf(d, d, sq);
                }
            }
            float sq_total;
            if (leader) {
                float sums[1] = {sq};
                float* const scratch[1] = {step_sq_scratch};
                ClusterStep second = cstep;
                second.first = false;  // the mean's reduction waited for the peers
                row_sums_leader<1>(sums, scratch, sq_totals, warps_per_row, first_warp, local_row, cluster_reduction, 1, rank, ctas, second);
                sq_total = sums[0];
            } else {
                sq_total = row_sum(sq, step_sq_scratch, warps_per_row, first_warp);
                if (ctas > 1) {
                    sq_total = cluster_sum(sq_total, cluster_reduction, 1, rank, ctas, pull, cstep);
                    cluster_reductions_done(pull);  // pull: done reading the peers' shared memory (cluster_exit waits)
                }
            }
            rstd = rsqrtf(__fmaf_rn(sq_total, inv_hidden, elementwise::kLayerNormEps));  // v9b: one FMA, as the emulation
        }
        if constexpr (kSeq) cp_async_wait<1>();  // this row's residual has landed too (the next row's x may still be in flight)
        else keep_packed(x_raw);

        T* out = static_cast<T*>(a.out) + row_start;
#pragma unroll
        for (int c = 0; c < kCpt; ++c) {
            const Index col0 = first_col + c * stride;
            if (col0 >= limit) continue;  // kept in the kFull path too: without it ptxas hoisted the chunks' loads and spilled 36 B
            if constexpr (kSeq) {
                // the chunk's x and residual: shared -> registers, one chunk at a time (few registers held)
                const auto x_base = slot_base(step & 1), res_base = slot_base(2);
                RawChunk<T> xc, rc;
#pragma unroll
                for (int j = 0; j < kWords; ++j) {
                    xc.w[j] = *slot(x_base, c, j);
                    if constexpr (kFused) rc.w[j] = *slot(res_base, c, j);
                }
                finish_chunk<T, kVector, kFused>(a, m, xc, rc, row_start, col0, limit - col0, mean, rstd, out);
            } else {
                finish_chunk<T, kVector, kFused>(a, m, x_raw[c], res_raw[c], row_start, col0, limit - col0, mean, rstd, out);
            }
        }
        if (ctas > 1) cluster_exit(pull);  // pull: the row's last barrier (each row's arrive is met by its wait)
    }
}

// The path of a whole block (and its cluster: one row at a time), so its barriers are met by all: kFull when
// every row it runs lies inside the tensor and the layout covers them exactly.
__device__ __forceinline__ bool block_rows_full(const RowArgs& a, const RowExtras& m, int steps) {
    const int rows_of_block = (a.ctas_per_row > 1 ? 1 : m.rows_per_block) * steps;
    const int first_row = (a.ctas_per_row > 1 ? static_cast<int>(blockIdx.x >> m.ctas_log2) : static_cast<int>(blockIdx.x)) *
                          rows_of_block;
    return m.full_rows != 0 && first_row + rows_of_block <= a.rows;
}

template <typename T, int kCpt, bool kVector, bool kFused>
__global__ void __launch_bounds__(kMaxRowThreads, row_kernel_min_blocks<kCpt, kVector, false, sizeof(T)>())
    row_kernel(RowArgs a, RowExtras m) {
    // two sets (alternate rows of row_sequence_kernel, which shares the body), one float per warp each
    __shared__ float sum_scratch[2 * kMaxRowThreads / 32];
    __shared__ float sq_scratch[2 * kMaxRowThreads / 32];
    __shared__ ClusterReduction cluster_reduction;
    if (kVector && block_rows_full(a, m, 1)) {
        row_kernel_body<T, kCpt, kVector, kFused, true, false>(a, m, sum_scratch, sq_scratch, cluster_reduction, nullptr);
        return;
    }
    row_kernel_body<T, kCpt, kVector, kFused, false, false>(a, m, sum_scratch, sq_scratch, cluster_reduction, nullptr);
}

// v8: rows in sequence (row_config's rows_in_sequence > 1), whole 16-byte chunks only. Dynamic shared memory:
// two buffers of this block's x chunks (RowConfig::prefetch_bytes).
template <typename T, int kCpt, bool kFused>
__global__ void __launch_bounds__(kMaxRowThreads, row_kernel_min_blocks<kCpt, true, false, sizeof(T)>())
    row_sequence_kernel(RowArgs a, RowExtras m) {
    __shared__ float sum_scratch[2 * kMaxRowThreads / 32];
    __shared__ float sq_scratch[2 * kMaxRowThreads / 32];
    __shared__ ClusterReduction cluster_reduction;
    extern __shared__ uint4 row_prefetch[];  // [buffer][chunk][word][thread]
    if (block_rows_full(a, m, m.rows_in_sequence)) {
        row_kernel_body<T, kCpt, true, kFused, true, true>(a, m, sum_scratch, sq_scratch, cluster_reduction, row_prefetch);
        return;
    }
    row_kernel_body<T, kCpt, true, kFused, false, true>(a, m, sum_scratch, sq_scratch, cluster_reduction, row_prefetch);
}

// staged_row_kernel: the row (its slice, in a cluster) is staged in shared memory instead of
// registers, so a block's registers no longer grow with the row: rows longer than one block's
// registers hold (hidden 65536: 128 KB of bf16 per row) run one block of 512 threads per row where
// row_kernel needed a cluster of 8, and more blocks fit an SM. x (and the residual, when both fit
// elementwise::kStageMaxBytes; else it is read in the last pass, 64 bytes per thread in flight) is copied with cp.async (16 bytes per instruction, nothing held
// in registers, every chunk of the slice in flight at once); each thread then reads back only the
// chunks it copied itself, so no barrier is needed between the copy and the first pass. Chunk
// layout and summation order are row_kernel's (thread t holds chunks c tpr + t of its block's
// slice, c = 0 .. cpt-1, in that order): elementwise_emulate.cpp covers both kernels. One row per
// block or per cluster (rows_per_block 1).
// Stages one chunk of a row (col0 .. col0+7) in shared memory: cp.async for a whole vector chunk,
// element by element (zeros past the row) otherwise.
template <typename T, bool kVector>
__device__ __forceinline__ void stage_chunk(RawChunk<T>* dst, const T* row, int col0, int hidden) {
    if (kVector && col0 < hidden) {
#pragma unroll
        for (int j = 0; j < static_cast<int>(sizeof(T)) / 2; ++j) cp_async16(&dst->w[j], reinterpret_cast<const uint4*>(row + col0) + j);
    } else {
        RawChunk<T> r;
        load_raw_partial<T>(row + col0, hidden - col0, r);  // valid <= 0: all zeros, no access
        *dst = r;
    }
}

template <typename T, bool kVector, bool kFused>
__global__ void __launch_bounds__(kMaxRowThreads, 1) staged_row_kernel(RowArgs a, RowExtras m) {
    extern __shared__ uint4 staged_smem[];
    __shared__ float sum_scratch[kMaxRowThreads / 32];
    __shared__ float sq_scratch[kMaxRowThreads / 32];
    __shared__ ClusterReduction cluster_reduction;
    const int hidden = static_cast<int>(a.hidden);
    const int tpr = a.threads_per_row, ctas = a.ctas_per_row, cpt = a.chunks_per_thread;
    const int t = static_cast<int>(threadIdx.x);
    const int rank = static_cast<int>(blockIdx.x) & (ctas - 1);  // the block's rank in its cluster
    const bool pull = m.cluster_pull != 0;
    // push: ready this block's mbarriers and arrive at the cluster barrier (waited on at the first push)
    if (ctas > 1 && !pull) cluster_push_begin(cluster_reduction, ctas, 1);
    const int stride = tpr * kChunk;
    const int first_col = (rank * tpr * cpt + t) * kChunk;
    const bool stage_residual = kFused && a.stage_residual != 0;
    const int row = static_cast<int>(blockIdx.x >> m.ctas_log2);
    const int64_t row_start = static_cast<int64_t>(row) * hidden;
    RawChunk<T>* xs = reinterpret_cast<RawChunk<T>*>(staged_smem);  // [cpt][tpr] chunks of x
    RawChunk<T>* rs = xs + cpt * tpr;                                // [cpt][tpr] of residual, when staged
    const T* residual = kFused ? static_cast<const T*>(a.residual) + row_start : nullptr;
    // stage x row slice into shared memory (HBM -> shared, cp.async 16 B, all chunks in flight)
    const T* x = static_cast<const T*>(a.x) + row_start;
    for (int c = 0; c < cpt; ++c) stage_chunk<T, kVector>(&xs[c * tpr + t], x, first_col + c * stride, hidden);
    cp_async_commit();
    if (stage_residual) {
        // stage residual row slice too (HBM -> shared): its latency hides behind the two reductions
        for (int c = 0; c < cpt; ++c) stage_chunk<T, kVector>(&rs[c * tpr + t], residual, first_col + c * stride, hidden);
    }
    cp_async_commit();
    cp_async_wait<1>();  // this thread's x chunks have landed (the residual may still be in flight)

    // compute mean (read own x chunks shared -> registers; past the row: zeros)
    float sum = 0.0f;
    for (int c = 0; c < cpt; ++c) {
        float v[kChunk];
        unpack<T>(xs[c * tpr + t], v);
#pragma unroll
        for (int i = 0; i < kChunk; ++i) sum += v[i];
    }
    const float inv_hidden = 1.0f / static_cast<float>(hidden);
    float row_total = row_sum(sum, sum_scratch, tpr >> 5, 0);  // one row per block
    if (ctas > 1) row_total = cluster_sum(row_total, cluster_reduction, 0, rank, ctas, pull, cluster_step(0, 1));
    const float mean = row_total * inv_hidden;

    // compute variance: squared deviations over the staged row (shared -> registers, second pass)
    float sq = 0.0f;
    for (int c = 0; c < cpt; ++c) {
        const int col0 = first_col + c * stride;
        if (col0 >= hidden) break;  // this thread's later chunks are past the row too
        float v[kChunk];
        unpack<T>(xs[c * tpr + t], v);
#pragma unroll
        for (int i = 0; i < kChunk; ++i) {
            const float d = v[i] - mean;
            if (kVector || col0 + i < hidden) sq = fmaf(d, d, sq);
        }
    }
    float sq_total = row_sum(sq, sq_scratch, tpr >> 5, 0);
    if (ctas > 1) {
        sq_total = cluster_sum(sq_total, cluster_reduction, 1, rank, ctas, pull, cluster_step(0, 1));
        cluster_reductions_done(pull);  // pull: done reading the peers' shared memory (cluster_exit waits)
    }
    const float rstd = rsqrtf(fmaf(sq_total, inv_hidden, elementwise::kLayerNormEps));
    cp_async_wait<0>();  // the residual chunks have landed

    T* out = static_cast<T*>(a.out) + row_start;
    // 64 bytes of residual per thread in flight at a time when it is read from HBM here
    constexpr int kBatch = sizeof(T) == 2 ? 4 : 2;
    for (int c0 = 0; c0 < cpt; c0 += kBatch) {
        RawChunk<T> res_batch[kBatch];
        if constexpr (kFused) {
#pragma unroll
            for (int j = 0; j < kBatch; ++j) {
                const int c = c0 + j;
                // residual chunk: shared -> registers when staged, else HBM -> registers (a batch in flight)
                if (stage_residual) {
                    if (c < cpt) res_batch[j] = rs[c * tpr + t];
                } else {
                    load_row_chunk<T, kVector>(residual, first_col + c * stride, c < cpt ? hidden : 0, res_batch[j],
                                               a.streaming != 0);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
            const int c = c0 + j;
            const int col0 = first_col + c * stride;
            if (c >= cpt || col0 >= hidden) break;
            finish_chunk<T, kVector, kFused>(a, m, xs[c * tpr + t], res_batch[j], row_start, col0, hidden - col0, mean,
                                             rstd, out);  // x chunk: shared -> registers
        }
    }
    if (ctas > 1) cluster_exit(pull);
}

// fused_chain_spill: the row kernel as it was before the layouts of row_config (one block per row,
// 64-bit indices, no fence between the passes), kept verbatim because it is the lesson's spilling
// kernel and the recordings measured exactly this code: ptxas gives it the same spills as then
// (row_kernel_registers.inc). Built only as <T, kCpt, kVector, true, true>.
// Sum over the block; every thread gets the total. `scratch` holds one float per warp.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
    const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    float total = 0.0f;
    const int warps = static_cast<int>(blockDim.x) >> 5;
    for (int w = 0; w < warps; ++w) total += scratch[w];
    return total;
}

template <typename T, int kCpt, bool kVector, bool kFused, bool kSpill>
__global__ void __launch_bounds__(kMaxRowThreads, row_kernel_min_blocks<kCpt, kVector, kSpill, sizeof(T)>())
    spill_row_kernel(RowArgs a) {
    __shared__ float sum_scratch[kMaxRowThreads / 32];
    __shared__ float sq_scratch[kMaxRowThreads / 32];
    const int64_t hidden = a.hidden;
    const int64_t row_start = static_cast<int64_t>(blockIdx.x) * hidden;
    const T* x = static_cast<const T*>(a.x) + row_start;
    const int64_t stride = static_cast<int64_t>(blockDim.x) * kChunk;
    const int64_t first_col = static_cast<int64_t>(threadIdx.x) * kChunk;

    RawChunk<T> x_raw[kCpt], res_raw[kCpt];
    // load x row into registers (HBM -> registers, 16-byte vectors, all chunks in flight)
#pragma unroll
    for (int c = 0; c < kCpt; ++c) load_row_chunk<T, kVector>(x, first_col + c * stride, hidden, x_raw[c]);
    if constexpr (kFused) {
        // load residual row into registers now (kept packed), so its latency hides behind the reductions
        const T* residual = static_cast<const T*>(a.residual) + row_start;
#pragma unroll
        for (int c = 0; c < kCpt; ++c) load_row_chunk<T, kVector>(residual, first_col + c * stride, hidden, res_raw[c]);
    }
    // the row stays packed in registers (8 bytes of x per 4 elements for fp16/bf16): each pass
    // below unpacks it again (one instruction per element) rather than holding it as floats, so a
    // thread can own 64 bytes of x and 64 of residual in under 64 registers (PERF.md: 16-bit rows
    // need that many bytes in flight; as floats they capped the SM at 2 rows and 60% of bandwidth).

    // compute mean (block reduction; out-of-row elements were loaded as 0)
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < kCpt; ++c) {
        float v[kChunk];
        unpack<T>(x_raw[c], v);
#pragma unroll
        for (int i = 0; i < kChunk; ++i) sum += v[i];
    }
    const float inv_hidden = 1.0f / static_cast<float>(hidden);
    const float mean = block_sum(sum, sum_scratch) * inv_hidden;

    // compute variance from the register-held row: sum of squared deviations (second pass)
    float sq = 0.0f;
#pragma unroll
    for (int c = 0; c < kCpt; ++c) {
        float v[kChunk];
        unpack<T>(x_raw[c], v);
#pragma unroll
        for (int i = 0; i < kChunk; ++i) {
            const int64_t col = first_col + c * stride + (kVector ? 0 : i);  // vector chunks are all in or all out
            const float d = v[i] - mean;
            sq += col < hidden ? d * d : 0.0f;
        }
    }
    const float rstd = rsqrtf(block_sum(sq, sq_scratch) * inv_hidden + elementwise::kLayerNormEps);

    T* out = static_cast<T*>(a.out) + row_start;
#pragma unroll
    for (int c = 0; c < kCpt; ++c) {
        const int64_t col0 = first_col + c * stride;
        if (col0 >= hidden) continue;
        const int64_t valid = hidden - col0;
        // load gamma, beta chunk into registers (L1/L2-resident after the first rows)
        RawChunk<T> g_raw, b_raw;
        if (kVector) {
            load_raw<T, true>(static_cast<const T*>(a.gamma) + col0, g_raw);
            load_raw<T, true>(static_cast<const T*>(a.beta) + col0, b_raw);
        } else {
            load_raw_partial<T>(static_cast<const T*>(a.gamma) + col0, valid, g_raw);
            load_raw_partial<T>(static_cast<const T*>(a.beta) + col0, valid, b_raw);
        }
        float v[kChunk], g[kChunk], b[kChunk], h[kChunk];
        unpack<T>(x_raw[c], v);
        unpack<T>(g_raw, g);
        unpack<T>(b_raw, b);
#pragma unroll
        for (int i = 0; i < kChunk; ++i) h[i] = fmaf((v[i] - mean) * rstd, g[i], b[i]);
        if constexpr (kFused) {
#pragma unroll
            for (int i = 0; i < kChunk; ++i) h[i] = kernels::gelu_fast_select(h[i]);  // v4's form: the recorded spills
            const uint64_t e0 = static_cast<uint64_t>(row_start + col0);
            if (kVector) dropout_chunk(h, e0, a.seed, a.threshold, a.keep_scale);
            else dropout_ragged_chunk(h, e0, a.seed, a.threshold, a.keep_scale);
            float res[kChunk];
            unpack<T>(res_raw[c], res);
#pragma unroll
            for (int i = 0; i < kChunk; ++i) h[i] += res[i];
        }
        // store out row chunk to HBM (h1 for the unfused layernorm)
        if (kVector) store_chunk<T>(out + col0, h);
        else store_partial<T>(out + col0, valid, h);
    }
}

// =============================================================================================
// [SECTION] Kernels: flat kernels (gelu, dropout, add, bias_add, fused_bias_gelu)
// =============================================================================================
// Block b owns the contiguous chunks [b * threads * kChunks, (b + 1) * threads * kChunks) of the
// flat tensor; thread t owns chunks t, t + threads, ... of them (coalesced). kChunks is kBytes
// bytes per thread per input (elementwise::flat_config): 64 bytes are 4 chunks (fp16/bf16) or 2
// (fp32), i.e. four 16-byte loads in flight per input; 32 bytes half that.
enum class FlatOp { gelu, dropout, add, bias_add, bias_gelu };

struct FlatArgs {
    const void* in;
    const void* in2;   // add: residual
    const void* bias;  // bias_add, bias_gelu
    void* out;
    int64_t n;         // rows * hidden
    int64_t hidden;
    uint64_t seed;
    uint32_t threshold;
    float keep_scale;
    int streaming;     // inputs loaded and out stored with the evict-first hint (.cs)
    uint32_t threshold_hi;  // threshold_high(threshold): the odd lanes' keep test
    PhiloxKeys keys;   // dropout: the mask's round keys (from seed: philox_round_keys)
};

template <typename T, int kBytes> constexpr int flat_chunks_per_thread() {
    return kBytes / (kChunk * static_cast<int>(sizeof(T)));
}

constexpr bool reads_second(FlatOp op) { return op == FlatOp::add; }
constexpr bool reads_bias(FlatOp op) { return op == FlatOp::bias_add || op == FlatOp::bias_gelu; }

template <typename T, bool kVector>
__device__ __forceinline__ void load_flat_chunk(const T* base, int64_t e0, int64_t n, RawChunk<T>& r, bool streaming) {
    if (kVector && e0 + kChunk <= n) {
        if (streaming) load_raw_streaming<T>(base + e0, r);
        else load_raw<T>(base + e0, r);
    } else {
        load_raw_partial<T>(base + e0, n - e0, r);  // valid <= 0: all zeros, no access
    }
}

// 1024 threads per SM at least (2 blocks of 512, 4 of 256): the compiler keeps each thread under
// 64 registers (the scalar ragged path, with its per-element addressing, gets 128 so it does not
// spill).
template <typename T, FlatOp kOp, bool kVector, int kBytes>
__global__ void __launch_bounds__(kMaxFlatThreads, kVector ? 2 : 1) flat_kernel(FlatArgs a) {
    constexpr int kChunks = flat_chunks_per_thread<T, kBytes>();
    const int64_t first_chunk = static_cast<int64_t>(blockIdx.x) * blockDim.x * kChunks + threadIdx.x;
    const int64_t chunk_stride = blockDim.x;
    const T* in = static_cast<const T*>(a.in);

    RawChunk<T> in_raw[kChunks], second_raw[kChunks], bias_raw[kChunks];
    // load input tile into registers (all chunks in flight before any math)
#pragma unroll
    for (int k = 0; k < kChunks; ++k)
        load_flat_chunk<T, kVector>(in, (first_chunk + k * chunk_stride) * kChunk, a.n, in_raw[k], a.streaming != 0);
    if constexpr (reads_second(kOp)) {
        // load residual tile into registers
        const T* in2 = static_cast<const T*>(a.in2);
#pragma unroll
        for (int k = 0; k < kChunks; ++k)
            load_flat_chunk<T, kVector>(in2, (first_chunk + k * chunk_stride) * kChunk, a.n, second_raw[k], a.streaming != 0);
    }
    if constexpr (reads_bias(kOp)) {
        // load bias chunk into registers (hidden long: L1/L2-resident). Column of each chunk's
        // first element: one 64-bit modulo per thread, then a conditional subtract per chunk.
        const T* b = static_cast<const T*>(a.bias);
        const int64_t hidden = a.hidden;
        const int64_t step = (chunk_stride * kChunk) % hidden;
        int64_t col = (first_chunk * kChunk) % hidden;
        const bool whole_vectors = kVector && hidden % kChunk == 0 && reinterpret_cast<uintptr_t>(b) % 16 == 0;
#pragma unroll
        for (int k = 0; k < kChunks; ++k) {
            const int64_t e0 = (first_chunk + k * chunk_stride) * kChunk;
            if (whole_vectors && e0 + kChunk <= a.n) {
                load_raw<T, true>(b + col, bias_raw[k]);
            } else {
                T e[kChunk];
#pragma unroll
                for (int i = 0; i < kChunk; ++i) {
                    int64_t c = col + i;
                    while (c >= hidden) c -= hidden;
                    e[i] = e0 + i < a.n ? b[c] : from_float<T>(0.0f);
                }
                memcpy(&bias_raw[k], e, sizeof(bias_raw[k]));
            }
            col += step;
            if (col >= hidden) col -= hidden;
        }
    }

    T* out = static_cast<T*>(a.out);
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
        const int64_t e0 = (first_chunk + k * chunk_stride) * kChunk;
        if (e0 >= a.n) continue;
        float v[kChunk];
        unpack<T>(in_raw[k], v);
        // compute in registers
        if constexpr (kOp == FlatOp::gelu) {
#pragma unroll
            for (int i = 0; i < kChunk; ++i) v[i] = gelu_of<T>(v[i]);
        } else if constexpr (kOp == FlatOp::dropout) {
            dropout_chunk_keyed(v, static_cast<uint64_t>(e0), a.keys, a.threshold, a.threshold_hi, a.keep_scale);
        } else if constexpr (kOp == FlatOp::add) {
            float s[kChunk];
            unpack<T>(second_raw[k], s);
#pragma unroll
            for (int i = 0; i < kChunk; ++i) v[i] += s[i];
        } else {
            float bias[kChunk];
            unpack<T>(bias_raw[k], bias);
#pragma unroll
            for (int i = 0; i < kChunk; ++i) v[i] = kOp == FlatOp::bias_add ? v[i] + bias[i] : gelu_of<T>(v[i] + bias[i]);
        }
        // store output tile to HBM
        if (kVector && e0 + kChunk <= a.n) store_chunk<T>(out + e0, v, a.streaming != 0);
        else store_partial<T>(out + e0, a.n - e0, v);
    }
}

// =============================================================================================
// [SECTION] Launchers
// =============================================================================================
bool aligned16(const void* p) { return p == nullptr || reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// The row_kernel instance that runs p: elementwise::row_config()'s chunks per thread and vector
// path (the model's register table is keyed the same way), falling back to the scalar path when a
// pointer is not 16-byte aligned.
// sequence (v8): rows in sequence, row_sequence_kernel (vector rows only: runs_in_sequence).
template <typename T, bool kFused, bool kSpill, int kCpt>
const void* row_kernel_of(bool vector, bool sequence) {
    if constexpr (kSpill)
        return vector ? reinterpret_cast<const void*>(spill_row_kernel<T, kCpt, true, true, true>)
                      : reinterpret_cast<const void*>(spill_row_kernel<T, kCpt, false, true, true>);
    else if (sequence)
        return reinterpret_cast<const void*>(row_sequence_kernel<T, kCpt, kFused>);
    else
        return vector ? reinterpret_cast<const void*>(row_kernel<T, kCpt, true, kFused>)
                      : reinterpret_cast<const void*>(row_kernel<T, kCpt, false, kFused>);
}
// Whether c runs as rows in sequence (row_sequence_kernel): its layout asks for it and the rows are whole
// 16-byte chunks at aligned pointers (else the scalar row_kernel runs them one row per block).
bool runs_in_sequence(const elementwise::RowConfig& c, bool aligned, bool spill) {
    return !spill && !c.staged && c.rows_in_sequence > 1 && c.vector && aligned;
}
template <typename T, bool kFused, bool kSpill>
const void* row_kernel_function(const elementwise::RowConfig& c, bool aligned) {
    const bool vector = c.vector && aligned;
    const bool sequence = runs_in_sequence(c, aligned, kSpill);
    if constexpr (!kSpill)
        if (c.staged)
            return vector ? reinterpret_cast<const void*>(staged_row_kernel<T, true, kFused>)
                          : reinterpret_cast<const void*>(staged_row_kernel<T, false, kFused>);
    if (c.chunks_per_thread == 2) return row_kernel_of<T, kFused, kSpill, 2>(vector, sequence);
    if (c.chunks_per_thread == 4) return row_kernel_of<T, kFused, kSpill, 4>(vector, sequence);
    // the spill kernel's layout takes 2 or 4 chunks (row_config's spill rule)
    if constexpr (!kSpill)
        if (c.chunks_per_thread == 3) return row_kernel_of<T, kFused, kSpill, 3>(vector, sequence);
    throw std::logic_error("row_config chose " + std::to_string(c.chunks_per_thread) + " chunks per thread");
}

// A cluster needs compute capability 9.0 (Hopper) or later: elsewhere the launch is refused with
// the reason (rows longer than one block holds run only there).
void require_clusters(const elementwise::RowConfig& c, int64_t hidden, const char* name) {
    int device = 0, major = 0, minor = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability");
    check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "compute capability");
    if (major < 9)
        throw std::invalid_argument(std::string(name) + ": hidden " + std::to_string(hidden) + " runs as a cluster of " +
                                    std::to_string(c.ctas_per_row) +
                                    " blocks per row, which needs compute capability 9.0 or later; this device is " +
                                    std::to_string(major) + "." + std::to_string(minor));
}

template <typename T, bool kFused, bool kSpill = false>
void launch_row(const ElementwiseParams& p, RowArgs a, cudaStream_t stream, const char* name) {
    const elementwise::RowKernel kind = kSpill ? elementwise::RowKernel::spill : elementwise::RowKernel::picked;
    elementwise::RowConfig c = elementwise::row_config(p, kind);
    elementwise::LaunchShape shape = elementwise::row_kernel_shape(p, kind);
    if (static_cast<int64_t>(c.ctas_per_row) * c.threads_per_row * c.chunks_per_thread * kChunk < p.hidden ||
        c.threads_per_block() > kMaxRowThreads)
        throw std::logic_error(std::string(name) + ": row_config (" + elementwise::config_text(c) + ") cannot hold hidden " +
                               std::to_string(p.hidden));
    if (shape.blocks == 0) return;
    const bool aligned = aligned16(a.x) && aligned16(a.residual) && aligned16(a.gamma) && aligned16(a.beta) &&
                         aligned16(a.out);
    if (c.rows_in_sequence > 1 && !runs_in_sequence(c, aligned, kSpill)) {
        // a pointer off 16 bytes: the scalar row_kernel, one row per block (cluster), on the grid for that
        c.rows_in_sequence = 1;
        const int64_t rows = p.rows;
        shape.blocks = static_cast<uint64_t>(c.ctas_per_row > 1 ? rows * c.ctas_per_row : (rows + c.rows_per_block - 1) / c.rows_per_block);
    }
    const void* kernel = row_kernel_function<T, kFused, kSpill>(c, aligned);
    a.rows = static_cast<int>(p.rows);
    a.threads_per_row = c.threads_per_row;
    a.ctas_per_row = c.ctas_per_row;
    a.chunks_per_thread = c.chunks_per_thread;
    a.stage_residual = c.stage_residual ? 1 : 0;
    a.streaming = c.streaming && !kSpill ? 1 : 0;
    // FUSIONLAB_CLUSTER_REDUCTION=pull: the clusters pull their partial sums as v4 did (to compare the
    // two forms in one process; the default pushes them, v6)
    const char* reduction = std::getenv("FUSIONLAB_CLUSTER_REDUCTION");
    const bool pull = reduction != nullptr && std::strcmp(reduction, "pull") == 0;
    if (c.ctas_per_row != 1 && c.ctas_per_row != 2 && c.ctas_per_row != 4 && c.ctas_per_row != 8)
        throw std::logic_error(std::string(name) + ": row_config chose a cluster of " + std::to_string(c.ctas_per_row));
    int ctas_log2 = 0;
    while ((1 << ctas_log2) < c.ctas_per_row) ++ctas_log2;
    const uint32_t tpr_reciprocal = ((1u << 20) + static_cast<uint32_t>(c.threads_per_row) - 1) / static_cast<uint32_t>(c.threads_per_row);
    // FUSIONLAB_ROW_BOUNDS=checked: every block takes the bounds-checked path (to compare the two in one process)
    const char* bounds = std::getenv("FUSIONLAB_ROW_BOUNDS");
    const bool full_rows = static_cast<int64_t>(c.ctas_per_row) * c.threads_per_row * c.chunks_per_thread * kChunk == p.hidden &&
                           !(bounds != nullptr && std::strcmp(bounds, "checked") == 0);
    const elementwise::GeluScaleFold fold = elementwise::gelu_scale_fold(a.keep_scale);
    RowExtras m{threshold_high(a.threshold), philox_round_keys(a.seed), pull ? 1 : 0, tpr_reciprocal, c.rows_per_block, ctas_log2,
                full_rows ? 1 : 0, fold.inverse, fold.log2_inverse, kSpill ? 1 : c.rows_in_sequence,
                elementwise::row_reduction_leader() ? 1 : 0};  // FUSIONLAB_ROW_REDUCTION (row_reduction.h)
    void* params[] = {&a, &m};  // spill_row_kernel takes a alone (the second pointer is not read)
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(shape.blocks));
    config.blockDim = dim3(static_cast<unsigned>(shape.threads));
    config.stream = stream;
    if (c.staged || (!kSpill && c.prefetch_bytes(p.dtype, kFused) > 0)) {
        // the staged slice (and v8's next-row prefetch) is dynamic shared memory: past 48 KiB a kernel must opt
        // in (once per size); layernorm (unfused) stages x alone
        const int64_t bytes = c.staged ? c.staged_bytes(p.dtype) / (!kFused && c.stage_residual ? 2 : 1) : c.prefetch_bytes(p.dtype, kFused);
        config.dynamicSmemBytes = static_cast<size_t>(bytes);
        static thread_local std::map<const void*, int64_t> opted;
        int64_t& have = opted[kernel];
        // past 48 KiB with the kernel's static shared memory (v8: 48 KiB of prefetch buffers and the scratch
        // sets were refused without the opt-in, cudaErrorInvalidValue)
        if (bytes > have) {
            cudaFuncAttributes attributes{};
            check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
            if (bytes + static_cast<int64_t>(attributes.sharedSizeBytes) > 48 * 1024) {
                const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
                if (e != cudaSuccess) {
                    (void)cudaGetLastError();
                    throw std::invalid_argument(std::string(name) + ": " + elementwise::config_text(c) + " stages " +
                                                std::to_string(bytes / 1024) + " KiB per block in shared memory, which this device refuses (" +
                                                cudaGetErrorString(e) + ")");
                }
            }
            have = bytes;
        }
    }
    cudaLaunchAttribute cluster{};
    if (c.ctas_per_row > 1) {
        require_clusters(c, p.hidden, name);
        cluster.id = cudaLaunchAttributeClusterDimension;
        cluster.val.clusterDim.x = static_cast<unsigned>(c.ctas_per_row);
        cluster.val.clusterDim.y = 1;
        cluster.val.clusterDim.z = 1;
        config.attrs = &cluster;
        config.numAttrs = 1;
    }
    check(cudaLaunchKernelExC(&config, kernel, params), name);
    check_launch(name);
}

template <typename T, FlatOp kOp, int kBytes>
void launch_flat_as(const elementwise::LaunchShape& shape, bool vector, const FlatArgs& a, cudaStream_t stream) {
    const dim3 grid(static_cast<unsigned>(shape.blocks)), block(static_cast<unsigned>(shape.threads));
    if (vector) flat_kernel<T, kOp, true, kBytes><<<grid, block, 0, stream>>>(a);
    else flat_kernel<T, kOp, false, kBytes><<<grid, block, 0, stream>>>(a);
}

template <typename T, FlatOp kOp>
void launch_flat(const ElementwiseParams& p, const FlatArgs& a, cudaStream_t stream, const char* name) {
    const elementwise::FlatConfig c = elementwise::flat_config(p);
    const elementwise::LaunchShape shape = elementwise::flat_kernel_shape(p);
    if (shape.elements_per_block != static_cast<int64_t>(c.threads) * c.bytes_per_thread / static_cast<int64_t>(sizeof(T)) ||
        shape.threads != c.threads || c.threads > kMaxFlatThreads)
        throw std::logic_error(std::string(name) + ": flat_kernel_shape() disagrees with the kernel's tiling");
    if (shape.blocks == 0) return;
    const bool vector = aligned16(a.in) && aligned16(a.in2) && aligned16(a.out);  // bias: checked in the kernel
    if (c.bytes_per_thread == 32) launch_flat_as<T, kOp, 32>(shape, vector, a, stream);
    else launch_flat_as<T, kOp, 64>(shape, vector, a, stream);
    check_launch(name);
}

// 1 / (1 - p), and 0 when nothing is kept (threshold 65536: what threshold_high lets pass keeps 0)
float dropout_keep_scale(const ElementwiseParams& p) {
    return p.dropout_p < 1.0 && dropout_threshold(p.dropout_p) < 65536u ? static_cast<float>(1.0 / (1.0 - p.dropout_p)) : 0.0f;
}

RowArgs row_args(const ElementwiseParams& p, const void* x, const void* residual, const void* gamma, const void* beta,
                 void* out) {
    // threads_per_row and ctas_per_row: launch_row sets them from row_config
    const uint32_t threshold = dropout_threshold(p.dropout_p);
    return RowArgs{x, residual, gamma, beta, out, p.hidden, p.seed, threshold, dropout_keep_scale(p),
                   static_cast<int>(p.rows), 32, 1, 0, 0, 0};
}

FlatArgs flat_args(const ElementwiseParams& p, const void* in, const void* in2, const void* bias, void* out) {
    const uint32_t threshold = dropout_threshold(p.dropout_p);
    return FlatArgs{in, in2, bias, out, p.rows * p.hidden, p.hidden, p.seed, threshold, dropout_keep_scale(p),
                    elementwise::flat_config(p).streaming ? 1 : 0, threshold_high(threshold), philox_round_keys(p.seed)};
}

// Bytes per launch (es = bytes per element, n = rows * hidden, H = hidden), as in the model:
template <typename T>
void launch_typed(const std::string& name, const ElementwiseParams& p, const ElementwiseBuffers& b, cudaStream_t s) {
    if (p.chain) {
        if (name == "layernorm") {
            // read x n*es + gamma, beta 2H*es; write h1 n*es
            launch_row<T, false>(p, row_args(p, b.x, nullptr, b.gamma, b.beta, b.h1), s, "layernorm");
        } else if (name == "gelu") {
            // read h1 n*es; write h2 n*es
            launch_flat<T, FlatOp::gelu>(p, flat_args(p, b.h1, nullptr, nullptr, b.h2), s, "gelu");
        } else if (name == "dropout") {
            // read h2 n*es; write h3 n*es (mask: Philox in registers, 0 bytes)
            launch_flat<T, FlatOp::dropout>(p, flat_args(p, b.h2, nullptr, nullptr, b.h3), s, "dropout");
        } else if (name == "add") {
            // read h3, residual 2n*es; write out n*es
            launch_flat<T, FlatOp::add>(p, flat_args(p, b.h3, b.residual, nullptr, b.out), s, "add");
        } else if (name == "fused_chain") {
            // read x, residual 2n*es + gamma, beta 2H*es; write out n*es: the minimum
            launch_row<T, true>(p, row_args(p, b.x, b.residual, b.gamma, b.beta, b.out), s, "fused_chain");
        } else if (name == "fused_chain_spill") {
            // the same HBM bytes as fused_chain, plus spill traffic to local memory (the model's local bytes)
            launch_row<T, true, true>(p, row_args(p, b.x, b.residual, b.gamma, b.beta, b.out), s, "fused_chain_spill");
        } else {
            throw std::invalid_argument("the chain workload has no GPU kernel named '" + name + "'");
        }
    } else {
        if (name == "bias_add") {
            // read x n*es + bias H*es; write h n*es
            launch_flat<T, FlatOp::bias_add>(p, flat_args(p, b.x, nullptr, b.bias, b.h1), s, "bias_add");
        } else if (name == "gelu") {
            // read h n*es; write out n*es
            launch_flat<T, FlatOp::gelu>(p, flat_args(p, b.h1, nullptr, nullptr, b.out), s, "gelu");
        } else if (name == "fused_bias_gelu") {
            // read x n*es + bias H*es; write out n*es: the minimum
            launch_flat<T, FlatOp::bias_gelu>(p, flat_args(p, b.x, nullptr, b.bias, b.out), s, "fused_bias_gelu");
        } else {
            throw std::invalid_argument("the bias_gelu workload has no GPU kernel named '" + name + "'");
        }
    }
}

}  // namespace

// =============================================================================================
// [SECTION] Dispatch by kernel name, buffer specs
// =============================================================================================
void launch_kernel(const std::string& kernel_name, const ElementwiseParams& p, const ElementwiseBuffers& b, cudaStream_t stream) {
    switch (p.dtype) {
    case DType::f32: launch_typed<float>(kernel_name, p, b, stream); return;
    case DType::f16: launch_typed<__half>(kernel_name, p, b, stream); return;
    case DType::bf16: launch_typed<__nv_bfloat16>(kernel_name, p, b, stream); return;
    }
}

RegisterUse row_kernel_attributes(const std::string& kernel_name, const ElementwiseParams& p) {
    const void* f = nullptr;
    auto pick = [&](auto zero) {
        using T = decltype(zero);
        if (kernel_name == "layernorm") f = row_kernel_function<T, false, false>(elementwise::row_config(p), true);
        else if (kernel_name == "fused_chain") f = row_kernel_function<T, true, false>(elementwise::row_config(p), true);
        else if (kernel_name == "fused_chain_spill")
            f = row_kernel_function<T, true, true>(elementwise::row_config(p, elementwise::RowKernel::spill), true);
        else throw std::invalid_argument("'" + kernel_name + "' is not a row kernel");
    };
    with_type(p.dtype, pick);
    cudaFuncAttributes attr{};
    check(cudaFuncGetAttributes(&attr, f), "cudaFuncGetAttributes(" + kernel_name + ")");
    RegisterUse r;
    r.registers = attr.numRegs;
    r.stack_bytes = static_cast<int>(attr.localSizeBytes);
    r.source = "cudaFuncGetAttributes on this device";
    return r;
}

void fill_inputs(const ElementwiseParams& p, const ElementwiseBuffers& b, cudaStream_t stream) {
    using elementwise::TensorId;
    const int64_t n = p.rows * p.hidden, h = p.hidden;
    struct Input {
        void* ptr;
        int64_t elements;
        uint32_t id;
        bool gamma;
    };
    const Input inputs[] = {{b.x, n, elementwise::kX, false},
                            {b.residual, n, elementwise::kResidual, false},
                            {b.gamma, h, elementwise::kGamma, true},
                            {b.beta, h, elementwise::kBeta, false},
                            {b.bias, h, elementwise::kBias, false}};
    // Same expression as elementwise::x_value / gamma_value on the host: input_value() in fp32, then
    // (gamma) 1 + 0.5 u in fp32, then round to nearest even in the storage type.
    for (const Input& in : inputs)
        kernels::gpu::fill_input(p.dtype, in.ptr, in.elements, p.seed, in.id, stream,
                                 in.gamma ? kernels::gpu::InputScale{0.5f, 1.0f} : kernels::gpu::InputScale{});
}

std::vector<BufferSpec> buffer_specs(const std::string& variant, const ElementwiseParams& p) {
    const uint64_t n = static_cast<uint64_t>(p.rows) * static_cast<uint64_t>(p.hidden);
    const uint64_t h = static_cast<uint64_t>(p.hidden);
    using B = ElementwiseBuffers;
    const bool unfused = elementwise::variant_of(p, variant) == elementwise::Variant::unfused;
    std::vector<BufferSpec> specs{{"x", &B::x, n, false}};
    if (p.chain) {
        specs.push_back({"residual", &B::residual, n, false});
        specs.push_back({"gamma", &B::gamma, h, false});
        specs.push_back({"beta", &B::beta, h, false});
        if (unfused) {
            specs.push_back({"h1", &B::h1, n, true});
            specs.push_back({"h2", &B::h2, n, true});
            specs.push_back({"h3", &B::h3, n, true});
        }
    } else {
        specs.push_back({"bias", &B::bias, h, false});
        if (unfused) specs.push_back({"h", &B::h1, n, true});
    }
    specs.push_back({"out", &B::out, n, true});
    return specs;
}

// =============================================================================================
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
// =============================================================================================
namespace {

struct BufferSet {
    std::vector<DeviceMemory> memory;
    ElementwiseBuffers ptrs;
};

uint64_t set_bytes(const std::vector<BufferSpec>& specs, int es) {
    uint64_t b = 0;
    for (const BufferSpec& s : specs) b += s.elements * static_cast<uint64_t>(es);
    return b;
}

BufferSet allocate_set(const std::vector<BufferSpec>& specs, int es) {
    BufferSet set;
    for (const BufferSpec& s : specs) {
        set.memory.emplace_back(s.elements * static_cast<size_t>(es), s.name);
        set.ptrs.*(s.member) = set.memory.back().get();
    }
    return set;
}

// Every buffer a variant writes gets 0xFF bytes: NaN in fp32, fp16 and bf16, so an element the
// kernels leave unwritten shows up in count_nonfinite().
void poison_set(const std::vector<BufferSpec>& specs, const BufferSet& set, int es, cudaStream_t s) {
    for (const BufferSpec& spec : specs)
        if (spec.output)
            check(cudaMemsetAsync(set.ptrs.*(spec.member), 0xFF, spec.elements * static_cast<size_t>(es), s),
                  "poisoning " + spec.name);
}

std::vector<std::string> kernel_names(const std::string& variant, const ElementwiseParams& p) {
    const Schedule sched = p.chain ? elementwise::chain_schedule(variant, p) : elementwise::bias_gelu_schedule(variant, p);
    std::vector<std::string> names;
    for (const ScheduleKernel& k : sched.kernels) names.push_back(k.name);
    return names;
}

// chain and bias_gelu: rows x hidden outputs, rotated buffer sets, rows checked against the
// float64 reference (elementwise::reference_row).
class ElementwiseGpu final : public GpuWorkload {
public:
    uint64_t bytes_per_set(const std::string& variant, const Params& p) const override {
        const ElementwiseParams e = elementwise::to_elementwise(p);
        return set_bytes(buffer_specs(variant, e), dtype_bytes(e.dtype));
    }
    std::string buffers_named(const std::string& variant, const Params& p) const override {
        std::string names;
        for (const BufferSpec& s : buffer_specs(variant, elementwise::to_elementwise(p)))
            names += (names.empty() ? "" : ", ") + s.name;
        return names;
    }
    L2Handling l2_handling() const override { return L2Handling::rotate_or_flush; }

    void prepare(const std::string& variant, const Params& params, int sets, cudaStream_t) override {
        const ElementwiseParams p = elementwise::to_elementwise(params);
        const std::vector<BufferSpec> specs = buffer_specs(variant, p);
        const int es = dtype_bytes(p.dtype);
        const bool same = !sets_.empty() && static_cast<int>(sets_.size()) == sets && layout_ == layout_of(variant, p);
        p_ = p;
        specs_ = specs;
        names_ = kernel_names(variant, p);
        if (same) return;
        release();
        for (int i = 0; i < sets; ++i) sets_.push_back(allocate_set(specs, es));
        layout_ = layout_of(variant, p);
    }
    void release() override {
        sets_.clear();
        layout_.clear();
    }
    uint64_t bytes_held() const override {
        uint64_t held = 0;
        for (const BufferSet& set : sets_)
            for (const DeviceMemory& mem : set.memory) held += mem.bytes();
        return held;
    }

    void fill_inputs(cudaStream_t s) override {
        for (const BufferSet& set : sets_) gpu::fill_inputs(p_, set.ptrs, s);
    }
    void poison_outputs(cudaStream_t s) override {
        for (const BufferSet& set : sets_) poison_set(specs_, set, dtype_bytes(p_.dtype), s);
    }

    size_t kernel_count() const override { return names_.size(); }
    void launch_kernel(size_t k, int set, cudaStream_t s) override {
        gpu::launch_kernel(names_[k], p_, sets_[static_cast<size_t>(set) % sets_.size()].ptrs, s);
    }

    void begin_check(const CheckBudget& budget) override { max_elements_ = budget.max_elements; }
    // The sampled rows of out (first, last, evenly spaced) copied to the host; the whole of out
    // scanned on the device for unwritten (poisoned) or non-finite elements.
    void gather_output(cudaStream_t s, unsigned long long* counter) override {
        const void* out = sets_[0].ptrs.out;
        const int64_t elements = p_.rows * p_.hidden;
        nonfinite_ = scan_nonfinite(p_.dtype, out, elements, counter, s);
        rows_ = elementwise::rows_to_check(p_, max_elements_);
        const size_t es = static_cast<size_t>(dtype_bytes(p_.dtype)), hidden = static_cast<size_t>(p_.hidden);
        std::vector<unsigned char> bits(hidden * es);
        got_.resize(rows_.size() * hidden);
        for (size_t i = 0; i < rows_.size(); ++i) {
            const unsigned char* src =
                static_cast<const unsigned char*>(out) + static_cast<size_t>(rows_[i]) * hidden * es;
            check(cudaMemcpy(bits.data(), src, hidden * es, cudaMemcpyDeviceToHost), "copying an output row");
            to_float(p_.dtype, bits.data(), &got_[i * hidden], hidden);
        }
    }
    GpuCheck finish_check() override {
        const size_t hidden = static_cast<size_t>(p_.hidden);
        std::vector<double> want(hidden);
        ErrorSum errors(p_.dtype);
        for (size_t i = 0; i < rows_.size(); ++i) {
            elementwise::reference_row(p_, rows_[i], want.data());
            errors.add(&got_[i * hidden], want.data(), hidden, rows_[i] * p_.hidden);
        }
        GpuCheck c;
        c.first_wrong = errors.wrong_element_text([&](int64_t at) {
            return "out[row " + std::to_string(at / p_.hidden) + ", column " + std::to_string(at % p_.hidden) +
                   "] (element " + std::to_string(at) + ")";
        });
        c.nonfinite = nonfinite_;
        c.output_elements = p_.rows * p_.hidden;
        c.elements = static_cast<int64_t>(rows_.size() * hidden);
        c.max_abs = errors.max_abs;
        c.rel_l2 = errors.rel_l2();
        c.note = (static_cast<int64_t>(rows_.size()) == p_.rows
                      ? "all " + std::to_string(p_.rows) + " rows"
                      : std::to_string(rows_.size()) + " of " + std::to_string(p_.rows) +
                            " rows sampled (first, last, evenly spaced)") +
                 " vs the float64 CPU reference; whole output scanned for unwritten (poisoned) or non-finite elements";
        return c;
    }

    // The model's spill traffic comes from ptxas's report for sm_90 (row_kernel_registers.inc).
    // The binary on this device may differ (another architecture): say what the runtime reports
    // for the instance that runs, registers and stack frame per thread.
    std::string register_note(const Model& mod, const Params& params) const override {
        const ElementwiseParams p = elementwise::to_elementwise(params);
        std::string note;
        for (const KernelModel& k : mod.kernels) {
            if (k.registers.registers == 0) continue;
            const RegisterUse here = row_kernel_attributes(k.name, p);
            if (here.registers == k.registers.registers && here.stack_bytes == k.registers.stack_bytes) continue;
            if (!note.empty()) note += "; ";
            note += k.name + " on this device: " + std::to_string(here.registers) + " registers, " +
                    std::to_string(here.stack_bytes) + " B of stack per thread (the model's " +
                    std::to_string(k.registers.registers) + " and " + std::to_string(k.registers.stack_bytes) +
                    " B are " + k.registers.source + ")";
        }
        return note;
    }

    // The variant `yours` (exercises/chain_fused.exercise, bias_gelu.exercise): buffer set 0's tensors
    // (those the prepared variant has), the sizes and the dropout's seed, threshold and scale.
    std::optional<StudentArgument> student_argument(const std::string& name) const override {
        if (sets_.empty()) return std::nullopt;
        const ElementwiseBuffers& b = sets_[0].ptrs;
        for (const BufferSpec& spec : specs_) {
            if (spec.name != name) continue;
            void* ptr = b.*(spec.member);
            if (!spec.output) return StudentArgument::of(ptr, "const T*");
            return StudentArgument::of(ptr, "T*", spec.elements * static_cast<uint64_t>(dtype_bytes(p_.dtype)));
        }
        if (name == "rows") return StudentArgument::of(p_.rows, "int64_t");
        if (name == "hidden") return StudentArgument::of(p_.hidden, "int64_t");
        if (name == "n") return StudentArgument::of(p_.rows * p_.hidden, "int64_t");
        if (!p_.chain) return std::nullopt;
        if (name == "seed") return StudentArgument::of(p_.seed, "uint64_t");
        if (name == "threshold") return StudentArgument::of(dropout_threshold(p_.dropout_p), "uint32_t");
        if (name == "keep_scale")
            return StudentArgument::of(p_.dropout_p < 1.0 ? static_cast<float>(1.0 / (1.0 - p_.dropout_p)) : 0.0f, "float");
        return std::nullopt;
    }
    std::vector<std::string> student_argument_names() const override {
        std::vector<std::string> names;
        for (const BufferSpec& spec : specs_) names.push_back(spec.name);
        for (const char* n : {"rows", "hidden", "n"}) names.emplace_back(n);
        if (p_.chain)
            for (const char* n : {"seed", "threshold", "keep_scale"}) names.emplace_back(n);
        return names;
    }

private:
    static std::string layout_of(const std::string& variant, const ElementwiseParams& p) {
        return (p.chain ? "chain " : "bias_gelu ") + variant + " " + to_string(p.dtype) + " " + std::to_string(p.rows) +
               "x" + std::to_string(p.hidden);
    }

    ElementwiseParams p_;
    std::vector<BufferSpec> specs_;
    std::vector<std::string> names_;
    std::vector<BufferSet> sets_;
    std::string layout_;
    int64_t max_elements_ = int64_t{1} << 22;
    int64_t nonfinite_ = 0;
    std::vector<int64_t> rows_;
    std::vector<float> got_;
};

}  // namespace

}  // namespace kernels::gpu

namespace kernels::elementwise::gpu {
std::unique_ptr<GpuWorkload> make_chain_gpu() { return std::make_unique<kernels::gpu::ElementwiseGpu>(); }
std::unique_ptr<GpuWorkload> make_bias_gelu_gpu() { return std::make_unique<kernels::gpu::ElementwiseGpu>(); }
}  // namespace kernels::elementwise::gpu
