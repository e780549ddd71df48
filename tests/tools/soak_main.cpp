// fusionlab_soak: the test tool that runs the GUI soak test (scripts/soak.sh, tests/soak_test.cmake).
// It is the program fusionlab (app/main.cpp) with one difference: `--soak SECONDS` hands the GUI's
// frame loop the soak driver (tests/tools/soak_driver.h), which the program users get does not hold.
#include "app/cli/cli.h"
#include "app/gui/gui.h"
#include "tests/tools/soak_driver.h"

#include <iostream>
#include <memory>

namespace {

std::unique_ptr<app::FrameDriver> make_soak_driver(const app::GuiOptions& o, app::AppState& state) {
    return std::make_unique<app::SoakDriver>(
        app::SoakOptions{o.soak_seconds, o.soak_seed, o.soak_width, o.soak_height, 0.25, &std::cerr, o.soak_passes},
        state);
}

}  // namespace

int main(int argc, char** argv) {
    app::cli::GuiEntryPoints gui;
    gui.run_gui = [](const app::GuiOptions& o) { return app::run_gui(o, make_soak_driver); };
    gui.run_shot = app::run_shot;
    return app::cli::main_entry(argc, argv, gui);
}
