// The shared vocabulary of models: the tile schedule of a variant's thread blocks, the model
// summed from it (FLOPs, bytes per buffer, register spills), and the per-SM limits that occupancy
// and spills depend on. Every workload speaks it; nothing here names a workload. No CUDA, no GUI.
// One source of truth: a Model is the sum of its Schedule's events (model_from_schedule).
#pragma once

#include "kernels/common/types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kernels {

// ---------------------------------------------------------------------------------------------
// Tile schedule: the ordered load / compute / store steps of thread blocks, generated from the
// same loop structure as the kernel. Each event stands for `repeat` identical blocks doing it
// (a ragged tail block gets its own event), so sums over events are exact totals.
// ---------------------------------------------------------------------------------------------
enum class EventKind { load, compute, store };

// The buffer name of register spills: per-thread local memory (kLocalBuffer events have local set).
inline constexpr const char* kLocalBuffer = "local";

struct TileEvent {
    EventKind kind;
    int kernel;            // index into Schedule::kernels
    std::string buffer;    // tensor in HBM: "x", "gamma", "h1", "out" ("" for compute)
    uint64_t bytes = 0;    // bytes moved by ONE block for this event
    double flops = 0;      // FLOPs of ONE block for this event (compute events)
    uint64_t repeat = 1;   // how many blocks do exactly this
    std::string what;      // the words the animation shows: "load x row tile into SRAM"
    // Register spills (buffer kLocalBuffer): stores to and loads from the threads' local memory.
    // Local memory lives in HBM but goes through L1 and L2, which often hold it, so this traffic
    // is counted apart from the HBM bytes (KernelModel::local_read/local_written, spill_estimate).
    bool local = false;
};

// What ptxas made of one kernel instance, per thread. Compile-time facts: they differ by GPU
// architecture and compiler version, so `source` says which ones these are.
struct RegisterUse {
    int registers = 0;          // 0: not known (library kernels such as cuBLAS's)
    int stack_bytes = 0;        // local memory per thread (the stack frame, where spills live)
    int spill_store_bytes = 0;  // bytes of spill stores in the code (loop-free kernels: each runs once)
    int spill_load_bytes = 0;
    std::string source;         // "ptxas (CUDA 13.0), sm_90"
    bool spills() const { return spill_store_bytes > 0 || spill_load_bytes > 0; }
};

struct ScheduleKernel {
    std::string name;      // "layernorm", "gelu", ..., "fused_chain"
    uint64_t blocks = 0;   // thread blocks launched
    int threads_per_block = 0;
    // Its matrix products run on tensor cores (fp16/bf16 GEMMs, mma.sync): the simulated backend
    // takes the tensor peak for its FLOPs instead of the FP32 peak.
    bool tensor_cores = false;
    RegisterUse registers = {};  // known for the row kernels (the ones that can spill); else empty
    // A library kernel (threads_per_block 0) picks its own grid: what `blocks` counts instead
    // ("heads", "128 x 128 output tiles of the model"), for the animation's label.
    std::string blocks_are = {};
};

struct Schedule {
    std::vector<ScheduleKernel> kernels;
    std::vector<TileEvent> events;
};

// ---------------------------------------------------------------------------------------------
// Model: per kernel, per buffer bytes; FLOPs. Built by summing the schedule.
// ---------------------------------------------------------------------------------------------
struct BufferTraffic {
    std::string buffer;
    uint64_t bytes_read = 0, bytes_written = 0;
};

struct KernelModel {
    std::string name;
    double flops = 0;
    std::vector<BufferTraffic> buffers;  // HBM tensors; register spills are local_* below
    bool tensor_cores = false;  // copied from ScheduleKernel
    uint64_t blocks = 0;        // copied from ScheduleKernel
    int threads_per_block = 0;
    RegisterUse registers;
    uint64_t local_read = 0, local_written = 0;  // spill traffic (TileEvent::local), all blocks
    uint64_t bytes_read() const;
    uint64_t bytes_written() const;
    uint64_t local_bytes() const { return local_read + local_written; }
};

