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
// The player says what a step shows (kernels::memory_frame, viz/model/memory_player.h);
// memory_view_data() adds how to draw it (theme) and draw_memory_view() draws it. draw_byte_race()
// draws two or more variants' running DRAM bytes on one scale.
#pragma once

#include "kernels/core/types.h"
#include "viz/model/memory_player.h"
#include "viz/theme_id.h"

#include <imgui.h>

#include <string>
#include <vector>

namespace viz {

// The player's step, as the view draws it: kernels::MemoryFrame (viz/model/memory_player.h), plus
// how to draw it.
using MemTensor = kernels::MemTensor;
using MemSramPart = kernels::MemSramPart;

struct MemoryViewData : kernels::MemoryFrame {
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

// The player's frame for `step` (kernels::memory_frame: clamped to its last step; a variant the
// device refuses stays at step 0) with this view's theme and colours.
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
