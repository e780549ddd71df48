// Lessons: the file format's data model, its parser and checker, and the live expressions that
// put measured and modeled numbers into the prose. No ImGui here: the CLI (`fusionlab lessons
// check`), the tests and the GUI player (app/gui/panel_lesson.cpp) share it. The format is documented
// in lessons/README.md.
//
// [SECTION] Data model: lesson, step, prose spans, expressions
// [SECTION] Parsing and checking (file:line errors)
// [SECTION] Live expressions: evaluation against the app's state
// [SECTION] Player state (which lesson, which step, what was applied)
// [SECTION] Finding lesson files
#pragma once

#include "kernels/common/types.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace app {

// =============================================================================================
// [SECTION] Data model
// =============================================================================================

// One `{...}` in prose: a function name and its arguments ("measured.time" "fused"). A verdict
// `{if A >= B | then | else}` has func "if", the condition's words as args ("measured.percent",
// "fused", ">=", "85") and the two texts in branches.
struct LessonExpr {
    std::string func;
    std::vector<std::string> args;
    std::string source;  // the text between the braces, for messages
    std::vector<std::string> branches;  // "if": the text shown when the condition holds, and when not
};

// A run of prose text with one style, or a live expression.
struct ProseSpan {
    enum class Kind { text, bold, code, math, expr } kind = Kind::text;
    std::string text;    // already rendered for math: x^2 -> x², d_k -> dₖ, sqrt -> √
    LessonExpr expr;     // kind == expr
    int line = 0;        // source line, for messages
};

// One paragraph or bullet of prose.
struct ProseBlock {
    bool bullet = false;
    int line = 0;        // source line, for messages
    std::vector<ProseSpan> spans;
};

// "Pause and recall": a question, and the answer that opens on click.
struct RecallQuestion {
    int line = 0;
    std::vector<ProseSpan> question;
    std::vector<ProseBlock> answer;
};

// The complete state a step puts the app in: what was set by it or inherited from earlier steps.
struct StepState {
    kernels::Params params;                 // workload, dtype and every parameter
    std::vector<std::string> variants;      // selected variants of params.workload
    std::string view = "results";           // app/core/views.h id
    std::string highlight;                  // "" = none (not inherited)
    bool measure = false;                   // @measure: submit a measurement at once
    bool sweep = false;                     // @sweep: ask the sweep view to start one
    // Controls classroom mode shows for this step: parameter names, "dtype", "variants",
    // "backend", "workload" (inherited; empty = parameters the step sets).
    std::vector<std::string> controls;
};

struct LessonStep {
    int line = 0;                           // the @step line
    std::string title;
    StepState state;
    std::vector<ProseBlock> prose;
    std::vector<RecallQuestion> recalls;
};

struct Lesson {
    std::string path;                       // file it came from
    std::string name;                       // file stem: "02-elementwise-chain"
    std::string title;
    std::string about;                      // one-line summary (optional)
    std::vector<LessonStep> steps;
};

// =============================================================================================
// [SECTION] Parsing and checking
// =============================================================================================

struct LessonError {
    std::string file;
    int line = 0;
    std::string message;
    std::string text() const;               // "file:line: message"
};

struct LessonParse {
    Lesson lesson;
    std::vector<LessonError> errors;        // empty = valid
    // Valid, but worth a look: a number typed into prose outside a live expression (write it as
    // one, or mark a definition `{=4}`). `lessons check` prints them; the lesson still loads.
    std::vector<LessonError> warnings;
    bool ok() const { return errors.empty(); }
};

// Parses `text` as the lesson file `path` (used in messages and for the name). Every error is
// collected with its line; parsing goes on after an error so one run shows them all.
LessonParse parse_lesson(const std::string& path, const std::string& text);
// Reads and parses a file; an unreadable file gives one error at line 0.
LessonParse load_lesson(const std::string& path);

// Known highlight ids ("results.time_chart", "memory.sram", ...) and the view each lives in.
struct HighlightInfo {
    const char* id;
    const char* view;
    const char* what;
};
const std::vector<HighlightInfo>& highlight_ids();
const HighlightInfo* find_highlight(const std::string& id);

// The expression vocabulary: name, argument words, meaning (for messages and the README).
struct ExprInfo {
    const char* func;
    const char* args;   // "VARIANT", "A B", "" ...
    const char* what;
};
const std::vector<ExprInfo>& expr_vocabulary();

