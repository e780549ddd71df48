// The banner across the top: SIMULATED, IMPORTED or no CUDA GPU, in black on yellow.
#pragma once

#include <string>

struct ImFont;

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

// In the presenter layout (presenter_layout()) the banner is one line: its messages joined, in
// their short wording where the long one does not fit, shortened with "..." as a last resort;
// the tooltip has them in full.
void draw_banner(const AppState& state, const Runner& runner, const ResolvedBackend& backend);

// Classroom mode or a font scale of 1.5 and more: the views get the height, so the banner, the
// headers and the memory animation's controls take one line each.
bool presenter_layout(const AppState& state);

// `text` shortened with "..." until it fits `width` pixels in `font` (the current font when null).
std::string elide_to_width(const std::string& text, float width, ImFont* font = nullptr);

}  // namespace app
