// The Measurements tab's layout: charts sized to the room the table leaves.
#include "app/gui/panel_results.h"

#include "app/core/lesson_player.h"
#include "app/core/panels_state.h"
#include "app/gui/panel_charts.h"
#include "app/gui/panel_helpers.h"
#include "app/gui/panel_results_table.h"
#include "app/gui/panel_toolbar.h"
#include "app/gui/view_tabs.h"
#include "kernels/common/format.h"
#include "kernels/common/timeline.h"
#include "viz/highlight.h"
#include "viz/imgui_helpers.h"
#include "viz/theme.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace app {

namespace {

using kernels::Measurement;
using viz::em;
using viz::tooltip;

// A lesson step pointing at the item just drawn (an id of app/core/lesson.cpp's highlight_ids()):
// ring it. Drawn in the window's draw list, clipped to the window, so it scrolls with the item.
void ring_if_highlighted(const AppState& state, const char* id) {
    if (state.highlight != id) return;
    viz::scroll_into_view_once(highlight_key(state), ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    draw->PushClipRect(pos, ImVec2(pos.x + size.x, pos.y + size.y), false);
    const float pulse = highlight_pulse(state, ImGui::GetTime());
    // Kept inside the window: an item flush with the pane's edge still gets its whole ring.
    const float margin = em() * 0.35f;
    const ImVec2 a(std::max(ImGui::GetItemRectMin().x, pos.x + margin), std::max(ImGui::GetItemRectMin().y, pos.y + margin));
    const ImVec2 b(std::min(ImGui::GetItemRectMax().x, pos.x + size.x - margin),
                   std::min(ImGui::GetItemRectMax().y, pos.y + size.y - margin));
    viz::draw_highlight_ring(draw, a, b, em(), pulse);
    draw->PopClipRect();
}

void draw_charts(AppState& state) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float width = ImGui::GetContentRegionAvail().x;
    // Charts take the height the table leaves, within reason: taller bars read better from afar,
    // but a bar chart of two bars stretched over a whole screen does not.
    const float bytes_extra = ImGui::GetFrameHeightWithSpacing() + em() * 2.5f;  // legend, radio row
    const float spare = ImGui::GetContentRegionAvail().y - results_table_height(state) - style.ItemSpacing.y * 4;
    if (width < em() * 44) {  // side by side only when each chart keeps ~22 em
        ImGui::BeginGroup();
        draw_time_chart(state, width, 0);
        ImGui::EndGroup();
        ring_if_highlighted(state, "results.time_chart");
        ImGui::Spacing();
        ImGui::BeginGroup();
        draw_bytes_chart(state, width, 0);
        ImGui::EndGroup();
        ring_if_highlighted(state, "results.bytes_chart");
        return;
    }
    const float plot_h = std::min(spare - bytes_extra, em() * 16);
    const float half = (width - style.ItemSpacing.x * 2) * 0.5f;
    ImGui::BeginGroup();
    draw_time_chart(state, half, plot_h);
    ImGui::EndGroup();
    ring_if_highlighted(state, "results.time_chart");
    ImGui::SameLine(0, style.ItemSpacing.x * 2);
    ImGui::BeginGroup();
    draw_bytes_chart(state, half, plot_h);
    ImGui::EndGroup();
    ring_if_highlighted(state, "results.bytes_chart");
}

// One sentence that says what the numbers mean: how much faster the fastest variant is than the
// slowest, and the reason the lesson claims (fewer bytes, fewer launches) as numbers.
std::string takeaway(const std::vector<const Measurement*>& shown) {
    const Measurement* fast = nullptr;
    const Measurement* slow = nullptr;
    for (const Measurement* m : shown) {
        if (!m->ok || !(m->time.median_ms > 0)) continue;
        if (!fast || m->time.median_ms < fast->time.median_ms) fast = m;
        if (!slow || m->time.median_ms > slow->time.median_ms) slow = m;
    }
    if (!fast || fast == slow) return {};
    // A recorded backend may set a recording beside the model's estimate: the ratio says so.
    const std::string how = fast->device.simulated && slow->device.simulated ? " (model estimate)"
                            : fast->device.simulated != slow->device.simulated
                                ? " (" + (fast->device.simulated ? slow : fast)->source_tag() + " vs model estimate)"
                            : fast->recorded() ? " (recorded " + fast->recorded_date + ")"
                                               : "";
    std::string text = fast->job.variant + " is " + ratio_text(slow->time.median_ms / fast->time.median_ms) +
                       " faster than " + slow->job.variant + how;
    if (fast->bytes() && fast->bytes() < slow->bytes())
        text += ": it moves " + kernels::format_bytes(static_cast<double>(fast->bytes())) + " of HBM traffic instead of " +
                kernels::format_bytes(static_cast<double>(slow->bytes())) + " (" +
                ratio_text(static_cast<double>(slow->bytes()) / static_cast<double>(fast->bytes())) + " fewer bytes)";
    const int64_t fast_kernels = kernels::launched_kernels(fast->kernels), slow_kernels = kernels::launched_kernels(slow->kernels);
    if (fast_kernels < slow_kernels)
        text += std::string(fast->bytes() < slow->bytes() ? " in " : ": ") + std::to_string(fast_kernels) +
                (fast_kernels == 1 ? " kernel" : " kernels") + " instead of " + std::to_string(slow_kernels);
    return text + ".";
}

}  // namespace

void draw_results_page(AppState& state, const ResolvedBackend& backend) {
    ImGui::PushFont(viz::heading_font());
    ImGui::TextUnformatted("Results");
    ImGui::PopFont();
    if (!state.lesson.classroom) draw_toolbar(state);  // the presenter view shows only the step's controls
    ImGui::Separator();
    if (const std::string text = takeaway(visible_results(state)); !text.empty()) {
        ImGui::PushFont(viz::bold_font());
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(text.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopFont();
        ring_if_highlighted(state, "results.takeaway");
        tooltip("Time is what the user feels; bytes and launches are why. A memory-bound kernel's time is about "
                "its HBM bytes / bandwidth, so moving fewer bytes (no intermediates written and read back) and "
                "launching fewer kernels is what fusion buys.");
    }
    // Charts first: they are what a room reads from afar; the table holds the exact numbers.
    draw_charts(state);
    ImGui::Spacing();
    ImGui::BeginGroup();
    draw_results_table(state, backend);
    ImGui::EndGroup();
    ring_if_highlighted(state, "results.table");
    draw_reference_rows(state);
}

}  // namespace app
