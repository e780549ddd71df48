// The memory-hierarchy animation's model side (no GUI): turns a variant's tile schedule into the
// steps the animation plays, with running byte counters at each level (docs/DESIGN.md, "Traffic at
// three levels"): per tensor, the L2<->SM bytes its loads and stores ask for and the DRAM<->L2 bytes the
// L2 reuse model charges for them; per step, the shared-memory bytes of all blocks.
//
// DRAM bytes per step: the reuse model gives each kernel's DRAM bytes per buffer (read and written
// apart); the player spreads them over that buffer's events in proportion to their L2<->SM bytes.
// flash's "load Kj" by 256 blocks of 16 heads then costs 16 tiles of DRAM and 256 of L2: each tile
// crosses DRAM -> L2 once and the other 15 row blocks of its head find it there. The running DRAM
// sums after the last step are the model's DRAM totals.
//
// One step is one schedule event, seen through one thread block "in detail" (the block whose
// loop the event describes) while the other blocks doing the same event are counted, not drawn:
// each event already stands for `repeat` identical blocks, so step s adds bytes x repeat to the
// counters. That keeps the player small at any size (N = 16384 attention is a few dozen steps,
// causal a few thousand) and makes the counters after the last step equal model()'s totals.
//
// Also here: each tensor's footprint in HBM (its size, not its traffic: flash reads K Tr times but
// K is N x d) and the shared-memory layout of one block, both with the formula behind them.
#pragma once

#include "kernels/core/types.h"
#include "kernels/core/registry.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kernels {

// A tensor as it lies in HBM.
struct HbmTensor {
    std::string name;             // "Q", "S", "h1"
    uint64_t bytes = 0;           // footprint: rows x cols x bytes per element
    std::string formula;          // "batch_heads x N x N x 2 B"
    bool input = false;           // exists before the run (read before it is written)
    uint64_t total_read = 0;      // over the whole run, all blocks
    uint64_t total_written = 0;
    uint64_t tile_bytes = 0;      // one block's first load or store of it: the grid's cell
    // Register spills (kLocalBuffer): the threads' local memory, not a tensor of the workload. Its
    // bytes are one block's stack frames (threads x stack_bytes_per_thread); the GPU reserves a
    // frame for every thread that can be resident. Not in total_read_after/total_written_after.
    bool local = false;
    uint64_t stack_bytes_per_thread = 0;
    int kernel = -1;              // local: the kernel whose threads spill (index into schedule().kernels)
};

class MemoryPlayer {
public:
    // Throws std::invalid_argument with validate()'s message when variant or params are invalid.
    // `l2_bytes`: the device's L2, which the reuse model's DRAM bytes depend on.
    MemoryPlayer(const std::string& variant, const Params& params, uint64_t l2_bytes = kDefaultL2Bytes);

    const std::string& variant() const { return variant_; }
    const Params& params() const { return params_; }
    uint64_t l2_bytes() const { return l2_bytes_; }
    const Schedule& schedule() const { return schedule_; }
    // kernels::model() of schedule() for this L2: every level, DRAM from the reuse model; built once.
    const Model& model() const { return model_; }
    const std::vector<HbmTensor>& tensors() const { return tensors_; }

    // Steps are 0..step_count(): step 0 is before anything ran, step s has run events 0..s-1
    // and shows event s-1 as the current one.
    size_t step_count() const { return schedule_.events.size(); }
    const TileEvent* current_event(size_t step) const;
    // The event whose words (`what` and its block count) are the longest of the schedule: the
    // animation sizes its header for it once, so the layout stays still while it plays.
    const TileEvent* longest_event() const;
    // Index into tensors() of an event's buffer, or -1 (compute).
    int tensor_index(const std::string& buffer) const;

    // All blocks, after `step` steps. read/written: L2<->SM bytes (the loads and stores the kernels
    // ask for); dram_*: DRAM<->L2 bytes (the reuse model's share of them). The totals are tensors
    // only; local_*: register spills; shared_after: on-chip shared-memory bytes.
    uint64_t read_after(size_t step, size_t tensor) const;
    uint64_t written_after(size_t step, size_t tensor) const;
    uint64_t dram_read_after(size_t step, size_t tensor) const;
    uint64_t dram_written_after(size_t step, size_t tensor) const;
    uint64_t total_read_after(size_t step) const;
    uint64_t total_written_after(size_t step) const;
    uint64_t total_dram_read_after(size_t step) const;
    uint64_t total_dram_written_after(size_t step) const;
    uint64_t local_read_after(size_t step) const;
    uint64_t local_written_after(size_t step) const;
    uint64_t shared_after(size_t step) const;
    double flops_after(size_t step) const;
    // The current event of `step` (all blocks): its L2<->SM bytes and the DRAM bytes among them
    // (loads: brought into L2 from DRAM; stores: written back to DRAM), and the reuse rule that
    // set them ("" when DRAM = L2 bytes).
    uint64_t event_l2_bytes(size_t step) const;
    uint64_t event_dram_bytes(size_t step) const;
    std::string event_dram_rule(size_t step) const;
    // The tensors `kernel` reads or writes (indices into tensors(), no register spills): the
    // data it wants L2 to hold, which the animation draws against the L2's size.
    std::vector<size_t> kernel_tensors(int kernel) const;
    // Bytes of `tensor` the detailed block has moved in the current block class before `step`'s
    // event: where in the tensor its next tile lies (the j loop walks along K and V).
    uint64_t detail_offset_before(size_t step, size_t tensor) const;

    OnChip on_chip(int kernel) const;
    // The block's shared-memory layout (empty unless on_chip() is shared_memory).
    std::vector<SramPart> sram_parts(int kernel) const;
    uint64_t sram_bytes(int kernel) const;  // sum of sram_parts
    // One line: why the working set lives where it does.
    std::string on_chip_note(int kernel) const;

private:
    void build_tensors();
    void build_prefix_sums();
    uint64_t sum_after(const std::vector<uint64_t>& sums, size_t step, bool local) const;

    void build_dram_sums();

    std::string variant_;
    Params params_;
    uint64_t l2_bytes_ = kDefaultL2Bytes;
    Schedule schedule_;
    Model model_;
    std::vector<HbmTensor> tensors_;
    // (step_count + 1) x tensors, row-major: running sums over all blocks.
    std::vector<uint64_t> read_, written_, dram_read_, dram_written_;
    std::vector<uint64_t> event_dram_;     // step_count: each event's DRAM bytes, all blocks
    std::vector<uint64_t> shared_;         // step_count + 1
    std::vector<uint64_t> detail_offset_;  // step_count x tensors
    std::vector<double> flops_;            // step_count + 1
};

}  // namespace kernels