struct Model {
    std::vector<KernelModel> kernels;
    double flops() const;
    uint64_t bytes_read() const;     // HBM tensors, without spill traffic
    uint64_t bytes_written() const;
    uint64_t bytes() const { return bytes_read() + bytes_written(); }
    uint64_t local_bytes() const;    // spill traffic of every kernel
};

Model model_from_schedule(const Schedule& s);

// Where a kernel's spill traffic goes, estimated for a device: local memory is cached in L1, so
// the share of it that leaves the SM is about the share of the resident threads' stack frames
// that does not fit in L1 (what the kernel's shared memory leaves of it). An estimate with its
// assumptions in `note`; measured DRAM bytes say what really reached HBM.
struct SpillEstimate {
    uint64_t local_bytes = 0;         // the kernel's spill traffic (stores + loads), all blocks
    int resident_threads_per_sm = 0;  // from registers, threads per block and the SM's limits
    uint64_t footprint_per_sm = 0;    // stack_bytes x resident threads
    uint64_t l1_bytes = 0;            // L1 left to cache it
    double beyond_l1 = 0;             // fraction of the traffic that leaves the SM (0..1)
    uint64_t beyond_l1_bytes = 0;     // local_bytes x beyond_l1: goes to L2, and HBM if L2 is full
    std::string note;                 // one line with the numbers
};
SpillEstimate spill_estimate(const KernelModel& k, const DeviceInfo& device);
// The same for every kernel of a model: per kernel, the sum, and one note naming the kernels that
// spill ("" when none does).
struct ModelSpills {
    std::vector<SpillEstimate> per_kernel;
    uint64_t local_bytes = 0, beyond_l1_bytes = 0;
    std::string note;
};
ModelSpills model_spills(const Model& m, const DeviceInfo& device);

// Per-SM limits of a compute capability: what occupancy and the L1 share of spills depend on
// (CUDA C++ Programming Guide, "Compute Capabilities" table): resident threads and blocks, 64K
// 32-bit registers, and the unified L1 / shared-memory array. constexpr: the CUDA kernels take their
// launch bounds from it too (elementwise.cu, fused_chain_spill).
struct SmLimits {
    int max_threads, max_blocks, registers, l1_shared_bytes;  // l1_shared: the unified L1 / shared array
};
constexpr SmLimits sm_limits(int cc_major, int cc_minor) {
    const int cc = cc_major * 10 + cc_minor;
    if (cc >= 120) return {1536, 32, 65536, 128 << 10};
    if (cc >= 90) return {2048, 32, 65536, 256 << 10};
    if (cc == 89) return {1536, 24, 65536, 128 << 10};
    if (cc == 86) return {1536, 16, 65536, 128 << 10};
    if (cc >= 80) return {2048, 32, 65536, 192 << 10};
    if (cc == 75) return {1024, 16, 65536, 96 << 10};
    return {2048, 32, 65536, 128 << 10};
}
// Threads of a kernel resident on one SM, from the SM's thread, block and register limits (shared
// memory is not counted: the kernels that spill use a few hundred bytes).
int resident_threads_per_sm(int threads_per_block, int registers, const DeviceInfo& device);

// ---------------------------------------------------------------------------------------------
// On chip: what one block of a kernel keeps there (the memory view draws it)
// ---------------------------------------------------------------------------------------------
// One piece of a block's on-chip working set.
struct SramPart {
    std::string name;             // "Qi", "Kj", "Sij (fp32)"
    uint64_t bytes = 0;
    std::string formula;          // "Br x 65 x 2 B (row padded to an odd number of words)"
};

// Where a kernel keeps its working set.
enum class OnChip {
    shared_memory,  // flash: tiles staged in shared memory; sram_parts() sum to its allocation
    registers,      // elementwise and softmax: each thread keeps its elements in registers
    library,        // cuBLAS: tiles of its own choosing, not known to the model
};

}  // namespace kernels
