// The shared vocabulary of models: the tile schedule of a variant's thread blocks, the model
// summed from it (FLOPs, bytes per buffer, register spills), and the per-SM limits that occupancy
// and spills depend on. Every workload speaks it; nothing here names a workload. No CUDA, no GUI.
// One source of truth: a Model is the sum of its Schedule's events (model_from_schedule).
#pragma once

#include "kernels/core/types.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
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

// Where an event's bytes move (docs/DESIGN.md "Traffic at three levels"). DRAM<->L2 bytes are not
// events: they follow from the events' L2<->SM bytes by the L2 reuse model (apply_l2_reuse below).
enum class Level {
    l2,      // a tensor's loads and stores as the kernel issues them: L2 <-> SM (the default)
    shared,  // on chip: shared-memory bytes as the banks serve them (one 128-byte wavefront per
             // conflict-free or broadcast warp access), written and read by the block itself
    local,   // register spills to local memory (the same as local = true)
};
const char* to_string(Level level);

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
    // Which level the bytes move at: L2<->SM unless the event says shared (or local above).
    Level level = Level::l2;
    // Special-function-unit operations of ONE block for this event (exp2 of the online softmax):
    // the simulated backend prices them at the SFU rate. Compute events.
    double sfu_ops = 0;
    // Shared-memory bytes of ONE block for this event, as the banks serve them (128 B per
    // wavefront), for events whose own bytes are at another level: a compute step's operand reads
    // from shared memory, a tile's store into it after its L2 load. Summed into shared_bytes.
    uint64_t shared_bytes = 0;
    // Thread instructions of ONE block for this event when issue, not a pipe, bounds it (the fused
    // chain's ~54 per element, measured with ncu; a dependent FMA loop's counter and branch).
    // 0: not known, and the simulated backend prices the FLOPs alone. Compute events.
    double instructions = 0;

    Level where() const { return local ? Level::local : level; }
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

