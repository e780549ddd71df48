#include "viz/palette.h"

#include <algorithm>
#include <cmath>

namespace viz {

ImU32 rgb(uint32_t rrggbb, uint8_t alpha) {
    return IM_COL32((rrggbb >> 16) & 0xFF, (rrggbb >> 8) & 0xFF, rrggbb & 0xFF, alpha);
}

ImU32 series_color(int i, Theme theme) {
    // Blue and orange first (the pair most often told apart), yellow late (weak on white).
    static constexpr int kOrder[kSeriesColorCount] = {4, 0, 2, 6, 1, 5, 3, 7};
    const int slot = kOrder[((i % kSeriesColorCount) + kSeriesColorCount) % kSeriesColorCount];
    if (slot == 7 && theme == Theme::dark) return rgb(0xD9D9D9);
    return rgb(kOkabeIto[slot]);
}

uint32_t buffer_rgb(int i) { return kBufferColors[((i % kBufferColorCount) + kBufferColorCount) % kBufferColorCount]; }
ImU32 buffer_color(int i) { return rgb(buffer_rgb(i)); }

uint32_t rrggbb(ImU32 packed) {
    return (((packed >> IM_COL32_R_SHIFT) & 0xFF) << 16) | (((packed >> IM_COL32_G_SHIFT) & 0xFF) << 8) |
           ((packed >> IM_COL32_B_SHIFT) & 0xFF);
}

namespace {

double linear(uint32_t c) {
    const double v = static_cast<double>(c & 0xFF) / 255.0;
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}
double luminance(uint32_t rgb) {
    return 0.2126 * linear(rgb >> 16) + 0.7152 * linear(rgb >> 8) + 0.0722 * linear(rgb);
}

struct Lab {
    double l, a, b;
};
Lab to_lab(uint32_t rgb) {
    const double r = linear(rgb >> 16), g = linear(rgb >> 8), b = linear(rgb);
    const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, y = 0.2126 * r + 0.7152 * g + 0.0722 * b,
                 z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    const auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}
double radians(double deg) { return deg * 3.14159265358979323846 / 180.0; }
double degrees(double rad) { return rad * 180.0 / 3.14159265358979323846; }

}  // namespace

double contrast_ratio(uint32_t a, uint32_t b) {
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// Sharma, Wu and Dalal (2005), "The CIEDE2000 color-difference formula: implementation notes".
double color_difference(uint32_t first, uint32_t second) {
    const Lab p = to_lab(first), q = to_lab(second);
    const double c_bar = (std::hypot(p.a, p.b) + std::hypot(q.a, q.b)) / 2;
    const double c7 = std::pow(c_bar, 7), g = 0.5 * (1 - std::sqrt(c7 / (c7 + std::pow(25.0, 7))));
    const double a1 = (1 + g) * p.a, a2 = (1 + g) * q.a;
    const double c1 = std::hypot(a1, p.b), c2 = std::hypot(a2, q.b);
    const auto hue = [](double b, double a) { return a == 0 && b == 0 ? 0.0 : std::fmod(degrees(std::atan2(b, a)) + 360, 360); };
    const double h1 = hue(p.b, a1), h2 = hue(q.b, a2);
    double dh = 0;
    if (c1 * c2 != 0) dh = std::fabs(h2 - h1) <= 180 ? h2 - h1 : (h2 - h1 > 180 ? h2 - h1 - 360 : h2 - h1 + 360);
    const double d_l = q.l - p.l, d_c = c2 - c1, d_h = 2 * std::sqrt(c1 * c2) * std::sin(radians(dh / 2));
    const double l_bar = (p.l + q.l) / 2, cp_bar = (c1 + c2) / 2;
    double h_bar = h1 + h2;
    if (c1 * c2 != 0) h_bar = std::fabs(h1 - h2) <= 180 ? (h1 + h2) / 2 : (h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2);
    const double t = 1 - 0.17 * std::cos(radians(h_bar - 30)) + 0.24 * std::cos(radians(2 * h_bar)) +
                     0.32 * std::cos(radians(3 * h_bar + 6)) - 0.20 * std::cos(radians(4 * h_bar - 63));
    const double d_theta = 30 * std::exp(-std::pow((h_bar - 275) / 25, 2));
    const double cp7 = std::pow(cp_bar, 7), r_c = 2 * std::sqrt(cp7 / (cp7 + std::pow(25.0, 7)));
    const double s_l = 1 + 0.015 * std::pow(l_bar - 50, 2) / std::sqrt(20 + std::pow(l_bar - 50, 2));
    const double s_c = 1 + 0.045 * cp_bar, s_h = 1 + 0.015 * cp_bar * t;
    const double r_t = -std::sin(radians(2 * d_theta)) * r_c;
    return std::sqrt(std::pow(d_l / s_l, 2) + std::pow(d_c / s_c, 2) + std::pow(d_h / s_h, 2) + r_t * (d_c / s_c) * (d_h / s_h));
}

ImU32 text_color_on(ImU32 background) {
    const float r = static_cast<float>((background >> IM_COL32_R_SHIFT) & 0xFF) / 255.0f;
    const float g = static_cast<float>((background >> IM_COL32_G_SHIFT) & 0xFF) / 255.0f;
    const float b = static_cast<float>((background >> IM_COL32_B_SHIFT) & 0xFF) / 255.0f;
    // Perceived brightness (Rec. 601 weights) is enough to pick black or white text.
    const float luma = 0.299f * r + 0.587f * g + 0.114f * b;
    return luma > 0.55f ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
}

ChartColors chart_colors(Theme theme) {
    if (theme == Theme::light) {
        return {rgb(0xFFFFFF), rgb(0x000000), rgb(0x303030), rgb(0xD0D0D0),
                rgb(0x202020), rgb(0x000000), rgb(0xC00000, 70)};
    }
    return {rgb(0x101010), rgb(0xFFFFFF), rgb(0xDADADA), rgb(0x3A3A3A),
            rgb(0xE0E0E0), rgb(0xFFFFFF), rgb(0xFF7070, 70)};
}

}  // namespace viz
