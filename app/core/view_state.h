// What AppState keeps for the right-hand views that have state of their own: the memory-hierarchy
// animation (app/gui/panel_memory.h), the roofline's trails (app/gui/panel_roofline.h) and the
// kernel timeline (app/gui/panel_timeline.h). Plain data, no ImGui: shots and the lesson player
// set it up before anything is drawn.
#pragma once

#include "kernels/core/types.h"
#include "viz/model/memory_player.h"
#include "viz/timeline_view.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace app {

// ---- memory-hierarchy animation ----

// What the panel derives from a player on a device, kept until either changes (frames stay cheap).
struct MemoryPlayerTiming {
    std::shared_ptr<const kernels::MemoryPlayer> player;
    std::string device;
    bool modeled_time = false;   // ends in modeled ms (side by side) or in steps
    std::vector<double> ends;    // when each step ends on the panel's clock; ends[0] = 0
    double modeled_ms = 0;       // the simulated backend's formula on this device (0: no datasheet)
    uint64_t modeled_bytes = 0;  // DRAM bytes (the L2 reuse model for this device's L2)
};

struct MemoryPanelState {
    std::string variant;          // "" = the workload's first selected variant
    std::string compare;          // second variant for side by side ("" = another one)
    bool side_by_side = false;
    // The playback clock: steps of the variant when alone (3.5 = halfway through step 4), modeled
    // milliseconds side by side (both variants at the pace the model gives them).
    double clock = 0;
    bool clock_was_time = false;  // the unit clock was last in
    int64_t pending_step = -1;    // >= 0: show this step of the first variant next frame (shots)
    // How far that step's tile has flown, 0..1: a still picture shows it mid-flight; a test
    // also looks at its first leg (HBM -> L2) and its last (L2 -> SM).
    double pending_flight = 0.55;
    bool playing = false;
    float steps_per_second = 2.0f;
    bool tab_active = false;      // the panel's tab was shown last frame (AppState::active_view == "memory")
    bool full_width = false;      // take the whole window width (parameters fold into a header)

    // Players for the current parameters, rebuilt when the variant or parameters change.
    std::shared_ptr<const kernels::MemoryPlayer> player, other;
    MemoryPlayerTiming first_timing, second_timing;
    std::string error;            // why there is nothing to play
    double last_frame_ms = 0;     // data preparation + draw-list build of the last frame
};

// ---- roofline ----

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

// ---- kernel timeline ----

struct TimelinePanelState {
    viz::TimelineView view;  // t1 <= t0: fit every row (the default, and after a double-click)
};

}  // namespace app
