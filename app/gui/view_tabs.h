// The right-hand views (app/core/views.h) as tabs: Measurements, Memory, Timeline, Roofline, Sweep.
// The main window and the lesson layout both show them.
#pragma once

#include <string>

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

void draw_view_tabs(AppState& state, const ResolvedBackend& backend);

// Names this showing of the lesson highlight (lesson, step, id, when the step was entered): a
// panel scrolls the highlighted item into view once for each (viz::scroll_into_view_once).
std::string highlight_key(const AppState& state);

}  // namespace app
