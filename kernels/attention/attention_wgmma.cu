// flash_wgmma: attention on Hopper's asynchronous machinery (sm_90a only), O = softmax(Q Kᵀ / sqrt(d)) V.
//
// Names from Dao et al. (FlashAttention, 2022, and FlashAttention-3, 2024): one thread block owns
// Br rows of Q (Qi) and walks the Tc tiles Kj, Vj of Bc keys; m and l are the running row max and
// row sum; Tr = ceil(N / Br) blocks per head.
//
// Versions (each computes the same function; the one in this file is the last):
//   v1  Warp roles and the TMA ring. What changes from flash_tc (attention.cu): the block is one
//       producer warpgroup and Br / 64 consumer warpgroups. One thread of the producer issues TMA
//       bulk tensor copies (cp.async.bulk.tensor) of Qi and of every (Kj, Vj) into a ring of
//       `stages` shared-memory slots; each slot has a "full" mbarrier (the copy engine counts the
//       bytes in) and an "empty" mbarrier (every consumer thread arrives when it has finished reading
//       the slot). The copy engine writes rows past N as zeros, so ragged N needs no branch on the
//       loads, only the mask of columns >= N. Why: cp.async in flash_tc cost every thread address
//       arithmetic and issue slots in the middle of the math; here the math warps never compute an
//       address, and the ring is deeper than flash_tc's two stages.
//     S = Qi Kjᵀ and Oi += Pij Vj are wgmma.mma_async, 64 rows per warpgroup (m64nBck16 and
//       m64ndk16): the A and B tiles are read by the tensor cores straight from shared memory through
//       matrix descriptors (Qi and Kj both K-major; Vj is the B operand "transposed", MN-major), and
//       Pij goes from the S accumulator registers to the A operand registers of the second product,
//       as in flash_tc. Why: mma.sync feeds 16x8x16 per warp from registers that ldmatrix filled;
//       wgmma feeds 64xNx16 per warpgroup from shared memory, so no ldmatrix and the tensor cores
//       run at Hopper's full rate (mma.sync reaches about two thirds of it).
//     The tiles are stored by TMA with the 128-byte swizzle (rows of 64 elements, 128 bytes; d = 128
//       is two such column slabs), the layout wgmma reads without bank conflicts, so no padding.
//     Register reallocation (setmaxnreg): with two consumer warpgroups (384 threads, at most 168
//       registers each at launch) the producer gives its registers back (24 per thread) and the
//       consumers take 240, room for Sij (Bc / 2 floats per thread), Oi (d / 2) and Pij.
//     Online softmax on exp2 with the scale folded in: Pij = exp2(Sij log2(e)/sqrt(d) - m log2(e)/sqrt(d)),
//       one FFMA and one MUFU.EX2 per element. Causal: key tiles wholly above the diagonal are never
//       loaded; a warpgroup whose 64 rows end before a tile starts skipped its products too (v2
//       drops that: both warpgroups take every turn, which keeps the ping-pong's count simple).
//   v2  Softmax off the tensor cores' critical path. What changes: (a) each warpgroup issues
//       Sij of tile j and Pij-1 Vj-1 of the previous tile together, and runs the softmax of tile j
//       while Pij-1 Vj-1 is still on the tensor cores (Oi is rescaled, and Pij packed into the A
//       registers, after that product finishes); (b) with two consumer warpgroups, named barriers
//       1 and 2 pass a turn between them (FA3's "ping-pong"): a warpgroup issues its wgmmas only
//       in its turn, so one's softmax runs while the other's products run. Why: v1's warpgroups each
//       went GEMM -> softmax -> GEMM and the tensor cores idled during the exp2s unless the two
//       warpgroups happened to fall out of step; at d = 64 the MUFU's exp2s (16 per clock per SM)
//       take about as long as the products, so hiding them is most of the remaining gap.
//       v1 -> v2 on the H100 at N = 4096, 64 heads, fp16: kernels/PERF.md.
//   v3  The skip epilogue (attention_epilogue.cuh, for kernels/skip), as a template flag (kSkip) so
//       the instances without it keep their code. What changes with it: once a consumer warpgroup's
//       last Sij is done, its Qi is read no more; every thread of it arrives on q_free[w], and the
//       producer, waiting there after its last Kj, Vj, copies the warpgroup's x tile by TMA into
//       Qi's place (x is [batch, N, heads d]: a 4-d tensor map, boxes of one head's 64 rows, laid
//       out and swizzled as Qi's). The x tile lands while the last softmax and Pij Vj run; the
//       warpgroup then writes out = c_skip x + c_out Oi / l from its registers and the x tile in
//       SRAM, and O is never stored. Why TMA and not loads from each thread: the consumers stay off
//       address arithmetic, as for every other tile, and the copy hides behind the last product.
//   v4  Three consumer warpgroups (Br = 192). What changes: the turn passes 0 -> 1 -> 2 -> 0 (named
//       barrier 1 + w is warpgroup w's turn), and with 512 threads a block launches with 128
//       registers a thread, so the consumers take 160 each by setmaxnreg (the producer keeps 24:
//       3 x 128 x 160 + 128 x 24 = 64,512 of 65,536). Why: at d = 64 a warpgroup's softmax takes
//       about as long as its products, and with two warpgroups the tensor cores idle whenever one's
//       softmax outlasts the other's turn; a third warpgroup's turn fills that gap. 13% faster at
//       d = 64 on the H100 (0.551 ms against 0.634 at 128 x 128, 1.18x cuDNN; kernels/PERF.md). At d = 128 with
//       Bc = 128 the consumers would need ~200 registers (Sij 64 + Oi 64 + Pij 32 a thread) and
//       ptxas spills 272 bytes a thread at 160, so that tile is refused (attention_model.cpp).
//       Tried beside it and dropped: a quarter to three quarters of the exp2s as a polynomial on the
//       FMA units (FlashAttention-4's trick), to unload the MUFU: 0-17% slower at 128 x 128 and 8%
//       slower at 192 x 128, so the MUFU was not what bounds these tiles.
//   v5  A persistent grid (the tile scheduler section). What changes: one block per SM slot, each
//       walking its (head, row block) work items in turn; the producer's ring position and the
//       mbarrier phases run on across items, and it loads the next item's Qi once every consumer's
//       last Sij of the current one is done (q_empty) and its first Kj, Vj as slots free, so the next
//       item's fill hides under the current item's last Pij Vj and its store of Oi; the warpgroups'
//       turns run on from item to item. A block claims its next item from a counter in global
//       memory (its producer, one item ahead), in an order the scheduler's comment gives (causal:
//       longest row blocks first). Why: in v4 every block paid its pipeline fill (Qi, then K0, V0,
//       with nothing to overlap at one block per SM) and its drain. A first v5 handed the items out
//       statically (a "snake" over the blocks): 3-5 % slower than v4 on equal items (an H200,
//       kernels/PERF.md), as the slowest block then sets the time; claiming keeps the hardware's
//       balance. v4 stays for comparison: FUSIONLAB_FLASH_WGMMA_GRID=waves (one block per item, grid
//       (Tr, batch_heads), the same kernel). v4 -> v5: kernels/PERF.md.
//   v6  A shorter softmax per tile (template flag kV6). What changes: the row max in four
//       independent chains (Bc / 32 FMNMX deep, joined by two more; was one chain of Bc / 8); and a
//       row's m moves only when the tile's max, scaled to log2 units, exceeds it by more than 8
//       (FlashAttention-4's conditional rescaling), so a warp whose rows all kept their m skips the
//       d / 2 FMULs that rescale Oi (__any_sync). Pij stay <= 2^8 (fp16 and bf16 hold them with the
//       precision of any other value), and O / l is the same function whichever m both use. Why: the
//       ping-pong and the intra-warpgroup overlap (v2) leave a warpgroup's turn bound by its own
//       softmax's dependent instructions (ncu, kernels/PERF.md: 2.25 warps a scheduler, no warp
//       eligible on 58 % of cycles); this removes about 18 % of them at d = 128. Measured level with
//       v5's (0.96-1.06x, median 1.00x on an H200, kernels/PERF.md: fewer instructions, a 2 % higher
//       clock, 2 % more cycles), so v5's softmax stays the default and v6's is built for fp16 without
//       the epilogue only: FUSIONLAB_FLASH_WGMMA_SOFTMAX=v6.
//   v7  One arrival per consumer warp on a slot's empty mbarrier (lane 0, after the warp's
//       wgmma.wait_group), instead of one per consumer thread: 8 (two consumer warpgroups) or 12
//       arrivals a tile instead of 256 or 384, each an atomic on shared memory (CUTLASS's TMA
//       pipelines signal once per consumer warpgroup). The arrivals on q_empty (once an item) stay
//       per thread. The per-thread arrivals stay for comparison: FUSIONLAB_FLASH_WGMMA_RELEASE=thread.
//   v8  The next item claimed late: as the producer issues the current item's last Kj, Vj (the
//       consumers learn whether another item follows once that tile lands), not one whole item ahead.
//       Why: with items claimed an item ahead, a block that runs slower still holds the item it
//       claimed while the others run dry at the end; that lag is one item in 15.5 at N = 16384 with
//       16 heads (v5's worst loss against v4, 0.91x) and one in 124 at 128 heads (0.99x).
//       v5's claim stays for comparison: FUSIONLAB_FLASH_WGMMA_CLAIM=ahead.
//   v9  Causal, persistent: the ragged L2 section (heads % section_heads heads) first instead of last
//       (the tile scheduler section). Why: v5 lost 5-6 % to v4 at 16 heads of N = 16384, d = 128,
//       causal (round 1 of 2026-11-28, alternating in one call), and 3-5 % at 16 heads from N = 8192,
//       where the last section held one or two heads: their longest row blocks started only after
//       every other item was claimed and ran on alone. First, they start at once; the grid ends on a
//       full section's shortest row blocks. Measured (round 1 of the fifth session, H200, alternating
//       twice in one call, 16 heads causal): 1.04x v5's order at N = 16384 (d = 64 and 128), 1.08x at
//       N = 8192, d = 128, 1.24x at N = 8192, d = 64; so the default. v5's order stays for comparison:
//       FUSIONLAB_FLASH_WGMMA_SECTIONS=ragged_last.
//   v10 (dropped) Waves for the 64 x 64 tile at d = 64, the one tile of which two blocks share an SM
//       (117 registers x 256 threads, 74,880 bytes of shared memory). Why it was tried: the recordings
//       had v5's grid 1.47-1.60x slower than v4's waves there (0.273 against 0.171 ms at 16 heads,
//       N = 4096, H200), the 128- and 192-row tiles level. Measured in one call on this code (round 1
//       of 2026-11-28, H200, alternating twice): waves 0.194 ms, persistent 0.193 non-causal and 0.123
//       against 0.104 causal, level or the persistent grid faster at every 64-row tile and d; ncu: the
//       same 2 blocks an SM, SM clock and cycles (345 k against 342 k). The grid is not what the
//       recordings' gap was, so v5's persistent grid stays for every tile (kernels/PERF.md).
//   v11 Bc = 176 at d = 128 with Br = 128 (FlashAttention-3's d = 128 tile): S = Qi Kjᵀ as one
//       wgmma m64n176k16 chain, Pij Vj as 11 k-steps; 88 + 64 + 44 registers of Sij, Oi and Pij in the
//       240 a consumer thread takes; two ring stages (Qi 32 KiB + 2 x 88 KiB of Kj, Vj). Why: at
//       128 x 128 a warpgroup's turn (~1000 tensor cycles of products at d = 128) is barely longer than
//       its partner's softmax and the waits around it, so the tensor cores idle between turns (ncu:
//       71 % of peak, no warp eligible on ~60 % of cycles); a key tile 1.375x as long grows the products
//       and the per-element softmax by that but not the per-tile costs (the turn's barriers and
//       wgmma waits, the row-max shuffles, Oi's rescale of 64 registers). The price: N = 4096 is 23.3
//       tiles of 176, so the last tile is 27 % keys (3 % of the products wasted).
//     Beside it, 192 x 80 at d = 128: three consumer warpgroups (v4's turn of three) with Sij 40, Oi 64
//       and Pij 20 registers in the 160 a consumer thread takes (wgmma m64n80k16; 4 ring stages, 208 KiB).
//       Why: at d = 64 the third warpgroup made 192 x 128 13 % faster than 128 x 128 (v4); at d = 128
//       Bc = 128 does not fit 160 registers and 192 x 64 measured 6 % slower than 128 x 128 (its turns,
//       ~512 tensor cycles, are short against the per-tile costs); 80 keys is the longest turn that
//       fits (96 spills 108 bytes a thread in ptxas, 80 spills 32, as 128 x 176 does).
//     Measured (two calls, H200, kernels/PERF.md): 128 x 176 1.09-1.30x 128 x 128's time at every goal
//       shape (ncu: no warp eligible on 70 % of cycles against 60 %): with two ring stages a slot holds
//       Kj and Vj from the tile's Sij to its Pij Vj a turn later, so the next tile's copy waits on both
//       warpgroups' Pij Vj. 192 x 80: 0.88-0.97x 128 x 128's time at N >= 8192 with 64-128 heads, slower
//       at N <= 4096 or 16 heads. Both stay as tiles to choose; the auto tile picks by the recordings and
//       the model (which prices 128 x 176 at its measured 1.17x).
//   v12 Kj and Vj with barriers of their own where the ring has two stages (128 x 176): a slot holding
//       both stayed taken from its Sij to its Pij Vj a turn later, so with two stages the producer
//       could load tile j + 1 only once both warpgroups had finished Pij-1 Vj-1, and the warpgroup
//       whose turn came next waited on that copy: v11's 128 x 176 measured 3-28 % slower than 128 x 128
//       (round 1 of 2026-11-28, H200; ncu: tensor pipe 59 % against 70 %, no warp eligible on 70 % of
//       cycles against 60 %). Now Kj's slot is released as soon as its Sij is done and Vj's after its
//       Pij Vj, as FlashAttention-3's separate K and V pipelines do. Rings of three or four stages keep
//       one barrier pair a slot (the 128 bytes of mbarriers hold v12's only at two stages). Written in
//       the fifth session, passed the [wgmma] tests and the four sanitizer tools there, taken out before
//       it was timed; back in the sixth to be timed against 128 x 128 (kernels/PERF.md). Only the 128 x 176
//       instances have two stages, so every other tile's code is v9's. Measured (round 1 of the sixth
//       session, H200, kernels/PERF.md): 128 x 176 0.96-1.085x 128 x 128's time, median 0.994 (v11: 1.09-1.30x);
//       the fastest tile at 10 of the 20 d = 128 goal shapes; ncu at N = 4096, 128 heads: 2.85 M cycles against
//       128 x 128's 2.92 M, tensor pipe 74 % against 70 %. Kept.
//   v13 The producer warpgroup keeps more registers after setmaxnreg.dec: 40 a thread instead of 24 with
//       two consumer warpgroups (which take 232 instead of 240: 128 x 40 + 256 x 232 = 64,512, the block's
//       launch allocation of 384 x 168), 32 with three (whose consumers keep 160: 128 x 32 + 384 x 160 =
//       65,536 = 512 x 128; at 24 a thousand registers stayed unused). Why: every two- and three-warpgroup
//       instance spilled 8-32 bytes a thread (scripts/kernel_registers.py), and they were the producer's:
//       ptxas compiles the code after setmaxnreg.dec within its 24 registers, and the producer's loop (item
//       claims, ring position, phases, TMA coordinates) reloaded spilled values from local memory between
//       its copies. Now no instance without the skip epilogue spills (the consumers' 232 hold 128 x 176's
//       Sij 88 + Oi 64 + Pij 44 with room), and the epilogue's spills shrink (192 x 80: 276 to 176 bytes).
//       128 x 176 with the skip epilogue keeps 24 / 240 (its consumers spill 144 bytes at 232). v12's split
//       stays for comparison, fp16 without the epilogue: FUSIONLAB_FLASH_WGMMA_REGS=v12. Measured (round 2
//       of the sixth session, H200, alternating twice in one call, kernels/PERF.md): level to 1 % faster
//       (128 x 128 at d = 128 median 1.010x, the other tiles 1.000-1.002x); ncu 1.8 % fewer cycles at
//       128 x 128. Kept for the spills it removes.
//   v14 Oi rescaled inside the turn (template flag kV14): FlashAttention-3's order. Until v13 a warpgroup, after its turn, ran tile
//       j's softmax while Pij-1 Vj-1 ran, and after wgmma.wait_group 0 rescaled Oi by tile j's factor (d / 2
//       FMULs a thread) and packed Pij; only then could it take its next turn. v14 applies that factor in the
//       next turn, between issuing Sij+1 and issuing Pij Vj: Oi is not in flight there (the product that
//       accumulates into it is not issued yet) and the FMULs run while Sij+1 holds the tensor cores; a second
//       wgmma.fence orders the rescaled registers before the wgmma that reads them. After wait_group 0 only
//       the pack of Pij is left. Why: ncu reads no warp eligible on ~60 % of cycles at d = 128 with the stalls
//       on the turn's own latency (kernels/PERF.md, "What bounds d = 128"), and the gap from wait_group 0 to
//       the next turn is on that path whenever a warpgroup's softmax side outlasts its partner's products.
//       ptxas: no instance spills (kernels/attention/flash_wgmma_registers.inc). Measured (round 1 of the
//       seventh session, H200, alternating twice with v13's order in one call, kernels/PERF.md "Seventh
//       session"): 0.6-1.7 % faster at every d = 128 tile (128 x 128, 128 x 176, 192 x 80) where the runs
//       agree, 3.8-6.5 % at 128 x 128 with d = 64; ncu at 128 x 128, d = 128: 1.1 % fewer cycles, the barrier
//       stall 1.00 cycles an instruction against 1.21. But 1.6-2.0 % slower at 192 x 128 with d = 64: with
//       three warpgroups at d = 64 each one's softmax already hides under two partners' short turns, and the
//       FMULs only lengthen its own turn. So the default is v14's order at every tile but three consumer
//       warpgroups at d = 64 (v14_order); FUSIONLAB_FLASH_WGMMA_RESCALE=after_wait (v13's order at every
//       tile) or =in_turn (v14's at every tile) builds the other for fp16 without the epilogue. Round 2 (H200,
//       the default, cuDNN in the same call): the 64-row tiles 2.0-2.4 % faster than round 1's v13 order; the best
//       d = 128 tile >= 1.10x cuDNN at 5 of 21 busy shapes (causal, and N = 16384 with 16 heads), non-causal still
//       0.96-1.06x (kernels/PERF.md, "Round 2 measured").
//   v15 (dropped) The last round's non-causal items split by keys (written and measured in the eighth session, the
//       code in commit 61d1de9): the tail items (items - (rounds - 1) x blocks) cut into ranges of key tiles that the
//       idle blocks claim, each part storing its partial Oi, m and l in fp32 and the last part to finish merging them
//       (Flash-Decoding's merge, as decode.cu's split_kv_fused). Against whole items in the same binary it was
//       1.12-1.25x at 16 heads of N = 2048 and 8192 (d = 64, 192 x 128), 1.02-1.07x at N = 16384 and 64 heads of
//       N = 2048, 0.97-1.04x at N = 4096 (H200, two rounds, kernels/PERF.md "Eighth session"). But the build with it
//       ran its whole items 3-7 % slower against cuDNN in the same call than this code does (128 x 128 and
//       192 x 128 at d = 64, where ptxas reported no spills; at 192 x 64 / 192 x 80, d = 128, the merge's loops made
//       the 160-register consumers spill 8-40 bytes), so net it lost at most shapes, and it is not kept.
//   Left for later: storing Oi (or out) through shared memory with TMA; the last round's tail (v15's split, with
//       its merge in a kernel of its own, or the next item's first Sij issued in the current one's last turn).
//
// Every move between memory levels has a one-line comment: "HBM -> SRAM (TMA)", "SRAM -> tensor
// cores", "registers -> HBM".
#include "kernels/attention/attention.h"
#include "kernels/attention/attention_device.cuh"
#include "kernels/attention/attention_epilogue.cuh"
#include "kernels/attention/attention_wgmma.cuh"
#include "kernels/core/env.h"
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/cuda/gpu_dtype.cuh"

