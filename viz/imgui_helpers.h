// The small ImGui helpers every panel uses, defined once: sizes in ems, the theme's colours for
// errors and success, tooltips that wrap at one width, headings and labels. Views over plain data
// like the rest of viz/; the panels in app/gui/ call them.
#pragma once

#include "viz/theme_id.h"

#include <imgui.h>

#include <functional>
#include <string>
#include <vector>

namespace viz {

// One "em": every size is a multiple of the font size, so projector scaling needs no extra code.
float em();

// Whether the style in use is the light theme, and which theme that is.
bool light_theme();
Theme current_theme();

// Text colours for failures and for things that worked, readable on either theme.
ImVec4 error_color();
ImVec4 success_color();

// Tooltips wrap at this many ems, whichever panel shows them.
inline constexpr float kTooltipWrapEm = 34.0f;

// A tooltip showing `text` now (the caller decided the mouse is where it explains something).
void tooltip_box(const std::string& text);
// Explains the item just drawn when the mouse rests on it (disabled items too: a disabled
// control's tooltip is where it says why). Nothing for empty text.
void tooltip(const std::string& text);

// Text in `color`, wrapped at the window's edge.
void wrapped_colored(const ImVec4& color, const std::string& text);
// A title in the heading font over a separator.
void section_heading(const char* title);
// A label on its own line above a full-width control (survives narrow panels at 3x fonts); the
// help shows when hovered.
void label_above(const char* label, const std::string& help);
// A filled square in a series colour, aligned with the text line that follows it.
void color_swatch(int series);
// Puts the next item on the line of the one just drawn when `width` more fits before the
// window's edge, else lets it start a new line (a narrow view at a large font); true when beside.
bool same_line_if_fits(float width);
// The first of `texts` (the longest wording first) that fits `width` in the UI font; the last when
// none does.
std::string first_fitting_text(const std::vector<std::string>& texts, float width);
// `s` shortened with "..." (whole UTF-8 characters, no trailing space) until `width_of` it is at most
// max_w; "" when not even one character does. width_of measures in the caller's font and size.
std::string elide_to_fit(std::string s, float max_w, const std::function<float(const std::string&)>& width_of);

}  // namespace viz
