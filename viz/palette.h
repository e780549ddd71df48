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

// Buffer colours: the memory view's tensors (Q, K, S, W1, ...), one each. None is a series
// (variant) colour, the accent yellow or the overflow red, so a buffer is never mistaken for a
// variant: each lies at least 15 CIEDE2000 units from every series colour of either theme and
// from every other buffer colour, with at least 3:1 contrast against both themes' chart
// backgrounds (tests/viz_test.cpp checks all three).
inline constexpr uint32_t kBufferColors[] = {
    0x8811EE,  // violet
    0x666600,  // dark olive
    0xBB1166,  // crimson
    0x8888CC,  // lavender
    0x007711,  // green
    0xEE11FF,  // magenta
    0x885500,  // brown
    0x117777,  // teal
    0x33AA00,  // leaf green
    0x888888,  // grey
};
inline constexpr int kBufferColorCount = static_cast<int>(sizeof kBufferColors / sizeof kBufferColors[0]);
// Buffer i's colour as 0xRRGGBB (repeats past kBufferColorCount), and as ImGui's packed colour.
uint32_t buffer_rgb(int i);
ImU32 buffer_color(int i);
// ImGui's packed colour back to 0xRRGGBB (alpha dropped).
uint32_t rrggbb(ImU32 packed);

// CIEDE2000 colour difference of two 0xRRGGBB colours (sRGB, D65): about 2 is just noticeable,
// over 10 reads as another colour at a glance.
double color_difference(uint32_t a, uint32_t b);
// WCAG contrast ratio of two 0xRRGGBB colours, 1 to 21.
double contrast_ratio(uint32_t a, uint32_t b);

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