#include <cuda.h>  // CUtensorMap and its enums only: the driver function comes through cudaGetDriverEntryPointByVersion
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

// The kernel is compiled for sm_90a only (CMakeLists.txt); the guard keeps any other target honest.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FL_WGMMA_DEVICE 1
#else
#define FL_WGMMA_DEVICE 0
#endif

namespace kernels::attention::gpu {

using kernels::gpu::check;
using kernels::gpu::check_launch;
using kernels::gpu::to_float;

namespace {

// =============================================================================================
// [SECTION] PTX wrappers: mbarrier, TMA, wgmma, setmaxnreg
// =============================================================================================
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
#if FL_WGMMA_DEVICE
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count));
#else
    (void)bar; (void)count;
#endif
}
// The producer's arrival: one arrival, and `bytes` more for the copy engine to count in.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
#if FL_WGMMA_DEVICE
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
#else
    (void)bar; (void)bytes;
#endif
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
#if FL_WGMMA_DEVICE
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
#else
    (void)bar;
#endif
}
// Waits until the phase with this parity has completed.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
#if FL_WGMMA_DEVICE
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT;\n"
        "}\n" ::"r"(smem_u32(bar)),
        "r"(parity)
        : "memory");
#else
    (void)bar; (void)parity;
#endif
}

