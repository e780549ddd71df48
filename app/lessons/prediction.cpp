// Predictions: parsing, units, grading and the reveal (app/lessons/prediction.h).
//
// [SECTION] Parsing (@predict, @option) and the checks of a finished prediction
// [SECTION] Quantities and units an answer may be typed in
// [SECTION] Grading and the reveal
#include "app/lessons/prediction.h"

#include "app/lessons/prose.h"
#include "app/lessons/text_helpers.h"
#include "app/lessons/vocabulary.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace app {

using namespace lesson_text;

// =============================================================================================
// [SECTION] Parsing
// =============================================================================================

namespace {

constexpr const char* kHeadForm =
    "@predict EXPR within TOL [in UNIT] (TOL: 20% relative, or 0.5 absolute in the unit), or @predict choice";

LessonExpr expr_of(const std::vector<std::string>& w) {
    LessonExpr e;
    if (w.empty()) return e;
    e.func = w.front();
    e.args.assign(w.begin() + 1, w.end());
    e.source = join(w, " ");
    return e;
}

}  // namespace

std::string parse_prediction_head(const std::string& arg, Prediction& p) {
    const std::vector<std::string> w = words(arg);
    if (w.empty()) return "@predict needs what to predict: " + std::string(kHeadForm);
    if (w.front() == "choice") {
        p.kind = Prediction::Kind::choice;
        if (w.size() > 1) return "@predict choice takes nothing more: its options follow as @option LABEL if CONDITION";
        return "";
    }
    p.kind = Prediction::Kind::number;
    const auto within = std::find(w.begin(), w.end(), "within");
    p.expr = expr_of(std::vector<std::string>(w.begin(), within));
    const Quantity q = expr_quantity(p.expr);
    p.unit = q == Quantity::none ? std::string() : units_of(q).front().name;  // unless "in UNIT" says otherwise
    if (within == w.end()) return "a number prediction states its tolerance: " + std::string(kHeadForm);
    if (within == w.begin()) return "@predict needs the expression to predict before 'within'";
    std::vector<std::string> rest(within + 1, w.end());
    // "20%", "20 %", "0.5"; then "in UNIT".
    if (rest.empty()) return "'within' needs a tolerance: 20% (relative) or 0.5 (absolute, in the unit)";
    std::string tol = rest.front();
    rest.erase(rest.begin());
    if (!rest.empty() && rest.front() == "%") {
        tol += "%";
        rest.erase(rest.begin());
    }
    p.relative = !tol.empty() && tol.back() == '%';
    if (p.relative) tol.pop_back();
    double value = 0;
    if (!parse_number(tol, value) || !(value > 0) || !std::isfinite(value))
        return "bad tolerance '" + tol + (p.relative ? "%" : "") + "': a positive number, 20% (relative) or 0.5 (absolute, in the unit)";
    if (p.relative && value >= 100) return "a relative tolerance of " + tol + "% accepts any answer: state one below 100%";
    p.tolerance = p.relative ? value / 100.0 : value;
    if (!rest.empty()) {
        if (rest.front() != "in" || rest.size() != 2)
            return "after the tolerance only 'in UNIT' may follow (e.g. in MiB), not '" + join(rest, " ") + "'";
        p.unit = rest[1];
    }
    return "";
}

std::string parse_prediction_option(const std::string& arg, PredictionOption& o) {
    const std::string form = "@option takes LABEL if CONDITION, e.g. @option faster if measured.time fused < measured.time unfused";
    const size_t at = (" " + arg + " ").find(" if ");
    if (at == std::string::npos) return form;
    o.label = trim(arg.substr(0, at));
    const std::string condition = trim(arg.substr(std::min(arg.size(), at + 3)));
    if (o.label.empty()) return "@option needs a label before 'if': " + form;
    if (condition.empty()) return "@option '" + o.label + "' needs a condition after 'if': " + form;
    // A verdict without texts: the condition alone, evaluated like {if CONDITION | yes | no}.
    o.condition.func = "if";
    o.condition.args = words(condition);
    o.condition.source = "if " + condition;
    o.condition.branches = {"yes", "no"};
    o.condition.branch_spans = {{ProseSpan{ProseSpan::Kind::text, "yes", {}, o.line}},
                                {ProseSpan{ProseSpan::Kind::text, "no", {}, o.line}}};
    return "";
}

