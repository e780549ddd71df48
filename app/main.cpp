// fusionlab: one binary for the GUI, `info`, `bench`, `shot`, `lessons` and `record`; app/cli/ does
// the work so tests can parse command lines without starting a process. Builds with a GUI hand its entry
// points to the command line here, so the core never links the GUI.
#include "app/cli/cli.h"
#if FUSIONLAB_HAVE_GUI
#include "app/gui/gui.h"
#endif

int main(int argc, char** argv) {
    app::cli::GuiEntryPoints gui;
#if FUSIONLAB_HAVE_GUI
    gui.run_gui = [](const app::GuiOptions& o) { return app::run_gui(o); };  // no frame driver: a person
    gui.run_shot = app::run_shot;
#endif
    return app::cli::main_entry(argc, argv, gui);
}
