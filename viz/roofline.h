// The roofline plot (log-log): FLOP/s against arithmetic intensity, the memory roof (a line of
// slope 1: attainable = intensity x bandwidth), one flat roof per compute ceiling, the ridge point
// of the highest roof marked and labelled, each variant a point, earlier points of a variant as
// a fading trail, and arrows from an unfused variant to its fused one. Plain data in; returns
// what the mouse is over so the app can explain it. The arithmetic is kernels/roofline.h.
#pragma once

#include "viz/log_plot.h"

#include <imgui.h>

#include <string>
#include <vector>

namespace viz {

struct RooflineRoof {
    std::string label;        // "tensor GEMM bf16 650 TFLOP/s (measured)"
    double flops_per_s = 0;
    std::string short_label;  // "tensor 650T": used when the plot is short (projector fonts)
};

struct RooflineMark {
    double intensity = 0;     // FLOP/byte, > 0
    double flops_per_s = 0;   // achieved, > 0
};

struct RooflinePoint {
    std::string label;        // "flash_tc"; "" when a neighbour's label names this point too
    int series = 0;           // colour
    RooflineMark at;
    bool measured_bytes = false;     // intensity from counter bytes: filled; modeled: hollow ring
    std::vector<RooflineMark> trail;  // earlier positions, oldest first
    // A reference point (a framework measured elsewhere): a hollow diamond in a neutral colour with
    // a dimmed label; never the end of an arrow.
    bool reference = false;
};

struct RooflineData {
    LogPlotFrame frame;
    double bytes_per_s = 0;   // memory roof
    std::string memory_label; // "DRAM 3000 GB/s (measured copy)"
    std::string memory_short_label;  // "DRAM 3.0 TB/s"
    std::vector<RooflineRoof> roofs;  // compute roofs, any order
    std::vector<RooflinePoint> points;
    std::vector<std::pair<int, int>> arrows;  // point index from -> to (unfused -> fused)
};

struct RooflineHover {
    int point = -1;           // index into points
    int trail = -1;           // index into that point's trail, or -1 for the point itself
    bool ridge = false;       // the mouse is on the ridge marker
};

// Draws inside [origin, origin + size).
RooflineHover draw_roofline(ImDrawList* draw, ImVec2 origin, ImVec2 size, const RooflineData& data, ImVec2 mouse);

}  // namespace viz