std::vector<std::pair<int, std::string>> prediction_form_errors(const Prediction& p) {
    std::vector<std::pair<int, std::string>> out;
    if (p.question.empty()) out.emplace_back(p.line, "the prediction asks nothing: write its question on the lines after @predict");
    if (p.reveal.empty())
        out.emplace_back(p.line, "the prediction has no reveal: after @reveal, say the closed form or the measurement behind the answer");
    if (p.kind == Prediction::Kind::choice) {
        if (p.options.size() < 2)
            out.emplace_back(p.line, "a choice needs two options or more: @option LABEL if CONDITION, one per line");
        for (size_t i = 0; i < p.options.size(); ++i)
            for (size_t j = 0; j < i; ++j)
                if (lower_text(p.options[i].label) == lower_text(p.options[j].label))
                    out.emplace_back(p.options[i].line, "option '" + p.options[i].label + "' is listed twice");
    }
    return out;
}

std::vector<std::pair<int, std::string>> prediction_expr_errors(const Prediction& p, const std::string& workload) {
    std::vector<std::pair<int, std::string>> out;
    if (p.kind == Prediction::Kind::choice) {
        for (const PredictionOption& o : p.options)
            if (std::string why = check_expr(o.condition, workload); !why.empty())
                out.emplace_back(o.line, "option '" + o.label + "': " + why);
        return out;
    }
    if (p.expr.func.empty()) return out;  // the head's own error was given
    if (std::string why = check_expr(p.expr, workload); !why.empty()) {
        out.emplace_back(p.line, "{" + p.expr.source + "}: " + why);
        return out;
    }
    const Quantity q = expr_quantity(p.expr);
    if (q == Quantity::none || is_text_expression(p.expr)) {
        out.emplace_back(p.line, "{" + p.expr.source + "} is text, not a number to predict: make it a choice (@predict choice)");
        return out;
    }
    if (!find_unit(q, p.unit)) {
        std::string legal;
        for (const AnswerUnit& u : units_of(q)) legal += (legal.empty() ? "" : ", ") + std::string(*u.name ? u.name : "(none)");
        out.emplace_back(p.line, "unit '" + p.unit + "' does not measure " + quantity_name(q) + " (legal: " + legal + ")");
    }
    return out;
}

std::vector<std::pair<int, std::string>> parse_prediction_blocks(const std::string& text, int first_line,
                                                                 const std::string& workload, std::vector<Prediction>& out) {
    std::vector<std::pair<int, std::string>> errors;
    auto error = [&](int line, std::string why) { errors.emplace_back(line, std::move(why)); };
    Prediction* open = nullptr;  // the block being read (only out.back(): nothing is added while one is open)
    bool reveal = false, paragraph = false;
    // A finished block: its form, its live parts, the live values its prose quotes.
    auto close = [&]() {
        for (auto& e : prediction_form_errors(*open)) errors.push_back(std::move(e));
        for (auto& e : prediction_expr_errors(*open, workload)) errors.push_back(std::move(e));
        for (const auto* blocks : {&open->question, &open->reveal})
            for (const ProseBlock& b : *blocks)
                for (const ProseSpan& span : b.spans)
                    if (span.kind == ProseSpan::Kind::expr)
                        if (std::string why = check_expr(span.expr, workload); !why.empty())
                            error(span.line, "{" + span.expr.source + "}: " + why);
        open = nullptr;
    };
    std::istringstream in(text);
    std::string raw;
    for (int no = first_line; std::getline(in, raw); ++no) {
        const std::string t = trim(raw);
        if (t.empty()) {
            paragraph = false;
            continue;
        }
        if (t.rfind("//", 0) == 0) continue;  // a comment for the author, as in lessons
        if (t[0] != '@') {
            if (!open) {
                error(no, "text outside a @predict block: this section holds only @predict ... @end blocks");
                continue;
            }
            // The question until @reveal, then the reveal; a bullet is one line, a blank line ends a paragraph.
            std::vector<ProseBlock>& blocks = reveal ? open->reveal : open->question;
            const bool bullet = t.size() > 1 && (t[0] == '-' || t[0] == '*') && t[1] == ' ';
            std::vector<ProseSpan> spans;
            std::vector<std::string> numbers;
            if (std::string why = parse_inline(bullet ? trim(t.substr(2)) : t, no, spans, &numbers); !why.empty()) error(no, why);
            for (const std::string& n : numbers)
                error(no, "'" + (n.empty() || n[0] != '\x02' ? n : n.substr(1)) + "' typed into a prediction's " +
                              (reveal ? "reveal" : "question") + ": write it as a live expression, or mark a definition {=N}");
            if (bullet || !paragraph || blocks.back().bullet) blocks.push_back({bullet, no, {}});
            else blocks.back().spans.push_back({ProseSpan::Kind::text, " ", {}, no});
            paragraph = true;
            for (ProseSpan& s : spans) blocks.back().spans.push_back(std::move(s));
            continue;
        }
        paragraph = false;
        const size_t space = t.find_first_of(" \t");
        const std::string name = t.substr(1, space == std::string::npos ? std::string::npos : space - 1);
        const std::string arg = space == std::string::npos ? "" : trim(t.substr(space));
        if (name == "predict") {
            if (open) {
                error(no, "@predict inside the @predict block opened at line " + std::to_string(open->line) + ": close it with @end first");
                continue;
            }
            open = &out.emplace_back();
            open->line = no;
            reveal = false;
            if (std::string why = parse_prediction_head(arg, *open); !why.empty()) error(no, why);
        } else if (!open) {
            error(no, "@" + name + " outside a @predict block (this section holds @predict ... @end blocks)");
        } else if (name == "option") {
            PredictionOption o;
            o.line = no;
            if (reveal) error(no, "@option after @reveal: list the options before the reveal");
            else if (open->kind != Prediction::Kind::choice)
                error(no, "@option in a number prediction: write @predict choice for a question with options");
            else if (std::string why = parse_prediction_option(arg, o); !why.empty()) error(no, why);
            else open->options.push_back(std::move(o));
        } else if (name == "reveal") {
            if (reveal) error(no, "a second @reveal in this prediction");
            else if (!arg.empty()) error(no, "@reveal takes no argument: the reveal's text goes on the lines after it");
            reveal = true;
        } else if (name == "end") {
            close();
        } else {
            error(no, "@" + name + " inside the @predict block opened at line " + std::to_string(open->line) +
                          " (legal there: @option, @reveal, @end)");
        }
    }
    if (open) error(open->line, "unclosed @predict block: add @end after its reveal");
    return errors;
}

