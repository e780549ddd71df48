// flash_tc: attention on tensor cores with mma.sync (sm_80+), O = softmax(Q Kᵀ / sqrt(d)) V.
//
// The teaching kernel's loop (attention.cu, flash) on tensor cores. What changes: each warp owns 16
// or 32 rows of Qi (one or two m16 tiles); Sij and the Oi update are mma.sync m16n8k16 (fp16/bf16
// in, fp32 accumulate) fed by ldmatrix; Sij stays in registers and becomes the A operand of Pij Vj
// without a trip through shared memory; Kj+1, Vj+1 are copied in with cp.async while tile j
// computes (two stages). d in {32, 64, 128}.
//
// The tile is the user's (p.Br, p.Bc; kernels/attention/attention.h says which are offered):
//   Bc    a template parameter: the Sij accumulator (Bc / 2 floats per thread and m16 tile) and the
//         loops over key tiles are unrolled, so each Bc is its own instance.
//   Br    not a template parameter: a block is Br / (16 x rows tiles) warps, and every warp runs the
//         same code on its own rows, so one instance serves every Br (blockDim says how many warps).
//   rows per warp (flash_tc_warp_rows()): 32 where registers allow it and the tile is tall enough;
//         the two m16 tiles of a warp share every Kj and Vj fragment ldmatrix brings in, so the
//         shared-memory reads per MMA halve.
// Instances: dtype (2) x d (3) x Bc (2) x rows per warp x the skip epilogue (2): 36, as
// tc_has_warp_rows_32() (attention.h) gives the (d, Bc) pairs with a 32-row instance.
//
// Versions (kernels/PERF.md has each one's numbers on an H100):
//   v1  The tile from the parameters (before it, one 128 x 64 tile of 8 warps); 32 rows per warp at
//       Br = 128 where registers allow: the best tile at d = 64 (128 x 128) and d = 128 (128 x 64).
//   v2  The softmax scale folded into the exp2 (one FFMA instead of an FMUL and an FADD per score;
//       m is kept in units of the raw scores): 3% at d = 64.
//   v3  With 32 rows per warp the block size is a compile-time constant (4 warps: Br = 128 is the
//       only tile with that layout), so Br, the rows of each copy and the copy loops' trip counts
//       are constants; and the row max is a tree (log2 levels of independent fmaxf, not a chain).
//       ncu had v2 latency-bound (2 warps per scheduler, 0.5 ready, the tensor pipe 42% busy).
//       11-13% at the best tiles, nearly all from the constant block size: v3 without the tree
//       measured within 0.4% of v3. (The other step named for v2, fragment loads pipelined ahead
//       of the MMAs, ptxas already did: v2's SASS issues the ldmatrix of step kk + 1 before the
//       MMAs of step kk.)
//   (v4, measured and reverted: two row blocks per thread block whose groups of 4 warps took turns
//       on the tensor cores through named barriers, as flash_wgmma's consumer warpgroups do. One
//       warp per scheduler cannot keep mma.sync's pipe busy in its turn, so the turns cost more
//       than the overlap bought: 25-35% slower than v3 at the best tiles. Also tried and dropped:
//       the row sum as a tree, 0.4-6% slower than v5.)
//   v5  One barrier per key tile instead of two: each thread waits for its own copies of tile j,
//       then one __syncthreads both publishes them and says that every warp is done with tile
//       j - 1, whose stage is refilled (with Kj+1, Vj+1) only after it. 2% at d = 64; at d = 128
//       within 1.5% either way.
//   v6  The copies of the 32-row instances as FlashAttention-2 does them (TileCopyPlan): each
//       thread's global and shared offsets computed once, a tile adds its base and each copy a
//       constant; the row test only on a tile that ends past N; the ldmatrix addresses a per-lane
//       shared address plus constants. ncu beside FlashAttention-2's kernel of the same layout had
//       v5 issuing 10% more instructions (24% more ALU ones) at d = 128; the SASS of v5's key loop
//       spent ~395 of ~1290 instructions per warp and tile on the copies (a loop ptxas could not
//       unroll, a division, a compare and 64-bit address arithmetic per 16-byte chunk), v6's ~40.
//       7-10% faster than v5 at the best tiles (H100: d = 128, 128 x 64: 1.744 -> 1.629 ms; d = 64,
//       128 x 128: 0.928 -> 0.838 ms), 31% fewer instructions; still latency-bound.
//   (v6c, measured and reverted: the key tiles that need no mask in a loop of their own, as
//       FlashAttention-2 splits them, at d = 128 with 32 rows per warp. Fewer register moves, more
//       spills: 4-5% slower than v6 at d = 128, up to 3% on other instances.)
//   v7  At d = 128 with 32 rows per warp (255 registers, spilling) only: the mask reads the thread's
//       key and query offsets from threadIdx inside the masked path and tests one difference per
//       score against a constant, so nothing of it stays live across the loop (v6 kept four query
//       rows in registers and the lane's column on the stack, for a path a non-causal run never
//       takes); with them gone ptxas keeps the loop's control (j, the tile count, the stage, the
//       copies' source offset) in uniform registers; and Kj's ldmatrix address is pinned before the
//       wait, so the one invariant still spilled is reloaded under the barrier, not between it and
//       the first mma.sync (where ncu had put 9 % of v6's stall samples). Same instruction count
//       (923 against 931 per warp and full tile); 6-7 % faster than v6 (H100: d = 128, 128 x 64:
//       1.613 -> 1.509 ms, SDPA flash 1.563-1.642 in the same calls; causal 0.928 -> 0.878; bf16 the
//       same); the skip-epilogue instance unchanged (its in-loop spills stay). The other 32
//       instances compile to v6's SASS.
//
// Every move between memory levels has a one-line comment in the words the animation uses.
#include "kernels/attention/attention.h"
#include "kernels/attention/attention_device.cuh"
#include "kernels/attention/attention_epilogue.cuh"
#include "kernels/attention/attention_tc.cuh"
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/cuda/gpu_dtype.cuh"
#include "kernels/cuda/gpu_mma.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace kernels::attention::gpu {

