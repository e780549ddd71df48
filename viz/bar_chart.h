// Horizontal bar charts drawn with ImDrawList from plain data: one bar per variant, labels on the
// left (variant names stay readable at any length), a zero-based value axis with nice ticks, the
// value printed at the end of each bar, an optional watermark ("SIMULATED") across the plot.
//   range bars:   the bar is the median, a whisker spans min..max
//   stacked bars: the bar is split into series (e.g. bytes per buffer), with a legend below
// The caller owns layout (where and how big); the chart reports which bar the mouse is over so
// the app can show a tooltip that explains the number.
#pragma once

#include "viz/palette.h"

#include <imgui.h>

#include <functional>
#include <string>
#include <vector>

namespace viz {

struct ChartFrame {
    std::string title;                               // drawn above the plot
    std::function<std::string(double)> format_tick;  // axis labels, e.g. "1.5 ms"
    std::string watermark;                           // "" for none
    double reference_value = 0;                      // > 0: dashed vertical line at this value
    std::string reference_label;                     // drawn beside the line ("minimum bytes")
    Theme theme = Theme::dark;
};

struct RangeBar {
    std::string label;       // "unfused"
    double value = 0;        // bar length (median)
    bool has_range = false;  // draw a whisker from lo to hi
    double lo = 0, hi = 0;
    std::string value_text;  // printed after the bar: "1.23 ms"
    int series = 0;          // colour index (series_color)
    // A reference bar (what a framework does, measured elsewhere): hatched and outlined in a
    // neutral colour, its label dimmed, below a dashed line that parts it from the chart's own bars.
    // Reference bars come after the others.
    bool reference = false;
    // Measured with earlier settings (new numbers on the way): drawn faded, its label dimmed. The
    // caller says so in value_text too ("(updating)"), so the mark survives greyscale printing.
    bool stale = false;
};

struct StackSegment {
    int series = 0;          // index into the legend's names and series_color
    double value = 0;
    std::string value_text;  // printed inside the segment when it fits
};

struct StackedBar {
    std::string label;
    std::vector<StackSegment> segments;
    std::string total_text;  // printed after the bar
    bool stale = false;      // as RangeBar::stale
};

struct ChartHover {
    int bar = -1;      // index of the bar under the mouse, or -1
    int segment = -1;  // stacked charts: index into that bar's segments, or -1
};

// A hatched, outlined rectangle in a neutral colour: how a reference bar is drawn (exposed so a
// legend can show the same swatch).
void draw_reference_box(ImDrawList* draw, ImVec2 a, ImVec2 z, Theme theme);

// Both draw inside the rectangle [origin, origin + size) and never outside it.
ChartHover draw_range_bars(ImDrawList* draw, ImVec2 origin, ImVec2 size, const ChartFrame& frame,
                           const std::vector<RangeBar>& bars);
ChartHover draw_stacked_bars(ImDrawList* draw, ImVec2 origin, ImVec2 size, const ChartFrame& frame,
                             const std::vector<StackedBar>& bars, const std::vector<std::string>& series_names);

// What a stacked chart's axes need, whichever surface draws it (ImGui here, viz/svg_chart.cpp):
// each bar's row label and total text, and the largest stack (or the reference line, if larger).
struct StackedExtent {
    std::vector<std::string> labels, totals;
    double data_max = 0;
};
StackedExtent stacked_extent(const std::vector<StackedBar>& bars, const ChartFrame& frame);

// Height the stacked chart's legend needs at this width (current font); exposed for layout.
float legend_height(const std::vector<std::string>& series_names, float width);

// A comfortable chart height for `bar_count` bars at the current font size (legend excluded).
float preferred_chart_height(int bar_count);

}  // namespace viz
