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

// A banner message in its full wording and a short one for one-line banners.
struct Message {
    std::string full, brief;
};

}  // namespace

bool presenter_layout(const AppState& state) { return state.lesson.classroom || state.settings.font_scale >= 1.5f; }

std::string elide_to_width(const std::string& text, float width, ImFont* font) {
    ImFont* f = font ? font : ImGui::GetFont();
    return viz::elide_to_fit(text, width, [&](const std::string& s) { return f->CalcTextSizeA(f->FontSize, FLT_MAX, 0, s.c_str()).x; });
}

void draw_banner(const AppState& state, const Runner& runner, const ResolvedBackend& backend) {
    std::vector<Message> messages;
    const std::string dash = " \xE2\x80\x94 ";
    if (backend.ready && backend.kind == kernels::BackendKind::simulated)
        messages.push_back({"SIMULATED" + dash + plain_device_name(backend.device) + ": times are model estimates, not measurements",
                            "SIMULATED" + dash + plain_device_name(backend.device) + ": model estimates"});
    const bool recorded = backend.ready && backend.kind == kernels::BackendKind::recorded && state.imported_from.empty();
    if (recorded)
        messages.push_back({"RECORDED" + dash + backend.device.name + ", " + backend.recording_date +
                                "; what it lacks: simulated " + backend.sim_key,
                            "RECORDED" + dash + backend.device.name + ", " + backend.recording_date});
    const bool imported = !state.imported_from.empty();
    if (imported)
        messages.push_back({"IMPORTED" + dash + "measured on " + plain_device_name(backend.device) +
                                (backend.device.simulated || backend.device.driver.empty() ? "" : " (" + backend.device.driver + ")") +
                                ", read from " + std::filesystem::path(state.imported_from).filename().string() +
                                "; change a parameter to measure here",
                            "IMPORTED" + dash + plain_device_name(backend.device)});
    // A recording was chosen to be shown: whether this machine has a GPU is not news (the tooltip says).
    const bool no_gpu = runner.gpu_probed() && !runner.gpu_available() && !imported && !recorded;
    // The reason can be a long driver error: the banner names it in a few words, the tooltip in full.
    if (no_gpu) {
        std::string why = first_clause(runner.gpu_status());
        if (why.size() > 40) why = "hover for why";
        messages.push_back({"No CUDA GPU: " + why + dash + "simulated mode", "No CUDA GPU"});
    }
    if (messages.empty()) return;

    ImFont* font = viz::bold_font();
    const float pad = std::round(em() * (presenter_layout(state) ? 0.2f : 0.4f));
    const float width = ImGui::GetContentRegionAvail().x;
    std::vector<std::string> lines;
    if (presenter_layout(state)) {
        // One line: every message in full if that fits, else the short wordings, else shortened.
        const auto joined = [&](bool brief) {
            std::string line;
            for (const Message& m : messages) line += (line.empty() ? "" : "  |  ") + (brief ? m.brief : m.full);
            return line;
        };
        const float room = width - pad * 2;
        const std::string full = joined(false);
        lines.push_back(font->CalcTextSizeA(font->FontSize, FLT_MAX, 0, full.c_str()).x <= room
                            ? full
                            : elide_to_width(joined(true), room, font));
    } else {
        for (const Message& m : messages) lines.push_back(m.full);
    }
    std::string all;
    for (const Message& m : messages) all += m.full + "\n";

    // Black on Okabe-Ito yellow: the highest-contrast pair that still reads as a warning on both
    // themes and on a washed-out projector. Bold text, body size: loud but not a third of the screen.
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
    tooltip(all + "\n" + (recorded ? recording_line(backend) + "\nEach number says whether it is recorded or simulated.\n\n"
                      : std::string()) +
            "Simulated numbers come from the same byte and FLOP model as a GPU run, priced resource by resource on "
            "a calibrated GPU: they show trends, not this machine's speed. Every export and screenshot made "
            "from them says so." +
            (runner.gpu_probed() && !runner.gpu_available() ? "\n\nWhy no GPU: " + runner.gpu_status() : std::string()));
}

}  // namespace app