using kernels::gpu::check;
using kernels::gpu::check_launch;
using kernels::gpu::cp_async16_zfill;
using kernels::gpu::cp_async_commit;
using kernels::gpu::cp_async_wait;
using kernels::gpu::mma_16816;
using kernels::gpu::smem_addr;
using kernels::gpu::to_float;

namespace {

// =============================================================================================
// [SECTION] mma.sync, ldmatrix, cp.async
// =============================================================================================
// The primitives themselves (cp.async, ldmatrix, mma.sync) are kernels/cuda/gpu_mma.cuh's.
// Fragment layouts of mma.sync.m16n8k16 (g = lane / 4, t = lane % 4):
//   A 16x16 (row): a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..)
//   B 16x8 (col):  b0 (k = 2t..2t+1, n = g), b1 (k = 2t+8.., n = g)
//   C 16x8 fp32:   c0, c1 (g, 2t..2t+1), c2, c3 (g+8, 2t..2t+1)
// The C fragments of two neighbouring 8-key tiles of Sij are exactly the A fragment of Pij for
// those 16 keys, so P never leaves registers.
constexpr int kTcMaxThreads = 256;  // Br = 128 with 16 rows per warp: 8 warps

// 16 bytes global -> shared without a register round trip; `valid` false fills zeros.
[[maybe_unused]] __device__ __forceinline__ void cp_async16(void* dst, const void* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(valid ? 16 : 0));
#else
    (void)dst; (void)src; (void)valid;
#endif
}
// The same from a shared address already in hand: no zero fill, no predicate (a whole row's chunk).
[[maybe_unused]] __device__ __forceinline__ void cp_async16_full(uint32_t dst, const void* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
#else
    (void)dst; (void)src;
#endif
}

// threadIdx.x read where it is used: asm volatile keeps the compiler from hoisting it out of the
// key loop into a register that lives (or spills) across every tile (v7).
[[maybe_unused]] __device__ __forceinline__ unsigned thread_index_x() {
    unsigned r;
    asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(r));
    return r;
}

// ldmatrix from a shared address (v6: a per-thread base plus compile-time offsets; kernels/cuda/gpu_mma.cuh),
// and the same two from a generic pointer into shared memory.
using kernels::gpu::ldmatrix_x4;
using kernels::gpu::ldmatrix_x4_trans;
[[maybe_unused]] __device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p) { ldmatrix_x4(r, smem_addr(p)); }
[[maybe_unused]] __device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* p) {
    ldmatrix_x4_trans(r, smem_addr(p));
}

