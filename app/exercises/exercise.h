// Kernel exercises (exercises/*.exercise, format in exercises/README.md): the student writes the
// fused kernel; the app compiles it with NVRTC and runs it through the GPU harness as the variant
// `yours` beside the built-in variants. This file is the format: parsing and checking a file,
// where the shipped files are, the launch geometry, and the job a submission becomes. No GPU, no
// ImGui.
//
// [SECTION] The exercise
// [SECTION] Parsing and checking
// [SECTION] Submissions
#pragma once

#include "kernels/core/types.h"

#include <array>
#include <string>
#include <vector>

namespace app::exercises {

// =============================================================================================
// [SECTION] The exercise
// =============================================================================================
// A goal the submission must meet besides being correct: its DRAM bytes (hardware counters) or its
// median time at most `factor` times a built-in variant's, measured in the same run.
struct Goal {
    enum class Kind { dram, time };
    Kind kind = Kind::time;
    double factor = 1.0;
    std::string against;  // a built-in variant of the workload ("fused")
    int line = 0;
    std::string text() const;  // "time <= 1.5 x fused"
};

// One parameter of the kernel's signature: "const T* x" -> type "const T*", name "x".
struct Argument {
    std::string type, name;
};

struct Exercise {
    std::string path;
    std::string name;         // the file's stem: "chain_fused"
    std::string title;
    std::string workload;     // registry name
    kernels::Params params;   // the workload's defaults, then the file's values
    std::string variant;      // the built-in variant whose buffers, model and check `yours` shares
    std::string replaces;     // the kernel of that variant the student's kernel takes the place of
    std::vector<std::string> compare;  // built-in variants measured beside yours
    std::string kernel;       // the student's __global__ function (extern "C")
    std::vector<Argument> arguments;
    std::array<std::string, 3> grid{"1", "1", "1"};  // expressions of the parameters: "ceil(N/64)"
    std::array<int, 3> block{1, 1, 1};
    int shared_bytes = 0;     // dynamic shared memory per block
    double watchdog_seconds = 10;  // the checked run's limit before the kernel is stopped
    std::vector<Goal> goals;
    std::string task;                // markdown-ish prose
    std::vector<std::string> hints;  // staged: shown one at a time
    std::string starter, solution;   // kernel source
    int starter_line = 0, solution_line = 0;  // where each section's code starts in the file
    // Asked before the student writes the kernel: the `== predictions` section as written (the
    // lessons' @predict syntax) and the file line of its first body line. Kept raw here: the lesson
    // engine, a room above this one, parses and plays it (app/lessons/exercise_predictions.h).
    std::string predictions_text;
    int predictions_line = 0;  // 0: the file has no `== predictions` section

    // extern "C" __global__ void NAME(ARGS): what the harness calls, as the task shows it.
    std::string signature() const;
};

// =============================================================================================
// [SECTION] Parsing and checking
// =============================================================================================
struct ExerciseError {
    std::string file;
    int line = 0;
    std::string message;
    std::string text() const;  // "file:line: message"
};

struct ExerciseParse {
    Exercise exercise;
    std::vector<ExerciseError> errors;  // empty: valid
    bool ok() const { return errors.empty(); }
};

// Parses and checks the text of an exercise file (every error with its line; nothing compiled).
ExerciseParse parse_exercise(const std::string& path, const std::string& text);
// Reads the file through the bounded reader (app/platform/platform_file.h) and parses it; a file that
// cannot be read gives one error at line 0.
ExerciseParse load_exercise(const std::string& path);

// Where the shipped exercises are: FUSIONLAB_EXERCISES, the installed share/fusionlab/exercises,
// else this source tree's exercises/. "" with why_not when none holds an exercise.
std::string exercises_dir(std::string* why_not = nullptr);
std::vector<std::string> exercise_files(const std::string& dir);  // *.exercise, sorted
// The header every exercise kernel may include (exercises/include/fusionlab_exercise.cuh): name and text.
std::vector<std::pair<std::string, std::string>> exercise_headers(const std::string& dir);

// A launch dimension's value for p: integers, parameter names, `*`, and ceil(A/B). False with why.
bool evaluate_dimension(const std::string& expr, const kernels::Params& p, int64_t& value, std::string& why);
// "" when the expression is well formed and names only parameters of `workload`; else why.
std::string check_dimension(const std::string& expr, const std::string& workload);

// =============================================================================================
// [SECTION] Submissions
// =============================================================================================
// The job that runs `source` as the variant `yours` of the exercise (p: the exercise's parameters,
// or the GUI's when the student changed them). Throws std::invalid_argument when the launch
// geometry cannot be evaluated for p.
kernels::Job submission_job(const Exercise& ex, const kernels::Params& p, const std::string& source,
                            const std::string& source_name,
                            const std::vector<std::pair<std::string, std::string>>& headers);

// The element type T stands for under NVRTC: "float", "__half", "__nv_bfloat16".
const char* element_type(kernels::DType t);

}  // namespace app::exercises
