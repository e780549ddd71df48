// Kernel timeline (Gantt) drawn with ImDrawList from plain data: one row per variant, each kernel
// of one run a bar on a shared time axis, the idle gaps between kernels tinted and, where the text
// fits, labelled with their duration ("2.1 us"). Thousands of kernels stay fast and legible: bars
// that would be narrower than a pixel next to a sub-pixel gap merge into one bar (hover says how
// many), and only gaps wide enough for their label get one. Zoom and pan are the caller's
// (TimelineView is plain data); the chart reports what the mouse is over.
#pragma once

#include "kernels/core/types.h"
#include "viz/palette.h"
#include "viz/timeline_view.h"

#include <imgui.h>

#include <string>
#include <vector>

namespace viz {

struct TimelineRow {
    std::string label;                      // "stream"
    std::string summary;                    // second line under the label: "100 kernels, idle 62 %"
    std::vector<kernels::KernelSpan> spans;  // one run, times in ms from the run's first kernel
    int series = 0;                         // colour index (series_color)
};


struct TimelineFrame {
    std::string title;
    std::string watermark;  // "SIMULATED" or ""
    Theme theme = Theme::dark;
};

// What a pixel column of one row shows: kernels first..last (indices into the row's spans) drawn
// as one bar from x0 to x1.
struct PixelBar {
    float x0 = 0, x1 = 0;
    size_t first = 0, last = 0;
    size_t count() const { return last - first + 1; }
};

// Bars of one row for the window [t0, t1] mapped onto [x_left, x_left + width): a kernel narrower
// than a pixel joins its neighbour when the gap between them is under a pixel too; every bar is at
// least one pixel wide. Spans must be sorted by start. Plain math, for the chart and its tests.
std::vector<PixelBar> pixel_bars(const std::vector<kernels::KernelSpan>& spans, double t0, double t1, float x_left,
                                 float width);

// "850 ns", "2.1 us", "1.35 ms": a duration given in ms, for gap labels and the axis.
std::string duration_text(double ms);

// The window that shows every row: 0 .. the longest run, with a little margin.
TimelineView fit_view(const std::vector<TimelineRow>& rows);
// Wheel `notches` (positive = in) around the time `at_ms`, which stays under the cursor; each notch
// shows 0.8x the span, never less than 1 ns.
TimelineView zoom_view(const TimelineView& v, double at_ms, float notches);
// Drag by `dx_px` pixels on a plot `width_px` wide: the content follows the mouse.
TimelineView pan_view(const TimelineView& v, float dx_px, float width_px);

struct TimelineHover {
    int row = -1;             // -1: nothing
    int bar_first = -1;       // kernels first..last under the mouse (merged bar), or -1
    int bar_last = -1;
    bool gap = false;         // the mouse is over the idle gap after kernel bar_first
    double time_ms = 0;       // the time under the mouse
};

// Layout the chart uses, so the caller can map mouse x to time for zoom around the cursor.
struct TimelineLayout {
    ImVec2 plot_min, plot_max;  // the bars' area (axis below it, labels left of it)
};

// Draws inside [origin, origin + size). Hover uses the current mouse position.
TimelineHover draw_timeline(ImDrawList* draw, ImVec2 origin, ImVec2 size, const TimelineFrame& frame,
                            const std::vector<TimelineRow>& rows, const TimelineView& view, TimelineLayout* layout = nullptr);

// Height for `rows` rows at the current font size (axis included).
float preferred_timeline_height(int rows);
// Height for these rows in a chart `width` wide: taller where a row's summary takes more than one
// line in the label column (projector fonts).
float preferred_timeline_height(const std::vector<TimelineRow>& rows, float width);

}  // namespace viz