// Copies `rows` x D elements starting at global row `row0` (of N) into a padded shared tile
// [rows][D + 8] with 16-byte cp.async, `threads` threads taking turns; rows past N are zero-filled.
template <typename T, int D>
__device__ __forceinline__ void cp_async_tile(T* dst, const T* src, int row0, int rows, int N, int tid, int threads) {
    constexpr int kChunksPerRow = D / 8, kLd = D + 8;
    for (int c = tid; c < rows * kChunksPerRow; c += threads) {
        const int r = c / kChunksPerRow, ch = c % kChunksPerRow;
        const bool valid = row0 + r < N;
        const T* from = valid ? src + static_cast<size_t>(row0 + r) * D + ch * 8 : src;
        cp_async16(dst + r * kLd + ch * 8, from, valid);
    }
}

// v6: one thread's share of copying a [rows][D] tile when the block size THREADS is a compile-time
// constant (the 32-row instances). Thread tid copies the 16-byte chunk tid % (D / 8) of rows
// tid / (D / 8) + i kRowStep: its global offset (elements) and shared offset (bytes) are computed
// once here, each tile adds its base, and each of its copies a constant that lands in the
// instruction's immediate. The row test runs only on a tile that ends past N (kRagged).
template <typename T, int D, int THREADS> struct TileCopyPlan {
    static constexpr int kChunksPerRow = D / 8, kRowStep = THREADS / kChunksPerRow, kLd = D + 8;
    static_assert(THREADS % kChunksPerRow == 0 && kRowStep >= 1, "a pass of the block covers whole rows");
    int row;       // this thread's first row of a tile
    int src;       // its first chunk, in elements from the tile's first row in global memory
    uint32_t dst;  // its first chunk, in bytes from the shared tile's start

    __device__ explicit TileCopyPlan(int tid)
        : row(tid / kChunksPerRow), src(row * D + tid % kChunksPerRow * 8),
          dst(static_cast<uint32_t>((row * kLd + tid % kChunksPerRow * 8) * static_cast<int>(sizeof(T)))) {}

    // Rows [0, ROWS) of the tile starting at `from` (its first row) into shared address `to`; with
    // kRagged, rows at or past `rows_valid` are zero-filled (their source is `from`, never read).
    template <int ROWS, bool kRagged>
    __device__ __forceinline__ void copy(uint32_t to, const T* from, int rows_valid) const {
        static_assert(ROWS % kRowStep == 0, "every thread copies the same number of chunks");
        const T* s = from + src;
        const uint32_t d = to + dst;
#pragma unroll
        for (int i = 0; i < ROWS / kRowStep; ++i) {
            constexpr uint32_t kDstStep = kRowStep * kLd * sizeof(T);
            if constexpr (kRagged) {
                const bool valid = row + i * kRowStep < rows_valid;
                cp_async16_zfill(d + i * kDstStep, valid ? s + i * kRowStep * D : from, valid);
            } else {
                cp_async16_full(d + i * kDstStep, s + i * kRowStep * D);
            }
        }
    }
    // The same, the ragged path only where the tile ends past N.
    template <int ROWS> __device__ __forceinline__ void copy(uint32_t to, const T* from, int rows_valid) const {
        if (rows_valid >= ROWS) copy<ROWS, false>(to, from, rows_valid);
        else copy<ROWS, true>(to, from, rows_valid);
    }
};

// The skip epilogue's x tile: `rows` rows of attention problem bh from [batch, N, heads D] into a
// padded shared tile [rows][D + 8] (Qi's layout); rows past N are zero-filled.
template <typename T, int D>
__device__ __forceinline__ void cp_async_x_tile(T* dst, const T* x, const SkipEpilogue& ep, int bh, int row0, int rows,
                                                int N, int tid, int threads) {
    constexpr int kChunksPerRow = D / 8, kLd = D + 8;
    for (int c = tid; c < rows * kChunksPerRow; c += threads) {
        const int r = c / kChunksPerRow, ch = c % kChunksPerRow;
        const bool valid = row0 + r < N;
        const T* from = valid ? x + bnc_row_offset(ep, bh, row0 + r, N, D) + ch * 8 : x;
        cp_async16(dst + r * kLd + ch * 8, from, valid);
    }
}

