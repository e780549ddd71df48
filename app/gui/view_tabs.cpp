// The view tab bar: a shot or a lesson step selects a tab through AppState::requested_view.
#include "app/gui/view_tabs.h"

#include "app/core/panels_state.h"
#include "app/core/views.h"
#include "app/gui/panel_banner.h"
#include "app/gui/panel_memory.h"
#include "app/gui/panel_results.h"
#include "app/gui/panel_roofline.h"
#include "app/gui/panel_sweep.h"
#include "app/gui/panel_timeline.h"

#include <imgui.h>

#include <cmath>
#include <string>

namespace app {

namespace {

// The views of app/core/views.h share the right-hand side as tabs; each id draws one page.
void draw_view(const std::string& id, AppState& state, const ResolvedBackend& backend) {
    if (id == "results") draw_results_page(state, backend);
    else if (id == "memory") draw_memory_panel(state, backend);
    else if (id == "timeline") draw_timeline_panel(state, backend);
    else if (id == "roofline") draw_roofline_panel(state, backend);
    else if (id == "sweep") draw_sweep_panel(state, backend);
}

}  // namespace

std::string highlight_key(const AppState& state) {
    if (state.highlight.empty()) return {};
    return std::to_string(state.lesson.lesson) + "/" + std::to_string(state.lesson.step) + "/" + state.highlight + "/" +
           std::to_string(state.lesson.step_entered_at);
}

void draw_view_tabs(AppState& state, const ResolvedBackend& backend) {
    // The presenter layout's tabs are a third shorter: the views below need the height more.
    const bool compact = presenter_layout(state);
    const ImVec2 padding = ImGui::GetStyle().FramePadding;
    if (compact) ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(padding.x, std::round(padding.y * 0.4f)));
    const bool bar = ImGui::BeginTabBar("views");
    if (!bar) {
        if (compact) ImGui::PopStyleVar();
        return;
    }
    for (const ViewInfo& view : views()) {
        const bool requested = state.requested_view == view.id;
        const ImGuiTabItemFlags flags = requested ? ImGuiTabItemFlags_SetSelected : 0;
        const bool open = ImGui::BeginTabItem(view.label, nullptr, flags);
        if (compact && open) ImGui::PopStyleVar();  // the page keeps the usual padding
        if (state.interactive && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", view.help);
        if (!open) continue;
        state.active_view = view.id;
        state.memory.tab_active = state.active_view == "memory";
        draw_view(view.id, state, backend);
        if (compact) ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(padding.x, std::round(padding.y * 0.4f)));
        ImGui::EndTabItem();
    }
    if (compact) ImGui::PopStyleVar();
    if (state.interactive) state.requested_view.clear();  // shots keep it for every frame
    ImGui::EndTabBar();
}

}  // namespace app
