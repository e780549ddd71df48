// Launch shapes of the elementwise kernels, shared by the CUDA launchers (elementwise.cu) and the
// model's tile schedule (elementwise_model.cpp), so the animation shows the blocks the GPU runs.
//
// Both kinds of kernel move data in "chunks" of 8 consecutive elements: one 16-byte vector for
// fp16/bf16, two for fp32. 8 is also the span of one Philox call of the dropout mask, so a thread
// that owns a chunk draws its whole mask with exactly one call.
//
// Row kernels (layernorm, fused_chain): one block per row; the row is held in registers, each
// thread owning up to kRowChunksPerThread chunks strided by the block size (coalesced). The block
// is the smallest multiple of a warp that covers the row with that many chunks per thread: more
// chunks per thread means more loads in flight per thread and fewer block-wide reductions per
// byte, and 4 chunks (32 fp32 values of x) still fits the 128 registers a 512-thread block allows.
//
// Flat kernels (gelu, dropout, add, bias_add, fused_bias_gelu): block b owns a contiguous range of
// the flattened rows x hidden tensor, 256 threads, each with 64 bytes of every input in flight
// (four 16-byte loads): enough bytes in flight per SM to cover HBM latency at full occupancy.
#include "kernels/elementwise/elementwise.h"

#include <algorithm>

namespace kernels::elementwise {

namespace {

constexpr int64_t kChunkElements = 8;
constexpr int64_t kRowChunksPerThread = 4;
constexpr int64_t kWarp = 32;
constexpr int64_t kMaxRowThreads = 512;
constexpr int kFlatThreads = 256;
constexpr int64_t kFlatBytesPerThread = 64;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

LaunchShape row_kernel_shape(const Params& p) {
    const int64_t hidden = std::max<int64_t>(p.hidden, 1);
    const int64_t chunks = ceil_div(hidden, kChunkElements);
    const int64_t warps = ceil_div(ceil_div(chunks, kRowChunksPerThread), kWarp);
    const int64_t threads = std::clamp<int64_t>(warps * kWarp, kWarp, kMaxRowThreads);
    return LaunchShape{static_cast<uint64_t>(std::max<int64_t>(p.rows, 0)), static_cast<int>(threads), hidden};
}

LaunchShape flat_kernel_shape(const Params& p) {
    const int64_t elements = std::max<int64_t>(p.rows, 0) * std::max<int64_t>(p.hidden, 0);
    const int64_t per_thread = kFlatBytesPerThread / dtype_bytes(p.dtype);  // 32 (16-bit) or 16 (fp32): whole chunks
    const int64_t per_block = per_thread * kFlatThreads;
    return LaunchShape{static_cast<uint64_t>(ceil_div(elements, per_block)), kFlatThreads, per_block};
}

}  // namespace kernels::elementwise
