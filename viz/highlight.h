// The lesson highlight: a thick ring around the element a lesson step points at (AppState::
// highlight), drawn by whichever panel owns that element. Plain ImDrawList drawing; no app state.
#pragma once

#include <imgui.h>

#include <string>

namespace viz {

// A rounded ring just outside [min, max], in a colour that reads on both themes and projectors.
// `pulse` in 0..1 varies its glow (interactive windows animate it; shots pass 0 for a still image).
void draw_highlight_ring(ImDrawList* draw, ImVec2 min, ImVec2 max, float em, float pulse);

// Scrolls the current window until [min, max] (screen coordinates of the item just drawn) is in
// view, for each new `key` (a step's highlight): the ring then points at something the room can
// see, not at a table scrolled below the fold. Once it is in view (or after a few frames of
// trying) the window is left alone, so the presenter can scroll away.
void scroll_into_view_once(const std::string& key, ImVec2 min, ImVec2 max);

// A soft halo around the mouse pointer (classroom mode), so the room can follow it.
void draw_pointer_halo(ImDrawList* draw, ImVec2 at, float em);

}  // namespace viz
