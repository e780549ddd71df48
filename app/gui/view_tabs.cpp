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
#include "app/gui/screenshot.h"

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

// The tab bar's "Export" menu: the open view alone as PNG, each of its charts as PNG or SVG, and
// the memory animation as an animated GIF (app/gui/screenshot.h does the capturing).
void export_menu(AppState& state) {
    if (!state.interactive || state.capturing) return;
    if (ImGui::TabItemButton("Export...", ImGuiTabItemFlags_Trailing | ImGuiTabItemFlags_NoTooltip))
        ImGui::OpenPopup("export_pictures");
    if (!ImGui::BeginPopup("export_pictures")) return;
    const ViewInfo* view = find_view(state.active_view);
    const std::string view_label = view ? view->label : state.active_view;
    if (ImGui::MenuItem((view_label + " view alone as PNG").c_str())) request_picture(state, "view:" + state.active_view, "png");
    for (const ChartInfo& c : charts()) {
        if (state.active_view != c.view) continue;
        if (ImGui::MenuItem((std::string(c.label) + " as PNG").c_str())) request_picture(state, c.id, "png");
        if (ImGui::MenuItem((std::string(c.label) + " as SVG").c_str())) request_picture(state, c.id, "svg");
    }
    if (state.active_view == "memory") {
        const std::string what = state.memory.side_by_side ? "the side-by-side pair" : "one variant";
        if (ImGui::MenuItem(("Animation as GIF (" + what + ", " + std::to_string(kDefaultGifFrames) + " frames)").c_str()))
            request_picture(state, "view:memory", "gif", kDefaultGifFrames);
    }
    ImGui::Separator();
    ImGui::TextDisabled("Saved in the export folder; no tooltip, hover or watermark over the values.");
    ImGui::EndPopup();
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
    export_menu(state);
    for (const ViewInfo& view : views()) {
        const bool requested = state.requested_view == view.id;
        const ImGuiTabItemFlags flags = requested ? ImGuiTabItemFlags_SetSelected : 0;
        const bool open = ImGui::BeginTabItem(view.label, nullptr, flags);
        if (compact && open) ImGui::PopStyleVar();  // the page keeps the usual padding
        if (state.interactive && !state.capturing && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", view.help);
        if (!open) continue;
        state.active_view = view.id;
        state.memory.tab_active = state.active_view == "memory";
        // The view's whole page, for a picture of it alone ("view:<id>"; app/gui/screenshot.h).
        const ImVec2 at = ImGui::GetCursorScreenPos(), room = ImGui::GetContentRegionAvail();
        record_picture_rect(state, "view:" + std::string(view.id), at.x, at.y, at.x + room.x, at.y + room.y);
        draw_view(view.id, state, backend);
        if (compact) ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(padding.x, std::round(padding.y * 0.4f)));
        ImGui::EndTabItem();
    }
    if (compact) ImGui::PopStyleVar();
    if (state.interactive) state.requested_view.clear();  // shots keep it for every frame
    ImGui::EndTabBar();
}

}  // namespace app
