// The kernel timeline panel: the last run of each shown variant as Gantt rows (viz/timeline.h),
// every kernel's start and end on the GPU clock (CUPTI, or CUDA events where CUPTI is missing) or
// modeled (simulated), gaps tinted and labelled, wheel to zoom around the cursor, drag to pan,
// double-click to fit; below it, kernels, busy and idle time per variant and where the times came
// from. Its state (TimelinePanelState, app/core/view_state.h) is plain data so shots render it the
// same way every time.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;

void draw_timeline_panel(AppState& state, const ResolvedBackend& backend);

}  // namespace app
