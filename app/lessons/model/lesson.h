// Lessons: the file format's data model (lesson, step, prose spans, live expressions) and the
// player's state. The format is documented in lessons/README.md. The engine around it, each file
// one job (app/lessons/):
//   parser.h        the line parser and the checks of each step (file:line errors)
//   prose.h         inline markup, maths as Unicode, the word checks on prose
//   vocabulary.h    levels, highlight ids, the live expressions' names
//   expressions.h   checking and evaluating live expressions against the model and measurements
//   glossary.h      lessons/glossary.terms
//   lesson_files.h  finding and loading the shipped lessons
//   lesson_player.h applying steps to the app; lesson_bundle.h the bundle folders
// No ImGui here: the CLI (`fusionlab lessons check`), the tests and the GUI player
// (app/gui/panel_lesson.cpp) share it.
//
// [SECTION] Data model: lesson, step, prose spans, expressions
// [SECTION] Parse results (file:line errors)
// [SECTION] Player state (which lesson, which step, what was applied)
#pragma once

#include "app/lessons/model/answers.h"
#include "kernels/core/types.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace app {

// =============================================================================================
// [SECTION] Data model
// =============================================================================================

struct ProseSpan;

// One `{...}` in prose: a function name and its arguments ("measured.time" "fused"). A verdict
// `{if A >= B | then | else}` has func "if", the condition's words as args ("measured.dram_percent",
// "fused", ">=", "85") and the two texts in branches; each text is prose of its own (it may hold
// live numbers, code and maths: branch_spans). `{term KEY}` links a glossary entry (func "term").
struct LessonExpr {
    std::string func;
    std::vector<std::string> args;
    std::string source;  // the text between the braces, for messages
    std::vector<std::string> branches;  // "if": the text shown when the condition holds, and when not
    std::vector<std::vector<ProseSpan>> branch_spans;  // the same texts, parsed as prose
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

// One answer a choice offers: `@option LABEL if CONDITION`. Which option is right is never typed:
// the condition is a verdict's (`A OP B`, `refused V`, `model.limiter V is CLASS`, ...) evaluated
// live, and exactly one option's condition holds on any device.
struct PredictionOption {
    int line = 0;
    std::string label;                      // "faster", "memory", "Br = 64"
    LessonExpr condition;                   // func "if", the condition's words as args
};

// "Predict first": a question the step poses before its numbers appear (app/lessons/prediction.h
// grades the answer). A number is checked against a live expression within a tolerance; a
// choice against the option whose condition holds. The reveal says what the right answer rests on.
struct Prediction {
    enum class Kind { number, choice } kind = Kind::number;
    int line = 0;                           // the @predict line
    LessonExpr expr;                        // number: the live value the answer is checked against
    double tolerance = 0;                   // number: relative (a fraction) or absolute (in unit)
    bool relative = true;                   // "within 20%" (relative) or "within 0.5" (absolute)
    std::string unit;                       // number: what a bare answer is in ("MiB", "x", "ms", "%", "")
    std::vector<ProseBlock> question;
    std::vector<PredictionOption> options;  // choice
    std::vector<ProseBlock> reveal;         // after @reveal: the closed form or measurement behind it
};

struct LessonStep {
    int line = 0;                           // the @step line
    int highlight_line = 0;                 // the @highlight line (0: none)
    std::string title;
    StepState state;
    std::vector<ProseBlock> prose;
    std::vector<RecallQuestion> recalls;
    std::vector<Prediction> predictions;    // posed before the step's numbers are shown
};

struct Lesson {
    std::string path;                       // file it came from
    std::string name;                       // file stem: "02-elementwise-chain"
    std::string title;
    std::string about;                      // one-line summary (optional)
    std::vector<LessonStep> steps;
};

// =============================================================================================
// =============================================================================================
// [SECTION] Parse results
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
    // Predictions of this step: what the student is typing or chose (by index), and the ones
    // settled in this visit (answered, or revealed to the room in classroom mode).
    std::map<int, std::string> prediction_input;
    std::map<int, std::string> prediction_message;  // why an answer could not be checked yet
    std::set<int> predictions_settled;
    AnswerBook answers;                     // every answer given, per lesson (app/lessons/model/answers.h)
    std::string answers_path;               // where they are kept ("" = not saved)
    std::string answers_message;            // the last load, save or export problem or result
    bool answers_error = false;
    bool answers_dirty = false;             // to be saved
    // Headless shots: show the step's predictions posed (numbers hidden) instead of revealed.
    bool shot_predictions_posed = false;
    bool bundle_requested = false;          // GUI: export a bundle ...
    bool bundle_all_steps = false;          //      ... of every step (else the current one)
    std::string bundle_message;
    bool bundle_error = false;
    // The user's own workload, parameters, dtype and variants from before the first lesson step
    // was applied: closing the pane puts them back, and settings.json keeps them while a lesson
    // runs (app/lessons/lesson_player.h settings_to_save), never the lesson's.
    bool user_state_saved = false;
    kernels::Params user_params;
    std::map<std::string, std::vector<std::string>> user_variants;

    const Lesson* current() const {
        return lesson >= 0 && lesson < static_cast<int>(lessons.size()) ? &lessons[static_cast<size_t>(lesson)] : nullptr;
    }
    const LessonStep* current_step() const {
        const Lesson* l = current();
        return l && step >= 0 && step < static_cast<int>(l->steps.size()) ? &l->steps[static_cast<size_t>(step)] : nullptr;
    }
};

}  // namespace app
