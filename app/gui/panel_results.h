// The Measurements tab: a heading with the toolbar, the one-sentence takeaway, the charts and the
// results table, with the rings a lesson step puts around them.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

void draw_results_page(AppState& state, const ResolvedBackend& backend);

}  // namespace app
