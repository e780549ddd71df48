// The charts as SVG, for slides: each function takes the same plain data the ImDrawList chart
// draws (viz/bar_chart.h, viz/roofline.h, viz/timeline.h, viz/log_plot.h) and lays it out again in
// SVG user units, with text as <text> (selectable, searchable, crisp at any size), the theme's
// colours, and no hover state. Where the GUI draws a watermark across the plot ("SIMULATED"), the
// SVG says the same in a line under the title, clear of the values. No ImGui context needed: text
// widths are estimated from the character count.
//
// Index:
//   [SECTION] SvgWriter: primitives
//   [SECTION] Charts
#pragma once

#include "viz/bar_chart.h"
#include "viz/log_plot.h"
#include "viz/roofline.h"
#include "viz/timeline.h"

#include <string>
#include <utility>
#include <vector>

namespace viz {

// ---------------------------------------------------------------------------------------------
// [SECTION] SvgWriter
// ---------------------------------------------------------------------------------------------
class SvgWriter {
public:
    // A document `width` x `height` user units on the theme's page colour.
    SvgWriter(float width, float height, Theme theme);

    void rect(float x, float y, float w, float h, ImU32 fill, ImU32 stroke = 0, float stroke_width = 0);
    void line(float x0, float y0, float x1, float y1, ImU32 color, float width, bool dashed = false);
    void polyline(const std::vector<std::pair<float, float>>& points, ImU32 color, float width, bool dashed = false);
    void polygon(const std::vector<std::pair<float, float>>& points, ImU32 fill);
    void circle(float cx, float cy, float r, ImU32 fill, ImU32 stroke = 0, float stroke_width = 0);
    // anchor: "start", "middle" or "end"; y is the text's vertical centre.
    void text(float x, float y, const std::string& text, ImU32 color, float size, const char* anchor = "start",
              bool bold = false, float rotate_degrees = 0);

    std::string finish() const;  // the whole document

    float width() const { return width_; }
    float height() const { return height_; }

private:
    float width_, height_;
    std::string body_;
};

// "&amp;", "&lt;", ... : `s` as XML character data.
std::string xml_escape(const std::string& s);
// "#rrggbb" of an ImGui colour (alpha separately: svg_opacity).
std::string svg_color(ImU32 color);
double svg_opacity(ImU32 color);
// An estimate of a text's width at `size` user units (UTF-8 code points x 0.6 size): enough to
// keep labels apart, since the viewer's font is unknown.
float svg_text_width(const std::string& text, float size);

// ---------------------------------------------------------------------------------------------
// [SECTION] Charts
// ---------------------------------------------------------------------------------------------
// Default size of a chart picture in user units (px at 100 %).
inline constexpr float kSvgWidth = 960, kSvgHeight = 540;

std::string range_bars_svg(const ChartFrame& frame, const std::vector<RangeBar>& bars, float width = kSvgWidth,
                           float height = kSvgHeight);
std::string stacked_bars_svg(const ChartFrame& frame, const std::vector<StackedBar>& bars,
                             const std::vector<std::string>& series_names, float width = kSvgWidth,
                             float height = kSvgHeight);
std::string roofline_svg(const RooflineData& data, float width = kSvgWidth, float height = kSvgHeight);
std::string timeline_svg(const TimelineFrame& frame, const std::vector<TimelineRow>& rows, const TimelineView& view,
                         float width = kSvgWidth, float height = kSvgHeight);
// Curves on log-log axes (the sweep); the axes cover every positive point.
std::string log_series_svg(const LogPlotFrame& frame, const std::vector<LogSeries>& series, float width = kSvgWidth,
                           float height = kSvgHeight);

}  // namespace viz
