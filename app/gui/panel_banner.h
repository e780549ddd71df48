// The banner across the top: SIMULATED, IMPORTED or no CUDA GPU, in black on yellow.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

void draw_banner(const AppState& state, const Runner& runner, const ResolvedBackend& backend);

}  // namespace app