// HBM -> SRAM (TMA): one box of the 3-d tensor map (column c0, row c1, head c2) into `dst`; the copy
// engine adds the box's bytes to `bar`'s transaction count when they have landed.
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1, int c2) {
#if FL_WGMMA_DEVICE
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(
            smem_u32(dst)),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2)
        : "memory");
#else
    (void)dst; (void)map; (void)bar; (void)c0; (void)c1; (void)c2;
#endif
}

// HBM -> SRAM (TMA): one box of a 4-d tensor map (the skip epilogue's x: column c0, head c1, row c2,
// batch element c3).
__device__ __forceinline__ void tma_load_4d(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1, int c2,
                                            int c3) {
#if FL_WGMMA_DEVICE
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(
            smem_u32(dst)),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
        : "memory");
#else
    (void)dst; (void)map; (void)bar; (void)c0; (void)c1; (void)c2; (void)c3;
#endif
}

__device__ __forceinline__ void tma_prefetch_map(const CUtensorMap* map) {
#if FL_WGMMA_DEVICE
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
#else
    (void)map;
#endif
}

template <int kRegs> __device__ __forceinline__ void setmaxnreg_inc() {
#if FL_WGMMA_DEVICE
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}
template <int kRegs> __device__ __forceinline__ void setmaxnreg_dec() {
#if FL_WGMMA_DEVICE
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}

// Named barriers 1 and 2 between the two consumer warpgroups (0 is __syncthreads): sync waits
// until `count` threads have arrived, arrive only counts this warp in.
__device__ __forceinline__ void named_bar_sync(int id, int count) {
#if FL_WGMMA_DEVICE
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
#else
    (void)id; (void)count;
#endif
}
__device__ __forceinline__ void named_bar_arrive(int id, int count) {
#if FL_WGMMA_DEVICE
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
#else
    (void)id; (void)count;
#endif
}

__device__ __forceinline__ void wgmma_fence() {
#if FL_WGMMA_DEVICE
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#if FL_WGMMA_DEVICE
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int kPending> __device__ __forceinline__ void wgmma_wait() {
#if FL_WGMMA_DEVICE
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
#endif
}
// Keeps the compiler from moving reads or writes of accumulator registers across the asynchronous
// wgmma that owns them.
template <int kN> __device__ __forceinline__ void fence_regs(float (&r)[kN]) {
#pragma unroll
    for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

// Shared-memory matrix descriptor with the 128-byte swizzle: start address, leading and stride byte
// offsets (each >> 4), layout type 1 in bits 62-63. K-major tiles (Qi, Kj): rows of 128 bytes, 8-row
// core groups 1024 bytes apart (stride offset), the leading offset unused. MN-major (Vj read as
// K x N with N = d contiguous): 8 keys of 128 bytes per 1024-byte group (stride offset), the next 64
// columns of d one column slab further (leading offset).
__device__ __forceinline__ uint64_t sw128_desc(uint32_t addr, uint32_t leading, uint32_t stride) {
    return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | static_cast<uint64_t>((leading >> 4) & 0x3FFF) << 16 |
           static_cast<uint64_t>((stride >> 4) & 0x3FFF) << 32 | uint64_t{1} << 62;
}

#define FL_WG_D32                                                                                                  \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
    "%23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define FL_WG_D64                                                                                                  \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
    "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "   \
    "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define FL_WG_D40                                                                                                  \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
    "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39}"
#define FL_WG_OUT40(d)                                                                                             \
    FL_WG_OUT32(d), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]),   \
        "+f"(d[39])
#define FL_WG_D88                                                                                                  \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
    "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "   \
    "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, "   \
    "%65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "   \
    "%86, %87}"
#define FL_WG_OUT32(d)                                                                                             \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),  \
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),    \
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),   \
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define FL_WG_OUT64(d)                                                                                             \
    FL_WG_OUT32(d), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]),   \
        "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]),   \
        "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),   \
        "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),   \
        "+f"(d[63])
#define FL_WG_OUT88(d)                                                                                             \
    FL_WG_OUT64(d), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]),   \
        "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]),   \
        "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]),   \
        "+f"(d[87])

// SRAM -> tensor cores: d (64 x N, fp32) (+)= A (64 x 16, descriptor) Bᵀ (N x 16, descriptor), both K-major;
// accumulate = 0 overwrites d. A, B, P: the operand numbers after d's registers.
#define FL_WGMMA_SS(N, DREGS, OUT, TY, A, B, P)                                                                    \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " P ", 0;\n"                                                 \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY "." TY " " DREGS ", " A ", " B              \
                 ", p, 1, 1, 0, 0;\n}\n"                                                                         \
                 : OUT(d)                                                                                          \
                 : "l"(a), "l"(b), "r"(accumulate))
// Registers + SRAM -> tensor cores: d (64 x N) += A (64 x 16: four registers of two elements per thread)
// B (16 x N, descriptor, MN-major: the transpose flag set).
#define FL_WGMMA_RS(N, DREGS, OUT, TY, A0, A1, A2, A3, B, P)                                                       \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " P ", 0;\n"                                                 \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY "." TY " " DREGS ", {" A0 ", " A1 ", " A2    \
                 ", " A3 "}, " B ", p, 1, 1, 1;\n}\n"                                                            \
                 : OUT(d)                                                                                          \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1))

template <typename T, int kN>
__device__ __forceinline__ void wgmma_ss(float (&d)[kN / 2], uint64_t a, uint64_t b, int accumulate) {
#if FL_WGMMA_DEVICE
    constexpr bool kHalf = std::is_same_v<T, __half>;
    if constexpr (kN == 64 && kHalf) FL_WGMMA_SS(64, FL_WG_D32, FL_WG_OUT32, "f16", "%32", "%33", "%34");
    else if constexpr (kN == 64) FL_WGMMA_SS(64, FL_WG_D32, FL_WG_OUT32, "bf16", "%32", "%33", "%34");
    else if constexpr (kN == 128 && kHalf) FL_WGMMA_SS(128, FL_WG_D64, FL_WG_OUT64, "f16", "%64", "%65", "%66");
    else if constexpr (kN == 128) FL_WGMMA_SS(128, FL_WG_D64, FL_WG_OUT64, "bf16", "%64", "%65", "%66");
    else if constexpr (kN == 80 && kHalf) FL_WGMMA_SS(80, FL_WG_D40, FL_WG_OUT40, "f16", "%40", "%41", "%42");  // v11: Sij of 192 x 80
    else if constexpr (kN == 80) FL_WGMMA_SS(80, FL_WG_D40, FL_WG_OUT40, "bf16", "%40", "%41", "%42");
    else if constexpr (kN == 176 && kHalf) FL_WGMMA_SS(176, FL_WG_D88, FL_WG_OUT88, "f16", "%88", "%89", "%90");  // v11: Sij of Bc = 176
    else FL_WGMMA_SS(176, FL_WG_D88, FL_WG_OUT88, "bf16", "%88", "%89", "%90");
    static_assert(kN == 64 || kN == 80 || kN == 128 || kN == 176, "wgmma_ss: N is 64, 80, 128 or 176");
#else
    (void)d; (void)a; (void)b; (void)accumulate;
#endif
}

template <typename T, int kN>
__device__ __forceinline__ void wgmma_rs(float (&d)[kN / 2], const uint32_t (&a)[4], uint64_t b) {
#if FL_WGMMA_DEVICE
    constexpr bool kHalf = std::is_same_v<T, __half>;
    if constexpr (kN == 64 && kHalf) FL_WGMMA_RS(64, FL_WG_D32, FL_WG_OUT32, "f16", "%32", "%33", "%34", "%35", "%36", "%37");
    else if constexpr (kN == 64) FL_WGMMA_RS(64, FL_WG_D32, FL_WG_OUT32, "bf16", "%32", "%33", "%34", "%35", "%36", "%37");
    else if constexpr (kN == 128 && kHalf)
        FL_WGMMA_RS(128, FL_WG_D64, FL_WG_OUT64, "f16", "%64", "%65", "%66", "%67", "%68", "%69");
    else FL_WGMMA_RS(128, FL_WG_D64, FL_WG_OUT64, "bf16", "%64", "%65", "%66", "%67", "%68", "%69");
#else
    (void)d; (void)a; (void)b;
#endif
}

