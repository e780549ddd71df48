// The roofline view: each measured variant of the current workload as a point at (arithmetic
// intensity, achieved FLOP/s) under the device's roofs, unfused -> fused arrows, a trail of the
// points earlier parameters gave (drag N, d or a tile and watch them move), and a hover that
// shows the numbers and the formulas. Intensity uses measured DRAM bytes when the counters gave
// them and the toggle says so; modeled bytes otherwise. Its state: RooflinePanelState
// (app/core/view_state.h).
#pragma once

#include "kernels/common/types.h"

#include <string>

namespace app {

struct AppState;
struct ResolvedBackend;

// Records each visible result's previous position in its variant's trail when its parameters
// changed (a quick pass followed by the full pass of the same parameters adds nothing).
void update_roofline_trails(AppState& state);

// "N=2048 d=64 Br=64 Bc=64 heads=16" / "rows=4096 hidden=4096": the parameters that move a point.
std::string point_params_text(const kernels::Params& p);

void draw_roofline_panel(AppState& state, const ResolvedBackend& backend);

}  // namespace app
