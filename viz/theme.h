// Projector-ready looks: a high-contrast ImGui style per theme, scaled by rebuilding sizes from a
// fresh style, and fonts rasterised at the scaled pixel size (crisp, unlike FontGlobalScale).
// Operates on the current ImGui context only; the caller re-uploads the font texture.
#pragma once

#include "viz/theme_id.h"

#include <imgui.h>

#include <string>

namespace viz {

// Body text height at font scale 1, in pixels.
inline constexpr float kBaseFontPx = 17.0f;
// Headings and the banner are this much larger than body text.
inline constexpr float kHeadingRatio = 1.3f;

// Replaces ImGui's style with a fresh one for `theme`, sized for `scale` (1 = normal).
void apply_style(Theme theme, float scale);

struct FontSet {
    ImFont* body = nullptr;
    ImFont* heading = nullptr;
    ImFont* bold = nullptr;  // body size, heavier weight: banners and emphasis
    std::string note;  // which file was loaded, or why the built-in font is used
};

// Clears the font atlas, adds body and heading fonts at `scale`, and builds the atlas.
// Tries Debian's Inter, then DejaVu Sans (and common Windows/macOS fonts); falls back to
// ImGui's built-in font (scaled) when none can be read.
FontSet load_fonts(float scale);

// The heading and bold fonts loaded by the last load_fonts() (the current font when none).
ImFont* heading_font();
ImFont* bold_font();

}  // namespace viz
