// The view tab bar: a shot or a lesson step selects a tab through AppState::requested_view.
#include "app/gui/view_tabs.h"

#include "app/core/panels_state.h"
#include "app/core/views.h"
#include "app/gui/panel_memory.h"
#include "app/gui/panel_results.h"
#include "app/gui/panel_roofline.h"
#include "app/gui/panel_sweep.h"
#include "app/gui/panel_timeline.h"

#include <imgui.h>

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

void draw_view_tabs(AppState& state, const ResolvedBackend& backend) {
    if (!ImGui::BeginTabBar("views")) return;
    for (const ViewInfo& view : views()) {
        const bool requested = state.requested_view == view.id;
        const ImGuiTabItemFlags flags = requested ? ImGuiTabItemFlags_SetSelected : 0;
        const bool open = ImGui::BeginTabItem(view.label, nullptr, flags);
        if (state.interactive && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", view.help);
        if (!open) continue;
        state.active_view = view.id;
        state.memory.tab_active = state.active_view == "memory";
        draw_view(view.id, state, backend);
        ImGui::EndTabItem();
    }
    if (state.interactive) state.requested_view.clear();  // shots keep it for every frame
    ImGui::EndTabBar();
}

}  // namespace app
