// The status line at the bottom: what the runner is doing, the device the numbers come from and a
// settings problem, if any.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

void draw_status_line(const AppState& state, const Runner& runner, const ResolvedBackend& backend);

}  // namespace app
