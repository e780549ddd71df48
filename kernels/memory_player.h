// The memory-hierarchy animation's model side (no GUI): turns a variant's tile schedule into the
// steps the animation plays, with the running HBM bytes read and written per tensor.
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

#include "kernels/common/types.h"
#include "kernels/common/registry.h"

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
    MemoryPlayer(const std::string& variant, const Params& params);

    const std::string& variant() const { return variant_; }
    const Params& params() const { return params_; }
    const Schedule& schedule() const { return schedule_; }
    const Model& model() const { return model_; }  // model_from_schedule(schedule()), built once
    const std::vector<HbmTensor>& tensors() const { return tensors_; }

    // Steps are 0..step_count(): step 0 is before anything ran, step s has run events 0..s-1
    // and shows event s-1 as the current one.
    size_t step_count() const { return schedule_.events.size(); }
    const TileEvent* current_event(size_t step) const;
    // Index into tensors() of an event's buffer, or -1 (compute).
    int tensor_index(const std::string& buffer) const;

    // All blocks, after `step` steps. The totals are HBM tensors only; local_*: register spills.
    uint64_t read_after(size_t step, size_t tensor) const;
    uint64_t written_after(size_t step, size_t tensor) const;
    uint64_t total_read_after(size_t step) const;
    uint64_t total_written_after(size_t step) const;
    uint64_t local_read_after(size_t step) const;
    uint64_t local_written_after(size_t step) const;
    double flops_after(size_t step) const;
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

    std::string variant_;
    Params params_;
    Schedule schedule_;
    Model model_;
    std::vector<HbmTensor> tensors_;
    // (step_count + 1) x tensors, row-major: running sums over all blocks.
    std::vector<uint64_t> read_, written_;
    std::vector<uint64_t> detail_offset_;  // step_count x tensors
    std::vector<double> flops_;            // step_count + 1
};

}  // namespace kernels
