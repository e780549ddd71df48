// The right-hand views (app/core/views.h) as tabs: Measurements, Memory, Timeline, Roofline, Sweep.
// The main window and the lesson layout both show them.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

void draw_view_tabs(AppState& state, const ResolvedBackend& backend);

}  // namespace app