// =============================================================================================
// [SECTION] Quantities and units
// =============================================================================================

Quantity expr_quantity(const LessonExpr& e) {
    const std::string& f = e.func;
    if (f == "ratio" || f == "measured.dram_per_l2sm" || f == "measured.dram_per_model") return Quantity::factor;
    if (f.find("intensity") != std::string::npos || f == "device.ridge") return Quantity::intensity;
    if (f == "measured.time" || f == "model.time" || f == "timeline.span" || f == "timeline.busy" || f == "timeline.gap")
        return Quantity::time;
    if (f == "measured.dram_percent" || f == "timeline.idle" || f == "model.spill_past_l1") return Quantity::percent;
    if (f == "measured.dram_gbps" || f == "device.bandwidth") return Quantity::bandwidth;
    if (f == "measured.tflops" || f == "device.tflops") return Quantity::flop_rate;
    if (f == "model.flops") return Quantity::flops;
    if (f == "measured.error") return Quantity::error;
    if (f == "model.kernels" || f == "model.ctas" || f == "timeline.kernels" || f == "device.sms" || f == "model.registers" ||
        f == "model.kernel_flops_per_element" || (f == "param" && !(e.args.size() == 1 && e.args[0] == "dtype")))
        return Quantity::count;
    if (expr_levels(e) != 0 || f == "device.smem" || f == "device.l2" || f == "model.tensor") return Quantity::bytes;
    return Quantity::none;
}

const char* quantity_name(Quantity q) {
    switch (q) {
    case Quantity::bytes: return "bytes";
    case Quantity::time: return "a time";
    case Quantity::percent: return "a percentage";
    case Quantity::factor: return "a factor";
    case Quantity::intensity: return "an arithmetic intensity";
    case Quantity::count: return "a count";
    case Quantity::flops: return "FLOPs";
    case Quantity::bandwidth: return "a bandwidth";
    case Quantity::flop_rate: return "a FLOP rate";
    case Quantity::error: return "an error";
    case Quantity::none: break;
    }
    return "nothing";
}

