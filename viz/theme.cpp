// [SECTION] Style: high-contrast colours for dark and light rooms
// [SECTION] Fonts: a real TTF at the scaled size, built-in font as fallback
#include "viz/theme.h"
#include "viz/code_font.h"

#include <filesystem>
#include <system_error>

namespace viz {

// ---------------------------------------------------------------------------------------------
// [SECTION] Style
// ---------------------------------------------------------------------------------------------

namespace {

ImVec4 hex(unsigned rrggbb, float alpha = 1.0f) {
    return ImVec4(static_cast<float>((rrggbb >> 16) & 0xFF) / 255.0f,
                  static_cast<float>((rrggbb >> 8) & 0xFF) / 255.0f,
                  static_cast<float>(rrggbb & 0xFF) / 255.0f, alpha);
}

// Projectors wash out mid-greys: text is pure white/black, backgrounds near the other extreme,
// and controls get visible borders instead of relying on subtle fills.
void dark_colors(ImGuiStyle& s) {
    ImGui::StyleColorsDark(&s);
    ImVec4* c = s.Colors;
    c[ImGuiCol_Text] = hex(0xFFFFFF);
    c[ImGuiCol_TextDisabled] = hex(0xA8A8A8);
    c[ImGuiCol_WindowBg] = hex(0x121212);
    c[ImGuiCol_ChildBg] = hex(0x121212);
    c[ImGuiCol_PopupBg] = hex(0x202020, 0.98f);
    c[ImGuiCol_Border] = hex(0x7A7A7A);
    c[ImGuiCol_FrameBg] = hex(0x2A2A2A);
    c[ImGuiCol_FrameBgHovered] = hex(0x3A4A5A);
    c[ImGuiCol_FrameBgActive] = hex(0x44607A);
    c[ImGuiCol_CheckMark] = hex(0x56B4E9);
    c[ImGuiCol_SliderGrab] = hex(0x56B4E9);
    c[ImGuiCol_SliderGrabActive] = hex(0x8FD0F5);
    c[ImGuiCol_Button] = hex(0x0072B2);
    c[ImGuiCol_ButtonHovered] = hex(0x1A8BD0);
    c[ImGuiCol_ButtonActive] = hex(0x005A8C);
    c[ImGuiCol_Header] = hex(0x2F4F6F);
    c[ImGuiCol_HeaderHovered] = hex(0x3D6589);
    c[ImGuiCol_HeaderActive] = hex(0x4A77A0);
    c[ImGuiCol_TableHeaderBg] = hex(0x2A3440);
    c[ImGuiCol_TableBorderStrong] = hex(0x8A8A8A);
    c[ImGuiCol_TableBorderLight] = hex(0x4A4A4A);
    c[ImGuiCol_TableRowBgAlt] = hex(0xFFFFFF, 0.05f);
    c[ImGuiCol_Separator] = hex(0x6A6A6A);
}

void light_colors(ImGuiStyle& s) {
    ImGui::StyleColorsLight(&s);
    ImVec4* c = s.Colors;
    c[ImGuiCol_Text] = hex(0x000000);
    c[ImGuiCol_TextDisabled] = hex(0x505050);
    c[ImGuiCol_WindowBg] = hex(0xFAFAFA);
    c[ImGuiCol_ChildBg] = hex(0xFAFAFA);
    c[ImGuiCol_PopupBg] = hex(0xFFFFFF, 0.98f);
    c[ImGuiCol_Border] = hex(0x5A5A5A);
    c[ImGuiCol_FrameBg] = hex(0xE6E6E6);
    c[ImGuiCol_FrameBgHovered] = hex(0xD2E4F2);
    c[ImGuiCol_FrameBgActive] = hex(0xB9D6EE);
    c[ImGuiCol_CheckMark] = hex(0x0072B2);
    c[ImGuiCol_SliderGrab] = hex(0x0072B2);
    c[ImGuiCol_SliderGrabActive] = hex(0x005A8C);
    c[ImGuiCol_Button] = hex(0xC9DFF0);
    c[ImGuiCol_ButtonHovered] = hex(0xA9CBE8);
    c[ImGuiCol_ButtonActive] = hex(0x86B6DE);
    c[ImGuiCol_Header] = hex(0xC9DFF0);
    c[ImGuiCol_HeaderHovered] = hex(0xA9CBE8);
    c[ImGuiCol_HeaderActive] = hex(0x86B6DE);
    c[ImGuiCol_TableHeaderBg] = hex(0xDCE6EF);
    c[ImGuiCol_TableBorderStrong] = hex(0x4A4A4A);
    c[ImGuiCol_TableBorderLight] = hex(0xA0A0A0);
    c[ImGuiCol_TableRowBgAlt] = hex(0x000000, 0.04f);
    c[ImGuiCol_Separator] = hex(0x707070);
}

}  // namespace

void apply_style(Theme theme, float scale) {
    ImGuiStyle fresh;  // ScaleAllSizes multiplies: start from unscaled sizes every time
    if (theme == Theme::light) light_colors(fresh);
    else dark_colors(fresh);
    fresh.WindowRounding = 0.0f;
    fresh.ChildRounding = 3.0f;
    fresh.FrameRounding = 3.0f;
    fresh.GrabRounding = 3.0f;
    fresh.PopupRounding = 3.0f;
    fresh.FrameBorderSize = 1.0f;
    fresh.WindowBorderSize = 0.0f;
    fresh.ItemSpacing = ImVec2(8.0f, 6.0f);
    fresh.FramePadding = ImVec2(6.0f, 4.0f);
    fresh.CellPadding = ImVec2(6.0f, 3.0f);
    fresh.GrabMinSize = 12.0f;
    fresh.ScrollbarSize = 16.0f;
    fresh.ScaleAllSizes(scale);
    ImGui::GetStyle() = fresh;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Fonts
// ---------------------------------------------------------------------------------------------

namespace {

ImFont* g_heading = nullptr;
ImFont* g_bold = nullptr;
ImFont* g_code = nullptr;  // viz/code_font.h

// Monospace for code (the exercise editor), Debian's path first, then Windows' and macOS'.
constexpr const char* kCodeFontCandidates[] = {
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "C:/Windows/Fonts/consola.ttf",
    "/System/Library/Fonts/Menlo.ttc",
};

struct FontFiles {
    const char* regular;
    const char* heading;
};

// Debian paths first (fonts-inter, fonts-dejavu-core), then what Windows and macOS ship.
constexpr FontFiles kCandidates[] = {
    {"/usr/share/fonts/opentype/inter/Inter-Regular.otf", "/usr/share/fonts/opentype/inter/Inter-SemiBold.otf"},
    {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"},
    {"C:/Windows/Fonts/segoeui.ttf", "C:/Windows/Fonts/segoeuib.ttf"},
    {"/System/Library/Fonts/Supplemental/Arial.ttf", "/System/Library/Fonts/Supplemental/Arial Bold.ttf"},
};

// Latin-1 plus the symbols our labels use: dashes, ellipsis, Greek (sigma, mu), arrows, minus,
// approx and inequality signs, and the maths of lesson prose.
const ImWchar* glyph_ranges() {
    static const ImWchar kRanges[] = {
        0x0020, 0x00FF, 0x0370, 0x03FF, 0x2010, 0x2027, 0x2190, 0x2193,
        0x2212, 0x2212, 0x2248, 0x2248, 0x2264, 0x2265,
        // Lesson maths (app/lessons/prose.cpp): modifier letters and super/subscripts, sqrt, sum, infinity.
        0x02B0, 0x02FF, 0x1D2C, 0x1D6A, 0x2070, 0x209F, 0x2C7C, 0x2C7C, 0x2211, 0x2211, 0x221A, 0x221A,
        0x221E, 0x221E, 0,
    };
    return kRanges;
}

bool readable(const char* path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

ImFont* add_file_font(const char* path, float px) {
    ImFontConfig config;
    config.OversampleH = 2;  // crisp at the exact pixel size; no need for 3x oversampling
    config.OversampleV = 1;
    config.PixelSnapH = true;
    return ImGui::GetIO().Fonts->AddFontFromFileTTF(path, px, &config, glyph_ranges());
}

ImFont* add_builtin_font(float px) {
    ImFontConfig config;
    config.SizePixels = px;  // the built-in bitmap font rasterised larger is blurry but legible
    return ImGui::GetIO().Fonts->AddFontDefault(&config);
}

}  // namespace

FontSet load_fonts(float scale) {
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    atlas->Clear();
    const float body_px = kBaseFontPx * scale;
    const float heading_px = body_px * kHeadingRatio;

    FontSet set;
    std::string tried;
    for (const FontFiles& files : kCandidates) {
        if (!readable(files.regular)) continue;
        set.body = add_file_font(files.regular, body_px);
        if (!set.body) { tried += std::string(tried.empty() ? "" : ", ") + files.regular + " (unreadable)"; continue; }
        const bool has_heavy = readable(files.heading);
        set.heading = add_file_font(has_heavy ? files.heading : files.regular, heading_px);
        set.bold = add_file_font(has_heavy ? files.heading : files.regular, body_px);
        set.note = std::string("font: ") + files.regular;
        break;
    }
    g_code = nullptr;
    if (set.body)
        for (const char* path : kCodeFontCandidates)
            if (readable(path) && (g_code = add_file_font(path, body_px)) != nullptr) break;
    if (!set.body) {
        atlas->Clear();
        set.body = add_builtin_font(body_px);
        set.heading = add_builtin_font(heading_px);
        set.bold = add_builtin_font(body_px);
        set.note = "font: built-in (no TrueType font found" + (tried.empty() ? std::string() : ": " + tried) +
                   "; install fonts-inter or fonts-dejavu-core)";
    }
    // ImGui asserts on a failed build; building here surfaces a bad font before the first frame.
    if (!atlas->Build()) {
        atlas->Clear();
        g_code = nullptr;
        set.body = add_builtin_font(body_px);
        set.heading = add_builtin_font(heading_px);
        set.bold = add_builtin_font(body_px);
        atlas->Build();
        set.note = "font: built-in (the TrueType font atlas failed to build)";
    }
    ImGui::GetIO().FontDefault = set.body;
    g_heading = set.heading;
    g_bold = set.bold;
    return set;
}

namespace {

// A font pointer is only valid while the current context's atlas still holds it (a new context,
// or a rebuilt atlas, frees the old fonts).
ImFont* if_current(ImFont* font) {
    if (!font) return ImGui::GetFont();
    for (ImFont* f : ImGui::GetIO().Fonts->Fonts)
        if (f == font) return font;
    return ImGui::GetFont();
}

}  // namespace

ImFont* heading_font() { return if_current(g_heading); }
ImFont* bold_font() { return if_current(g_bold); }
ImFont* code_font() { return if_current(g_code); }

}  // namespace viz
