// fusionlab: one binary for the GUI, `info`, `bench` and `shot`; app/core/cli.cpp does the work so
// tests can parse command lines without starting a process. Builds with a GUI hand its entry
// points to the command line here, so the core never links the GUI.
#include "app/core/cli.h"
#if FUSIONLAB_HAVE_GUI
#include "app/gui/gui.h"
#endif

int main(int argc, char** argv) {
    app::cli::GuiEntryPoints gui;
#if FUSIONLAB_HAVE_GUI
    gui.run_gui = app::run_gui;
    gui.run_shot = app::run_shot;
#endif
    return app::cli::main_entry(argc, argv, gui);
}
