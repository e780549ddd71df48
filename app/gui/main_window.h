// The GUI's main window: thin ImGui code over AppState and the runner. The banner, the parameters
// (app/gui/panel_parameters.h) beside the view tabs (app/gui/view_tabs.h) or a lesson's layout
// (app/gui/panel_lesson.h), and the status line; one file per panel. Each panel reads the state,
// draws, and records what the user changed (mark_changed) or asked for (png_requested); the frame
// loop in app/gui/gui.cpp services requests that touch GL or fonts.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

// The whole window: banner, parameters | view tabs, status line.
void draw_main_window(AppState& state, Runner& runner);

// Keyboard shortcuts: F12 saves a PNG, Ctrl +/- changes the font scale.
void handle_shortcuts(AppState& state);

}  // namespace app
