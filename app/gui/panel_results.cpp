// The Measurements tab's layout: charts sized to the room the table leaves.
#include "app/gui/panel_results.h"

#include "app/lessons/lesson_player.h"
#include "app/core/panels_state.h"
#include "app/gui/panel_charts.h"
#include "app/gui/panel_helpers.h"
#include "app/gui/panel_results_table.h"
#include "app/gui/panel_toolbar.h"
#include "app/gui/view_tabs.h"
#include "app/lessons/vocabulary.h"
#include "kernels/core/format.h"
#include "kernels/core/timeline.h"
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

// A lesson step pointing at the item just drawn (an id of app/lessons/vocabulary.h's highlight_ids()):
// ring it. Drawn in the window's draw list, clipped to the window, so it scrolls with the item.
void ring_if_highlighted(const AppState& state, const char* id) {
    if (state.highlight != id || state.capturing) return;  // an exported picture has no ring
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

void draw_charts(AppState& state, const ResolvedBackend& backend) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float width = ImGui::GetContentRegionAvail().x;
    // Charts take the height the table leaves, within reason: taller bars read better from afar,
    // but a bar chart of two bars stretched over a whole screen does not.
    const float bytes_extra = ImGui::GetFrameHeightWithSpacing() + em() * 2.5f;  // legend, radio row
    const float spare = ImGui::GetContentRegionAvail().y - results_table_height(state) - style.ItemSpacing.y * 4;
    if (width < em() * 44) {  // side by side only when each chart keeps ~22 em
        ImGui::BeginGroup();
        draw_time_chart(state, backend, width, 0);
        ImGui::EndGroup();
        ring_if_highlighted(state, "results.time_chart");
        ImGui::Spacing();
        ImGui::BeginGroup();
        draw_bytes_chart(state, backend, width, 0);
        ImGui::EndGroup();
        ring_if_highlighted(state, "results.bytes_chart");
        return;
    }
    const float plot_h = std::min(spare - bytes_extra, em() * 16);
    const float half = (width - style.ItemSpacing.x * 2) * 0.5f;
    ImGui::BeginGroup();
    draw_time_chart(state, backend, half, plot_h);
    ImGui::EndGroup();
    ring_if_highlighted(state, "results.time_chart");
    ImGui::SameLine(0, style.ItemSpacing.x * 2);
    ImGui::BeginGroup();
    draw_bytes_chart(state, backend, half, plot_h);
    ImGui::EndGroup();
    ring_if_highlighted(state, "results.bytes_chart");
}

}  // namespace

void draw_results_page(AppState& state, const ResolvedBackend& backend) {
    ImGui::PushFont(viz::heading_font());
    ImGui::TextUnformatted("Results");
    ImGui::PopFont();
    if (!state.lesson.classroom) draw_toolbar(state);  // the presenter view shows only the step's controls
    ImGui::Separator();
    // The headline: each variant against the baseline its definition names (never fastest against
    // slowest), one line per pair; a pair whose two sides belong to different settings waits.
    const std::vector<const Measurement*> shown = visible_results(state);
    std::vector<bool> stale;
    for (const Measurement* m : shown) stale.push_back(is_stale(*m, state.settings, backend));
    if (const std::vector<HeadlineLine> lines = headline_lines(shown, stale); !lines.empty()) {
        ImGui::BeginGroup();
        ImGui::PushFont(viz::bold_font());
        ImGui::PushTextWrapPos(0.0f);
        for (const HeadlineLine& line : lines) {
            if (line.stale) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
            ImGui::TextUnformatted(line.text.c_str());
            if (line.stale) ImGui::PopStyleColor();
        }
        ImGui::PopTextWrapPos();
        ImGui::PopFont();
        ImGui::EndGroup();
        ring_if_highlighted(state, "results.takeaway");
        if (state.interactive)
            tooltip("Each variant against the baseline its workload's definition names: what that one change bought. "
                    "Time is what the user feels; DRAM bytes and launches are why. A memory-bound kernel's time is "
                    "about its DRAM bytes / bandwidth, so moving fewer bytes (no intermediates written and read "
                    "back) and launching fewer kernels is what fusion buys. Greyed: numbers of earlier settings.");
    }
    // Charts first: they are what a room reads from afar; the table holds the exact numbers.
    draw_charts(state, backend);
    ImGui::Spacing();
    ImGui::BeginGroup();
    draw_results_table(state, backend);
    ImGui::EndGroup();
    ring_if_highlighted(state, "results.table");
    draw_reference_rows(state);
}

}  // namespace app
