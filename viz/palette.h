// Colours for charts and themes. Series colours are the Okabe-Ito palette (Okabe & Ito, 2008),
// chosen so that the common forms of colour blindness still tell every series apart.
#pragma once

#include "viz/theme_id.h"

#include <imgui.h>

#include <cstdint>

namespace viz {

// The eight Okabe-Ito colours as 0xRRGGBB, in the published order.
inline constexpr uint32_t kOkabeIto[8] = {
    0xE69F00,  // orange
    0x56B4E9,  // sky blue
    0x009E73,  // bluish green
    0xF0E442,  // yellow
    0x0072B2,  // blue
    0xD55E00,  // vermillion
    0xCC79A7,  // reddish purple
    0x000000,  // black
};

// Number of series colours before series_color() repeats.
inline constexpr int kSeriesColorCount = 8;

// Series i's colour on this theme. The palette's black is swapped for light grey on dark
// backgrounds so every series stays visible; the order puts the most distinct colours first.
ImU32 series_color(int i, Theme theme);

// Black or white, whichever reads better on `background`.
ImU32 text_color_on(ImU32 background);

// Colours for axes, labels and annotations of a chart.
struct ChartColors {
    ImU32 background;   // plot area
    ImU32 text;
    ImU32 text_dim;     // axis tick labels
    ImU32 grid;
    ImU32 axis;
    ImU32 whisker;      // min/max range marks
    ImU32 watermark;    // "simulated" across the plot
};

ChartColors chart_colors(Theme theme);

// 0xRRGGBB + alpha -> ImGui's packed colour.
ImU32 rgb(uint32_t rrggbb, uint8_t alpha = 255);

}  // namespace viz