// =============================================================================================
// [SECTION] The kernel
// =============================================================================================
// Blocks per SM the register budget is cut for (__launch_bounds__ with 256 threads): 2 gives 128
// registers per thread, 1 gives 255. d = 64, Bc = 64 with 16 rows per warp fits 2 (ptxas sm_90:
// 48 bytes spilled outside the mma loops), so one block's softmax phase overlaps the other's mma
// phase: 194 -> 237 TFLOP/s at N = 4096 (H200, PERF.md). Larger accumulators (Sij: Bc / 2, Oi:
// d / 2 floats per thread and m16 tile) take 1.
constexpr int tc_min_blocks(int d, int bc, int mt) { return mt * (bc / 2 + d / 2) + (mt == 1 ? d / 4 : 0) <= 80 ? 2 : 1; }

// The row max of this thread's 2 BC / 8 scores of a row (the `half` of m16 tile `mt`), as a tree:
// log2 levels of independent fmaxf instead of one chain (max is exact in any order).
template <int kWidth, int kN> __device__ __forceinline__ void max_tree_level(float (&v)[kN]) {
    if constexpr (kWidth >= 1) {
#pragma unroll
        for (int n = 0; n < kWidth; ++n) v[n] = fmaxf(v[n], v[n + kWidth]);
        max_tree_level<kWidth / 2>(v);
    }
}
template <int MT, int kSTiles>
__device__ __forceinline__ float row_max_tree(const float (&acc_s)[MT][kSTiles][4], int mt, int half) {
    float v[kSTiles];
#pragma unroll
    for (int n = 0; n < kSTiles; ++n) v[n] = fmaxf(acc_s[mt][n][2 * half], acc_s[mt][n][2 * half + 1]);
    max_tree_level<kSTiles / 2>(v);
    return v[0];
}

