// The status line.
#include "app/gui/panel_status.h"

#include "app/core/panels_state.h"
#include "app/core/runner.h"
#include "viz/imgui_helpers.h"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

namespace app {

namespace {

using viz::em;
using viz::error_color;
using viz::tooltip;

// A rotating arc while the runner works: the UI never blocks, so motion shows it is alive.
void busy_spinner() {
    const float r = em() * 0.4f;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 center(at.x + r, at.y + ImGui::GetTextLineHeight() * 0.5f);
    const float start = static_cast<float>(ImGui::GetTime()) * 6.0f;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PathArcTo(center, r, start, start + 4.5f, 16);
    draw->PathStroke(ImGui::GetColorU32(ImGuiCol_Text), 0, std::max(1.5f, em() / 8));
    ImGui::Dummy(ImVec2(r * 2, ImGui::GetTextLineHeight()));
}

// Status parts, most important first; the line keeps as many as fit its width.
std::vector<std::string> device_parts(const kernels::DeviceInfo& d) {
    std::vector<std::string> parts;
    parts.push_back(d.name.empty() ? std::string("no device") : d.name);
    parts.push_back("driver " + (d.driver.empty() ? std::string("n/a") : d.driver));
    parts.push_back("SM " + (d.sm_clock_mhz ? std::to_string(d.sm_clock_mhz) + " MHz" : std::string("n/a")) +
                    ", memory " + (d.mem_clock_mhz ? std::to_string(d.mem_clock_mhz) + " MHz" : std::string("n/a")));
    if (d.cc_major) parts.push_back("sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor));
    return parts;
}

std::string join_fitting(const std::vector<std::string>& parts, float width) {
    std::string line;
    for (const std::string& part : parts) {
        const std::string next = line.empty() ? part : line + "  |  " + part;
        if (!line.empty() && ImGui::CalcTextSize(next.c_str()).x > width) break;
        line = next;
    }
    return line;
}

}  // namespace

void draw_status_line(const AppState& state, const Runner& runner, const ResolvedBackend& backend) {
    ImGui::Separator();
    if (runner.busy() || !runner.gpu_probed()) {
        busy_spinner();
        ImGui::SameLine();
        // The live loop's pass (app/core/panels_state.h): a quick answer first, then the full one.
        const char* what = !runner.busy()              ? "probing for a CUDA GPU"
                           : state.sweep.running       ? "sweeping"
                           : state.live.quick_running  ? "measuring: quick pass"
                           : state.live.full_running && backend.kind == kernels::BackendKind::gpu
                               ? "measuring: full pass + counters"
                               : "measuring";
        ImGui::TextUnformatted(what);
        ImGui::SameLine();
    }
    std::vector<std::string> parts =
        backend.ready ? device_parts(backend.device) : std::vector<std::string>{"device: probing"};
    // A recording: what it is comes first, so the narrowest status line still says "recorded".
    if (backend.ready && backend.kind == kernels::BackendKind::recorded)
        parts.insert(parts.begin(), "recorded " + backend.recording_date + " (else simulated " + backend.sim_key + ")");
    const std::string all = join_fitting(parts, 1e9f);
    const InlineMessage& note = state.settings_message;
    // A settings problem takes the room of the less important device details.
    const float note_w = note.text.empty() ? 0.0f : std::min(ImGui::CalcTextSize(note.text.c_str()).x + em() * 2,
                                                             ImGui::GetContentRegionAvail().x * 0.5f);
    ImGui::TextUnformatted(join_fitting(parts, ImGui::GetContentRegionAvail().x - note_w).c_str());
    const std::string recording = recording_line(backend);
    tooltip(all + "\n\nWhere the numbers come from: device, driver version, clocks (as the driver reports them; "
                  "simulated: the datasheet boost clock) and compute capability." +
            (recording.empty() ? std::string() : "\n" + recording + "; numbers it lacks are simulated.") + "\n" +
            state.font_note);
    if (!note.text.empty()) {
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, note.error ? error_color() : ImGui::GetStyleColorVec4(ImGuiCol_Text));
        ImGui::TextUnformatted(("|  " + note.text).c_str());
        ImGui::PopStyleColor();
        tooltip(note.text);
    }
}

}  // namespace app