const std::vector<AnswerUnit>& units_of(Quantity q) {
    static const std::vector<AnswerUnit> bytes = {{"MiB", 1048576.0}, {"B", 1},        {"KiB", 1024.0},
                                                  {"GiB", 1073741824.0}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
    static const std::vector<AnswerUnit> time = {{"ms", 1}, {"us", 1e-3}, {"\xC2\xB5s", 1e-3}, {"s", 1e3}, {"ns", 1e-6}};
    static const std::vector<AnswerUnit> percent = {{"%", 1}};
    static const std::vector<AnswerUnit> factor = {{"x", 1}, {"\xC3\x97", 1}};
    static const std::vector<AnswerUnit> intensity = {{"FLOP/B", 1}};
    static const std::vector<AnswerUnit> count = {{"", 1}, {"k", 1e3}, {"M", 1e6}};
    static const std::vector<AnswerUnit> flops = {{"GFLOP", 1e9}, {"FLOP", 1}, {"MFLOP", 1e6}, {"TFLOP", 1e12}};
    static const std::vector<AnswerUnit> bandwidth = {{"GB/s", 1}, {"TB/s", 1e3}};
    static const std::vector<AnswerUnit> flop_rate = {{"TFLOP/s", 1}, {"GFLOP/s", 1e-3}};
    static const std::vector<AnswerUnit> plain = {{"", 1}};
    static const std::vector<AnswerUnit> none;
    switch (q) {
    case Quantity::bytes: return bytes;
    case Quantity::time: return time;
    case Quantity::percent: return percent;
    case Quantity::factor: return factor;
    case Quantity::intensity: return intensity;
    case Quantity::count: return count;
    case Quantity::flops: return flops;
    case Quantity::bandwidth: return bandwidth;
    case Quantity::flop_rate: return flop_rate;
    case Quantity::error: return plain;
    case Quantity::none: break;
    }
    return none;
}

const AnswerUnit* find_unit(Quantity q, const std::string& name) {
    for (const AnswerUnit& u : units_of(q))
        if (name == u.name || (name == "X" && std::string(u.name) == "x")) return &u;
    return nullptr;
}

namespace {

double unit_scale(const Prediction& p) {
    const AnswerUnit* u = find_unit(expr_quantity(p.expr), p.unit);
    return u ? u->scale : 1.0;
}

std::string number_text(double v) {
    if (v != 0 && (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e7)) return printf_text("%.2e", v);
    return printf_text(std::fabs(v) >= 100 ? "%.0f" : "%.3g", v);
}

std::string with_unit(const std::string& number, const std::string& unit) {
    if (unit.empty()) return number;
    if (unit == "x") return number + "\xC3\x97";
    return number + " " + unit;
}

}  // namespace

std::string tolerance_text(const Prediction& p) {
    if (p.kind != Prediction::Kind::number) return "";
    if (p.relative) return "\xC2\xB1" + number_text(p.tolerance * 100) + " %";
    return "\xC2\xB1" + with_unit(number_text(p.tolerance), p.unit);
}

std::string value_in_unit(double base_value, const Prediction& p) {
    return with_unit(number_text(base_value / unit_scale(p)), p.unit);
}

bool parse_answer_number(const std::string& text, const Prediction& p, double& out, std::string* why) {
    const std::string t = trim(text);
    const char* begin = t.c_str();
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (t.empty() || end == begin || !std::isfinite(v)) {
        if (why) *why = "type a number" + (p.unit.empty() ? std::string() : " (in " + p.unit + ")");
        return false;
    }
    const std::string unit = trim(std::string(end));
    const Quantity q = expr_quantity(p.expr);
    const AnswerUnit* u = unit.empty() ? find_unit(q, p.unit) : find_unit(q, unit);
    if (!u) {
        std::string legal;
        for (const AnswerUnit& a : units_of(q))
            if (*a.name) legal += (legal.empty() ? "" : ", ") + std::string(a.name);
        if (why) *why = "'" + unit + "' is not a unit of " + quantity_name(q) + (legal.empty() ? "" : " (use " + legal + ")");
        return false;
    }
    out = v * u->scale;
    return true;
}

// =============================================================================================
// [SECTION] Grading and the reveal
// =============================================================================================

int option_named(const Prediction& p, const std::string& answer) {
    const std::string a = lower_text(trim(answer));
    if (a.empty()) return -1;
    for (size_t i = 0; i < p.options.size(); ++i)
        if (lower_text(p.options[i].label) == a) return static_cast<int>(i);
    if (a.size() == 1 && a[0] >= 'a' && static_cast<size_t>(a[0] - 'a') < p.options.size()) return a[0] - 'a';
    return -1;
}

namespace {

// "SOURCE = VALUE: what it is" for a number prediction's expression.
std::string expr_evidence(const LessonExpr& e, const ExprValue& v) {
    std::string what;
    if (e.func == "ratio" && e.args.size() == 3) {
        if (const ExprInfo* q = find_expr(e.args[0])) what = std::string(q->what) + ", " + e.args[1] + " over " + e.args[2];
    } else if (const ExprInfo* info = find_expr(e.func)) {
        what = info->what;
    }
    return e.source + " = " + v.text + (what.empty() ? "" : ": " + what);
}

PredictionGrade not_here(ExprValue::State state, const std::string& why) {
    PredictionGrade g;
    g.state = state;
    g.why = why;
    return g;
}

PredictionGrade grade_number(const Prediction& p, const std::string& answer, const ExprContext& ctx) {
    const ExprValue v = evaluate(p.expr, ctx);
    if (v.state != ExprValue::State::value) return not_here(v.state, v.text);
    if (!v.number) return not_here(ExprValue::State::unavailable, "{" + p.expr.source + "} gives no number");
    PredictionGrade g;
    g.truth = *v.number;
    g.truth_text = v.text;
    g.simulated = v.simulated;
    g.recorded = v.recorded;
    g.evidence.push_back(expr_evidence(p.expr, v));
    if (trim(answer).empty()) {
        g.verdict = "It is " + v.text + " here (the lesson accepts " + tolerance_text(p) + ").";
        return g;
    }
    double said = 0;
    if (!parse_answer_number(answer, p, said, &g.answer_error)) return g;
    g.answered = true;
    const double diff = said - g.truth;
    const double allowed = p.relative ? p.tolerance * std::fabs(g.truth) : p.tolerance * unit_scale(p);
    // A relative tolerance around zero accepts only zero; the comparison allows rounding.
    g.right = std::fabs(diff) <= allowed * (1 + 1e-9) + 1e-12 * std::fabs(g.truth);
    if (g.truth != 0) g.off_percent = 100.0 * diff / std::fabs(g.truth);
    std::string how_far;
    if (g.off_percent && std::fabs(*g.off_percent) >= 0.5)
        how_far = number_text(std::fabs(*g.off_percent)) + " % " + (diff > 0 ? "high" : "low");
    else if (g.off_percent)
        how_far = "spot on";
    else
        how_far = "off by " + value_in_unit(std::fabs(diff), p);
    g.verdict = "You said " + value_in_unit(said, p) + ". It is " + v.text + ": " + how_far + ", " +
                (g.right ? "within" : "outside") + " the " + tolerance_text(p) + " the lesson allows.";
    return g;
}

PredictionGrade grade_choice(const Prediction& p, const std::string& answer, const ExprContext& ctx) {
    std::vector<int> holding;
    bool simulated = false;
    std::string recorded;
    for (size_t i = 0; i < p.options.size(); ++i) {
        const ExprValue v = evaluate(p.options[i].condition, ctx);
        if (v.state != ExprValue::State::value) return not_here(v.state, v.text);
        if (v.branch == 0) holding.push_back(static_cast<int>(i));
        simulated = simulated || v.simulated;
        if (!v.recorded.empty()) recorded = v.recorded;
    }
    if (holding.size() != 1) {
        std::string which;
        for (int i : holding) which += (which.empty() ? "" : ", ") + p.options[static_cast<size_t>(i)].label;
        return not_here(ExprValue::State::unavailable,
                        holding.empty() ? "no option's condition holds on this device"
                                        : "more than one option holds on this device (" + which + ")");
    }
    PredictionGrade g;
    g.correct = holding.front();
    const PredictionOption& right = p.options[static_cast<size_t>(g.correct)];
    g.truth_text = right.label;
    g.simulated = simulated;
    g.recorded = recorded;
    g.evidence = condition_evidence(right.condition, ctx);
    if (trim(answer).empty()) {
        g.verdict = "The answer here is " + right.label + ".";
        return g;
    }
    const int chosen = option_named(p, answer);
    if (chosen < 0) {
        std::string labels;
        for (const PredictionOption& o : p.options) labels += (labels.empty() ? "" : ", ") + o.label;
        g.answer_error = "choose one of: " + labels;
        return g;
    }
    g.answered = true;
    g.right = chosen == g.correct;
    g.verdict = g.right ? "You chose " + right.label + ": right."
                        : "You chose " + p.options[static_cast<size_t>(chosen)].label + ". The answer here is " + right.label + ".";
    return g;
}

}  // namespace

PredictionGrade grade_prediction(const Prediction& p, const std::string& answer, const ExprContext& ctx) {
    return p.kind == Prediction::Kind::number ? grade_number(p, answer, ctx) : grade_choice(p, answer, ctx);
}

}  // namespace app