template <typename T, int D, int BC, int MT, bool kSkip>
__global__ void __launch_bounds__(kTcMaxThreads, tc_min_blocks(D, BC, MT))
    flash_tc_kernel(const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V, T* __restrict__ O, int N,
                    bool causal, float scale_log2, SkipEpilogue ep) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr int kLd = D + 8;              // padded row: 8 rows of an ldmatrix hit 8 different bank groups
    constexpr int kDTiles = D / 8;          // 8-wide column tiles of Oi
    constexpr int kSTiles = BC / 8;         // 8-wide key tiles of Sij
    constexpr bool kQInRegisters = MT == 1;  // two m16 tiles re-read Qi's fragments from SRAM instead
    // v7, at d = 128 with 32 rows per warp (255 registers, spilling): the mask's offsets read from
    // threadIdx inside the masked path, and Kj's address pinned before the barrier (below)
    constexpr bool kMaskFromTid = MT == 2 && D == 128;
    // With 32 rows per warp the block is always 4 warps (Br = 128, flash_tc_warp_rows), so its size
    // is a constant: Br and the copy loops' trip counts below are compile-time constants (v3).
    const int threads = MT == 2 ? 128 : static_cast<int>(blockDim.x);
    const int Br = threads / 32 * 16 * MT;  // rows of Qi: 16 x MT per warp
    extern __shared__ __align__(16) unsigned char tc_smem[];
    T* Qs = reinterpret_cast<T*>(tc_smem);  // [Br][kLd]
    T* Ks = Qs + Br * kLd;                  // [2][Bc][kLd]
    T* Vs = Ks + 2 * BC * kLd;              // [2][Bc][kLd]

    const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t = lane % 4;
    const int row0 = static_cast<int>(blockIdx.x) * Br;
    const int wrow = warp * 16 * MT;  // this warp's first row within Qi
    const size_t head = static_cast<size_t>(blockIdx.y) * static_cast<size_t>(N) * D;
    const T* Qh = Q + head;
    const T* Kh = K + head;
    const T* Vh = V + head;

    const int kv_end = causal ? min(N, row0 + Br) : N;  // keys this block may attend to
    const int tiles = (kv_end + BC - 1) / BC;

    // Shared addresses (v6): each ldmatrix below is a per-thread base plus a compile-time offset.
    constexpr uint32_t kRowBytes = kLd * sizeof(T), kStageBytes = BC * kRowBytes;
    const uint32_t qs_addr = smem_addr(Qs), ks_addr = smem_addr(Ks), vs_addr = smem_addr(Vs);
    const uint32_t q_lane = (wrow + lane % 16) * kRowBytes + (lane / 16) * 8 * sizeof(T);  // A of Sij: Qi
    const uint32_t k_lane = ((lane / 16) * 8 + lane % 8) * kRowBytes + ((lane / 8) % 2) * 8 * sizeof(T);  // B of Sij: Kj
    const uint32_t v_lane = (lane % 8 + ((lane / 8) % 2) * 8) * kRowBytes + (lane / 16) * 8 * sizeof(T);  // B of Pij Vj: Vj
    // The copies (v6): with 32 rows per warp the block size is a constant, so each thread's
    // offsets are computed once (TileCopyPlan); the 16-row instances keep the generic loop.
    constexpr bool kPlannedCopies = MT == 2;
    [[maybe_unused]] const TileCopyPlan<T, D, 4 * 32> plan(tid);  // 4 warps, Br = 128 (launch_instance checks)
    auto load_kv = [&](int j_tile, int st) {
        const int kv0 = j_tile * BC;
        if constexpr (kPlannedCopies) {
            const size_t at = static_cast<size_t>(kv0) * D;
            plan.template copy<BC>(ks_addr + st * kStageBytes, Kh + at, N - kv0);  // load Kj into SRAM
            plan.template copy<BC>(vs_addr + st * kStageBytes, Vh + at, N - kv0);  // load Vj into SRAM
        } else {
            cp_async_tile<T, D>(Ks + st * BC * kLd, Kh, kv0, BC, N, tid, threads);  // load Kj into SRAM
            cp_async_tile<T, D>(Vs + st * BC * kLd, Vh, kv0, BC, N, tid, threads);  // load Vj into SRAM
        }
    };

    if constexpr (kPlannedCopies) plan.template copy<4 * 32>(qs_addr, Qh + static_cast<size_t>(row0) * D, N - row0);  // load Qi into SRAM
    else cp_async_tile<T, D>(Qs, Qh, row0, Br, N, tid, threads);  // load Qi into SRAM
    cp_async_commit();
    load_kv(0, 0);  // load Kj, Vj into SRAM (j = 0, stage 0)
    cp_async_commit();

    float acc_o[MT][kDTiles][4] = {};
    float m_run[MT][2], l_run[MT][2];  // rows g and g + 8 of each of this warp's m16 tiles
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) m_run[mt][0] = m_run[mt][1] = -INFINITY, l_run[mt][0] = l_run[mt][1] = 0.0f;
    uint32_t q_frag[kQInRegisters ? D / 16 : 1][4];
    const int q_row = row0 + wrow + g;  // this thread's first query row (then + 8, + 16, + 24)

    for (int j = 0; j < tiles; ++j) {
        const int stage = j & 1;
        // v7: Kj's ldmatrix address in a register before the wait, so whatever ptxas does with it
        // (a reload from the stack) overlaps the barrier instead of delaying the first mma.sync
        uint32_t kt = ks_addr + stage * kStageBytes + k_lane;
        if constexpr (kMaskFromTid) asm volatile("" : "+r"(kt));
        const uint32_t vt = vs_addr + stage * kStageBytes + v_lane;
        cp_async_wait<0>();  // this thread's copies of Kj, Vj (and at j = 0 of Qi) have landed
        // One barrier per tile (v5): every thread's copies of tile j are visible, and every warp is
        // done with tile j - 1, so its stage, (j + 1) & 1, may be refilled now.
        __syncthreads();
        if (j + 1 < tiles) {
            load_kv(j + 1, (j + 1) & 1);  // load Kj+1, Vj+1 into SRAM while tile j computes
            cp_async_commit();
        }
        if constexpr (kQInRegisters) {
            if (j == 0) {
#pragma unroll
                for (int kk = 0; kk < D / 16; ++kk)
                    ldmatrix_x4(q_frag[kk], qs_addr + q_lane + kk * 16 * sizeof(T));
            }
            if constexpr (kSkip) {
                if (j > 0 && j + 1 == tiles) {
                    // Qs was last read at j = 0: load the x tile into SRAM in its place while the last tile computes
                    cp_async_x_tile<T, D>(Qs, static_cast<const T*>(ep.x), ep, static_cast<int>(blockIdx.y), row0, Br, N,
                                          tid, threads);
                    cp_async_commit();
                }
            }
        }

        // compute Sij = Qi Kjᵀ: this warp's 16 x MT rows x Bc keys, fp32 in registers; each Kj
        // fragment from SRAM feeds the MT m16 tiles
        float acc_s[MT][kSTiles][4] = {};
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            uint32_t a[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                if constexpr (kQInRegisters) {
#pragma unroll
                    for (int r = 0; r < 4; ++r) a[mt][r] = q_frag[kk][r];
                } else {
                    ldmatrix_x4(a[mt], qs_addr + q_lane + (mt * 16 * kLd + kk * 16) * sizeof(T));
                }
            }
#pragma unroll
            for (int nb = 0; nb < BC / 16; ++nb) {
                uint32_t b[4];
                ldmatrix_x4(b, kt + (nb * 16 * kLd + kk * 16) * sizeof(T));
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) {
                    mma_16816<T>(acc_s[mt][2 * nb], a[mt], b[0], b[1]);
                    mma_16816<T>(acc_s[mt][2 * nb + 1], a[mt], b[2], b[3]);
                }
            }
        }

        // mask keys past N (ragged last tile) and, causal, keys after the query (scores unscaled:
        // the scale is folded into the exp2 below)
        const int col0 = j * BC;
        const bool needs_mask = col0 + BC > N || (causal && col0 + BC - 1 > row0);
        if (needs_mask && kMaskFromTid) {
            // v7: the thread's key and query offsets read again here (nothing of them stays live
            // across the loop), and each test one offset against a compile-time constant
            const int lane_now = static_cast<int>(thread_index_x()) % 32, t_now = lane_now % 4;
            const int key0 = col0 + 2 * t_now;  // this thread's first key of the tile
            const int past_n = key0 - N;        // key >= N  <=>  past_n + n 8 + (e & 1) >= 0
            // key - query at n = e = mt = 0 (the query: this warp's first row plus g)
            const int ahead = key0 - (row0 + static_cast<int>(thread_index_x()) / 32 * 16 * MT + lane_now / 4);
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int n = 0; n < kSTiles; ++n)
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        const int off = n * 8 + (e & 1), qoff = mt * 16 + (e >= 2 ? 8 : 0);
                        if (past_n >= -off || (causal && ahead > qoff - off)) acc_s[mt][n][e] = -INFINITY;
                    }
        } else if (needs_mask) {
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int n = 0; n < kSTiles; ++n)
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        const int key = col0 + n * 8 + 2 * t + (e & 1), query = q_row + mt * 16 + (e >= 2 ? 8 : 0);
                        if (key >= N || (causal && key > query)) acc_s[mt][n][e] = -INFINITY;
                    }
        }

        // update m, l: row max over the 4 threads of a quad (m in units of the raw scores),
        // Pij = exp2(Sij log2(e)/sqrt(d) - m log2(e)/sqrt(d)) as one FFMA and one exp2, rescale Oi
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                float mx = fmaxf(m_run[mt][half], row_max_tree(acc_s, mt, half));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                // Tile 0 holds key 0, which every row sees: mx is finite from the first step on.
                const float rescale = fast_exp2((m_run[mt][half] - mx) * scale_log2);
                m_run[mt][half] = mx;
                const float mx_scaled = mx * scale_log2;
                float row_sum = 0.0f;