// =============================================================================================
// [SECTION] Tile scheduler: which (head, row block) a block works on
// =============================================================================================
// A work item is row block i (rows i Br .. i Br + Br - 1, Qi) of attention problem `head`.
// v4 ("waves"): one block per item, grid (Tr, batch_heads), the hardware hands blocks to SMs as
// they free up; causal row blocks longest first within each head.
// v5 ("persistent"): one block per SM slot. Block c starts with item c and then takes the next
// unclaimed one from a counter in global memory (atomicAdd by its producer thread), so a block that
// runs faster takes more items, as the hardware's scheduler does for v4. v5 claimed one item ahead
// (the next item's number known at the current one's start); v8 claims as the current item's last
// tile is issued, a few tiles before it ends, so the last items go to the blocks that free up first
// (FUSIONLAB_FLASH_WGMMA_CLAIM=ahead keeps v5's). The order:
//   non-causal: head by head (v4's order: the blocks at work share a few heads' K and V in L2);
//   causal: sections of `section_heads` heads whose K and V fit in half the L2, within a section
//     every head at one row level before the next, longest levels first, so the blocks end on the
//     shortest row blocks of the last section (v4's head-by-head order ends on a head's longest).
//     v9 (the default; FUSIONLAB_FLASH_WGMMA_SECTIONS=ragged_last keeps v5's order): when heads is not a
//     multiple of section_heads, the section with the rest goes first (v5 put it last: at 16 heads
//     of N = 16384, d = 128 a last section of one head, whose longest row block, 128 key tiles,
//     started only once every other item was claimed; 4-6 % slower than v4 there).
// The last block to finish puts the counter back to 0 for the next launch (launches on one stream
// run in order; the host keeps a counter per stream).
struct WgmmaGrid {
    int Tr;             // row blocks per head, ceil(N / Br)
    int heads;          // batch_heads
    int section_heads;  // heads per L2 section (causal, persistent)
    int first_section_heads;  // v9: the heads of a first, ragged section (heads % section_heads; 0: none, or v5's order)
    int causal;
    unsigned* counter;  // persistent: [0] items claimed beyond the first G, [1] blocks done; nullptr: waves (v4)
    int release_per_warp;  // v7: one arrival per consumer warp on a slot's empty barrier (0: every consumer thread, v6)
    int claim_late;        // v8: the next item is claimed as the current one's last tile is issued (0: one item ahead, v5)
};
struct WorkItem {
    int head, i;
};
// The item at position pos of the order above.
__device__ __forceinline__ WorkItem item_at(const WgmmaGrid& s, int pos) {
    if (!s.causal) return {pos / s.Tr, pos % s.Tr};
    int first_head = 0, hs = s.first_section_heads, k = pos;  // v9: the ragged section first
    const int first_items = s.first_section_heads * s.Tr;
    if (pos >= first_items) {
        const int section_items = s.section_heads * s.Tr;
        const int sec = (pos - first_items) / section_items;
        k = pos - first_items - sec * section_items;
        first_head = s.first_section_heads + sec * s.section_heads;
        hs = min(s.section_heads, s.heads - first_head);  // v5's order: the last section may hold fewer heads
    }
    const int level = k / hs;  // 0: the longest row blocks
    return {first_head + (k - level * hs), s.Tr - 1 - level};
}
// The producer's next item position (>= Tr x heads: none left).
__device__ __forceinline__ int claim_item(const WgmmaGrid& s) {
    return static_cast<int>(gridDim.x) + static_cast<int>(atomicAdd(&s.counter[0], 1u));
}
// The end of a persistent block's producer: the last block out resets the counter for the next launch.
__device__ __forceinline__ void release_counter(const WgmmaGrid& s) {
    __threadfence();  // this block's claims come before its count of done blocks
    if (atomicAdd(&s.counter[1], 1u) + 1u == gridDim.x) {
        s.counter[0] = 0u;
        s.counter[1] = 0u;
    }
}

// =============================================================================================
// [SECTION] The kernel
// =============================================================================================
// Shared memory, from a 1024-byte boundary (the 128-byte swizzle repeats every 8 rows = 1024 bytes):
//   Qi:           Br / 64 warpgroup tiles x d / 64 column slabs, each 64 rows x 128 bytes
//   Kj[stage]:    d / 64 column slabs of Bc rows x 128 bytes
//   Vj[stage]:    the same
//   mbarriers:    full[stage], empty[stage], q_full, q_empty; with the skip epilogue q_free[w], x_full[w]
//                 (at most 2 x 4 + 2 + 2 x 3 = 16 of 8 bytes in the 128 reserved)
template <typename T, int D, int kBc, int kWG, int kStages> struct WgmmaLayout {
    static constexpr int kBr = 64 * kWG;
    static constexpr int kSlabs = D / 64;                       // 128-byte column slabs of a row
    static constexpr int kQSlab = 64 * 128;                     // 64 rows of one slab
    static constexpr int kQBytes = kBr * D * 2;
    static constexpr int kKVSlab = kBc * 128;                   // Bc rows of one slab
    static constexpr int kKVBytes = kBc * D * 2;                // one of Kj, Vj
    static constexpr int kK = kQBytes;                          // offsets from the aligned base
    static constexpr int kV = kK + kStages * kKVBytes;
    static constexpr int kBars = kV + kStages * kKVBytes;
    static constexpr int kBytes = kBars + 128 + 1024;           // + mbarriers + alignment slack
    static constexpr int kThreads = 128 * (kWG + 1);
};

// v6: how far (log2 units, after the scale) a row's max may run ahead of the m its Pij use before m
// moves: Pij stay <= 2^8 (fp16 holds 65504), and Oi's rescale is rare. The GPU tests set
// FUSIONLAB_FLASH_WGMMA_STALE_MAX=0 (m moves whenever the max grows) so that the rescale is taken
// by some rows of a warp and not others; with the test inputs (uniform in [-1, 1]) no row's max
// grows by 2^8 after its first tile.
constexpr float kStaleMaxLog2 = 8.0f;
float stale_max_log2() { return kernels::env_is("FUSIONLAB_FLASH_WGMMA_STALE_MAX", "0") ? 0.0f : kStaleMaxLog2; }

// v13: the registers setmaxnreg gives the producer warpgroup (kProducerRegs) and, from what the block was
// launched with, each consumer thread (a multiple of 8). setmaxnreg moves registers within the block's
// launch allocation: 128 (kWG + 1) threads x the __launch_bounds__ share, 168 a thread with two consumer
// warpgroups (64,512), 128 with three (65,536); an inc beyond what the decs freed would wait forever.
// v12 and before: 24 for the producer, 240 / 160 for the consumers; ptxas compiles the producer's loop
// within its 24 and spilled 8-28 bytes a thread there.
constexpr int launch_regs(int wg) { return 65536 / (128 * (wg + 1)) / 8 * 8; }
constexpr int consumer_regs(int wg, int producer_regs) {
    return (128 * (wg + 1) * launch_regs(wg) - 128 * producer_regs) / (128 * wg) / 8 * 8;
}
template <int kWG, int kBc, bool kSkip> constexpr int v13_producer_regs() {
    if constexpr (kWG == 2 && !(kSkip && kBc == 176)) return 40;  // consumers 232 (Sij 88 + Oi 64 + Pij 44 at 128 x 176 need 240 with the epilogue)
    else if constexpr (kWG == 3) return 32;                       // consumers keep 160: the 1,024 registers 24 left unused
    else return 24;
}

// v14: where Oi's rescale runs by default. Measured (round 1 of the seventh session, H200, alternating in one call,
// kernels/PERF.md): in the turn 0.6-1.7 % faster at every d = 128 tile (two and three consumer warpgroups) and
// 3.8-6.5 % at 128 x 128 with d = 64, but 1.6-2.0 % slower at 192 x 128 with d = 64: with three warpgroups at
// d = 64 each one's softmax already hides under two partners' short turns, so the FMULs only lengthen the turn.
template <int kWG, int D> constexpr bool v14_order() { return !(kWG == 3 && D == 64); }

