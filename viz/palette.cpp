#include "viz/palette.h"

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