#pragma unroll
                for (int n = 0; n < kSTiles; ++n) {
                    acc_s[mt][n][2 * half] = fast_exp2(fmaf(acc_s[mt][n][2 * half], scale_log2, -mx_scaled));
                    acc_s[mt][n][2 * half + 1] = fast_exp2(fmaf(acc_s[mt][n][2 * half + 1], scale_log2, -mx_scaled));
                    row_sum += acc_s[mt][n][2 * half] + acc_s[mt][n][2 * half + 1];
                }
                l_run[mt][half] = l_run[mt][half] * rescale + row_sum;  // this thread's columns; the quad is summed at the end
#pragma unroll
                for (int dn = 0; dn < kDTiles; ++dn) {
                    acc_o[mt][dn][2 * half] *= rescale;
                    acc_o[mt][dn][2 * half + 1] *= rescale;
                }
            }

        // accumulate Oi += Pij Vj: Pij straight from the Sij registers, Vj through ldmatrix.trans;
        // each Vj fragment feeds the MT m16 tiles
#pragma unroll
        for (int kk = 0; kk < BC / 16; ++kk) {
            uint32_t a[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                a[mt][0] = pack2<T>(acc_s[mt][2 * kk][0], acc_s[mt][2 * kk][1]);
                a[mt][1] = pack2<T>(acc_s[mt][2 * kk][2], acc_s[mt][2 * kk][3]);
                a[mt][2] = pack2<T>(acc_s[mt][2 * kk + 1][0], acc_s[mt][2 * kk + 1][1]);
                a[mt][3] = pack2<T>(acc_s[mt][2 * kk + 1][2], acc_s[mt][2 * kk + 1][3]);
            }
#pragma unroll
            for (int nb = 0; nb < D / 16; ++nb) {
                uint32_t b[4];
                ldmatrix_x4_trans(b, vt + (kk * 16 * kLd + nb * 16) * sizeof(T));
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) {
                    mma_16816<T>(acc_o[mt][2 * nb], a[mt], b[0], b[1]);
                    mma_16816<T>(acc_o[mt][2 * nb + 1], a[mt], b[2], b[3]);
                }
            }
        }
    }

    if constexpr (kSkip) {
        // Skip epilogue: out = c_skip x + c_out Oi / l from registers and the x tile in SRAM; O never stored.
        const int bh = static_cast<int>(blockIdx.y);
        if (!kQInRegisters || tiles == 1) {
            // Qi was read until the last tile (or there was no earlier tile to hide it behind): once
            // every warp is done with it, load the x tile into SRAM now, in Qi's place
            __syncthreads();
            cp_async_x_tile<T, D>(Qs, static_cast<const T*>(ep.x), ep, bh, row0, Br, N, tid, threads);
            cp_async_commit();
        }
        cp_async_wait<0>();
        __syncthreads();
        const SkipCoefficients k = skip_coefficients(ep, bh);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const float inv = quad_sum_reciprocal(l_run[mt][half]);
                const int query = q_row + mt * 16 + half * 8;
                if (query >= N) continue;
                const T* xs = Qs + (wrow + mt * 16 + g + half * 8) * kLd;
                T* out = static_cast<T*>(ep.out) + bnc_row_offset(ep, bh, query, N, D);
#pragma unroll
                for (int dn = 0; dn < kDTiles; ++dn) {
                    const int c = dn * 8 + 2 * t;
                    *reinterpret_cast<uint32_t*>(out + c) =
                        pack2<T>(skip_value(to_float(xs[c]), acc_o[mt][dn][2 * half] * inv, k),
                                 skip_value(to_float(xs[c + 1]), acc_o[mt][dn][2 * half + 1] * inv, k));  // write out tile to HBM
                }
            }
    } else {
        // store Oi = Oi / l (l summed over the quad that shares each row)
        (void)ep;
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const float inv = quad_sum_reciprocal(l_run[mt][half]);
                const int query = q_row + mt * 16 + half * 8;
                if (query >= N) continue;
                T* out = O + head + static_cast<size_t>(query) * D;
#pragma unroll
                for (int dn = 0; dn < kDTiles; ++dn)
                    *reinterpret_cast<uint32_t*>(out + dn * 8 + 2 * t) =
                        pack2<T>(acc_o[mt][dn][2 * half] * inv, acc_o[mt][dn][2 * half + 1] * inv);  // store Oi
            }
    }
