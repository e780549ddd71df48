// Launch shapes of the elementwise kernels, shared by the CUDA launchers (elementwise.cu) and the
// model's tile schedule (elementwise_model.cpp), so the animation shows the blocks the GPU runs.
//
// Both kinds of kernel move data in "chunks" of 8 consecutive elements: one 16-byte vector for
// fp16/bf16, two for fp32. 8 is also the span of one Philox call of the dropout mask, so a thread
// that owns a chunk draws its whole mask with exactly one call.
//
// Row kernels (layernorm, fused_chain): one block per row; the row is held packed in registers,
// each thread owning 64 bytes of x (4 chunks of fp16/bf16, 2 of fp32) strided by the block size
// (coalesced). The block is the smallest multiple of a warp that covers the row that way, at most
// 512 threads (fp32 rows past 8192 elements then take 4 chunks per thread). 64 bytes per thread
// of x and of residual keep enough bytes in flight per SM; 32 (fp16/bf16 with 2 chunks) reached
// only 60% of copy bandwidth on an H200 (PERF.md).
//
// Flat kernels (gelu, dropout, add, bias_add, fused_bias_gelu): block b owns a contiguous range of
// the flattened rows x hidden tensor, 256 threads, each with 64 bytes of every input in flight
// (four 16-byte loads): enough bytes in flight per SM to cover HBM latency at full occupancy.
#include "kernels/elementwise/elementwise.h"

#include <algorithm>

namespace kernels::elementwise {

namespace {

constexpr int64_t kChunkElements = 8;
constexpr int64_t kRowBytesPerThread = 64;
constexpr int64_t kWarp = 32;
constexpr int64_t kMaxRowThreads = 512;
constexpr int kFlatThreads = 256;
constexpr int64_t kFlatBytesPerThread = 64;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

LaunchShape row_kernel_shape(const ElementwiseParams& p) {
    const int64_t hidden = std::max<int64_t>(p.hidden, 1);
    const int64_t chunks = ceil_div(hidden, kChunkElements);
    const int64_t chunks_per_thread = kRowBytesPerThread / (kChunkElements * dtype_bytes(p.dtype));  // 4 or 2
    const int64_t warps = ceil_div(ceil_div(chunks, chunks_per_thread), kWarp);
    const int64_t threads = std::clamp<int64_t>(warps * kWarp, kWarp, kMaxRowThreads);
    return LaunchShape{static_cast<uint64_t>(std::max<int64_t>(p.rows, 0)), static_cast<int>(threads), hidden};
}

RowInstance row_kernel_instance(const ElementwiseParams& p) {
    const LaunchShape shape = row_kernel_shape(p);
    const int64_t hidden = std::max<int64_t>(p.hidden, 1);
    RowInstance r;
    // Two chunks per thread whenever the block (rounded up to whole warps) covers the row with two:
    // fp32 rows up to 8192, and short rows; else the most a thread holds, four.
    r.chunks_per_thread = static_cast<int64_t>(shape.threads) * 2 * kChunkElements >= hidden ? 2 : 4;
    r.vector = hidden % kChunkElements == 0;
    return r;
}

// ptxas's report for each row_kernel instance, generated from the compiler (the .inc says how).
namespace {
struct RowKernelRegisters {
    const char* kernel;
    DType dtype;
    int chunks_per_thread;
    bool vector;
    int registers, stack_bytes, spill_store_bytes, spill_load_bytes;
};
#include "kernels/elementwise/row_kernel_registers.inc"
}  // namespace

RegisterUse row_kernel_registers(const std::string& kernel, const ElementwiseParams& p) {
    const RowInstance inst = row_kernel_instance(p);
    for (const RowKernelRegisters& r : kRowKernelRegisters)
        if (kernel == r.kernel && p.dtype == r.dtype && inst.chunks_per_thread == r.chunks_per_thread &&
            inst.vector == r.vector)
            return RegisterUse{r.registers, r.stack_bytes, r.spill_store_bytes, r.spill_load_bytes, kRowKernelRegistersSource};
    return {};
}

LaunchShape flat_kernel_shape(const ElementwiseParams& p) {
    const int64_t elements = std::max<int64_t>(p.rows, 0) * std::max<int64_t>(p.hidden, 0);
    const int64_t per_thread = kFlatBytesPerThread / dtype_bytes(p.dtype);  // 32 (16-bit) or 16 (fp32): whole chunks
    const int64_t per_block = per_thread * kFlatThreads;
    return LaunchShape{static_cast<uint64_t>(ceil_div(elements, per_block)), kFlatThreads, per_block};
}

}  // namespace kernels::elementwise
