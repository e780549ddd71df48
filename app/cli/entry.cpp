// The command line's entry points: main_entry (what main() calls: parse, then run) and run_command,
// which hands each command to its runner (app/cli/commands.h, app/cli/record.h) or, for
// the GUI and `shot`, to the GUI shell's entry points when this build has one.
#include "app/cli/cli.h"
#include "app/cli/commands.h"

#include "app/cli/record.h"
#include "app/lessons/exercise_predictions.h"
#include "app/platform/platform.h"

#include <exception>
#include <iostream>
#include <new>

namespace app::cli {

namespace {

constexpr const char* kNoGuiMessage = "this build has no GUI (built with FUSIONLAB_GUI=OFF): use bench/info";

int run_gui_command(const GuiOptions& o, const GuiEntryPoints& gui, std::ostream& err) {
    if (gui.run_gui) return gui.run_gui(o);
    err << "fusionlab: " << kNoGuiMessage << "\n";
    return kExitFailure;
}

int run_shot_command(const ShotOptions& o, const GuiEntryPoints& gui, std::ostream& err) {
    if (gui.run_shot) return gui.run_shot(o);
    err << "fusionlab shot: " << kNoGuiMessage << "\n";
    return kExitFailure;
}

}  // namespace

int run_command(const ParsedCommand& cmd, std::ostream& out, std::ostream& err, const GuiEntryPoints& gui) {
    if (cmd.exit_code >= 0) return cmd.exit_code;
    switch (cmd.command) {
        case Command::gui: return run_gui_command(cmd.gui, gui, err);
        case Command::info: return run_info(cmd.info, out);
        case Command::bench: return run_bench(cmd.bench, out, err);
        case Command::shot: return run_shot_command(cmd.shot, gui, err);
        case Command::lessons: return run_lessons(cmd.lessons, out, err);
        case Command::record: return run_record(cmd.record, out, err);
        // The exercises keep their predictions raw; the lesson engine parses and plays them.
        case Command::exercises: return exercises::run_exercises(cmd.exercises, out, err, exercise_prediction_checker());
    }
    return kExitFailure;
}

int main_entry(int argc, const char* const* argv, const GuiEntryPoints& gui) {
    platform::configure_heap();  // before the first large block: freed memory goes back (platform.h)
    try {
        std::vector<std::string> args;
        for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
        const ParsedCommand cmd = parse_command_line(args, std::cout, std::cerr);
        return run_command(cmd, std::cout, std::cerr, gui);
    } catch (const std::bad_alloc&) {
        std::cerr << "fusionlab: out of host memory\n";
    } catch (const std::exception& e) {
        std::cerr << "fusionlab: " << e.what() << "\n";
    }
    return kExitFailure;
}


}  // namespace app::cli
