// Which colour theme is active. Plain C++ (no ImGui), so settings can store it in any build.
#pragma once

#include <string>

namespace viz {

enum class Theme { dark, light };

inline const char* to_string(Theme t) { return t == Theme::light ? "light" : "dark"; }

inline bool parse_theme(const std::string& s, Theme& out) {
    if (s == "dark") { out = Theme::dark; return true; }
    if (s == "light") { out = Theme::light; return true; }
    return false;
}

}  // namespace viz