template <typename T, int D, int kBc, int kWG, int kStages, bool kSkip, bool kV6, int kProducerRegs, bool kV14>
__global__ void __launch_bounds__(128 * (kWG + 1), 1)
    flash_wgmma_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                       const __grid_constant__ CUtensorMap map_v, const __grid_constant__ CUtensorMap map_x,
                       T* __restrict__ O, int N, WgmmaGrid grid, float scale_log2, float stale_log2, SkipEpilogue ep) {
#if FL_WGMMA_DEVICE
    using L = WgmmaLayout<T, D, kBc, kWG, kStages>;
    constexpr int kBr = L::kBr;
    extern __shared__ unsigned char wgmma_smem_raw[];
    unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(wgmma_smem_raw) + 1023) & ~uintptr_t{1023});
    // v12: with a ring of two stages Kj and Vj have barriers of their own (kSplitKV): a slot holding both
    // stays taken from its Sij to its Pij Vj, a turn later, so a two-stage ring never had the next tile
    // in flight; Kj's slot is free again once its Sij is done.
    constexpr bool kSplitKV = kStages == 2;
    uint64_t* full = reinterpret_cast<uint64_t*>(smem + L::kBars);  // [kStages]: Kj, Vj landed (v12: Kj)
    uint64_t* empty = full + kStages;                                // [kStages]: every consumer done with the slot (v12: Kj's)
    uint64_t* q_full = empty + kStages;                              // Qi landed
    uint64_t* q_empty = q_full + 1;                                  // every consumer done with Qi (and the x tile)
    uint64_t* q_free = q_empty + 1;                                  // [kWG] skip: warpgroup w's last Sij is done
    uint64_t* x_full = q_free + kWG;                                 // [kWG] skip: warpgroup w's x tile landed
    uint64_t* full_v = x_full + kWG;                                 // [kStages] v12: Vj landed
    uint64_t* empty_v = full_v + kStages;                            // [kStages] v12: every consumer done with Vj's slot
    static_assert(!kSplitKV || 2 * 2 * kStages + 2 + 2 * kWG <= 16, "flash_wgmma: the mbarriers fit in 128 bytes");

    const int tid = static_cast<int>(threadIdx.x), wg = tid / 128;
    const int causal = grid.causal;
    // Key tiles row block i visits: Tc, or fewer when causal (keys after its last row are never loaded).
    auto tiles_of = [&](int row0) {
        const int kv_end = causal ? min(N, row0 + kBr) : N;
        return (kv_end + kBc - 1) / kBc;
    };
    const int items = grid.Tr * grid.heads;
    const bool persistent = grid.counter != nullptr;
    // v4: this block's one item (causal: the longest row blocks start first).
    const WorkItem waves_item{static_cast<int>(blockIdx.y), causal ? grid.Tr - 1 - static_cast<int>(blockIdx.x) : static_cast<int>(blockIdx.x)};
    __shared__ volatile int item_slot[2];  // persistent: the position of the item being loaded and of the next one

    if (tid == 0) {
        for (int s = 0; s < kStages; ++s) {
            mbar_init(&full[s], 1);             // the producer's arrive_expect_tx
            mbar_init(&empty[s], grid.release_per_warp ? 4 * kWG : 128 * kWG);  // every consumer warp (v7) or thread
            if constexpr (kSplitKV) {
                mbar_init(&full_v[s], 1);
                mbar_init(&empty_v[s], grid.release_per_warp ? 4 * kWG : 128 * kWG);
            }
        }
        mbar_init(q_full, 1);
        mbar_init(q_empty, 128 * kWG);
        if constexpr (kSkip)
            for (int w = 0; w < kWG; ++w) {
                mbar_init(&q_free[w], 128);  // every thread of consumer warpgroup w
                mbar_init(&x_full[w], 1);    // the producer's arrive_expect_tx
            }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");  // visible to the copy engine
    }
    __syncthreads();

    if (wg == 0) {
        // ---- producer warpgroup: one thread issues every copy; the others only give registers back.
        // The ring position `kv` runs on across work items: the next item's Qi and first Kj, Vj load
        // while the consumers finish the previous item (its last Pij Vj and the store of Oi).
        if constexpr (kWG > 1) setmaxnreg_dec<kProducerRegs>();  // back to the pool, for the consumers to take
        if (tid == 0) {
            tma_prefetch_map(&map_q);
            tma_prefetch_map(&map_k);
            tma_prefetch_map(&map_v);
            if constexpr (kSkip) tma_prefetch_map(&map_x);
            int kv = 0;  // Kj, Vj tiles this block has loaded so far
            const bool late = grid.claim_late != 0;
            int pos = persistent ? static_cast<int>(blockIdx.x) : 0, next = persistent && !late ? claim_item(grid) : items;
            for (int r = 0;; ++r) {
                const WorkItem item = persistent ? item_at(grid, pos) : waves_item;
                const int row0 = item.i * kBr, head = item.head, tiles = tiles_of(row0);
                if (r > 0) mbar_wait(q_empty, (r - 1) & 1);  // every consumer is done with the previous Qi (and x tile)
                item_slot[0] = pos;  // for the consumers, who read it once q_full completes (the arrive releases it)
                if (!late) item_slot[1] = next;  // v5: known at the item's start
                mbar_arrive_expect_tx(q_full, L::kQBytes);
                for (int w = 0; w < kWG; ++w)
                    for (int s = 0; s < L::kSlabs; ++s)
                        tma_load(smem + (w * L::kSlabs + s) * L::kQSlab, &map_q, q_full, s * 64, row0 + w * 64, head);  // HBM -> SRAM (TMA): Qi
                for (int j = 0; j < tiles; ++j, ++kv) {
                    const int stage = kv % kStages;
                    if (kv >= kStages) mbar_wait(&empty[stage], ((kv / kStages) - 1) & 1);  // the slot's previous tile is consumed
                    if (late && j + 1 == tiles) {
                        // v8: the next item is claimed now, a few tiles before this one ends; the consumers
                        // read item_slot[1] once this tile's full barrier completes (the arrive releases it).
                        next = persistent ? claim_item(grid) : items;
                        item_slot[1] = next;
                    }
                    if constexpr (kSplitKV) {
                        // v12: Kj into its slot (free once the Sij two tiles back is done), then Vj into its
                        // own (free once the Pij Vj two tiles back is done).
                        mbar_arrive_expect_tx(&full[stage], L::kKVBytes);
                        for (int s = 0; s < L::kSlabs; ++s)
                            tma_load(smem + L::kK + stage * L::kKVBytes + s * L::kKVSlab, &map_k, &full[stage], s * 64, j * kBc, head);  // HBM -> SRAM (TMA): Kj
                        if (kv >= kStages) mbar_wait(&empty_v[stage], ((kv / kStages) - 1) & 1);  // Vj's slot: its previous tile is consumed
                        mbar_arrive_expect_tx(&full_v[stage], L::kKVBytes);
                        for (int s = 0; s < L::kSlabs; ++s)
                            tma_load(smem + L::kV + stage * L::kKVBytes + s * L::kKVSlab, &map_v, &full_v[stage], s * 64, j * kBc, head);  // HBM -> SRAM (TMA): Vj
                    } else {
                        mbar_arrive_expect_tx(&full[stage], 2 * L::kKVBytes);
                        for (int s = 0; s < L::kSlabs; ++s) {
                            tma_load(smem + L::kK + stage * L::kKVBytes + s * L::kKVSlab, &map_k, &full[stage], s * 64, j * kBc, head);  // HBM -> SRAM (TMA): Kj
                            tma_load(smem + L::kV + stage * L::kKVBytes + s * L::kKVSlab, &map_v, &full[stage], s * 64, j * kBc, head);  // HBM -> SRAM (TMA): Vj
                        }
                    }
                }
                if constexpr (kSkip) {
                    const int b = head / ep.heads, h = head % ep.heads;  // attention problem head = batch element b, head h
                    for (int w = 0; w < kWG; ++w) {
                        mbar_wait(&q_free[w], r & 1);  // warpgroup w's last Sij is done: its Qi is read no more
                        mbar_arrive_expect_tx(&x_full[w], 64 * D * 2);
                        for (int s = 0; s < L::kSlabs; ++s)
                            tma_load_4d(smem + (w * L::kSlabs + s) * L::kQSlab, &map_x, &x_full[w], s * 64, h, row0 + w * 64, b);  // HBM -> SRAM (TMA): x tile, in Qi's place
                    }
                }
                if (next >= items) break;
                pos = next;
                if (!late) next = claim_item(grid);  // v5: one item ahead
            }
            if (persistent) release_counter(grid);
        }
        return;
    }

    // ---- consumer warpgroup w: rows row0 + 64 w .. + 63 of Qi; warp `warp` of it owns 16 of them
    // The registers the producer gave back: 232 a thread with two consumer warpgroups since v13 (240 with
    // the producer at 24; 384 threads launch with 168), 160 with three (512 threads launch with 128).
    static_assert(kWG == 1 || 128 * kWG * consumer_regs(kWG, kProducerRegs) + 128 * kProducerRegs <= 128 * (kWG + 1) * launch_regs(kWG),
                  "flash_wgmma: the warpgroups' registers exceed the block's launch allocation");
    static_assert(kWG == 1 || (kWG == 2 && consumer_regs(2, 24) == 240) || (kWG == 3 && consumer_regs(3, 24) == 160),
                  "flash_wgmma: v12's split is 24 / 240 and 24 / 160");
    if constexpr (kWG > 1) setmaxnreg_inc<consumer_regs(kWG, kProducerRegs)>();
    const int w = wg - 1, lt = tid - 128 * wg, warp = lt / 32, lane = lt % 32;
    const int g = lane / 4, t = lane % 4;

    constexpr int kSRegs = kBc / 2, kORegs = D / 2;  // per thread: 64 rows x N / 128 threads
    float acc_s[kSRegs];
    float acc_o[kORegs];
    uint32_t p_frag[kBc / 16][4];  // Pij as the A operand of Pij Vj: two elements per register
