// The roofline's numbers, without ImGui: where each result sits on a hierarchical roofline (its
// achieved FLOP/s at its DRAM intensity and at its L2 intensity, each against its own memory roof,
// as Nsight Compute draws one), the trail of positions earlier parameters gave, and the hover text
// with every formula. The view (app/gui/panel_roofline.cpp) only draws what these compute.
#pragma once

#include "kernels/core/types.h"
#include "viz/model/roofline.h"

#include <string>

namespace app {

struct AppState;

// One result on the hierarchical roofline.
struct RooflineLevels {
    double flops = 0;               // model FLOPs
    double flops_per_s = 0;         // achieved: FLOPs / median time (0 without a time)
    double dram_bytes = 0;          // the DRAM bytes its DRAM intensity uses ...
    bool dram_measured = false;     // ... counted by the hardware counters (else the model's)
    double dram_intensity = 0;      // FLOPs / dram_bytes
    double model_dram_intensity = 0;  // FLOPs / the modeled DRAM bytes (= dram_intensity when modeled)
    double l2_bytes = 0;            // L2 <-> SM bytes (modeled: no counter here measures them)
    double l2_intensity = 0;        // FLOPs / l2_bytes
};

// The point of `m`: its DRAM intensity from the counters when `use_measured` and they gave bytes,
// from the model otherwise; its L2 intensity from the model.
RooflineLevels roofline_levels(const kernels::Measurement& m, bool use_measured);

// Which level's roof is lowest at the point's intensities, and that roof in FLOP/s: the level that
// bounds the kernel as far as bytes go ("DRAM" or "L2"), or the compute roof when it is lower.
struct RooflineBound {
    std::string level;              // "DRAM", "L2" or the compute roof's name
    double attainable = 0;          // min over the roofs, FLOP/s
};
RooflineBound roofline_bound(const RooflineLevels& p, const kernels::RoofSet& roofs, const kernels::Roof& compute);

// "N=2048 d=64 Br=64 Bc=64 heads=16" / "rows=4096 hidden=4096": the parameters that move a point.
std::string point_params_text(const kernels::Params& p);

// Records each visible result's previous position (its DRAM intensity) in its variant's trail when
// its parameters changed (a quick pass followed by the full pass of the same parameters adds
// nothing); a new workload, dtype or device starts afresh.
void update_roofline_trails(AppState& state);

// The hover text of a result's point: its numbers and, per level, intensity = FLOPs / bytes and
// attainable = min(peak, intensity x bandwidth), which roof bounds it, and why the counters differ.
std::string roofline_point_text(const kernels::Measurement& m, const kernels::RoofSet& roofs, bool use_measured);

}  // namespace app
