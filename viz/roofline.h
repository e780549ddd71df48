// The roofline plot (log-log), hierarchical like Nsight Compute's: FLOP/s against arithmetic
// intensity, two memory roofs (lines of slope 1: attainable = intensity x bandwidth), DRAM and
// L2 <-> SM, one flat roof per compute ceiling, the ridge point of the highest roof on DRAM marked
// and labelled. Each variant is a point per level at the same achieved FLOP/s: a circle at its
// DRAM intensity (filled: counter bytes; hollow: modeled, with a small ring at the modeled
// intensity when the counters moved it), a square at its L2 intensity, joined by a thin line.
// Earlier DRAM points of a variant fade as a trail; arrows go from the variant each one improves
// on to it; a legend in the plot's corner says which marker is which. Plain data in; returns what
// the mouse is over so the app can explain it; every label records its rectangle
// (viz/label_layout.h). The arithmetic is viz/model/roofline.h.
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
    RooflineMark at;          // at its DRAM intensity
    bool measured_bytes = false;     // intensity from counter bytes: filled; modeled: hollow ring
    RooflineMark model_at;    // measured_bytes: the same point at its modeled DRAM intensity (a small ring)
    RooflineMark l2_at;       // at its L2 <-> SM intensity (a square); intensity 0: none
    std::vector<RooflineMark> trail;  // earlier positions, oldest first
    // A reference point (a framework measured elsewhere): a hollow diamond in a neutral colour with
    // a dimmed label; never the end of an arrow.
    bool reference = false;
    // Measured with earlier settings (the new run is on its way): drawn faded, so a class never
    // reads an old dot as the answer to the new question.
    bool stale = false;
};

struct RooflineData {
    LogPlotFrame frame;
    double bytes_per_s = 0;   // memory roof: DRAM
    std::string memory_label; // "DRAM 3000 GB/s (measured copy)"
    std::string memory_short_label;  // "DRAM 3.0 TB/s"
    double l2_bytes_per_s = 0;       // L2 <-> SM roof (0: not drawn)
    std::string l2_label, l2_short_label;
    std::vector<RooflineRoof> roofs;  // compute roofs, any order
    std::vector<RooflinePoint> points;
    std::vector<std::pair<int, int>> arrows;  // point index from -> to (unfused -> fused)
};

struct RooflineHover {
    int point = -1;           // index into points
    int trail = -1;           // index into that point's trail, or -1 for the point itself
    bool l2 = false;          // the point's L2 square, not its DRAM circle
    bool ridge = false;       // the mouse is on the ridge marker
    bool legend = false;      // the mouse is on the legend
};

// Draws inside [origin, origin + size).
RooflineHover draw_roofline(ImDrawList* draw, ImVec2 origin, ImVec2 size, const RooflineData& data, ImVec2 mouse);

}  // namespace viz
