// Helpers more than one panel file of app/gui/ needs and that know the app's data (the plain ImGui
// ones are viz/imgui_helpers.h).
#pragma once

#include "kernels/core/types.h"

#include <string>

namespace app {

// The colour index of a variant: its position in the workload's variant list, so a variant
// keeps its colour whatever else is selected.
int variant_series(std::string w, const std::string& variant);

// "1.85x".
std::string ratio_text(double value);

}  // namespace app
