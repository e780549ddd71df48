// The Measurements tab's charts: time per variant (median with min-max) and HBM bytes per variant
// stacked by buffer or by kernel, against the minimum any implementation must move.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

// plot_height: at least this tall (0: the chart's preferred height).
void draw_time_chart(const AppState& state, float width, float plot_height);
void draw_bytes_chart(AppState& state, float width, float plot_height);

}  // namespace app
