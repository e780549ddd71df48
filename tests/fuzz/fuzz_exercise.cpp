// libFuzzer target: the exercise file parser (app::exercises::parse_exercise) and, on a file that
// parses, its `== predictions` section through the lesson engine (app::parse_exercise_predictions):
// what teachers write by hand (exercises/README.md).
//
// Properties checked beyond "no crash": every error carries a line inside the file (1 .. lines + 1,
// never 0: line 0 is reserved for unreadable files) and its text() is one line of "file:line:
// message"; a file that parses has a title, a kernel, a task, a hint, a solution, valid parameters,
// a launch geometry that evaluates for them and goals against compared variants; parsing the same
// text twice gives the same errors (no hidden state). The predictions' errors obey the same line
// and one-line rules, and a section that parses asks at least one prediction.
#include "app/exercises/exercise.h"
#include "app/lessons/exercise_predictions.h"
#include "kernels/core/registry.h"
#include "tests/fuzz/fuzz_input.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& input) { fuzz::fail("fuzz_exercise", what, input); }
using fuzz::line_count;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace app::exercises;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const ExerciseParse parse = parse_exercise("fuzz.exercise", text);
    const int lines = line_count(text);
    std::vector<ExerciseError> errors = parse.errors;
    if (parse.ok()) {
        const app::ExercisePredictionParse predictions = app::parse_exercise_predictions(parse.exercise);
        errors.insert(errors.end(), predictions.errors.begin(), predictions.errors.end());
        if (predictions.ok() && parse.exercise.predictions_line > 0 && predictions.predictions.empty())
            fail("accepted a predictions section that asks none", text);
    }
    for (const ExerciseError& e : errors) {
        if (e.line < 1 || e.line > lines + 1) fail("error line " + std::to_string(e.line) + " outside the file", text);
        const std::string shown = e.text();
        if (shown.rfind("fuzz.exercise:" + std::to_string(e.line) + ": ", 0) != 0) fail("not file:line: " + shown, text);
        if (shown.find('\n') != std::string::npos) fail("error spans several lines: " + shown, text);
    }
    if (parse.ok()) {
        const Exercise& ex = parse.exercise;
        if (ex.title.empty() || ex.kernel.empty() || ex.task.empty() || ex.hints.empty() || ex.solution.empty())
            fail("accepted an exercise without a title, kernel, task, hint or solution", text);
        if (!kernels::validate(ex.params).empty()) fail("accepted invalid parameters: " + kernels::validate(ex.params), text);
        for (const Goal& g : ex.goals)
            if (std::find(ex.compare.begin(), ex.compare.end(), g.against) == ex.compare.end())
                fail("accepted a goal against a variant not compared", text);
        for (const std::string& dim : ex.grid) {
            int64_t v = 0;
            std::string why;
            if (!evaluate_dimension(dim, ex.params, v, why) && why.find("grid dimension is 1") == std::string::npos)
                fail("accepted a grid that does not evaluate: " + why, text);
        }
    }
    const ExerciseParse again = parse_exercise("fuzz.exercise", text);
    if (again.errors.size() != parse.errors.size()) fail("parsing twice gives different errors", text);
    return 0;
}