// Numbers typed into a piece of prose text: each maximal run of letters, digits, '.', '_' that
// starts with a digit ("412", "3.5", "4k", "16x"). Names with digits (fp32, H100, L2, sm_90) start
// with a letter and are not numbers.
std::vector<std::string> typed_numbers(const std::string& text);

// Maths as readable Unicode: x^2 -> x², d_k -> dₖ, \sqrt -> √, a*b -> a·b. Characters without a
// super/subscript form keep the ^ / _ notation.
std::string render_math(const std::string& src);

// =============================================================================================
// [SECTION] Live expressions
// =============================================================================================

// What an expression shows right now.
struct ExprValue {
    enum class State { value, pending, unavailable } state = State::value;
    std::string text;       // "0.142 ms", "measuring...", "unavailable: why"
    bool simulated = false; // the value comes from the simulated backend (the prose marks it)
    bool measured = false;  // measured (or simulated-measured) rather than modeled
    std::string recorded;   // read from a recording: "recorded on NVIDIA H100 80GB HBM3, 2026-11-25" (prose marks it)
    bool emulated = false;  // computed on the CPU in the variant's emulated arithmetic (a simulated GPU's error)
    // The number behind the text, for `{if ...}`: ms, bytes, FLOPs, GB/s, TFLOP/s, %, FLOP/B, a
    // plain factor for ratios. Empty for text (device.name, refusal, dtype) and when not a value.
    std::optional<double> number;
};

// Everything an expression may look at: the parameters on screen, the device the numbers come
// from, the latest measurements, and whether a batch for the current parameters is in flight.
struct ExprContext {
    kernels::Params params;
    std::vector<std::string> selected;                  // selected variants
    const kernels::DeviceInfo* device = nullptr;        // nullptr while the backend is unknown
    // A recorded backend: the simulated GPU its results fall back to where the recording lacks the
    // parameters (their device), beside `device`, the recording's GPU. nullptr otherwise.
    const kernels::DeviceInfo* fallback_device = nullptr;
    const std::vector<kernels::Measurement>* results = nullptr;
    bool pending = false;                               // a batch is queued or running
};

ExprValue evaluate(const LessonExpr& e, const ExprContext& ctx);
// "" when e is well formed for workload w (known function, right argument count, variants and
// parameters of w); else the message.
std::string check_expr(const LessonExpr& e, std::string w);

// =============================================================================================
// [SECTION] Player state
// =============================================================================================

struct LessonPlayerState {
    bool open = false;                      // the lesson pane is shown
    bool classroom = false;                 // presenter view (F5)
    float font_scale_before_classroom = 0;  // restored when classroom mode ends
    std::vector<Lesson> lessons;            // loaded lessons (valid ones)
    std::vector<LessonError> load_errors;   // malformed files: shown inline, in red
    bool loaded = false;
    int lesson = -1;                        // index into lessons
    int step = 0;
    bool step_applied = false;              // the current step's state was applied
    double step_entered_at = -1e9;          // ImGui time the step was entered (the ring pulses a while)
    std::set<int> revealed;                 // recall answers opened in this step (by index)
    bool bundle_requested = false;          // GUI: export a bundle ...
    bool bundle_all_steps = false;          //      ... of every step (else the current one)
    std::string bundle_message;
    bool bundle_error = false;

    const Lesson* current() const {
        return lesson >= 0 && lesson < static_cast<int>(lessons.size()) ? &lessons[static_cast<size_t>(lesson)] : nullptr;
    }
    const LessonStep* current_step() const {
        const Lesson* l = current();
        return l && step >= 0 && step < static_cast<int>(l->steps.size()) ? &l->steps[static_cast<size_t>(step)] : nullptr;
    }
};

// =============================================================================================
// [SECTION] Finding lesson files
// =============================================================================================

// The folder of shipped lessons: $FUSIONLAB_LESSONS, else the installed share/fusionlab/lessons
// beside this program's bin/, else the source tree's lessons/ this binary was built from; the
// same from any current folder. "" when none exists, with why_not saying so (and naming a
// $FUSIONLAB_LESSONS that is not a folder).
std::string lessons_dir(std::string* why_not = nullptr);
// Every *.lesson file directly in `dir` (not pending/), sorted by name.
std::vector<std::string> lesson_files(const std::string& dir);
// Loads every shipped lesson: valid ones into lessons, errors into errors.
void load_all_lessons(std::vector<Lesson>& lessons, std::vector<LessonError>& errors);
// A lesson by name ("02-elementwise-chain", its number "02" or "2", or a path). nullptr + why.
const Lesson* find_lesson(const std::vector<Lesson>& lessons, const std::string& name, std::string* why);

}  // namespace app
