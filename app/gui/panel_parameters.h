// The parameters panel: workload, variants (with why a variant cannot run here), each parameter of
// the workload, dtype, backend and repetitions; and the subset of those controls a lesson step shows.
#pragma once

#include <string>
#include <vector>

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

void draw_parameters_panel(AppState& state, const Runner& runner, const ResolvedBackend& backend);
// Only the named controls (parameter names, "workload", "variants", "dtype", "backend"), as
// classroom mode shows them (app/gui/panel_lesson.cpp).
void draw_step_controls(AppState& state, const std::vector<std::string>& names, const Runner& runner,
                        const ResolvedBackend& backend);

}  // namespace app
