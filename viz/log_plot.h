// A log-log plot frame drawn with ImDrawList: title, axes with decade grid lines (labelled) and
// 2, 5 minor lines, axis titles, an optional watermark ("SIMULATED"), and a mapping from data to
// screen. The roofline (viz/roofline.h) and the sweep curves draw on top of it. No app state.
#pragma once

#include "viz/axis.h"
#include "viz/palette.h"

#include <imgui.h>

#include <functional>
#include <string>
#include <vector>

namespace viz {

struct LogPlotFrame {
    std::string title;
    std::string x_title, y_title;                     // "arithmetic intensity (FLOP/byte)"
    std::function<std::string(double)> format_x, format_y;  // tick labels
    std::string watermark;
    Theme theme = Theme::dark;
};

struct LogPlotArea {
    bool fits = false;            // false: too small; only the title was drawn
    bool y_title_beside_title = false;  // the y title shares the title's line (else a line of its own)
    ImVec2 plot_min, plot_max;
    LogTicks x, y;
    ImVec2 to_screen(double xv, double yv) const;
    bool contains(ImVec2 p) const;
};

// Where the plot of a frame of `size` goes, without drawing: a panel asks before choosing a layout.
LogPlotArea layout_log_frame(ImVec2 origin, ImVec2 size, const LogPlotFrame& frame, double x_lo, double x_hi,
                             double y_lo, double y_hi);
// Draws the frame for data in [x_lo, x_hi] x [y_lo, y_hi] (widened to decades) inside
// [origin, origin + size) and returns where the plot is.
LogPlotArea draw_log_frame(ImDrawList* draw, ImVec2 origin, ImVec2 size, const LogPlotFrame& frame, double x_lo,
                           double x_hi, double y_lo, double y_hi);
// The watermark, drawn last so it sits over the data, faint.
void draw_log_watermark(ImDrawList* draw, const LogPlotArea& area, const LogPlotFrame& frame);

// "1", "10", "100", "1k", "10k", "1M"; below 1: "0.1", "0.01", "1e-3"...
std::string si_tick(double v);

// One curve of a sweep: points joined by lines, a marker at each; dashed when `dashed`.
struct LogSeries {
    std::string name;
    int series = 0;               // colour index
    bool dashed = false;
    std::vector<double> x, y;     // same length; y <= 0 is a gap
};
// Draws every series and a legend in the plot's top-left; returns the index of the series whose
// marker is under `mouse` (and that marker's index in *point), or -1.
int draw_log_series(ImDrawList* draw, const LogPlotArea& area, const std::vector<LogSeries>& series, Theme theme,
                    ImVec2 mouse, int* point);

}  // namespace viz
