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

#include <algorithm>
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

// The tab bar's width taken by every view's title (full or short) and the export button when shown,
// at side padding `pad`.
float tab_titles_width(const AppState& state, bool short_labels, float pad) {
    const ImGuiStyle& style = ImGui::GetStyle();
    float width = 0;
    for (const ViewInfo& view : views())
        width += ImGui::CalcTextSize(short_labels ? view.short_label : view.label).x + pad * 2 + style.ItemInnerSpacing.x;
    if (state.interactive && !state.capturing) width += ImGui::CalcTextSize("Export...").x + pad * 2 + style.ItemInnerSpacing.x;
    return width;
}

// The side padding that lets the short titles fit whole (ImGui elides what does not fit), at most
// the style's and at least a fifth of it.
float short_tab_padding(const AppState& state) {
    const float pad = ImGui::GetStyle().FramePadding.x, room = ImGui::GetContentRegionAvail().x;
    const float spare = room - tab_titles_width(state, true, 0);
    const size_t tabs = views().size() + (state.interactive && !state.capturing ? 1 : 0);  // and "Export..."
    return std::clamp(std::floor(spare / (2.0f * static_cast<float>(tabs))) - 1.0f, std::round(pad * 0.2f), pad);
}

}  // namespace

std::string highlight_key(const AppState& state) {
    if (state.highlight.empty()) return {};
    return std::to_string(state.lesson.lesson) + "/" + std::to_string(state.lesson.step) + "/" + state.highlight + "/" +
           std::to_string(state.lesson.step_entered_at);
}

void draw_view_tabs(AppState& state, const ResolvedBackend& backend) {
    const ImVec2 padding = ImGui::GetStyle().FramePadding;
    // Where the full titles do not fit (projector fonts beside a lesson), the short ones, with as
    // much side padding as leaves them whole: ImGui would elide "Measurements" to "Meas...".
    const bool short_labels = tab_titles_width(state, false, padding.x) > ImGui::GetContentRegionAvail().x;
    // The presenter layout's tabs are a third shorter: the views below need the height more.
    const bool compact = presenter_layout(state);
    const ImVec2 tab_padding(short_labels ? short_tab_padding(state) : padding.x,
                             compact ? std::round(padding.y * 0.4f) : padding.y);
    // The tab bar keeps the padding it begins with, for every tab it draws; each page gets the usual.
    const bool own_padding = short_labels || compact;
    // Where the short titles do not fit even so (a scroll bar beside, a fourth of the screen), the
    // titles, not the pages, take a smaller font: never below three quarters of it.
    const float bar_w = ImGui::GetContentRegionAvail().x, needed = short_labels ? tab_titles_width(state, true, tab_padding.x) : 0;
    const float tab_font = needed > bar_w ? std::max(0.75f, bar_w / needed) : 1.0f;
    if (tab_font < 1.0f) ImGui::SetWindowFontScale(tab_font);
    if (own_padding) ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, tab_padding);
    const bool bar = ImGui::BeginTabBar("views");
    if (!bar) {
        if (own_padding) ImGui::PopStyleVar();
        if (tab_font < 1.0f) ImGui::SetWindowFontScale(1.0f);
        return;
    }
    export_menu(state);
    for (const ViewInfo& view : views()) {
        const bool requested = state.requested_view == view.id;
        const ImGuiTabItemFlags flags = requested ? ImGuiTabItemFlags_SetSelected : 0;
        // "###id": the tab keeps its identity (and selection) whichever title it shows.
        const std::string title = std::string(short_labels ? view.short_label : view.label) + "###" + view.id;
        const bool open = ImGui::BeginTabItem(title.c_str(), nullptr, flags);
        if (own_padding && open) ImGui::PopStyleVar();  // the page keeps the usual padding and font
        if (tab_font < 1.0f && open) ImGui::SetWindowFontScale(1.0f);
        if (state.interactive && !state.capturing && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", view.help);
        if (!open) continue;
        state.active_view = view.id;
        state.memory.tab_active = state.active_view == "memory";
        // The view's whole page, for a picture of it alone ("view:<id>"; app/gui/screenshot.h).
        const ImVec2 at = ImGui::GetCursorScreenPos(), room = ImGui::GetContentRegionAvail();
        record_picture_rect(state, "view:" + std::string(view.id), at.x, at.y, at.x + room.x, at.y + room.y);
        draw_view(view.id, state, backend);
        if (own_padding) ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, tab_padding);
        if (tab_font < 1.0f) ImGui::SetWindowFontScale(tab_font);
        ImGui::EndTabItem();
    }
    if (own_padding) ImGui::PopStyleVar();
    if (tab_font < 1.0f) ImGui::SetWindowFontScale(1.0f);
    if (state.interactive) state.requested_view.clear();  // shots keep it for every frame
    ImGui::EndTabBar();
}

}  // namespace app
