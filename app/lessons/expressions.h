// Live expressions: the numbers in a lesson's prose, checked against a workload when the lesson is
// parsed and evaluated against the app's state (the parameters on screen, the device, the
// measurements) each time the step is drawn. The vocabulary is app/lessons/vocabulary.h.
#pragma once

#include "app/lessons/model/lesson.h"
#include "app/lessons/vocabulary.h"
#include "kernels/core/types.h"

#include <optional>
#include <string>
#include <vector>

namespace app {

// The level a byte expression counts (model.dram -> dram, model.l2sm -> l2sm, measured.dram -> dram,
// ratio model.l2sm A B -> l2sm, ...); Level::none for time, FLOPs, device and text expressions.
Level expr_level(const LessonExpr& e);

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

// Expressions that give text, not a number (device.name, model.limiter, refusal, verdicts...):
// they cannot be compared, divided or predicted as a number.
bool is_text_expression(const LessonExpr& e);
// The live values a verdict's condition rests on, each as "SOURCE = VALUE": both sides of a
// comparison (literals left out), the limiter of a limiter test, the refusal of refused/runs. A
// prediction's reveal shows them beside the right option.
std::vector<std::string> condition_evidence(const LessonExpr& verdict, const ExprContext& ctx);

}  // namespace app
