// The banner: what kind of numbers the window shows, loud enough to read from the back row.
#include "app/gui/panel_banner.h"

#include "app/core/panels_state.h"
#include "app/core/runner.h"
#include "viz/imgui_helpers.h"
#include "viz/palette.h"
#include "viz/theme.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace app {

namespace {

using viz::em;
using viz::tooltip;

// The first clause of a long reason ("this build has no CUDA kernels"); the rest goes to a tooltip.
std::string first_clause(const std::string& reason) {
    const size_t cut = reason.find_first_of(";(:");
    std::string head = reason.substr(0, cut);
    while (!head.empty() && head.back() == ' ') head.pop_back();
    return head.empty() ? reason : head;
}

}  // namespace

void draw_banner(const AppState& state, const Runner& runner, const ResolvedBackend& backend) {
    std::vector<std::string> lines;
    if (backend.ready && backend.kind == kernels::BackendKind::simulated)
        lines.push_back("SIMULATED \xE2\x80\x94 " + plain_device_name(backend.device) +
                        ": times are model estimates, not measurements");
    const bool recorded = backend.ready && backend.kind == kernels::BackendKind::recorded && state.imported_from.empty();
    if (recorded)
        lines.push_back("RECORDED \xE2\x80\x94 " + backend.device.name + ", " + backend.recording_date +
                        "; what it lacks: simulated " + backend.sim_key);
    const bool imported = !state.imported_from.empty();
    if (imported)
        lines.push_back("IMPORTED \xE2\x80\x94 measured on " + plain_device_name(backend.device) +
                        (backend.device.simulated || backend.device.driver.empty() ? "" : " (" + backend.device.driver + ")") + ", read from " +
                        std::filesystem::path(state.imported_from).filename().string() +
                        "; change a parameter to measure here");
    // A recording was chosen to be shown: whether this machine has a GPU is not news (the tooltip says).
    const bool no_gpu = runner.gpu_probed() && !runner.gpu_available() && !imported && !recorded;
    // The reason can be a long driver error: the banner names it in a few words, the tooltip in full.
    if (no_gpu) {
        std::string why = first_clause(runner.gpu_status());
        if (why.size() > 40) why = "hover for why";
        lines.push_back("No CUDA GPU: " + why + " \xE2\x80\x94 simulated mode");
    }
    if (lines.empty()) return;

    // Black on Okabe-Ito yellow: the highest-contrast pair that still reads as a warning on both
    // themes and on a washed-out projector. Bold text, body size: loud but not a third of the screen.
    ImFont* font = viz::bold_font();
    const float pad = std::round(em() * 0.4f);
    const float width = ImGui::GetContentRegionAvail().x;
    float height = pad * 2;
    std::vector<float> line_heights;
    for (const std::string& line : lines) {
        const float h = font->CalcTextSizeA(font->FontSize, FLT_MAX, width - pad * 2, line.c_str()).y;
        line_heights.push_back(h);
        height += h;
    }
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(at, ImVec2(at.x + width, at.y + height), viz::rgb(viz::kOkabeIto[3]));
    draw->AddRect(at, ImVec2(at.x + width, at.y + height), IM_COL32(0, 0, 0, 255), 0, 0, std::max(1.0f, em() / 10));
    float y = at.y + pad;
    for (size_t i = 0; i < lines.size(); ++i) {
        draw->AddText(font, font->FontSize, ImVec2(at.x + pad, y), IM_COL32(0, 0, 0, 255), lines[i].c_str(), nullptr,
                      width - pad * 2);
        y += line_heights[i];
    }
    ImGui::Dummy(ImVec2(width, height));
    tooltip((recorded ? recording_line(backend) + "\nEach number says whether it is recorded or simulated.\n\n"
                      : std::string()) +
            "Simulated numbers come from the same byte and FLOP model as a GPU run, priced resource by resource on "
            "a calibrated GPU: they show trends, not this machine's speed. Every export and screenshot made "
            "from them says so." +
            (runner.gpu_probed() && !runner.gpu_available() ? "\n\nWhy no GPU: " + runner.gpu_status() : std::string()));
}

}  // namespace app
