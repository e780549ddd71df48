// The sweep view: choose a size parameter and a range, run it through the runner (progress bar,
// cancel), and read time-vs-size and bytes-vs-size per variant on log axes; export CSV, JSON or
// the window as PNG. The sweep itself (jobs, results) is app/core/sweep.h.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;

void draw_sweep_panel(AppState& state, const ResolvedBackend& backend);

}  // namespace app
