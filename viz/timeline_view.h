// The timeline chart's visible window, as plain data without ImGui, so app state that holds one
// (app/gui/panel_timeline.h, via app/core/panels_state.h) also compiles in GUI-less builds.
#pragma once

namespace viz {

// The visible time window in ms; t1 <= t0 means "fit every row".
struct TimelineView {
    double t0 = 0, t1 = 0;
};

}  // namespace viz
