// The results table: one column per shown variant, one row per metric (time, bytes at each level,
// rates, error, per-kernel times), stale columns marked, every cell explained in its tooltip.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

void draw_results_table(const AppState& state, const ResolvedBackend& backend);
// The PyTorch reference rows that match the shown results (app/files/reference.h), in a small table
// of their own in dimmed text with a hatched swatch, under a caption naming framework, device and
// date; without any, one dim line that says how to get them. A small "load..." button beside either
// reads another file.
void draw_reference_rows(AppState& state);
// Height the table will take: its rows are text lines, one per metric plus the extra lines of the
// per-kernel row, and the reference rows under it.
float results_table_height(const AppState& state);

}  // namespace app
