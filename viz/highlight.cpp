#include "viz/highlight.h"

#include "viz/palette.h"

#include <algorithm>
#include <cmath>

namespace viz {

namespace {

// Okabe-Ito vermillion: distinct from every series colour the charts use first (blue, orange,
// green) and from the yellow simulated banner.
constexpr uint32_t kRingColor = 0xD55E00;

}  // namespace

void draw_highlight_ring(ImDrawList* draw, ImVec2 min, ImVec2 max, float em, float pulse) {
    const float pad = std::round(em * 0.25f);
    const float thick = std::max(2.0f, std::round(em * 0.18f));
    const ImVec2 a(min.x - pad, min.y - pad), b(max.x + pad, max.y + pad);
    const float glow = thick * (1.5f + 1.5f * std::clamp(pulse, 0.0f, 1.0f));
    draw->AddRect(ImVec2(a.x - glow * 0.5f, a.y - glow * 0.5f), ImVec2(b.x + glow * 0.5f, b.y + glow * 0.5f),
                  rgb(kRingColor, 70), em * 0.5f, 0, glow);
    draw->AddRect(a, b, rgb(kRingColor), em * 0.4f, 0, thick);
}

void draw_pointer_halo(ImDrawList* draw, ImVec2 at, float em) {
    if (at.x < -1e6f || at.y < -1e6f) return;  // no mouse position (ImGui reports -FLT_MAX)
    const float r = em * 1.6f;
    draw->AddCircleFilled(at, r, rgb(0xF0E442, 70), 40);
    draw->AddCircle(at, r, rgb(0xD55E00, 200), 40, std::max(2.0f, em * 0.12f));
}

}  // namespace viz
