// The Measurements tab's charts: time per variant (median with min-max) and HBM bytes per variant
// stacked by buffer or by kernel, against the minimum any implementation must move.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

// plot_height: at least this tall (0: the chart's preferred height).
// Bars measured with earlier settings than `backend` and the parameters now selected are drawn
// faded and say "(updating)". Each chart records its rectangle (AppState::picture_rects: "time",
// "bytes"), writes its SVG when one is asked for, and offers PNG / SVG on right-click.
void draw_time_chart(AppState& state, const ResolvedBackend& backend, float width, float plot_height);
void draw_bytes_chart(AppState& state, const ResolvedBackend& backend, float width, float plot_height);

// Records where chart `id` was drawn (AppState::picture_rects), marked cut when part of it lies
// outside the current window's visible area: a picture of it would be cut, so none is taken.
void record_chart_rect(AppState& state, const char* id, float x0, float y0, float x1, float y1);

// The right-click menu of a chart drawn as the last item: "Export <label> as PNG / SVG".
void chart_export_menu(AppState& state, const char* chart_id, const char* label);

}  // namespace app
