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

void scroll_into_view_once(const std::string& key, ImVec2 min, ImVec2 max) {
    // One highlight at a time, drawn on the one UI thread.
    static std::string done;
    static std::string trying;
    static int tries = 0;
    if (key.empty() || key == done) return;
    if (key != trying) {
        trying = key;
        tries = 0;
    }
    const float top = ImGui::GetWindowPos().y, bottom = top + ImGui::GetWindowHeight();
    // Content sizes settle over a frame or two after a step changes the page: try a few frames.
    constexpr int kMaxTries = 4;
    if ((min.y >= top && max.y <= bottom) || ++tries > kMaxTries) {
        done = key;
        return;
    }
    const float margin = ImGui::GetFontSize() * 0.5f, scroll = ImGui::GetScrollY();
    // Its top edge at the window's top, or just enough that its bottom edge shows, whichever
    // moves the page less while showing all of it that fits.
    float target = scroll + (min.y - top) - margin;
    if (min.y > top && max.y - min.y + margin * 2 <= bottom - top) target = scroll + (max.y - bottom) + margin;
    ImGui::SetScrollY(std::clamp(target, 0.0f, std::max(ImGui::GetScrollMaxY(), 0.0f)));
}

void draw_pointer_halo(ImDrawList* draw, ImVec2 at, float em) {
    if (at.x < -1e6f || at.y < -1e6f) return;  // no mouse position (ImGui reports -FLT_MAX)
    const float r = em * 1.6f;
    draw->AddCircleFilled(at, r, rgb(0xF0E442, 70), 40);
    draw->AddCircle(at, r, rgb(0xD55E00, 200), 40, std::max(2.0f, em * 0.12f));
}

}  // namespace viz
