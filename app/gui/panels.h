// The GUI's panels: thin ImGui code over AppState and the runner, one function per thing drawn.
// Each panel reads the state, draws, and records what the user changed (mark_changed) or asked
// for (png_requested); the frame loop in gui.cpp services requests that touch GL or fonts.
#pragma once

#include "app/core/panels_state.h"
#include "app/core/runner.h"

#include <string>
#include <vector>

namespace app {

// The whole window: banner, parameters | results and charts, status line.
void draw_main_window(AppState& state, Runner& runner);

// Pieces, in the order they appear.
void draw_banner(const AppState& state, const Runner& runner, const ResolvedBackend& backend);
void draw_parameters_panel(AppState& state, const Runner& runner, const ResolvedBackend& backend);
void draw_export_folder(AppState& state);
void draw_toolbar(AppState& state);  // export buttons and message, font scale, theme
void draw_results_table(const AppState& state, const ResolvedBackend& backend);
// plot_height: at least this tall (0: the chart's preferred height).
void draw_time_chart(const AppState& state, float width, float plot_height);
void draw_bytes_chart(AppState& state, float width, float plot_height);
void draw_status_line(const AppState& state, const Runner& runner, const ResolvedBackend& backend);

// Keyboard shortcuts: F12 saves a PNG, Ctrl +/- changes the font scale.
void handle_shortcuts(AppState& state);

// For the lesson player: the right-hand view tabs, and only the named controls (parameter names,
// "workload", "variants", "dtype", "backend") as classroom mode shows them.
void draw_view_tabs(AppState& state, const ResolvedBackend& backend);
void draw_step_controls(AppState& state, const std::vector<std::string>& names, const Runner& runner,
                        const ResolvedBackend& backend);

}  // namespace app
