// Entry points of the GUI shell (app/gui/gui.cpp); main() hands them to the command line
// (app/core/cli.h, GuiEntryPoints).
#pragma once

#include "app/core/gui_options.h"

namespace app {

// Opens the window and runs until closed. Without a display: prints what to do
// (xvfb-run, or `fusionlab shot` / `fusionlab bench`) and returns 1.
int run_gui(const GuiOptions& opts);

// Measures params (every variant) through the runner, renders the main window headless into a
// PNG of the requested size, writes it atomically. Returns 0, or 1 with a message on stderr.
int run_shot(const ShotOptions& opts);

}  // namespace app