#pragma unroll
    for (int r = 0; r < kSRegs; ++r) acc_s[r] = 0.0f;
    const uint32_t q_base = smem_u32(smem + w * L::kSlabs * L::kQSlab);

    // Issues Sij = Qi Kjᵀ for tile j (slot `stage`): d / 16 wgmma steps, SRAM -> tensor cores.
    auto issue_s = [&](int stage) {
        const uint32_t k_base = smem_u32(smem + L::kK + stage * L::kKVBytes);
#pragma unroll
        for (int k = 0; k < D / 16; ++k) {
            const uint32_t col = static_cast<uint32_t>((k % 4) * 32);  // 16 elements further along the swizzled row
            const uint64_t a = sw128_desc(q_base + (k / 4) * L::kQSlab + col, 16, 1024);
            const uint64_t b = sw128_desc(k_base + (k / 4) * L::kKVSlab + col, 16, 1024);
            wgmma_ss<T, kBc>(acc_s, a, b, k > 0 ? 1 : 0);
        }
        wgmma_commit();
    };
    // Issues Oi += Pij Vj for the tile in slot `stage`: Pij from registers, Vj SRAM -> tensor cores.
    auto issue_pv = [&](int stage) {
        const uint32_t v_base = smem_u32(smem + L::kV + stage * L::kKVBytes);
#pragma unroll
        for (int kk = 0; kk < kBc / 16; ++kk) wgmma_rs<T, D>(acc_o, p_frag[kk], sw128_desc(v_base + kk * 16 * 128, L::kKVSlab, 1024));
        wgmma_commit();
    };
    // The wgmma reads p_frag's registers while it runs: they stay live (nothing else may be put in
    // them) until the wait that follows it.
    auto keep_p_frag = [&]() {
#pragma unroll
        for (int kk = 0; kk < kBc / 16; ++kk)
#pragma unroll
            for (int r = 0; r < 4; ++r) asm volatile("" : "+r"(p_frag[kk][r])::"memory");
    };
    // The warp's wgmmas that read a slot have completed (wgmma.wait_group is .sync.aligned: every lane
    // of the warp has passed it): v7 lets lane 0 arrive for the warp, v6 had every thread arrive, 256
    // or 384 shared-memory arrivals a tile where 8 or 12 say the same.
    auto release = [&](uint64_t* bar) {
        if (!grid.release_per_warp || lane == 0) mbar_arrive(bar);
    };
    // The slot of tile `stage` after its Pij Vj (v12: Vj's slot; Kj's was released after its Sij).
    auto release_slot = [&](int stage) { release(kSplitKV ? &empty_v[stage] : &empty[stage]); };
    // v12: Vj has landed (before Pij Vj; without v12 the tile's one full barrier said so).
    auto wait_v = [&](int tile) {
        if constexpr (kSplitKV) mbar_wait(&full_v[tile % kStages], (tile / kStages) & 1);
        else (void)tile;
    };
    // Turns between the consumer warpgroups (named barrier 1 + w is warpgroup w's turn): a
    // warpgroup issues its wgmmas only in its turn and then hands the turn to the next one (0 -> 1
    // -> 2 -> 0), so one's softmax runs while the others' products keep the tensor cores busy
    // (FA3's "ping-pong", with two). Each warpgroup issues tiles + 1 times an item; warpgroup 0 goes
    // first (the last warpgroup hands it the first turn) and the turns run on from item to item: the
    // last warpgroup hands over after its last turn of an item unless the block has no item left.
    auto my_turn = [&]() {
        if constexpr (kWG > 1) named_bar_sync(1 + w, 256);
    };
    if constexpr (kWG > 1)
        if (w == kWG - 1) named_bar_arrive(1, 256);  // warpgroup 0 takes the first turn

    int kv = 0;  // the ring position of this item's tile 0 (Kj, Vj tiles consumed so far)
    for (int r = 0;; ++r) {
        mbar_wait(q_full, r & 1);  // Qi has landed in SRAM, and the producer's item_slot says which item it is
        const WorkItem item = persistent ? item_at(grid, item_slot[0]) : waves_item;
        bool more = false;  // another item follows this one: read once the item's last tile has landed (item_slot[1])
        auto learn_more = [&]() { more = persistent && item_slot[1] < items; };
        const int head = item.head, row0 = item.i * kBr, tiles = tiles_of(row0);
        const int wg_row0 = row0 + 64 * w;
        const int q_row = wg_row0 + warp * 16 + g;  // this thread's first row (second: + 8)
        const int phases = tiles + 1;
        auto hand_over = [&](int phase) {
            if constexpr (kWG > 1)
                if (w + 1 < kWG || phase + 1 < phases || more) named_bar_arrive(1 + (w + 1) % kWG, 256);
        };
#pragma unroll
        for (int c = 0; c < kORegs; ++c) acc_o[c] = 0.0f;
        float m_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0.0f, 0.0f};  // rows g and g + 8 of this warp
        float rescale[2] = {1.0f, 1.0f};
        bool moved = false;  // v6: a row of this thread moved its m in the last softmax (Oi needs the rescale)

        // Mask, then update m, l: Pij = exp2(Sij scale - m scale) in place in acc_s; the factor that
        // rescales Oi is kept for when the previous tile's Pij Vj has finished. v6 (kV6): the row max
        // in four independent chains, joined at the end (v5: one chain of Bc / 8 dependent FMNMX, each
        // waiting out the previous one's latency), and m moves only when the tile's max exceeds it by
        // more than kStaleMaxLog2 in log2 units (FlashAttention-4's conditional rescaling): Pij <= 2^8
        // then, held in fp16 and bf16 as any other value, and O / l is the same function whichever m both use.
        auto softmax = [&](int j) {
            const int col0 = j * kBc;
            if (col0 + kBc > N || (causal && col0 + kBc - 1 > wg_row0)) {  // keys past N, or after the query
#pragma unroll
                for (int n = 0; n < kBc / 8; ++n)
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        const int key = col0 + n * 8 + 2 * t + (e & 1), query = q_row + (e >= 2 ? 8 : 0);
                        if (key >= N || (causal && key > query)) acc_s[n * 4 + e] = -INFINITY;
                    }
            }
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                float mx = m_run[half];
                if constexpr (kV6) {
                    // Four running maxima, joined at the end (an index known once the loop is unrolled:
                    // a halving loop over an array was not unrolled and put the array in local memory).
                    float part_max[4] = {mx, -INFINITY, -INFINITY, -INFINITY};
#pragma unroll
                    for (int n = 0; n < kBc / 8; ++n)
                        part_max[n % 4] = fmaxf(part_max[n % 4], fmaxf(acc_s[n * 4 + 2 * half], acc_s[n * 4 + 2 * half + 1]));
                    mx = fmaxf(fmaxf(part_max[0], part_max[1]), fmaxf(part_max[2], part_max[3]));
                } else {
#pragma unroll
                    for (int n = 0; n < kBc / 8; ++n) mx = fmaxf(mx, fmaxf(acc_s[n * 4 + 2 * half], acc_s[n * 4 + 2 * half + 1]));
                }
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                // Tile 0 holds key 0, which every row sees (rows past N too): mx is finite from tile 0 on.
                float mx_scaled;
                if constexpr (kV6) {
                    // m_run = -inf (tile 0) gives +inf here: tile 0 always sets m.
                    const bool grow = (mx - m_run[half]) * scale_log2 > stale_log2;
                    mx_scaled = (grow ? mx : m_run[half]) * scale_log2;
                    rescale[half] = grow ? fast_exp2(m_run[half] * scale_log2 - mx_scaled) : 1.0f;
                    m_run[half] = grow ? mx : m_run[half];
                    moved |= grow;
                } else {
                    mx_scaled = mx * scale_log2;
                    rescale[half] = fast_exp2(m_run[half] * scale_log2 - mx_scaled);
                    m_run[half] = mx;
                }
                // The row sum stays one chain: its adds wait on the exp2s (MUFU) anyway, and partial
                // sums cost registers (flash_tc measured a tree 0.4-6 % slower, kernels/PERF.md).
                float row_sum = 0.0f;
