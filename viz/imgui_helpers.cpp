#include "viz/imgui_helpers.h"

#include "viz/palette.h"
#include "viz/theme.h"

#include <cmath>

namespace viz {

float em() { return ImGui::GetFontSize(); }

bool light_theme() { return ImGui::GetStyle().Colors[ImGuiCol_WindowBg].x > 0.5f; }
Theme current_theme() { return light_theme() ? Theme::light : Theme::dark; }

ImVec4 error_color() { return light_theme() ? ImVec4(0.69f, 0.0f, 0.0f, 1) : ImVec4(1.0f, 0.45f, 0.45f, 1); }
ImVec4 success_color() { return light_theme() ? ImVec4(0.0f, 0.42f, 0.1f, 1) : ImVec4(0.5f, 0.9f, 0.55f, 1); }

void tooltip_box(const std::string& text) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(em() * kTooltipWrapEm);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void tooltip(const std::string& text) {
    if (text.empty() || !ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
    tooltip_box(text);
}

void wrapped_colored(const ImVec4& color, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

void section_heading(const char* title) {
    ImGui::PushFont(heading_font());
    ImGui::TextUnformatted(title);
    ImGui::PopFont();
    ImGui::Separator();
}

void label_above(const char* label, const std::string& help) {
    ImGui::TextUnformatted(label);
    tooltip(help);
}

void color_swatch(int series) {
    const float side = std::round(em() * 0.8f);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float dy = (ImGui::GetTextLineHeight() - side) * 0.5f;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(ImVec2(at.x, at.y + dy), ImVec2(at.x + side, at.y + dy + side),
                        series_color(series, current_theme()));
    draw->AddRect(ImVec2(at.x, at.y + dy), ImVec2(at.x + side, at.y + dy + side), ImGui::GetColorU32(ImGuiCol_Text));
    ImGui::Dummy(ImVec2(side, ImGui::GetTextLineHeight()));
    ImGui::SameLine();
}

bool same_line_if_fits(float width) {
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    const bool fits = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width <= right;
    if (fits) ImGui::SameLine();
    return fits;
}

std::string first_fitting_text(const std::vector<std::string>& texts, float width) {
    for (const std::string& t : texts)
        if (ImGui::CalcTextSize(t.c_str()).x <= width) return t;
    return texts.back();
}

std::string elide_to_fit(std::string s, float max_w, const std::function<float(const std::string&)>& width_of) {
    if (width_of(s) <= max_w) return s;
    while (!s.empty()) {
        s.pop_back();
        while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // whole UTF-8
        while (!s.empty() && s.back() == ' ') s.pop_back();
        if (!s.empty() && width_of(s + "...") <= max_w) return s + "...";
    }
    return "";
}

}  // namespace viz