// How one block of a kernel runs, for the simulator's occupancy and latency model (price_kernel in
// kernels/sim/sim_backend.cpp): how many blocks share an SM, and how fast a block runs when its
// SM has too few warps to hide the latency of its own dependent instructions. Zero means unknown:
// the simulator then prices the kernel by its throughput alone.
struct BlockShape {
    uint64_t shared_bytes = 0;  // shared memory per block (with the opt-in above 48 KiB), for occupancy
    // Resident warps per SM this kernel's code needs to reach its full rate (its pipes' rate in the
    // calibration): below it each warp waits on its own dependent loads, shuffles and MMAs. A block
    // of w warps alone on an SM runs (saturating_warps / w)^1.5 times slower than at the SM's rate
    // (sim_backend.cpp, kLoneBlockExponent). Calibrated per kernel from runs with one block per SM
    // (the workload's schedule says which).
    double saturating_warps = 0;
    // Dependent trips to memory a block makes that nothing of its own overlaps: its first loads (Qi,
    // then Kj: two), a row kernel's load before its reductions, the store at its end. Each costs the
    // device's memory latency (SimCalibration::memory_latency_us) on the block's critical path.
    int memory_trips = 0;
    // The longest block's on-chip work over the mean block's (causal attention: the last row block
    // visits every key tile, twice the mean): the kernel lasts at least as long as that block alone.
    double longest_block = 1.0;
    // A main loop whose steps wait on each other through barriers and serial chains that the
    // block's own warps cannot overlap (the teaching flash kernel: load Kj, Vj, then __syncthreads,
    // then one thread per row for the softmax): each of its `serial_steps` costs `step_cycles` on
    // the block's critical path, on top of its work. 0: none (pipelined loops such as flash_tc's).
    // With pipelined_steps (below) the steps are a lone block's measured time a step with its work
    // under it: the simulated backend takes the longer of the two, not their sum.
    uint64_t serial_steps = 0;
    double step_cycles = 0;
    // A key loop software-pipelined across its steps (decode's: the next steps' loads issued before this
    // step's arithmetic, kernels/decode/decode.cu): within a wave only its first step's loads and its
    // last step's arithmetic have nothing of the other kind under them, so the simulated backend takes
    // 2 / pipelined_steps of its one-wave overlap loss (sim_backend.cpp, kOneWaveOverlapLoss). 0: the
    // loss as calibrated (loads and arithmetic of a block in turn).
    uint64_t pipelined_steps = 0;
    // A persistent grid (flash_wgmma v5): one block per SM slot, each walking its share of the
    // `blocks` work items back to back with its pipeline kept running (the memory trips above hide
    // behind the previous item's work). The simulated backend prices it item by item as the blocks
    // claim them (sim_backend.cpp, price_persistent): no waves. false: one block per work item, in waves.
    bool persistent = false;
    // With persistent: the work items in the order the blocks claim them, as runs of (an item's work
    // over the mean item's, items in the run); empty: `blocks` equal items.
    std::vector<std::pair<double, uint64_t>> item_runs;
    // The share of its calibrated rates this kernel instance reaches, where a measurement shows it
    // slower than its twin for a reason no other field carries (1: as calibrated).
    double rate_share = 1.0;
    // The resident warps an SM needs to run this kernel at its rates when each of its warps stalls longer per
    // instruction than they assume (0: none). With W resident warps below it the blocks run
    // 1 + kStallLoss (1 - W / full_rate_warps) times slower (sim_backend.cpp, price_waves).
    double full_rate_warps = 0;
    std::string source;  // where the numbers above come from, for the notes
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
    // Its tensor-core products are warp-level mma.sync written in the kernel (flash_tc), not a
    // library GEMM: the simulated backend prices them at the mma.sync rate, below the GEMM's.
    bool mma_sync = false;
    // Its exp2s (sfu_ops) run on the same warps between its tensor-core products and mostly do not
    // hide under them (flash_wgmma: measured at about the sum of its tensor and exp2 floors at d = 64,
    // kernels/PERF.md): the simulated backend adds the SFU time to the tensor time.
    bool sfu_between_mma = false;
    // A library GEMM (threads_per_block 0) on bf16 operands: cuBLAS(Lt) runs it at its measured bf16
    // rate (SimCalibration::gemm_bf16_tflops: 804.8 against 770.7 TFLOP/s fp16 on the H100), not the fp16 one.
    bool bf16_operands = false;
    // With sfu_between_mma: the share of the exp2 time that does hide, under other warpgroups'
    // products (flash_wgmma: flash_wgmma_sfu_hidden_share, the per-key-tile turn: a fixed softmax part
    // a row, a share of each partner warpgroup's products and Oi's rescale, fitted by scripts/wgmma_turn_fit.py).
    double sfu_hidden_share = 0;
    // Bytes each thread moves per global load or store (16: 128-bit vectors). Narrow accesses keep
    // fewer bytes in flight and reach less DRAM bandwidth (SimCalibration::narrow_dram_gbps).
    int access_bytes = 16;
    BlockShape block = {};  // occupancy and latency (unknown for library kernels)
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
    uint64_t bytes_read = 0, bytes_written = 0;  // L2 <-> SM: the sum of the buffer's events
    // DRAM <-> L2: from the L2 reuse model (apply_l2_reuse); equal to the L2 bytes until it runs.
    uint64_t dram_read = 0, dram_written = 0;
    std::string dram_rule = "";  // which rule set the DRAM bytes, in words ("" when DRAM = L2 bytes)
};

// A kernel of the model: the schedule's kernel (its launch shape, registers and pricing knobs, as
// the schedule said them) and the sums of its events at every level.
struct KernelModel : ScheduleKernel {
    double flops = 0;
    std::vector<BufferTraffic> buffers;  // HBM tensors; register spills are local_* below
    uint64_t local_read = 0, local_written = 0;  // spill traffic (TileEvent::local), all blocks
    uint64_t shared_bytes = 0;  // on chip: shared-memory bytes (Level::shared events), all blocks
    double sfu_ops = 0;         // exp2 and other SFU operations, all blocks
    double instructions = 0;    // thread instructions where known (TileEvent::instructions), all blocks
    uint64_t bytes_read() const;     // L2 <-> SM
    uint64_t bytes_written() const;
    uint64_t l2_bytes() const { return bytes_read() + bytes_written(); }
    uint64_t dram_read() const;      // DRAM <-> L2 (the L2 reuse model)
    uint64_t dram_written() const;
    uint64_t dram_bytes() const { return dram_read() + dram_written(); }
    uint64_t local_bytes() const { return local_read + local_written; }
};

