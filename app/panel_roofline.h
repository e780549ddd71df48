// The roofline view: each measured variant of the current workload as a point at (arithmetic
// intensity, achieved FLOP/s) under the device's roofs, unfused -> fused arrows, a trail of the
// points earlier parameters gave (drag N, d or a tile and watch them move), and a hover that
// shows the numbers and the formulas. Intensity uses measured DRAM bytes when the counters gave
// them and the toggle says so; modeled bytes otherwise.
#pragma once

#include "kernels/common/types.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace app {

struct AppState;
struct ResolvedBackend;

struct RooflineTrailMark {
    double intensity = 0, flops_per_s = 0;
    std::string params;   // "N=2048 d=64 Br=64 Bc=64": what the point was measured with
};

struct RooflinePanelState {
    bool use_measured = true;     // intensity from counter bytes when a result has them
    // Per variant: earlier positions (oldest first) and the job id and parameters last seen.
    std::map<std::string, std::vector<RooflineTrailMark>> trails;
    std::map<std::string, uint64_t> seen_job;
    std::map<std::string, kernels::Params> seen_params;
    std::string context;          // workload + dtype + device the trails belong to; reset on change
};

// Longest trail kept per variant.
inline constexpr size_t kRooflineTrail = 12;

// Records each visible result's previous position in its variant's trail when its parameters
// changed (a quick pass followed by the full pass of the same parameters adds nothing).
void update_roofline_trails(AppState& state);

// "N=2048 d=64 Br=64 Bc=64 heads=16" / "rows=4096 hidden=4096": the parameters that move a point.
std::string point_params_text(const kernels::Params& p);

void draw_roofline_panel(AppState& state, const ResolvedBackend& backend);

}  // namespace app
