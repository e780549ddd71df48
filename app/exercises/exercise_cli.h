// `fusionlab exercises check [FILES...]`, `exercises list`, `exercises run NAME --kernel FILE`:
// validate exercise files (and compile their starters and solutions where NVRTC is installed), list
// them, and grade one submission: compile it, check it against the float64 reference, time it
// beside the built-in variants, print its row and whether it meets the exercise's goals.
// Exit codes: 0 correct and within every goal; 1 with the reason (does not compile, wrong output,
// out-of-bounds write, fault, stopped by the watchdog, a goal missed, no GPU); 2 usage or a
// malformed exercise file.
#pragma once

#include "app/exercises/exercise.h"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace app::exercises {

struct ExercisesOptions {
    std::string action;              // "check" | "list" | "run"
    std::vector<std::string> files;  // check: files (default: every shipped exercise)
    std::string name;                // run: an exercise name or an .exercise path
    std::string kernel;              // run: the student's file
    std::string json;                // run: write the measurements (yours and the compared variants) here
    bool solution = false;           // run: the exercise's own reference solution instead of --kernel
};

// What the lesson engine found in one exercise's `== predictions` section. This room keeps the
// section raw; the engine (a room above: app/lessons/exercise_predictions.h) parses it and plays
// it on every device, and app/cli hands that in as a PredictionChecker.
struct PredictionCheck {
    std::vector<ExerciseError> errors;  // malformed, or (on_devices) not answerable on some device
    std::vector<std::string> notes;     // a device left out and why (each said once per process)
    size_t predictions = 0;             // how many the section asks
    size_t devices = 0;                 // on_devices: the devices each was answered on
};
// on_devices false: parse only (`list` and `run` refuse a malformed file); true: parse and answer
// every prediction on every simulated GPU and shipped recording (`check`). Called only for an
// exercise with a `== predictions` section.
using PredictionChecker = std::function<PredictionCheck(const Exercise& ex, bool on_devices)>;

// `check_predictions` empty: the predictions are not looked at (`check` says so for each file that has them).
int run_exercises(const ExercisesOptions& o, std::ostream& out, std::ostream& err,
                  const PredictionChecker& check_predictions = {});

// The lines `exercises check` prints for one file's compile check of its starter and solution:
// errors as file:line: message on the exercise file's own lines; a note when NVRTC is missing.
// Empty when both compile. `cc`: the architecture to compile for (90: the lab's H100).
std::vector<std::string> compile_check(const Exercise& ex, const std::vector<std::pair<std::string, std::string>>& headers,
                                       int cc_major, int cc_minor, bool* nvrtc_missing = nullptr);

// The goals' verdicts for `yours` against the measured variants ("" reasons when met); pure.
struct GoalVerdict {
    Goal goal;
    bool checked = false;  // false: the numbers it needs are unavailable (reason says why)
    bool met = false;
    double ratio = 0;
    std::string reason;
};
std::vector<GoalVerdict> judge_goals(const Exercise& ex, const kernels::Measurement& yours,
                                     const std::vector<kernels::Measurement>& compared);

}  // namespace app::exercises
