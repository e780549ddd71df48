// The lesson highlight: a thick ring around the element a lesson step points at (AppState::
// highlight), drawn by whichever panel owns that element. Plain ImDrawList drawing; no app state.
#pragma once

#include <imgui.h>

namespace viz {

// A rounded ring just outside [min, max], in a colour that reads on both themes and projectors.
// `pulse` in 0..1 varies its glow (interactive windows animate it; shots pass 0 for a still image).
void draw_highlight_ring(ImDrawList* draw, ImVec2 min, ImVec2 max, float em, float pulse);

// A soft halo around the mouse pointer (classroom mode), so the room can follow it.
void draw_pointer_halo(ImDrawList* draw, ImVec2 at, float em);

}  // namespace viz
