// The command line: `fusionlab` (GUI), `fusionlab info`, `fusionlab bench`, `fusionlab shot`.
// Parsing is separate from running so tests can check options without starting a process.
// Exit codes: 0 success, 1 runtime failure (no display, GPU out of memory, a failed write),
// 2 bad input (one line on stderr naming the option, the value and the legal range).
#pragma once

#include "app/core/gui_options.h"
#include "app/cli/record.h"
#include "app/core/settings.h"
#include "app/exercises/exercise_cli.h"
#include "kernels/core/registry.h"
#include "kernels/core/types.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace app::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Screenshot sizes accepted by `shot --size`.
inline constexpr int kMinShotSide = 160;
inline constexpr int kMaxShotSide = 8192;

struct InfoOptions {
    std::string sim_gpu;  // non-empty: describe this simulated GPU only
    // --sim-heldout: the simulator's held-out study alone (app/recordings/sim_heldout.h, heldout_study),
    // on the recordings of `repository`/assets/recordings and its bench tables, or without a
    // repository on the installed recordings alone.
    bool sim_heldout = false;
    std::string repository;
    // --points-csv FILE (with --sim-heldout): every point of the study, fitted and held out, with its simulated time
    // on the built-in constants, as CSV (scripts/wgmma_turn_fit.py reads it).
    std::string points_csv;
};

// The values given for one spec'd parameter (--rows 64,128 / --N 4096 / --causal 0,1).
struct ParamValues {
    std::string id;
    std::vector<double> values;
};

struct BenchOptions {
    std::vector<std::string> workloads;
    std::vector<std::string> variants;    // empty: every variant of each workload
    std::vector<kernels::DType> dtypes;
    // Only the parameters given, in ParamSpec order. The sweep of a workload is the product of the
    // lists of the parameters it takes; the others keep Params' defaults. A parameter a workload
    // does not take is ignored for it (--rows does not multiply attention's runs).
    std::vector<ParamValues> params;
    int reps = kernels::Job{}.reps;
    std::string csv, json;                // empty: not written
    std::string reference;                // --reference FILE: PyTorch rows printed under the table
    std::string sim_gpu;                  // empty: the GPU when present, else the simulated H100
    // --backend (or --sim): a Settings::backend ("gpu", a simulated GPU key, "recorded:KEY"); empty:
    // the GPU when present, else the simulated H100.
    std::string backend;
    bool per_kernel = false;              // --kernels: a sub-row per kernel
    // --interactive: each job as the GUI's quick live pass (app/core/panels_state.h kQuickReps reps, one
    // warm-up, no counters), so the wall-time column shows what a slider drag waits.
    bool interactive = false;
    // --repeat K: the whole sweep K times in one process, in the same order (run-to-run spread,
    // caches that stay warm, memory traced with FUSIONLAB_HEAP_TRACE across identical passes).
    int repeat = 1;
};

// `fusionlab lessons check [FILES...]` (no files: every shipped lesson) / `lessons list`.
struct LessonsOptions {
    std::string action;                   // "check" | "list" | "answers"
    std::vector<std::string> files;
    std::string csv;                      // answers: the CSV file to write ("-": standard output)
    std::string answers;                  // answers: the answers file (default: the settings folder's)
    bool no_devices = false;              // check: skip evaluating predictions on every device
};

enum class Command { gui, info, bench, shot, lessons, record, exercises };

struct ParsedCommand {
    Command command = Command::gui;
    GuiOptions gui;
    InfoOptions info;
    BenchOptions bench;
    ShotOptions shot;
    LessonsOptions lessons;
    RecordOptions record;
    exercises::ExercisesOptions exercises;  // app/exercises/exercise_cli.h
    // -1: go on and run `command`. Otherwise stop with this code: help was printed (0) or an
    // error message was (2).
    int exit_code = -1;
};

// args: the arguments after the program name. Help goes to out, errors to err.
ParsedCommand parse_command_line(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The GUI shell's entry points (app/gui/gui.h), which main() passes in builds with a GUI; the core
// does not link the GUI. Null: `fusionlab` and `fusionlab shot` say this build has no GUI.
struct GuiEntryPoints {
    int (*run_gui)(const GuiOptions&) = nullptr;
    int (*run_shot)(const ShotOptions&) = nullptr;
};

int run_command(const ParsedCommand& cmd, std::ostream& out, std::ostream& err, const GuiEntryPoints& gui = {});

// `lessons check`: every error as file:line: message on err, "ok FILE (N steps)" on out; exit 2
// when any file has an error. `lessons list`: name, steps and title of each shipped lesson.
int run_lessons(const LessonsOptions& o, std::ostream& out, std::ostream& err);

// Parse + run; what main() calls.
int main_entry(int argc, const char* const* argv, const GuiEntryPoints& gui = {});

// The values given for `id` (nullptr when the option was not given).
const std::vector<double>* given_values(const BenchOptions& o, std::string id);
// Every parameter set the bench sweeps for workload w and dtype t, in a stable order.
std::vector<kernels::Params> sweep_params(const BenchOptions& o, std::string w, kernels::DType t);

// ---------------------------------------------------------------------------------------------
// Value parsers (exposed for tests). Each returns "" or a one-line message naming the option.
// ---------------------------------------------------------------------------------------------
// A comma list of values of one parameter, each checked against its spec (range, whole number,
// listed choice, 0/1 switch) for every selected workload that takes it.
std::string parse_param_list(const std::string& option, const std::vector<std::string>& items,
                             std::string id, const std::vector<std::string>& workloads,
                             std::vector<double>& out);
// "1280x720" -> 1280, 720 (each kMinShotSide..kMaxShotSide).
std::string parse_size(const std::string& option, const std::string& text, int& width, int& height);

}  // namespace app::cli
