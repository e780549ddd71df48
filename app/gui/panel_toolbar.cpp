// The toolbar above the results and the export folder below the parameters.
#include "app/gui/panel_toolbar.h"

#include "app/core/panels_state.h"
#include "viz/imgui_helpers.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>

namespace app {

namespace {

using viz::error_color;
using viz::section_heading;
using viz::success_color;
using viz::tooltip;
using viz::wrapped_colored;

// Keeps toolbar items on one line while they fit, wrapping to the next line when they do not
// (at 3x fonts a toolbar is wider than the pane).
void same_line_if_fits(float next_width) {
    const float last_right = ImGui::GetItemRectMax().x;
    const float limit = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (last_right + ImGui::GetStyle().ItemSpacing.x * 2 + next_width <= limit) ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 2);
}

float button_width(const char* label) {
    return ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2;
}

void export_buttons(AppState& state) {
    same_line_if_fits(button_width("Export CSV"));
    if (ImGui::Button("Export CSV")) state.export_message = export_results(state, "csv");
    tooltip("One row per variant: device, driver, clocks, build, backend, parameters, times, bytes, FLOPs, "
            "rates and error. Written to the export folder (left panel), atomically.");
    same_line_if_fits(button_width("JSON"));
    if (ImGui::Button("JSON")) state.export_message = export_results(state, "json");
    tooltip("The same fields as the CSV, as JSON.");
    same_line_if_fits(button_width("PNG (F12)"));
    if (ImGui::Button("PNG (F12)")) state.png_requested = true;
    tooltip("A screenshot of this window, exactly as shown (also the F12 key).");
}

void font_scale_buttons(AppState& state) {
    Settings& s = state.settings;
    const std::string help = "Projector mode: scales everything, 1x to 3x. Fonts are re-rasterised at the new pixel "
                             "size (crisp, not stretched) and every widget and gap scales with them. "
                             "Ctrl + and Ctrl - work too.";
    char value[16];
    std::snprintf(value, sizeof value, "font %.2fx", static_cast<double>(s.font_scale));
    const float group_w = ImGui::CalcTextSize(value).x + button_width(" - ") * 2 + ImGui::GetStyle().ItemSpacing.x * 2;
    same_line_if_fits(group_w);
    ImGui::BeginGroup();
    ImGui::BeginDisabled(s.font_scale <= kMinFontScale);
    if (ImGui::Button(" - ")) { s.font_scale = std::max(kMinFontScale, s.font_scale - 0.25f); state.settings_dirty = true; }
    ImGui::EndDisabled();
    tooltip(help);
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(value);
    tooltip(help);
    ImGui::SameLine();
    ImGui::BeginDisabled(s.font_scale >= kMaxFontScale);
    if (ImGui::Button(" + ")) { s.font_scale = std::min(kMaxFontScale, s.font_scale + 0.25f); state.settings_dirty = true; }
    ImGui::EndDisabled();
    tooltip(help);
    ImGui::EndGroup();
}

void theme_button(AppState& state) {
    Settings& s = state.settings;
    const char* label = s.theme == viz::Theme::dark ? "theme: dark" : "theme: light";
    same_line_if_fits(button_width(label));
    if (ImGui::Button(label)) {
        s.theme = s.theme == viz::Theme::dark ? viz::Theme::light : viz::Theme::dark;
        state.settings_dirty = true;
    }
    tooltip("Click to switch. Dark for dim rooms and screens, light for bright rooms and projectors; both high "
            "contrast, with a colour-blind-safe palette (Okabe-Ito) in the charts.");
}

// The teacher's switch for the lessons' predictions (also in the lesson pane): off, a step shows its
// numbers at once and asks nothing.
void predictions_box(AppState& state) {
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize("Predictions").x);
    if (ImGui::Checkbox("Predictions", &state.settings.predictions)) state.settings_dirty = true;
    tooltip("Lessons ask the class to predict a number or a choice before a step shows its numbers, and reveal how "
            "far off the answer was. Off: every step shows its numbers at once.");
}

}  // namespace

void draw_toolbar(AppState& state) {
    export_buttons(state);
    font_scale_buttons(state);
    theme_button(state);
    predictions_box(state);
    if (!state.export_message.text.empty())
        wrapped_colored(state.export_message.error ? error_color() : success_color(), state.export_message.text);
}

void draw_export_folder(AppState& state) {
    section_heading("Export folder");
    Settings& s = state.settings;
    const std::string help = "Folder for CSV, JSON and PNG files (empty: the folder fusionlab was started in). "
                             "Files are named fusionlab-<workload>-<date>-<time>.<ext> and written atomically: "
                             "a failed write leaves no partial file.";
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::InputTextWithHint("##exportdir", "current folder", &s.export_dir)) state.settings_dirty = true;
    tooltip(help);
}

}  // namespace app
