// Entry points of the GUI shell (app/gui/gui.cpp); main() hands them to the command line
// (app/cli/cli.h, GuiEntryPoints).
#pragma once

#include "app/core/gui_options.h"
#include "app/gui/frame_driver.h"

namespace app {

// Opens the window and runs until closed. Without a display: prints what to do
// (xvfb-run, or `fusionlab shot` / `fusionlab bench`) and returns 1.
// make_driver: what drives the loop instead of a person (GuiOptions::soak_seconds > 0 needs one;
// fusionlab_soak, tests/tools/soak_main.cpp, passes the soak driver); null in the program.
int run_gui(const GuiOptions& opts, FrameDriverFactory make_driver = nullptr);

// Measures params (every variant) through the runner, renders the main window headless into a
// PNG of the requested size, writes it atomically. Returns 0, or 1 with a message on stderr.
int run_shot(const ShotOptions& opts);

}  // namespace app
