// The results table: one column per shown variant, one row per metric (time, bytes at each level,
// rates, error, per-kernel times), stale columns marked, every cell explained in its tooltip.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

void draw_results_table(const AppState& state, const ResolvedBackend& backend);
// Height the table will take: its rows are text lines, one per metric plus the extra lines of the
// per-kernel row.
float results_table_height(const AppState& state);

}  // namespace app
