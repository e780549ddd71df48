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

struct LessonStep {
    int line = 0;                           // the @step line
    int highlight_line = 0;                 // the @highlight line (0: none)
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

// Traffic levels (TEAM.md's level words): DRAM (DRAM <-> L2, what the counters measure; HBM on
// these GPUs), L2->SM (what the kernels' loads and stores ask for), on chip (shared memory,
// registers, spills). Each byte expression names one; each highlight id shows a set of them.
enum class Level { none = 0, dram = 1, l2sm = 2, onchip = 4 };
const char* level_word(Level l);  // "DRAM", "L2\u2192SM", "on chip", ""
// The level a byte expression counts (model.dram -> dram, model.l2sm -> l2sm, measured.dram -> dram,
// ratio model.l2sm A B -> l2sm, ...); Level::none for time, FLOPs, device and text expressions.
Level expr_level(const LessonExpr& e);

// Known highlight ids ("results.time_chart", "memory.sram", ...), the view each lives in and the
// levels its numbers are at (a bit set of Level; 0: no bytes shown, e.g. the time chart).
struct HighlightInfo {
    const char* id;
    const char* view;
    const char* what;
    int levels;
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

// Maths as readable Unicode: x^2 -> x², d_k -> dₖ, \sqrt{d} -> √d, K^T -> Kᵀ, a*b -> a·b.
// Characters without a super/subscript form keep the ^ / _ notation.
std::string render_math(const std::string& src);

// Words said twice in a row ("the the", "`flash_wgmma` flash_wgmma"), case-insensitive, in text
// that has been through the renderer: each doubled word, for the checker and the device test.
std::vector<std::string> doubled_words(const std::string& text);
// Limiter and bound words typed into prose ("memory-bound", "bound by", "issue-bound"): a claim
// that must come from the live limiter ({model.limiter V}, {model.bound V}, {if model.limiter V is
// CLASS | ...}). The phrases found.
std::vector<std::string> typed_bound_words(const std::string& text);

// =============================================================================================
// [SECTION] Glossary
// =============================================================================================

// One glossary entry (lessons/glossary.terms): the key lessons link with {term KEY}, other words
// that mean it (found in prose for the first-use check), and its definition as prose.
struct GlossaryTerm {
    std::string key;                    // "CTA"
    std::vector<std::string> aliases;   // "thread block"
    std::string definition;             // plain text (maths rendered)
    int line = 0;
};
struct Glossary {
    std::string path;
    std::vector<GlossaryTerm> terms;
    std::vector<LessonError> errors;
    const GlossaryTerm* find(const std::string& key) const;  // case-insensitive, key or alias
};
Glossary parse_glossary(const std::string& path, const std::string& text);
// The shipped glossary (lessons_dir()/glossary.terms), read once.
const Glossary& shipped_glossary();
// Every term key a list of spans links ({term KEY}), nested verdict texts included, in order.
void linked_terms(const std::vector<ProseSpan>& spans, std::vector<std::string>& out);

// =============================================================================================
// [SECTION] Live expressions
// =============================================================================================

// What an expression shows right now.
struct ExprValue {
    enum class State { value, pending, unavailable } state = State::value;
    // An "if" took this branch (0: the condition holds, 1: not); -1 otherwise. The player shows
    // the branch's own prose (branch_spans) so live numbers inside it stay live.
    int branch = -1;
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
// Spans as text with every live expression evaluated (a verdict's chosen text, nested numbers
// filled in); no markup.
std::string spans_text(const std::vector<ProseSpan>& spans, const ExprContext& ctx);
// The levels an expression quotes, as a bit set of Level (a ratio: its quantity's; a verdict: its
// sides' and its texts').
int expr_levels(const LessonExpr& e);
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
    // The user's own workload, parameters, dtype and variants from before the first lesson step
    // was applied: closing the pane puts them back, and settings.json keeps them while a lesson
    // runs (app/core/lesson_player.h settings_to_save), never the lesson's.
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
