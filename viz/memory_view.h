// The memory-hierarchy animation, drawn with ImDrawList from plain data, one box per level of
// docs/DESIGN.md's "Traffic at three levels":
//   HBM (DRAM)  each tensor as a grid of tiles (area in proportion to its bytes) with its running
//               DRAM bytes: what the reuse model lets reach DRAM, what the counters measure;
//   L2          its size, the current kernel's tensors drawn against it (and half of it, where an
//               intermediate stays for the next kernel), and whether the moving tile came from
//               DRAM (a miss: the tile crosses HBM -> L2 once) or was already there (a hit);
//   SMs         shared memory to scale (a working set larger than the per-block limit overflows
//               the box), registers, the SM lit on compute.
// The current tile flies HBM -> L2 -> SM on loads (from L2 only on a hit) and back on stores; the
// footer counts bytes per level (DRAM, L2 -> SM, shared memory). Every element explains itself in
// a tooltip, and every label records its rectangle (viz/label_layout.h).
//
// memory_view_data() turns a kernels::MemoryPlayer step into that plain data; draw_memory_view()
// draws it. draw_byte_race() draws two or more variants' running DRAM bytes on one scale.
#pragma once

#include "kernels/core/types.h"
#include "viz/model/memory_player.h"
#include "viz/theme_id.h"

#include <imgui.h>

#include <string>
#include <vector>

namespace viz {

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
    int series = 0;                          // colour
    bool local = false;                      // register spills: the threads' local memory
};

struct MemSramPart {
    std::string name, formula;
    uint64_t bytes = 0;
    bool touched = false;                    // the current event loads into it / computes on it
    int series = -1;                         // the colour of the tensor it holds a tile of (-1: none)
};

struct MemoryViewData {
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
    kernels::OnChip on_chip = kernels::OnChip::registers;
    std::vector<MemSramPart> sram;
    uint64_t sram_needed = 0;                // sum of sram
    uint64_t smem_limit = 0;                 // per block, with opt-in
    uint64_t smem_default = 0;               // per block without opt-in
    std::string on_chip_note;

    // The current step.
    size_t step = 0, step_count = 0;
    bool has_event = false;
    kernels::EventKind kind = kernels::EventKind::compute;
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
    bool kernel_persistent = false;  // the blocks are work items a persistent grid walks (ScheduleKernel::block)
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
    Theme theme = Theme::dark;
    bool interactive = true;                 // false in shots: no tooltips
    // HBM squares' scale in px per sqrt(byte); 0 = the largest that fits. Side by side views
    // share the smaller of their fits, so the same bytes look the same size in both.
    double hbm_scale = 0;
    // A lesson step's highlight: "memory.hbm", "memory.l2", "memory.sram" or "memory.footer" rings
    // that part ("" = none). highlight_pulse 0..1 animates the ring (0 in shots).
    std::string highlight;
    float highlight_pulse = 0;
};

// The data for `step` of `player` (clamped to its last step) on `device`. A variant the device
// refuses (`refusal`, kernels::device_refusal's words) stays at step 0: nothing of it moves.
MemoryViewData memory_view_data(const kernels::MemoryPlayer& player, size_t step, float flight,
                                const kernels::DeviceInfo& device, Theme theme, const std::string& refusal = "");

// The largest HBM scale at which `data`'s tensors fit a view of this size.
double memory_view_hbm_scale(ImVec2 size, const MemoryViewData& data);

// Draws inside [origin, origin + size) and never outside it; its labels go to the open
// LabelRecording, if any (viz/label_layout.h). The same data at the same size draws the same
// boxes at every step: the layout depends on the whole schedule, not on the step. Text is the UI
// font's size unless the view is too small for it, and never under kMinViewLabelPx (or the UI
// font, when that is smaller).
inline constexpr float kMinViewLabelPx = 14.0f;
void draw_memory_view(ImDrawList* draw, ImVec2 origin, ImVec2 size, const MemoryViewData& data);

// Racing DRAM byte counters: one bar per view, all on the scale of the largest total.
// `em` is the text size (0: the UI font's); a short view passes a smaller one so the race leaves
// the diagrams their height at projector font scales.
void draw_byte_race(ImDrawList* draw, ImVec2 origin, ImVec2 size, const std::vector<const MemoryViewData*>& views,
                    float em = 0);
float byte_race_height(size_t views, float em = 0);
// The race's text size for a memory panel `height` pixels tall: the UI font, but no more than a
// 30th of the height (and never under the 1x font).
float byte_race_em(float height);

}  // namespace viz