struct Model {
    std::vector<KernelModel> kernels;
    double flops() const;
    // L2 <-> SM: what the kernels' loads and stores ask for (tensors, without spill traffic).
    uint64_t bytes_read() const;
    uint64_t bytes_written() const;
    uint64_t bytes() const { return bytes_read() + bytes_written(); }
    // DRAM <-> L2: what the DRAM counters measure ("HBM bytes"), from the L2 reuse model.
    uint64_t dram_read() const;
    uint64_t dram_written() const;
    uint64_t dram_bytes() const { return dram_read() + dram_written(); }
    uint64_t shared_bytes() const;   // on chip: shared-memory bytes of every kernel
    uint64_t local_bytes() const;    // spill traffic of every kernel
    double sfu_ops() const;
    // The L2 reuse rules that set the DRAM bytes, in words, for the views ("" before they ran).
    std::string l2_note;
};

// The model of a schedule: every level summed from its events. DRAM bytes start equal to the L2
// bytes (no reuse); apply_l2_reuse() replaces them.
Model model_from_schedule(const Schedule& s);

// ---------------------------------------------------------------------------------------------
// The L2 reuse model: DRAM <-> L2 bytes per buffer from the L2 <-> SM bytes. Generic rules, in
// this order, for a device with `l2_bytes` of L2 and buffers of `footprint(buffer)` bytes (0 when
// not known: the rule that needs it does not apply):
//  1. Re-reads by concurrent blocks. Within one kernel a buffer is read from DRAM at most once:
//     DRAM read = min(L2 read, footprint). The blocks that re-read a tile (flash's query tiles of
//     one head re-reading its K and V) are launched next to each other and run at the same time,
//     so all but the first find it in L2. A workload whose re-readers are far apart in launch
//     order says so through WorkloadDef::l2_reuse.
//  2. Intermediates. A buffer the previous kernel of the run wrote and this one reads comes from
//     L2 when it fits in half the L2 (H100 and H200 split L2 into two partitions; the other
//     traffic of the writer evicts the rest): DRAM read = 0. One between half the L2 and 0.9 of it
//     still has its last (0.9 L2 - size) bytes there: DRAM read = size - (0.9 L2 - size). Larger ones
//     make the round trip.
//  3. Writes. A buffer written more than once while it fits in half the L2 reaches DRAM once, at
//     its last writer; otherwise each kernel's writes reach DRAM once (min(L2 written,
//     footprint)). Lines still dirty when the run ends are counted too: they are written back.
// ---------------------------------------------------------------------------------------------
void apply_l2_reuse(Model& m, uint64_t l2_bytes, const std::function<uint64_t(const std::string&)>& footprint);
// The rules above as one paragraph with the device's numbers, for the views and notes.
std::string l2_reuse_rules_text(uint64_t l2_bytes);

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
    int shared_bytes;  // the most of that array shared memory may take (blocks on one SM together)
};
constexpr SmLimits sm_limits(int cc_major, int cc_minor) {
    const int cc = cc_major * 10 + cc_minor;
    if (cc >= 120) return {1536, 32, 65536, 128 << 10, 100 << 10};
    if (cc >= 90) return {2048, 32, 65536, 256 << 10, 228 << 10};
    if (cc == 89) return {1536, 24, 65536, 128 << 10, 100 << 10};
    if (cc == 86) return {1536, 16, 65536, 128 << 10, 100 << 10};
    if (cc >= 80) return {2048, 32, 65536, 192 << 10, 164 << 10};
    if (cc == 75) return {1024, 16, 65536, 96 << 10, 64 << 10};
    return {2048, 32, 65536, 128 << 10, 96 << 10};
}
// The driver keeps 1 KiB of shared memory per block for itself on sm_80 and newer (CUDA C++
// Programming Guide, "Shared Memory" of compute capability 8.x and 9.0).
inline constexpr int kSharedReservedPerBlock = 1024;
// Threads of a kernel resident on one SM, from the SM's thread, block and register limits (shared
// memory is not counted: the kernels that spill use a few hundred bytes).
int resident_threads_per_sm(int threads_per_block, int registers, const DeviceInfo& device);
// Blocks of a kernel resident on one SM at once, from its threads, registers and shared memory
// (BlockShape::shared_bytes); at least 1 (a block that fits no SM is refused before it is priced).
int resident_blocks_per_sm(int threads_per_block, int registers, uint64_t shared_bytes, const DeviceInfo& device);

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
