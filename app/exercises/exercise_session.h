// The exercise pane's state and work, without ImGui (app/gui/panel_exercise.cpp draws it): the
// student's file (created from the starter, autosaved, reloaded when another editor saves it), the
// compile check (NVRTC on a worker thread; errors by line), and a run on the GPU in a process of
// its own (`fusionlab exercises run NAME --kernel FILE --json OUT`), whose measurements then join
// the app's results as the variant `yours`. Nothing the student typed is lost: the buffer is saved
// before every compile and run, and a file changed on disk while the buffer holds unsaved edits is
// kept beside the buffer's text as NAME.cu.conflict-<time> rather than overwritten.
#pragma once

#include "app/exercises/exercise.h"
#include "kernels/gpu/nvrtc_compile.h"

#include <filesystem>
#include <functional>
#include <future>
#include <string>
#include <vector>

namespace app::exercises {

// What a run in its own process came back with.
struct RunOutcome {
    int exit_code = -1;
    std::string output;                          // the command's stdout and stderr
    std::vector<kernels::Measurement> measured;  // its --json: the compared variants and yours
    std::string read_error;                      // why --json could not be read ("" when read)
};

struct ExerciseSession {
    bool open = false;
    std::vector<std::string> available;  // shipped exercise names
    std::string load_error;              // the exercises folder or a file could not be read
    Exercise ex;
    std::vector<std::pair<std::string, std::string>> headers;  // exercises/include/*.cuh

    // The student's file and the editor's buffer.
    std::string file;
    std::string text;
    std::string saved_text;  // what the file held when last written or read
    std::filesystem::file_time_type file_time{};
    double edited_at = -1;   // when the buffer last changed without being saved (-1: saved)
    double checked_disk_at = -1e9;
    std::string file_message;  // "saved", "reloaded: ...", why a save failed

    int hints_shown = 0;  // staged hints: the first `hints_shown` are open

    // The last compile check.
    bool compiling = false;
    std::future<kernels::nvrtc::CompileResult> compile_future;
    kernels::nvrtc::CompileResult compiled;
    bool compiled_once = false;

    // The last run on the GPU.
    bool running = false;
    std::future<RunOutcome> run_future;
    RunOutcome last_run;
    bool ran_once = false;

    // Lines with an error in the last compile check or run ("file:line: error" in its output).
    std::vector<kernels::nvrtc::Diagnostic> diagnostics() const;
};

// Seconds of no typing before the buffer is written to the file.
inline constexpr double kAutosaveSeconds = 1.0;
// How often the file's modification time is looked at (another editor may have saved it).
inline constexpr double kReloadPollSeconds = 0.5;

// Where a student's file for `exercise` lives: <config dir>/exercises/<name>.cu (FUSIONLAB_EXERCISE_WORK
// overrides the folder).
std::filesystem::path work_dir();

// A further check of a parsed exercise before it is opened: "" to accept it, else why not. The
// GUI hands one in that parses the `== predictions` section with the lesson engine (a room above
// this one: app/lessons/exercise_predictions.h), so a malformed prediction keeps the file closed.
using ExerciseAcceptor = std::function<std::string(const Exercise&)>;

// Opens `name` (a shipped exercise): parses it (and asks `accept`, when given), creates the
// student's file from the starter when it does not exist yet, loads the file into the buffer.
// "" or why not; a refused exercise leaves the session as it was.
std::string open_exercise(ExerciseSession& s, const std::string& name, const ExerciseAcceptor& accept = {});
// The buffer changed (the editor calls it on every edit).
void mark_edited(ExerciseSession& s, double now);
// Autosave after kAutosaveSeconds, reload after another editor's save, collect finished compiles
// and runs. Returns true when a run has finished this call (its measurements are in last_run).
bool service(ExerciseSession& s, double now);
// Writes the buffer to the file now ("" or why not).
std::string save_now(ExerciseSession& s);
// Starts a compile check of the buffer for compute capability cc (on a worker thread).
void start_compile(ExerciseSession& s, int cc_major, int cc_minor);
// Starts a run of the saved file in its own process (`program`: this fusionlab). Saves first.
void start_run(ExerciseSession& s, const std::string& program);
// Restores the starter into the buffer (the old text is kept as NAME.cu.before-starter-<time>).
void reset_to_starter(ExerciseSession& s, double now);

// "file:12: error: ..." lines of a run's output for `file_name` (the last path component). Pure.
std::vector<kernels::nvrtc::Diagnostic> diagnostics_in_output(const std::string& output, const std::string& file_name);

}  // namespace app::exercises