#pragma unroll
                for (int n = 0; n < kBc / 8; ++n)
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        float& v = acc_s[n * 4 + 2 * half + e];
                        v = fast_exp2(fmaf(v, scale_log2, -mx_scaled));
                        row_sum += v;
                    }
                l_run[half] = l_run[half] * rescale[half] + row_sum;  // this thread's columns; the quad is summed at the end
            }
        };
        // Oi *= e^(m - m_new) with the factor of the last softmax: after the previous Pij Vj has finished
        // (v13 and before: right after its wait_group 0), or in the next turn while Sij runs on the tensor
        // cores, before Pij Vj is issued (v14, kV14). v6: skipped when no row of the warp moved its m.
        auto rescale_o = [&]() {
            if (!kV6 || __any_sync(0xffffffffu, moved)) {
#pragma unroll
                for (int n = 0; n < D / 8; ++n)
#pragma unroll
                    for (int half = 0; half < 2; ++half) {
                        acc_o[n * 4 + 2 * half] *= rescale[half];
                        acc_o[n * 4 + 2 * half + 1] *= rescale[half];
                    }
            }
            moved = false;
        };
        // This tile's Pij into p_frag (registers), the A operand of its Pij Vj.
        auto pack_p = [&]() {
#pragma unroll
            for (int kk = 0; kk < kBc / 16; ++kk) {
                p_frag[kk][0] = pack2<T>(acc_s[8 * kk + 0], acc_s[8 * kk + 1]);
                p_frag[kk][1] = pack2<T>(acc_s[8 * kk + 2], acc_s[8 * kk + 3]);
                p_frag[kk][2] = pack2<T>(acc_s[8 * kk + 4], acc_s[8 * kk + 5]);
                p_frag[kk][3] = pack2<T>(acc_s[8 * kk + 6], acc_s[8 * kk + 7]);
            }
        };
        // v13's order: the rescale after wait_group 0, where it lengthens the gap before the next turn.
        auto rescale_after_wait = [&]() {
            if constexpr (!kV14) rescale_o();
        };
        // This warpgroup's last Sij of the item is done: Qi is read no more.
        auto last_s_done = [&]() {
            if constexpr (kSkip) mbar_arrive(&q_free[w]);  // the producer may put the x tile in Qi's place
            else mbar_arrive(q_empty);                      // the producer may load the next item's Qi
        };

        // Tile 0: Sij alone (nothing to accumulate yet).
        mbar_wait(&full[kv % kStages], (kv / kStages) & 1);  // K0, V0 have landed in SRAM
        if (tiles == 1) learn_more();
        my_turn();
        fence_regs(acc_s);
        wgmma_fence();
        issue_s(kv % kStages);
        hand_over(0);
        wgmma_wait<0>();
        fence_regs(acc_s);
        if (tiles == 1) last_s_done();
        if constexpr (kSplitKV) release(&empty[kv % kStages]);  // v12: K0 is read no more
        softmax(0);
        rescale_after_wait();  // v14: Oi is all zeros here; turn 1 applies tile 0's factor (0) before P0 V0
        pack_p();
        // Tile j: Sij of tile j and Pij Vj of tile j - 1 go to the tensor cores together; the softmax of
        // tile j runs while the products of tile j - 1 finish.
        for (int j = 1; j < tiles; ++j) {
            const int stage = (kv + j) % kStages, prev = (kv + j - 1) % kStages;
            mbar_wait(&full[stage], ((kv + j) / kStages) & 1);  // Kj, Vj have landed in SRAM (v12: Kj)
            wait_v(kv + j - 1);                                  // v12: Vj-1 has landed
            if (j + 1 == tiles) learn_more();
            my_turn();
            fence_regs(acc_s);
            fence_regs(acc_o);
            wgmma_fence();
            issue_s(stage);
            if constexpr (kV14) {
                // v14 (FlashAttention-3's order): Oi is not in flight between Sij's issue and Pij-1 Vj-1's,
                // so its rescale by tile j - 1's factor runs here, under Sij's products, not after wait_group 0.
                fence_regs(acc_o);  // the FMULs stay after Sij's issue
                rescale_o();
                fence_regs(acc_o);
                wgmma_fence();  // Oi's registers were written since the last fence: ordered before the wgmma that accumulates into them
            }
            issue_pv(prev);
            hand_over(j);
            wgmma_wait<1>();  // Sij is done; Pij-1 Vj-1 may still run
            fence_regs(acc_s);
            if (j + 1 == tiles) last_s_done();
            if constexpr (kSplitKV) release(&empty[stage]);  // v12: Kj is read no more
            softmax(j);
            wgmma_wait<0>();  // Pij-1 Vj-1 is done: p_frag and slot j - 1 are free
            fence_regs(acc_o);
            keep_p_frag();
            release_slot(prev);  // this warp is done with slot j - 1: the producer may refill it
            rescale_after_wait();
            pack_p();
        }
        // The last tile's Pij Vj.
        {
            const int last = (kv + tiles - 1) % kStages;
            wait_v(kv + tiles - 1);  // v12: the last Vj has landed
            my_turn();
            if constexpr (kV14) rescale_o();  // v14: the last tile's factor, in the turn (no Sij to hide it under)
            fence_regs(acc_o);
            wgmma_fence();
            issue_pv(last);
            hand_over(tiles);
            wgmma_wait<0>();
            fence_regs(acc_o);
            keep_p_frag();
            release_slot(last);
        }
        kv += tiles;

        if constexpr (kSkip) {
            // Skip epilogue: out = c_skip x + c_out Oi / l from the registers and the x tile in SRAM; O never stored.
            mbar_wait(&x_full[w], r & 1);  // the x tile has landed in SRAM, in Qi's place
            const SkipCoefficients k = skip_coefficients(ep, head);
            const unsigned char* xs = smem + w * L::kSlabs * L::kQSlab;
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const float inv = quad_sum_reciprocal(l_run[half]);  // every lane: the shuffles
                const int query = q_row + half * 8;
                if (query >= N) continue;
                const int rr = warp * 16 + g + half * 8;  // row of the x tile (64 rows of 128-byte slabs)
                T* out = static_cast<T*>(ep.out) + bnc_row_offset(ep, head, query, N, D);
#pragma unroll
                for (int n = 0; n < D / 8; ++n) {
                    // columns 8 n + 2 t, + 1: slab n / 8, 16-byte chunk n % 8 moved by the swizzle to (n % 8) ^ (rr % 8)
                    const T* xv = reinterpret_cast<const T*>(xs + (n / 8) * L::kQSlab + rr * 128 + (((n % 8) ^ (rr % 8)) << 4) + t * 4);
                    *reinterpret_cast<uint32_t*>(out + n * 8 + 2 * t) =
                        pack2<T>(skip_value(to_float(xv[0]), acc_o[n * 4 + 2 * half] * inv, k),
                                 skip_value(to_float(xv[1]), acc_o[n * 4 + 2 * half + 1] * inv, k));  // SRAM x + registers -> HBM: out
                }
            }
            mbar_arrive(q_empty);  // this thread has read its x tile: the producer may load the next item's Qi there
        } else {
            // store Oi = Oi / l (l summed over the quad that shares each row): registers -> HBM
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const float inv = quad_sum_reciprocal(l_run[half]);  // every lane: the shuffles
                const int query = q_row + half * 8;
                if (query >= N) continue;
                T* out = O + (static_cast<size_t>(head) * static_cast<size_t>(N) + static_cast<size_t>(query)) * D;
#pragma unroll
                for (int n = 0; n < D / 8; ++n)
                    *reinterpret_cast<uint32_t*>(out + n * 8 + 2 * t) =
                        pack2<T>(acc_o[n * 4 + 2 * half] * inv, acc_o[n * 4 + 2 * half + 1] * inv);  // registers -> HBM: Oi
            }
        }
        if (!more) break;
    }
    (void)ep;
    (void)stale_log2;  // v5's softmax does not read it
#else
    (void)map_q; (void)map_k; (void)map_v; (void)map_x; (void)O; (void)N; (void)grid; (void)scale_log2; (void)stale_log2; (void)ep;
    __trap();  // compiled for sm_90a only; the host refuses every other device (device_refusal)
#endif
}

// =============================================================================================
// [SECTION] Tensor maps and launch
// =============================================================================================
// cuTensorMapEncodeTiled from the driver the runtime already loaded, so nothing links libcuda.
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
    static std::once_flag once;
    static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
    static std::string error;
    std::call_once(once, [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
        const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found);
        if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || p == nullptr)
            error = std::string("the driver has no cuTensorMapEncodeTiled (") + cudaGetErrorString(e) + ")";
        else
            fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    });
    if (!fn) throw std::runtime_error("flash_wgmma: " + error);
    return fn;
}

// [batch_heads][N][d] as a 3-d tensor (d, N, batch_heads), boxes of 64 columns (128 bytes, the
// swizzle's width) x `box_rows` rows of one head: rows past N come in as zeros, never the next head's.
CUtensorMap make_map(const void* base, DType dtype, int64_t N, int64_t d, int64_t heads, int box_rows) {
    CUtensorMap map{};
    const cuuint64_t dims[3] = {static_cast<cuuint64_t>(d), static_cast<cuuint64_t>(N), static_cast<cuuint64_t>(heads)};
    const cuuint64_t strides[2] = {static_cast<cuuint64_t>(d) * 2, static_cast<cuuint64_t>(N * d) * 2};  // bytes, dims 1 and 2
    const cuuint32_t box[3] = {64, static_cast<cuuint32_t>(box_rows), 1};
    const cuuint32_t elem_strides[3] = {1, 1, 1};
    const CUresult r = encode_tiled()(&map, dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                      3, const_cast<void*>(base), dims, strides, box, elem_strides,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        throw std::runtime_error("flash_wgmma: cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(r)) +
                                 ") for N = " + std::to_string(N) + ", d = " + std::to_string(d));
    return map;
}

// The skip epilogue's x, [batch, N, heads d], as a 4-d tensor (d, heads, N, batch): boxes of 64 columns
// x 1 head x 64 rows x 1 batch element, i.e. one consumer warpgroup's rows of one head, laid out (and
// swizzled) as Qi's boxes; rows past N come in as zeros, never the next batch element's.
CUtensorMap make_x_map(const SkipEpilogue& ep, DType dtype, int64_t N, int64_t d) {
    CUtensorMap map{};
    const cuuint64_t dims[4] = {static_cast<cuuint64_t>(d), static_cast<cuuint64_t>(ep.heads), static_cast<cuuint64_t>(N),
                                static_cast<cuuint64_t>(ep.batch)};
    const cuuint64_t strides[3] = {static_cast<cuuint64_t>(d) * 2, static_cast<cuuint64_t>(ep.heads * d) * 2,
                                   static_cast<cuuint64_t>(N * ep.heads * d) * 2};  // bytes, dims 1 to 3
    const cuuint32_t box[4] = {64, 1, 64, 1};
    const cuuint32_t elem_strides[4] = {1, 1, 1, 1};
    const CUresult r = encode_tiled()(&map, dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                      4, const_cast<void*>(ep.x), dims, strides, box, elem_strides,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        throw std::runtime_error("flash_wgmma: cuTensorMapEncodeTiled failed for the skip epilogue's x (CUresult " +
                                 std::to_string(static_cast<int>(r)) + ") for N = " + std::to_string(N) + ", d = " +
                                 std::to_string(d) + ", " + std::to_string(ep.batch) + " x " + std::to_string(ep.heads) + " heads");
    return map;
}

// The persistent grid's size on the current device: blocks that fit at once (SMs x blocks per SM for
// this kernel's threads and shared memory) and the L2 size, asked once per device and kernel.
struct PersistentShape {
    int64_t blocks = 0, l2_bytes = 0;
};
PersistentShape persistent_shape(const void* kernel, int threads, int smem_bytes) {
    static std::mutex mutex;
    static std::map<std::pair<int, const void*>, PersistentShape> known;
    int device = 0;
    check(cudaGetDevice(&device), "flash_wgmma: cudaGetDevice");
    std::lock_guard<std::mutex> lock(mutex);
    PersistentShape& s = known[{device, kernel}];
    if (s.blocks == 0) {
        int sms = 0, per_sm = 0, l2 = 0;
        check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "flash_wgmma: SM count");
        check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "flash_wgmma: L2 size");
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, static_cast<size_t>(smem_bytes)),
              "flash_wgmma: blocks per SM");
        s.blocks = static_cast<int64_t>(sms) * std::max(per_sm, 1);
        s.l2_bytes = l2;
    }
    return s;
}

