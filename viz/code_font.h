// The monospace font the kernel editor draws code in (app/gui/panel_exercise.cpp): DejaVu Sans Mono
// (fonts-dejavu-core, a dependency already), loaded at body size by viz::load_fonts (viz/theme.h)
// with the other fonts. Where it cannot be read, the body font (code then loses its columns, not
// its text). Its own header so that the panels that never show code do not depend on it.
#pragma once

#include <imgui.h>

namespace viz {

ImFont* code_font();

}  // namespace viz
