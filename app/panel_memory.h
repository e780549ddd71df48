// The memory-hierarchy animation panel: plays a variant's tile schedule (kernels::MemoryPlayer)
// over viz::draw_memory_view, alone or side by side with a second variant of the same parameters.
// Its state is plain data so the shot command can set it up (variant, step) before rendering.
#pragma once

#include "kernels/common/types.h"
#include "kernels/memory_player.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace app {

struct AppState;
struct ResolvedBackend;

// What the panel derives from a player on a device, kept until either changes (frames stay cheap).
struct MemoryPlayerTiming {
    std::shared_ptr<const kernels::MemoryPlayer> player;
    std::string device;
    bool modeled_time = false;   // ends in modeled ms (side by side) or in steps
    std::vector<double> ends;    // when each step ends on the panel's clock; ends[0] = 0
    double modeled_ms = 0;       // the simulated backend's formula on this device (0: no datasheet)
    uint64_t modeled_bytes = 0;
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

// The panel, drawn into the current window's remaining space.
void draw_memory_panel(AppState& state, const ResolvedBackend& backend);

}  // namespace app
