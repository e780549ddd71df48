// The main window's layout (wide: controls beside the views; narrow: the parameters fold behind a
// header) and its keyboard shortcuts.
#include "app/gui/main_window.h"

#include "app/core/panels_state.h"
#include "app/gui/panel_banner.h"
#include "app/gui/panel_lesson.h"
#include "app/gui/panel_parameters.h"
#include "app/gui/panel_status.h"
#include "app/gui/panel_toolbar.h"
#include "app/gui/view_tabs.h"
#include "kernels/core/backend.h"
#include "kernels/core/registry.h"
#include "viz/imgui_helpers.h"

#include <imgui.h>

#define GLFW_INCLUDE_NONE  // key codes only; no GL header here
#include <GLFW/glfw3.h>

#include <algorithm>
#include <string>

namespace app {

namespace {

using viz::em;

// What the collapsed parameters header says, so a projector audience knows what is measured.
std::string parameters_summary(const Settings& s, const ResolvedBackend& backend) {
    const kernels::Params& p = s.params;
    std::string text = p.workload + ", " + kernels::workload_def(p).describe(p, "") + ", " + kernels::to_string(p.dtype);
    if (backend.ready)
        text += backend.kind == kernels::BackendKind::gpu        ? std::string(", GPU")
                : backend.kind == kernels::BackendKind::recorded ? ", recorded " + backend.sim_key
                                                                 : ", simulated " + backend.sim_key;
    return text;
}

}  // namespace

void draw_main_window(AppState& state, Runner& runner) {
    const ResolvedBackend backend = current_backend(state, runner);
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(viewport->Pos);
    ImGui::SetNextWindowSize(viewport->Size);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
    ImGui::Begin("fusionlab", nullptr, flags);

    draw_banner(state, runner, backend);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float status_h = ImGui::GetTextLineHeight() + style.ItemSpacing.y * 3;
    const float body_h = std::max(ImGui::GetContentRegionAvail().y - status_h, em() * 4);
    const float total_w = ImGui::GetContentRegionAvail().x;

    if (state.lesson.open) {
        // A lesson: its pane on the left, the step's view on the right (app/gui/panel_lesson.cpp).
        draw_lesson_layout(state, runner, backend, body_h);
    } else if (total_w >= em() * 50) {
        // Wide: controls on the left, results on the right, each scrolling on its own. The memory
        // animation may hide the controls to take the whole width (its panel names the parameters).
        if (!(state.memory.tab_active && state.memory.full_width)) {
            const float controls_w = std::clamp(em() * 20, em() * 15, total_w * 0.33f);
            ImGui::BeginChild("controls", ImVec2(controls_w, body_h), true);
            draw_lesson_launcher(state);
            draw_parameters_panel(state, runner, backend);
            ImGui::Spacing();
            draw_export_folder(state);
            ImGui::EndChild();
            ImGui::SameLine();
        }
        ImGui::BeginChild("results", ImVec2(0, body_h), false);
        draw_view_tabs(state, backend);
        ImGui::EndChild();
    } else {
        // Narrow (large fonts on a small screen): one column; the parameters fold away behind a
        // header that still says what is being measured.
        ImGui::BeginChild("page", ImVec2(0, body_h), false);
        const std::string header = "Parameters: " + parameters_summary(state.settings, backend) + "###parameters";
        // The lessons button and the header share one line: at projector fonts every line of
        // chrome is a line the views lose. (The launcher draws only in interactive windows.)
        draw_lesson_launcher(state);
        if (state.interactive) ImGui::SameLine();
        if (ImGui::CollapsingHeader(header.c_str())) {
            ImGui::Indent(em() * 0.5f);
            draw_parameters_panel(state, runner, backend);
            ImGui::Spacing();
            draw_export_folder(state);
            ImGui::Unindent(em() * 0.5f);
        }
        draw_view_tabs(state, backend);
        ImGui::EndChild();
    }

    draw_status_line(state, runner, backend);
    ImGui::End();
}

void handle_shortcuts(AppState& state) {
    const ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsKeyPressed(GLFW_KEY_F12, false)) state.png_requested = true;
    if (!io.KeyCtrl) return;
    float& scale = state.settings.font_scale;
    const float before = scale;
    if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD, false)) scale += 0.25f;
    if (ImGui::IsKeyPressed(GLFW_KEY_MINUS, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT, false)) scale -= 0.25f;
    scale = std::clamp(scale, kMinFontScale, kMaxFontScale);
    if (scale != before) state.settings_dirty = true;
}

}  // namespace app
