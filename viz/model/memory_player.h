// The memory-hierarchy animation's model side (no GUI): turns a variant's tile schedule into the
// steps the animation plays, with running byte counters at each level (docs/DESIGN.md "Traffic at three
// levels"): per tensor, the L2<->SM bytes its loads and stores ask for and the DRAM<->L2 bytes the
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

// The animation's clock for one player on one device (MemoryPlayer::clock).
struct PlayerClock {
    bool modeled_time = false;   // ends in modeled milliseconds, or in steps
    std::vector<double> ends;    // when each step ends; ends[0] = 0, ends[s] = the end of step s
    double modeled_ms = 0;       // the run as the simulated backend prices it (0: no datasheet numbers)
    uint64_t modeled_bytes = 0;  // DRAM bytes (the L2 reuse model for the player's L2)
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

    // When each step ends and what the run takes on `device`. modeled_time false: one unit per step
    // (a variant alone). True: modeled milliseconds, so two variants side by side race at the pace
    // the model gives them: each kernel's time in the run as kernels::price_run gives it (the
    // function the simulated backend times a job with, launches and graph replay included),
    // spread over the kernel's events in proportion to each event's own max(bytes / bandwidth,
    // FLOPs / peak). Without datasheet bandwidth and FP32 peak the clock counts steps.
    PlayerClock clock(const DeviceInfo& device, bool modeled_time) const;

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

// ---------------------------------------------------------------------------------------------
// One step as the animation shows it (viz/memory_view.h draws it; the view adds only its theme and
// how to draw): the player's counters at the step and at the end, the current event and kernel in
// words, each tensor's footprint on this device and where its current tile lies, the kernel's
// shared-memory parts, the spills.
// ---------------------------------------------------------------------------------------------
struct MemTensor {
    std::string name, formula;
    uint64_t bytes = 0;                      // footprint
    uint64_t read = 0, written = 0;          // L2 <-> SM so far, all blocks
    uint64_t total_read = 0, total_written = 0;
    uint64_t dram_read = 0, dram_written = 0;            // DRAM <-> L2 so far (the reuse model)
    uint64_t total_dram_read = 0, total_dram_written = 0;
    uint64_t tile_bytes = 0;                 // one block's tile: the grid's cell
    bool input = false;                      // exists before the run
    float tile_at = 0;                       // where the detailed block's current tile lies, 0..1
    // Its colour key: its place among the workload's buffers (workload_buffer_names), so Q keeps its
    // colour from one variant to the next; its place in this frame when the workload has more buffers
    // than the view has colours.
    int series = 0;
    bool local = false;                      // register spills: the threads' local memory
};

struct MemSramPart {
    std::string name, formula;
    uint64_t bytes = 0;
    bool touched = false;                    // the current event loads into it / computes on it
    int series = -1;                         // the colour key of the tensor it holds a tile of (-1: none)
};

struct MemoryFrame {
    std::string title;                       // "flash"
    std::string device;                      // "H100 SXM5 80GB (simulated)"
    bool simulated = false;
    std::vector<MemTensor> tensors;
    uint64_t l2_bytes = 0;
    int sm_count = 0;
    // The current kernel's tensors (indices into tensors): the data it wants L2 to hold.
    std::vector<size_t> l2_tensors;
    std::string l2_note;                     // the reuse rules with this L2's numbers

    // The current kernel's working set on one SM.
    OnChip on_chip = OnChip::registers;
    std::vector<MemSramPart> sram;
    uint64_t sram_needed = 0;                // sum of sram
    uint64_t smem_limit = 0;                 // per block, with opt-in
    uint64_t smem_default = 0;               // per block without opt-in
    std::string on_chip_note;

    // The current step.
    size_t step = 0, step_count = 0;
    bool has_event = false;
    EventKind kind = EventKind::compute;
    int tensor = -1;                         // index into tensors, -1 for compute
    uint64_t event_bytes = 0, repeat = 0;    // one block's bytes; how many blocks do it
    // All blocks: the event's L2 <-> SM bytes and the DRAM bytes among them (a load's misses, a
    // store's write-back), and the reuse rule that set them.
    uint64_t event_l2_bytes = 0, event_dram_bytes = 0;
    std::string event_dram_rule;
    double event_flops = 0;
    std::string what;                        // the animation's words
    // The longest words of any step of the schedule: the header is sized for them once, so the
    // layout stays still while the schedule plays (boxes keep their size and row).
    std::string longest_what;
    // Why this variant cannot run on this device ("" when it can): the view then shows the
    // refusal, not an animation (memory_view_data leaves the step at 0 and nothing flies).
    std::string refusal;
    std::string kernel;                      // "gemm_qk (1 of 3), 16 blocks"
    uint64_t kernel_blocks = 0;
    float flight = 1;                        // 0..1: how far the moving tile has flown

    uint64_t read = 0, written = 0, total_read = 0, total_written = 0;  // L2 <-> SM, all tensors
    uint64_t dram_read = 0, dram_written = 0, total_dram_read = 0, total_dram_written = 0;  // DRAM <-> L2
    uint64_t shared = 0, total_shared = 0;   // on chip: shared-memory bytes
    // Register spills so far and in all, and where they go on this device (spill_estimate), or "".
    uint64_t local_read = 0, local_written = 0, local_total = 0;
    std::string spill_note;
    // The current kernel's registers and stack frame per thread (ptxas; 0 when not known), and
    // the share of its spill traffic that L1 cannot hold on this device (spill_estimate).
    int registers = 0, stack_bytes = 0;
    double spill_beyond_l1 = 0;
    std::vector<std::string> notes;          // modeled / measured time and bytes, one short line each
    std::vector<std::string> note_tips;      // the same notes in full, with how they were obtained
};

// The frame of `step` of `player` (clamped to its last step) on `device`; `flight` 0..1 is how far the
// moving tile has flown. A variant the device refuses (`refusal`, kernels::device_refusal's words)
// stays at step 0: nothing of it moves. `colors`: how many buffer colours the view has (the colour
// keys, MemTensor::series, are the workload's buffer order when they all fit).
MemoryFrame memory_frame(const MemoryPlayer& player, size_t step, float flight, const DeviceInfo& device, int colors,
                         const std::string& refusal = "");

}  // namespace kernels
