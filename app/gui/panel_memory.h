// The memory-hierarchy animation panel: plays a variant's tile schedule (kernels::MemoryPlayer)
// over viz::draw_memory_view, alone or side by side with a second variant of the same parameters.
// Its state (MemoryPanelState, app/core/view_state.h) is plain data so the shot command can set it up
// (variant, step) before rendering.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;

// The panel, drawn into the current window's remaining space.
void draw_memory_panel(AppState& state, const ResolvedBackend& backend);

}  // namespace app
