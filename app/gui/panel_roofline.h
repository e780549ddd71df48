// The roofline view, hierarchical: each measured variant of the current workload at its achieved
// FLOP/s, once at its DRAM intensity (under the DRAM roof) and once at its L2 intensity (under the
// L2 roof), arrows from the variant each one improves on, a trail of the points earlier
// parameters gave (drag N, d or a tile and watch them move), a legend and a hover that shows the
// numbers and the formulas. DRAM intensity uses measured DRAM bytes when the counters gave them
// and the toggle says so; modeled bytes otherwise. What it draws is computed without ImGui in
// app/core/roofline_points.h; its state: RooflinePanelState (app/core/view_state.h).
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;

void draw_roofline_panel(AppState& state, const ResolvedBackend& backend);

}  // namespace app