#else
    (void)Q; (void)K; (void)V; (void)O; (void)N; (void)causal; (void)scale_log2; (void)ep;
    __trap();  // the host refuses flash_tc below sm_80 (attention::device_refusal), so this never runs
#endif
}

// =============================================================================================
// [SECTION] Launch
// =============================================================================================
// HBM per head, as flash with the same Br, Bc: Qi once, Kj and Vj once per (block, j), Oi once.
template <typename T, int D, int BC, int MT, bool kSkip>
void launch_instance(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O, cudaStream_t stream,
                     const SkipEpilogue& ep) {
    const Tile tile = flash_tile("flash_tc", p);
    const int threads = flash_tc_threads(tile.Br, tile.Bc, p.d);
    if (threads > kTcMaxThreads || tile.Br != threads / 32 * 16 * MT || tile.Bc != BC || (MT == 2 && threads != 128))
        throw std::logic_error("flash_tc: the kernel's tile differs from the model's (flash_tc_threads)");
    const int smem = static_cast<int>(flash_smem_bytes("flash_tc", p));
    const dim3 grid(static_cast<unsigned>((p.N + tile.Br - 1) / tile.Br), static_cast<unsigned>(p.batch_heads));
    check(cudaFuncSetAttribute(flash_tc_kernel<T, D, BC, MT, kSkip>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
          "flash_tc: allowing " + std::to_string(smem) + " bytes of shared memory");
    flash_tc_kernel<T, D, BC, MT, kSkip><<<grid, threads, static_cast<size_t>(smem), stream>>>(
        static_cast<const T*>(Q), static_cast<const T*>(K), static_cast<const T*>(V), static_cast<T*>(O),
        static_cast<int>(p.N), p.causal, kLog2e / std::sqrt(static_cast<float>(p.d)), ep);
    check_launch("flash_tc_kernel");
}

template <typename T, int D, int BC, bool kSkip>
void launch_rows(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O, cudaStream_t stream,
                 const SkipEpilogue& ep) {
    if (flash_tc_warp_rows(p.Br, p.Bc, p.d) == 32) {
        // The model picks 32 rows only where tc_has_warp_rows_32() built an instance.
        if constexpr (tc_has_warp_rows_32(D, BC)) return launch_instance<T, D, BC, 2, kSkip>(p, Q, K, V, O, stream, ep);
        else throw std::logic_error("flash_tc: no 32-row instance for this d and Bc");
    }
    launch_instance<T, D, BC, 1, kSkip>(p, Q, K, V, O, stream, ep);
}

template <typename T, int D, bool kSkip>
void launch_bc(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O, cudaStream_t stream,
               const SkipEpilogue& ep) {
    switch (p.Bc) {
    case 64: launch_rows<T, D, 64, kSkip>(p, Q, K, V, O, stream, ep); return;
    case 128: launch_rows<T, D, 128, kSkip>(p, Q, K, V, O, stream, ep); return;
    default: throw std::invalid_argument("flash_tc: Bc = " + std::to_string(p.Bc) + " is not built (64 or 128)");
    }
}

template <typename T, bool kSkip>
void launch_d(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O, cudaStream_t stream,
              const SkipEpilogue& ep) {
    switch (p.d) {
    case 32: launch_bc<T, 32, kSkip>(p, Q, K, V, O, stream, ep); return;
    case 64: launch_bc<T, 64, kSkip>(p, Q, K, V, O, stream, ep); return;
    case 128: launch_bc<T, 128, kSkip>(p, Q, K, V, O, stream, ep); return;
    default: throw std::invalid_argument("flash_tc: d = " + std::to_string(p.d) + " is not 32, 64 or 128");
    }
}

}  // namespace

void launch_flash_tc(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O, cudaStream_t stream,
                     const SkipEpilogue& ep) {
    // The skip epilogue is its own instance, so the plain kernel's code (and registers) are what they
    // were without it: a runtime branch cost attention's own flash_tc 1.1% (H200, N = 4096, PERF.md).
    const bool skip = ep.x != nullptr;
    if (p.dtype == DType::f16 && skip) launch_d<__half, true>(p, Q, K, V, O, stream, ep);
    else if (p.dtype == DType::f16) launch_d<__half, false>(p, Q, K, V, O, stream, ep);
    else if (p.dtype == DType::bf16 && skip) launch_d<__nv_bfloat16, true>(p, Q, K, V, O, stream, ep);
    else if (p.dtype == DType::bf16) launch_d<__nv_bfloat16, false>(p, Q, K, V, O, stream, ep);
    else throw std::invalid_argument("flash_tc runs in fp16 or bf16 only");
}

}  // namespace kernels::attention::gpu