// The persistent grid's item counters ([0] claimed, [1] blocks done; WgmmaGrid::counter), one pair per
// (device, stream): launches on one stream run one after the other and each leaves its pair at 0.
// Module memory (zero when the module loads), not an allocation that would outlive the context.
constexpr int kCounterSlots = 64;
__device__ unsigned g_item_counters[kCounterSlots][2];
unsigned* item_counter(cudaStream_t stream) {
    static std::mutex mutex;
    static std::map<std::pair<int, cudaStream_t>, int> slot_of;
    static std::map<int, unsigned*> base_of;
    int device = 0;
    check(cudaGetDevice(&device), "flash_wgmma: cudaGetDevice");
    std::lock_guard<std::mutex> lock(mutex);
    unsigned*& base = base_of[device];
    if (base == nullptr) {
        void* p = nullptr;
        check(cudaGetSymbolAddress(&p, g_item_counters), "flash_wgmma: the item counters' address");
        base = static_cast<unsigned*>(p);
    }
    const auto found = slot_of.find({device, stream});
    if (found != slot_of.end()) return base + 2 * found->second;
    int used = 0;
    for (const auto& e : slot_of) used += e.first.first == device ? 1 : 0;
    if (used >= kCounterSlots)
        throw std::runtime_error("flash_wgmma: more than " + std::to_string(kCounterSlots) +
                                 " CUDA streams have run the persistent grid on this device (one item counter each); "
                                 "set FUSIONLAB_FLASH_WGMMA_GRID=waves");
    slot_of[{device, stream}] = used;
    return base + 2 * used;
}

template <typename T, int D, int kBc, int kWG>
void launch_typed(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O, cudaStream_t stream,
                  const SkipEpilogue& ep) {
    constexpr int kStages = flash_wgmma_stages(64 * kWG, kBc, D, 2);
    using L = WgmmaLayout<T, D, kBc, kWG, kStages>;
    static_assert(L::kBytes <= kWgmmaSmemLimit, "flash_wgmma: the tile does not fit in shared memory");
    if (static_cast<uint64_t>(L::kBytes) != flash_smem_bytes("flash_wgmma", p))
        throw std::logic_error("flash_wgmma: the kernel's shared memory differs from the model's flash_smem_bytes()");
    const bool skip = ep.x != nullptr;
    if (skip && static_cast<int64_t>(ep.heads) * ep.batch != p.batch_heads)
        throw std::logic_error("flash_wgmma: the skip epilogue's batch x heads differs from the attention problems");
    const CUtensorMap mq = make_map(Q, p.dtype, p.N, D, p.batch_heads, 64);
    const CUtensorMap mk = make_map(K, p.dtype, p.N, D, p.batch_heads, kBc);
    const CUtensorMap mv = make_map(V, p.dtype, p.N, D, p.batch_heads, kBc);
    const CUtensorMap mx = skip ? make_x_map(ep, p.dtype, p.N, D) : mq;  // without the epilogue: a map the kernel never reads
    const bool persistent = flash_wgmma_persistent();
    // v14's order (Oi rescaled inside the turn) is the default where it measured faster, every tile but three
    // consumer warpgroups at d = 64 (v14_order). v6's softmax (FUSIONLAB_FLASH_WGMMA_SOFTMAX=v6, measured level
    // with v5's) and v12's register split (FUSIONLAB_FLASH_WGMMA_REGS=v12: the producer at 24), both on v13's
    // order as they were measured, and the other order (FUSIONLAB_FLASH_WGMMA_RESCALE=after_wait: v13's at every
    // tile; =in_turn: v14's at every tile) are built for fp16 without the epilogue only.
    constexpr int kProducer = v13_producer_regs<kWG, kBc, false>(), kProducerSkip = v13_producer_regs<kWG, kBc, true>();
    constexpr bool kV14 = v14_order<kWG, D>();
    auto kernel = skip ? flash_wgmma_kernel<T, D, kBc, kWG, kStages, true, false, kProducerSkip, kV14>
                       : flash_wgmma_kernel<T, D, kBc, kWG, kStages, false, false, kProducer, kV14>;
    const bool v12_regs = kernels::env_is("FUSIONLAB_FLASH_WGMMA_REGS", "v12");
    if (v12_regs && (skip || !std::is_same_v<T, __half>))
        throw std::invalid_argument("flash_wgmma: FUSIONLAB_FLASH_WGMMA_REGS=v12 (the comparison build of v12's register split) "
                                    "runs fp16 attention without the skip epilogue only");
    if constexpr (std::is_same_v<T, __half>) {
        if (v12_regs && kProducer != 24) kernel = flash_wgmma_kernel<T, D, kBc, kWG, kStages, false, false, 24, false>;
    }
    if (flash_wgmma_softmax_v6()) {
        if constexpr (std::is_same_v<T, __half>) {
            if (!skip) kernel = flash_wgmma_kernel<T, D, kBc, kWG, kStages, false, true, kProducer, false>;
        }
        if (skip || !std::is_same_v<T, __half>)
            throw std::invalid_argument("flash_wgmma: FUSIONLAB_FLASH_WGMMA_SOFTMAX=v6 (the comparison build of v6's softmax) "
                                        "runs fp16 attention without the skip epilogue only");
    }
    const bool in_turn = kernels::env_is("FUSIONLAB_FLASH_WGMMA_RESCALE", "in_turn"),
               after_wait = kernels::env_is("FUSIONLAB_FLASH_WGMMA_RESCALE", "after_wait");
    if (in_turn || after_wait) {
        if (skip || !std::is_same_v<T, __half> || v12_regs || flash_wgmma_softmax_v6())
            throw std::invalid_argument(std::string("flash_wgmma: FUSIONLAB_FLASH_WGMMA_RESCALE=") + (in_turn ? "in_turn" : "after_wait") +
                                        " (the comparison build of v14's and v13's order of Oi's rescale) runs fp16 attention "
                                        "without the skip epilogue, v6's softmax or v12's registers only");
        if constexpr (std::is_same_v<T, __half>) {
            if (in_turn != kV14) kernel = flash_wgmma_kernel<T, D, kBc, kWG, kStages, false, false, kProducer, !kV14>;
        }
    }
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, L::kBytes),
          "flash_wgmma: allowing " + std::to_string(L::kBytes) + " bytes of shared memory");
    const int64_t Tr = (p.N + L::kBr - 1) / L::kBr, items = Tr * p.batch_heads;
    if (items > std::numeric_limits<int>::max())
        throw std::invalid_argument("flash_wgmma: " + std::to_string(items) + " row blocks are more than one launch indexes");
    WgmmaGrid g{static_cast<int>(Tr), static_cast<int>(p.batch_heads), 1, 0, p.causal ? 1 : 0, nullptr,
                flash_wgmma_release_per_warp() ? 1 : 0, flash_wgmma_claim_late() ? 1 : 0};
    dim3 grid(static_cast<unsigned>(Tr), static_cast<unsigned>(p.batch_heads));
    if (persistent) {
        // One block per SM slot (as many as fit at once), each walking row blocks (the tile scheduler).
        const PersistentShape shape = persistent_shape(reinterpret_cast<const void*>(kernel), L::kThreads, L::kBytes);
        g.section_heads = static_cast<int>(flash_wgmma_section_heads(p, shape.l2_bytes));
        if (flash_wgmma_ragged_section_first()) g.first_section_heads = g.heads % g.section_heads;  // v9
        g.counter = item_counter(stream);
        grid = dim3(static_cast<unsigned>(std::min<int64_t>(items, shape.blocks)));
    }
    kernel<<<grid, L::kThreads, L::kBytes, stream>>>(mq, mk, mv, mx, static_cast<T*>(O), static_cast<int>(p.N), g,
                                                     kLog2e / std::sqrt(static_cast<float>(p.d)), stale_max_log2(), ep);
    check_launch("flash_wgmma_kernel");
}

template <typename T, int D>
void launch_tile(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O, cudaStream_t stream,
                 const SkipEpilogue& ep) {
    // Br = 192 with Bc = 128 at d = 128 is not built: it spills (the header's v4; the model refuses it).
    if constexpr (D == 64)
        if (p.Br == 192 && p.Bc == 128) return launch_typed<T, D, 128, 3>(p, Q, K, V, O, stream, ep);
    // v11: 128 x 176 and 192 x 80 at d = 128 only (wgmma_tile_built; the model refuses the rest).
    if constexpr (D == 128) {
        if (p.Br == 128 && p.Bc == 176) return launch_typed<T, D, 176, 2>(p, Q, K, V, O, stream, ep);
        if (p.Br == 192 && p.Bc == 80) return launch_typed<T, D, 80, 3>(p, Q, K, V, O, stream, ep);
    }
    if (p.Br == 192 && p.Bc == 64) launch_typed<T, D, 64, 3>(p, Q, K, V, O, stream, ep);
    else if (p.Br == 128 && p.Bc == 128) launch_typed<T, D, 128, 2>(p, Q, K, V, O, stream, ep);
    else if (p.Br == 128 && p.Bc == 64) launch_typed<T, D, 64, 2>(p, Q, K, V, O, stream, ep);
    else if (p.Br == 64 && p.Bc == 128) launch_typed<T, D, 128, 1>(p, Q, K, V, O, stream, ep);
    else if (p.Br == 64 && p.Bc == 64) launch_typed<T, D, 64, 1>(p, Q, K, V, O, stream, ep);
    else
        throw std::invalid_argument("flash_wgmma: no kernel for Br = " + std::to_string(p.Br) + ", Bc = " + std::to_string(p.Bc) +
                                    " at d = " + std::to_string(D) +
                                    " (Br in {64, 128, 192}, Bc in {64, 128}, not 192 x 128 at d = 128; 128 x 176 and 192 x 80 at d = 128)");
}

template <typename T>
void launch_d(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O, cudaStream_t stream,
              const SkipEpilogue& ep) {
    if (p.d == 64) launch_tile<T, 64>(p, Q, K, V, O, stream, ep);
    else if (p.d == 128) launch_tile<T, 128>(p, Q, K, V, O, stream, ep);
    else throw std::invalid_argument("flash_wgmma: d = " + std::to_string(p.d) + " is not 64 or 128");
}

}  // namespace

void launch_flash_wgmma(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O,
                        cudaStream_t stream, const SkipEpilogue& ep) {
    if (p.dtype == DType::f16) launch_d<__half>(p, Q, K, V, O, stream, ep);
    else if (p.dtype == DType::bf16) launch_d<__nv_bfloat16>(p, Q, K, V, O, stream, ep);
    else throw std::invalid_argument("flash_wgmma runs in fp16 or bf16 only");
}

}  // namespace kernels::attention::gpu
