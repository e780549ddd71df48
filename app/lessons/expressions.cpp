// Live expressions: checking them against a workload and evaluating them against the app's state:
// the model (bytes at each level, FLOPs, the calibrated price and limiter), the measurements and
// their counters and timelines, the device's ceilings (app/lessons/expressions.h).
//
// [SECTION] Verdicts: conditions, tests without a comparison, limiter classes
// [SECTION] Levels an expression quotes; checking an expression
// [SECTION] Evaluation (model, measured, timeline, ratio, device, verdicts)
// [SECTION] What a verdict rests on (a prediction's reveal)
#include "app/lessons/expressions.h"

#include "app/files/export.h"
#include "app/recordings/auto_pick.h"
#include "app/recordings/recording_file.h"
#include "app/lessons/glossary.h"
#include "app/lessons/text_helpers.h"
#include "app/lessons/vocabulary.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"
#include "kernels/core/timeline.h"
#include "viz/model/memory_player.h"
#include "viz/model/roofline.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace app {

using namespace lesson_text;

// =============================================================================================
// [SECTION] Verdicts
// =============================================================================================

namespace {

bool is_comparison(const std::string& word) { return word == "<" || word == "<=" || word == ">" || word == ">="; }

// The two sides of a verdict's condition: each a number or an expression's words.
struct Condition {
    std::vector<std::string> left, right;
    std::string op;
};

// "" and the condition, or why the words are not "A OP B".
std::string split_condition(const std::vector<std::string>& words_, Condition& c) {
    size_t op = words_.size();
    for (size_t i = 0; i < words_.size(); ++i)
        if (is_comparison(words_[i])) {
            if (op != words_.size()) return "one comparison only";
            op = i;
        }
    if (op == words_.size())
        return "no comparison: write {if A OP B | THEN | ELSE} with OP one of < <= > >=, spaced; or a test: refused V, "
               "runs V, counters V, timeline V, simulated, recorded, model.limiter V is CLASS";
    c.left.assign(words_.begin(), words_.begin() + static_cast<long>(op));
    c.right.assign(words_.begin() + static_cast<long>(op) + 1, words_.end());
    c.op = words_[op];
    if (c.left.empty() || c.right.empty()) return "the comparison " + c.op + " needs a side on its left and its right";
    return "";
}

bool literal(const std::vector<std::string>& side, double& value) { return side.size() == 1 && parse_number(side[0], value); }

LessonExpr side_expr(const std::vector<std::string>& side) {
    LessonExpr e;
    e.func = side.front();
    e.args.assign(side.begin() + 1, side.end());
    e.source = join(side, " ");
    return e;
}

// Tests a verdict may make without a comparison: the first word, and how many variant words follow.
struct UnaryTest {
    const char* word;
    int variants;
    const char* what;
};
const std::vector<UnaryTest>& unary_tests() {
    static const std::vector<UnaryTest> tests = {
        {"refused", 1, "the device cannot run V with these parameters"},
        {"runs", 1, "the device can run V with these parameters"},
        {"counters", 1, "V's measurement has DRAM counter bytes (a GPU, or a recording of one)"},
        {"timeline", 1, "V's measurement has a timeline of its kernels"},
        {"simulated", 0, "the numbers come from a simulated GPU"},
        {"recorded", 0, "the numbers come from a recording of a real GPU"},
    };
    return tests;
}
const UnaryTest* find_unary(const std::vector<std::string>& args) {
    if (args.empty()) return nullptr;
    for (const UnaryTest& t : unary_tests())
        if (args[0] == t.word && static_cast<int>(args.size()) == 1 + t.variants) return &t;
    return nullptr;
}

// Limiter classes a verdict tests: `{if model.limiter V is CLASS | ... | ...}`. Each resource of
// kernels/core/limiter.h (what price_run names) belongs to one fine class and one coarse kind.
struct LimiterClass {
    kernels::Limiter resource;
    const char* fine;      // dram, l2, shared, tensor, fp32, sfu, issue, occupancy, latency, launch
    const char* kind;      // memory, onchip, compute, issue, latency, launch
    const char* bound;     // the bound word model.bound shows
};
const std::vector<LimiterClass>& limiter_classes() {
    using kernels::Limiter;
    static const std::vector<LimiterClass> table = {
        {Limiter::dram, "dram", "memory", "memory-bound (DRAM bandwidth)"},
        {Limiter::l2, "l2", "memory", "memory-bound (L2\xE2\x86\x92SM bandwidth)"},
        {Limiter::shared, "shared", "onchip", "bound on chip (shared-memory bandwidth)"},
        {Limiter::tensor_and_exp2, "tensor", "compute", "compute-bound (tensor cores and exp2 in turn)"},
        {Limiter::tensor, "tensor", "compute", "compute-bound (tensor cores)"},
        {Limiter::fp32, "fp32", "compute", "compute-bound (FP32 multiply-adds)"},
        {Limiter::sfu, "sfu", "compute", "compute-bound (exp2 on the special-function units)"},
        {Limiter::issue, "issue", "issue", "issue-bound (instruction issue)"},
        {Limiter::occupancy, "occupancy", "latency", "latency-bound (too few warps: occupancy)"},
        {Limiter::memory_latency, "latency", "latency", "latency-bound (memory latency)"},
        {Limiter::block_latency, "latency", "latency", "latency-bound (each block's serial steps)"},
        {Limiter::launch, "launch", "launch", "launch-bound (kernel launches)"},
        {Limiter::graph_replay, "launch", "launch", "launch-bound (graph replay)"},
    };
    return table;
}
const LimiterClass* limiter_class(kernels::Limiter resource) {
    for (const LimiterClass& c : limiter_classes())
        if (c.resource == resource) return &c;
    return nullptr;
}
bool known_class_word(const std::string& w) {
    for (const LimiterClass& c : limiter_classes())
        if (w == c.fine || w == c.kind) return true;
    return false;
}
std::string class_words() { return "dram, l2, shared, tensor, fp32, sfu, issue, occupancy, latency, launch; memory, onchip, compute"; }

bool is_limiter_test(const std::vector<std::string>& args) {
    return args.size() == 4 && args[0] == "model.limiter" && args[2] == "is";
}

// Expressions that give text, not a number: they cannot be compared or divided.
bool is_text_expr(const LessonExpr& e) {
    return e.func == "if" || e.func == "term" || e.func == "device.name" || e.func == "device.kind" || e.func == "refusal" ||
           e.func == "model.limiter" || e.func == "model.bound" ||
           (e.func == "param" && e.args.size() == 1 && e.args[0] == "dtype");
}

}  // namespace

// =============================================================================================
// [SECTION] Levels an expression quotes; checking an expression
// =============================================================================================

Level expr_level(const LessonExpr& e) {
    const int l = expr_levels(e);
    return l & kDram ? Level::dram : l & kL2sm ? Level::l2sm : l & kOnchip ? Level::onchip : Level::none;
}

int expr_levels(const LessonExpr& e) {
    const std::string& f = e.func;
    if (f == "ratio" && !e.args.empty()) return expr_levels(side_expr({e.args[0], "x"}));
    if (f == "if") {
        int levels = 0;
        Condition c;
        if (split_condition(e.args, c).empty())
            for (const auto* side : {&c.left, &c.right})
                if (double v = 0; !literal(*side, v)) levels |= expr_levels(side_expr(*side));
        for (const auto& branch : e.branch_spans)
            for (const ProseSpan& s : branch)
                if (s.kind == ProseSpan::Kind::expr) levels |= expr_levels(s.expr);
        return levels;
    }
    if (f == "measured.dram_per_l2sm") return kDram | kL2sm;
    if (f.rfind("model.dram", 0) == 0 || f.rfind("measured.dram", 0) == 0 || f == "model.min_dram") return kDram;
    if (f.rfind("model.l2sm", 0) == 0) return kL2sm;
    if (f == "model.onchip" || f == "model.spill_bytes" || f == "model.spill_past_l1") return kOnchip;
    return 0;
}

std::string check_expr(const LessonExpr& e, std::string w) {
    if (e.func.empty()) return "empty expression (legal functions: " + func_names() + ")";
    if (e.func == "if") {
        if (e.branches.size() != 2)
            return "if takes a condition and two texts: {if A OP B | shown when it holds | shown when not}";
        for (const auto& branch : e.branch_spans)
            for (const ProseSpan& s : branch)
                if (s.kind == ProseSpan::Kind::expr)
                    if (std::string why = check_expr(s.expr, w); !why.empty()) return "{" + s.expr.source + "}: " + why;
        if (const UnaryTest* t = find_unary(e.args)) {
            if (t->variants == 1 && !kernels::has_variant(w, e.args[1]))
                return "unknown variant '" + e.args[1] + "' of " + w + " (legal: " + variant_names(w) + ")";
            return "";
        }
        if (is_limiter_test(e.args)) {
            if (!kernels::has_variant(w, e.args[1]))
                return "unknown variant '" + e.args[1] + "' of " + w + " (legal: " + variant_names(w) + ")";
            if (!known_class_word(e.args[3])) return "unknown limiter class '" + e.args[3] + "' (legal: " + class_words() + ")";
            return "";
        }
        Condition c;
        if (std::string why = split_condition(e.args, c); !why.empty()) return why;
        for (const std::vector<std::string>* side : {&c.left, &c.right}) {
            double value = 0;
            if (literal(*side, value)) continue;
            const LessonExpr sub = side_expr(*side);
            if (is_text_expr(sub)) return "'" + sub.source + "' is not a number to compare";
            if (std::string why = check_expr(sub, w); !why.empty()) return "'" + sub.source + "': " + why;
        }
        return "";
    }
    if (e.func == "term") {
        if (e.args.empty()) return "term takes a glossary key: {term CTA}";
        const Glossary& g = shipped_glossary();
        if (!g.terms.empty() && !g.find(join(e.args, " ")))
            return "no glossary term '" + join(e.args, " ") + "' in " + g.path + ": add it there (@term KEY)";
        return "";
    }
    const ExprInfo* info = find_expr(e.func);
    if (!info) {
        if (const char* now = renamed_expr(e.func))
            return "'" + e.func + "' does not say which level it counts: write " + now;
        return "unknown function '" + e.func + "' (legal: " + func_names() + ")";
    }
    const size_t want = expected_args(*info);
    if (e.args.size() != want)
        return e.func + " takes " + std::to_string(want) + (want == 1 ? " argument" : " arguments") +
               (want ? std::string(" (") + info->args + ")" : std::string()) + ", not " + std::to_string(e.args.size());
    std::vector<std::string> variant_args;
    const std::string arg_kind = info->args;
    if (e.func == "ratio") {
        const LessonExpr sub = side_expr({e.args[0], e.args[1]});
        const ExprInfo* q = find_expr(e.args[0]);
        if (!q || std::string(q->args) != "VARIANT" || is_text_expr(sub)) {
            const char* now = renamed_expr("model." + e.args[0]);
            return "ratio of '" + e.args[0] + "'? Name a number of one variant: measured.time, model.dram, model.l2sm, "
                   "measured.dram, model.flops, model.kernels, ..." + (now ? std::string(" (for bytes: ") + now + ")" : std::string());
        }
        variant_args = {e.args[1], e.args[2]};
    } else if (arg_kind.rfind("VARIANT", 0) == 0) {
        variant_args = {e.args[0]};
    } else if (e.func == "param") {
        if (e.args[0] != "dtype" && !spec_named(w, e.args[0]))
            return "unknown parameter '" + e.args[0] + "' of " + w + " (legal: dtype, " + param_names(w) + ")";
    }
    for (const std::string& v : variant_args)
        if (!kernels::has_variant(w, v))
            return "unknown variant '" + v + "' of " + w + " (legal: " + variant_names(w) + ")";
    if (e.func == "model.dram_buffer" || e.func == "model.l2sm_buffer" || e.func == "model.tensor") {
        kernels::Params p;
        p.workload = w;
        bool found = false;
        try {
            for (const auto& k : kernels::model(e.args[0], p).kernels)
                for (const auto& b : k.buffers) found = found || b.buffer == e.args[1];
        } catch (const std::exception&) {
            found = true;  // cannot tell with default parameters; evaluation will say
        }
        if (!found) return "variant " + e.args[0] + " moves no buffer named '" + e.args[1] + "'";
    }
    return "";
}

// =============================================================================================
// [SECTION] Evaluation
// =============================================================================================

namespace {

ExprValue value_text(std::string text, std::optional<double> number = std::nullopt) {
    ExprValue v;
    v.text = std::move(text);
    v.number = number;
    return v;
}
ExprValue unavailable(const std::string& why) {
    ExprValue v = value_text("unavailable: " + why);
    v.state = ExprValue::State::unavailable;
    return v;
}
ExprValue pending() {
    ExprValue v = value_text("measuring\xE2\x80\xA6");
    v.state = ExprValue::State::pending;
    v.measured = true;
    return v;
}

std::string ratio_text(double v) { return printf_text(v >= 10 ? "%.1f\xC3\x97" : "%.2f\xC3\x97", v); }

// The measurement of `variant` for exactly the parameters on screen, or why there is none.
// The parameters `variant` runs with here: an auto tile as the runner resolves it on this device
// (app/recordings/auto_pick.h), so a step's model numbers describe the tile its results ran.
kernels::Params params_of(const std::string& variant, const ExprContext& ctx) {
    if (!ctx.device || !kernels::has_auto(ctx.params)) return ctx.params;
    // A recorded backend (it has a fallback device) picks among its recording's tiles, as its runs do.
    std::string recording;
    if (ctx.fallback_device)
        if (const auto r = find_recording(card_of_device(ctx.device->name))) recording = r->key;
    return pick_auto_for(variant, ctx.params, *ctx.device, recording).params;
}

const kernels::Measurement* find_measurement(const ExprContext& ctx, const std::string& variant, ExprValue& why) {
    if (ctx.results)
        for (const kernels::Measurement& m : *ctx.results) {
            if (m.job.variant != variant || !(m.job.params == ctx.params)) continue;
            if (ctx.device && m.device.name != ctx.device->name &&
                !(ctx.fallback_device && m.device.name == ctx.fallback_device->name))
                continue;
            if (!m.ok) {
                why = unavailable(m.error.empty() ? "the run failed" : m.error);
                return nullptr;
            }
            return &m;
        }
    if (std::string bad = kernels::validate(ctx.params); !bad.empty()) {
        why = unavailable(bad);
        return nullptr;
    }
    if (ctx.device) {
        const std::string refused = kernels::device_refusal(variant, params_of(variant, ctx), kernels::total_memory_budget(*ctx.device));
        if (!refused.empty()) {
            why = unavailable(refused);
            return nullptr;
        }
    }
    if (std::find(ctx.selected.begin(), ctx.selected.end(), variant) == ctx.selected.end()) {
        why = unavailable(variant + " is not selected: tick it under Parameters to measure it");
        return nullptr;
    }
    why = ctx.pending || !ctx.device ? pending() : unavailable("not measured yet");
    return nullptr;
}

ExprValue measured(const kernels::Measurement& m, std::string text, double number) {
    ExprValue v = value_text(std::move(text) + (m.device.simulated ? " (simulated)"
                                                : m.recorded()      ? " (recorded " + m.recorded_date + ")"
                                                                    : ""),
                             number);
    v.simulated = m.device.simulated;
    if (m.recorded()) v.recorded = m.source_label();
    v.measured = true;
    return v;
}

// The L2 the DRAM model assumes: the device's, as the bytes chart and every backend use it.
uint64_t l2_of(const ExprContext& ctx) {
    return ctx.device && ctx.device->l2_bytes > 0 ? static_cast<uint64_t>(ctx.device->l2_bytes) : kernels::kDefaultL2Bytes;
}

std::optional<kernels::Model> model_of(const std::string& variant, const ExprContext& ctx, std::string* why) {
    if (std::string bad = kernels::validate(ctx.params); !bad.empty()) {
        *why = bad;
        return std::nullopt;
    }
    try {
        return kernels::model(variant, params_of(variant, ctx), l2_of(ctx));
    } catch (const std::exception& e) {
        *why = e.what();
        return std::nullopt;
    }
}

// Why a measurement has no counter bytes, without the note's own "unavailable: " (the value adds it).
std::string counters_note(const kernels::Measurement& m) {
    const std::string& note = m.measured_bytes_note;
    return note.rfind("unavailable: ", 0) == 0 ? note.substr(13) : note;
}

ExprValue intensity_value(double flop_per_byte) {
    return value_text(printf_text(flop_per_byte >= 10 ? "%.0f FLOP/B" : "%.2f FLOP/B", flop_per_byte), flop_per_byte);
}

// A simulated GPU calibrated from its datasheet and the H100's measured-to-datasheet ratios (not
// measured on a card of its own, kernels/sim/sim_backend.cpp): its roofs say so, as `fusionlab
// info` does, rather than "calibrated" (issue 28: the A100's roofs labelled "(calibrated)").
bool datasheet_scaled(const kernels::DeviceInfo& d) {
    return d.simulated && kernels::calibration_for(d).source.rfind("datasheet", 0) == 0;
}
std::string ceiling_source(const kernels::DeviceInfo& d, const std::string& source) {
    return datasheet_scaled(d) ? "datasheet copy \xC3\x97 the H100's measured ratio" : source;
}

std::string refusal_of(const std::string& variant, const ExprContext& ctx) {
    if (!ctx.device) return "";
    return kernels::device_refusal(variant, params_of(variant, ctx), kernels::total_memory_budget(*ctx.device));
}

// The calibrated model's price of the variant on this device, as the backends report it
// (kernels::record_model): on a GPU a model claim beside the measurement, not a measurement.
std::optional<kernels::RunPrice> price_of(const std::string& variant, const ExprContext& ctx, ExprValue& why) {
    if (!ctx.device) {
        why = pending();
        return std::nullopt;
    }
    std::string bad;
    const std::optional<kernels::Model> m = model_of(variant, ctx, &bad);
    if (!m) {
        why = unavailable(bad);
        return std::nullopt;
    }
    // A refused variant has no limiter: nothing runs (issue 28: "flash_wgmma ... unavailable; the
    // model says it is bound by tensor-core MMA").
    if (const std::string refused = refusal_of(variant, ctx); !refused.empty()) {
        why = unavailable(refused);
        return std::nullopt;
    }
    return kernels::price_run(kernels::calibration_for(*ctx.device), variant, params_of(variant, ctx), *m, *ctx.device);
}

ExprValue evaluate_model(const LessonExpr& e, const ExprContext& ctx) {
    if (e.func == "model.limiter" || e.func == "model.bound" || e.func == "model.time") {
        ExprValue why;
        const std::optional<kernels::RunPrice> run = price_of(e.args[0], ctx, why);
        if (!run) return why;
        if (e.func == "model.time") {
            ExprValue v = value_text(kernels::format_time_ms(run->total_ms) + " (model)", run->total_ms);
            return v;
        }
        if (e.func == "model.limiter") return value_text(kernels::limiter_name(run->limiter));
        const LimiterClass* c = limiter_class(run->limiter);
        return value_text(c ? c->bound : "bound by " + std::string(kernels::limiter_name(run->limiter)));
    }
    std::string why;
    const std::optional<kernels::Model> m = model_of(e.args[0], ctx, &why);
    if (!m) return unavailable(why);
    auto bytes_value = [](uint64_t b) { return value_text(kernels::format_bytes(static_cast<double>(b)), static_cast<double>(b)); };
    if (e.func == "model.l2sm") return bytes_value(m->bytes());
    if (e.func == "model.l2sm_read") return bytes_value(m->bytes_read());
    if (e.func == "model.l2sm_written") return bytes_value(m->bytes_written());
    if (e.func == "model.dram") return bytes_value(m->dram_bytes());
    if (e.func == "model.dram_read") return bytes_value(m->dram_read());
    if (e.func == "model.dram_written") return bytes_value(m->dram_written());
    if (e.func == "model.onchip") return bytes_value(m->shared_bytes());
    if (e.func == "model.flops") return value_text(kernels::format_flops(m->flops()), m->flops());
    if (e.func == "model.kernels") return value_text(std::to_string(m->kernels.size()), static_cast<double>(m->kernels.size()));
    if (e.func == "model.ctas") {
        int64_t ctas = 0;
        for (const auto& k : m->kernels) ctas = std::max<int64_t>(ctas, static_cast<int64_t>(k.blocks));
        if (ctas <= 0) return unavailable(e.args[0] + "'s model does not count its thread blocks");
        return value_text(kernels::format_count(ctas), static_cast<double>(ctas));
    }
    if (e.func == "model.kernel_flops_per_element" || e.func == "model.kernel_dram_intensity") {
        const kernels::KernelModel* k = nullptr;
        std::vector<std::string> names;
        for (const auto& km : m->kernels) {
            names.push_back(km.name);
            if (km.name == e.args[1]) k = &km;
        }
        if (!k) return unavailable(e.args[0] + " has no kernel " + e.args[1] + " (its kernels: " + join(names, ", ") + ")");
        if (e.func == "model.kernel_dram_intensity") {
            if (k->dram_bytes() == 0) return unavailable(e.args[1] + " moves no DRAM bytes");
            return intensity_value(k->flops / static_cast<double>(k->dram_bytes()));
        }
        if (!spec_named(ctx.params.workload, "rows") || !spec_named(ctx.params.workload, "hidden"))
            return unavailable("per element needs rows and hidden (an elementwise workload)");
        const double n = ctx.params.get("rows") * ctx.params.get("hidden");
        if (!(n > 0)) return unavailable("per element needs rows and hidden (an elementwise workload)");
        const double per = k->flops / n;
        return value_text(printf_text(per >= 10 ? "%.0f" : "%.3g", per), per);
    }
    if (e.func == "model.registers" || e.func == "model.spill_bytes" || e.func == "model.spill_past_l1") {
        const kernels::KernelModel* k = nullptr;
        for (const auto& km : m->kernels)
            if (km.registers.registers > 0 && (!k || km.local_bytes() > k->local_bytes())) k = &km;
        if (!k) return unavailable(e.args[0] + "'s kernels are not in the register tables (the row kernels and flash_tc are)");
        if (e.func == "model.registers") return value_text(std::to_string(k->registers.registers), k->registers.registers);
        if (e.func == "model.spill_bytes") return bytes_value(m->local_bytes());
        if (!ctx.device) return pending();
        const kernels::SpillEstimate est = kernels::spill_estimate(*k, *ctx.device);
        return value_text(printf_text("%.0f %%", 100.0 * est.beyond_l1), 100.0 * est.beyond_l1);
    }
    if (e.func == "model.l2sm_intensity" || e.func == "model.dram_intensity") {
        const uint64_t bytes = e.func == "model.l2sm_intensity" ? m->bytes() : m->dram_bytes();
        if (bytes == 0) return unavailable("the model moves no bytes");
        return intensity_value(m->flops() / static_cast<double>(bytes));
    }
    if (e.func == "model.tensor") {
        // The footprint, as the memory view draws it (viz/model/memory_player.h).
        try {
            const kernels::MemoryPlayer player(e.args[0], params_of(e.args[0], ctx));
            for (const kernels::HbmTensor& t : player.tensors())
                if (t.name == e.args[1] && !t.local) return bytes_value(t.bytes);
        } catch (const std::exception& ex) {
            return unavailable(ex.what());
        }
        return unavailable(e.args[0] + " has no tensor " + e.args[1] + " with these parameters");
    }
    // model.dram_buffer, model.l2sm_buffer
    const bool dram = e.func == "model.dram_buffer";
    uint64_t bytes = 0;
    bool found = false;
    for (const auto& k : m->kernels)
        for (const auto& b : k.buffers)
            if (b.buffer == e.args[1]) {
                bytes += dram ? b.dram_read + b.dram_written : b.bytes_read + b.bytes_written;
                found = true;
            }
    if (!found) return unavailable(e.args[0] + " moves no buffer " + e.args[1] + " with these parameters");
    return bytes_value(bytes);
}

ExprValue evaluate_timeline(const LessonExpr& e, const ExprContext& ctx) {
    ExprValue why;
    const kernels::Measurement* m = find_measurement(ctx, e.args[0], why);
    if (!m) return why;
    if (m->timeline.empty()) return unavailable("no timeline was recorded for " + e.args[0]);
    // The numbers the timeline view's table shows (app/gui/panel_timeline.cpp: timeline_stats).
    const kernels::TimelineStats s = kernels::timeline_stats(m->timeline);
    if (e.func == "timeline.kernels") return measured(*m, std::to_string(s.kernels), static_cast<double>(s.kernels));
    if (e.func == "timeline.span") return measured(*m, kernels::format_time_ms(s.span_ms), s.span_ms);
    if (e.func == "timeline.busy") return measured(*m, kernels::format_time_ms(s.busy_ms), s.busy_ms);
    if (e.func == "timeline.gap") {
        if (s.kernels < 2) return unavailable(e.args[0] + " runs one kernel: no gaps");
        return measured(*m, kernels::format_time_ms(s.median_gap_us * 1e-3), s.median_gap_us * 1e-3);
    }
    if (!(s.span_ms > 0)) return unavailable(e.args[0] + "'s timeline has no length");
    const double pct = std::round(100.0 * s.idle_ms / s.span_ms);
    return measured(*m, printf_text("%.0f %%", pct), pct);
}

ExprValue evaluate_measured(const LessonExpr& e, const ExprContext& ctx) {
    ExprValue why;
    const kernels::Measurement* m = find_measurement(ctx, e.args[0], why);
    if (!m) return why;
    if (e.func == "measured.time") return measured(*m, kernels::format_time_ms(m->time.median_ms), m->time.median_ms);
    if (e.func == "measured.dram_gbps") return measured(*m, kernels::format_gbps(m->achieved_gbps()), m->achieved_gbps());
    if (e.func == "measured.tflops")
        return measured(*m, kernels::format_rate_flops(m->achieved_gflops() * 1e9), m->achieved_gflops() / 1e3);
    if (e.func == "measured.dram_percent") {
        const BandwidthCeiling c = bandwidth_ceiling(m->device);
        if (c.gbps <= 0) return unavailable("no bandwidth ceiling for this device");
        // The number a verdict compares is the one shown (84.6 shows as "85 %" and counts as 85):
        // a verdict never contradicts the percentage beside it.
        const double pct = std::round(percent_of_ceiling(m->achieved_gbps(), c));
        return measured(*m, printf_text("%.0f %%", pct) + " of " + ceiling_source(m->device, c.source), pct);
    }
    if (e.func == "measured.error") {
        if (!m->checked) {
            std::string note = m->check_note.empty() ? "not checked against the reference" : m->check_note;
            if (note.rfind("n/a: ", 0) == 0) note = note.substr(5);  // "n/a: simulated, ..." reads twice as "unavailable"
            return unavailable(note);
        }
        if (m->device.simulated) {  // no kernel ran: the variant's arithmetic emulated on the CPU
            ExprValue v = value_text(printf_text("%.1e", m->rel_l2_error) + " (computed on the CPU)", m->rel_l2_error);
            v.emulated = true;
            return v;
        }
        return measured(*m, printf_text("%.1e", m->rel_l2_error), m->rel_l2_error);
    }
    if (!m->measured_bytes) return unavailable(counters_note(*m));
    const double counted = static_cast<double>(*m->measured_bytes);
    if (e.func == "measured.dram") return measured(*m, kernels::format_bytes(counted), counted);
    if (e.func == "measured.dram_intensity") {
        if (!(counted > 0)) return unavailable("the counters read no DRAM bytes");
        const ExprValue v = intensity_value(m->flops / counted);
        return measured(*m, v.text, *v.number);
    }
    // measured.dram_per_l2sm: against what the loads and stores ask for (L2 -> SM);
    // measured.dram_per_model: against the modeled DRAM bytes (the L2 reuse model).
    const uint64_t l2 = m->l2_bytes_read + m->l2_bytes_written;
    const double modeled = static_cast<double>(e.func == "measured.dram_per_model" ? m->bytes() : l2);
    if (modeled <= 0) return unavailable("the model moves no bytes");
    const double share = counted / modeled;
    return measured(*m, printf_text("%.2f", share), share);
}

ExprValue evaluate_ratio(const LessonExpr& e, const ExprContext& ctx) {
    const ExprValue a = evaluate(side_expr({e.args[0], e.args[1]}), ctx);
    if (a.state != ExprValue::State::value) return a;
    const ExprValue b = evaluate(side_expr({e.args[0], e.args[2]}), ctx);
    if (b.state != ExprValue::State::value) return b;
    if (!a.number || !b.number) return unavailable(e.args[0] + " is not a number");
    if (!(*b.number > 0)) return unavailable(e.args[2] + "'s " + e.args[0] + " is zero");
    const double r = *a.number / *b.number;
    ExprValue v = value_text(ratio_text(r), r);
    // A ratio of measurements carries its source like the measurements do.
    const ExprValue& tagged = a.measured ? a : b;
    if (tagged.simulated) v.text += " (simulated)";
    else if (!tagged.recorded.empty()) v.text += tagged.text.substr(tagged.text.rfind(" (recorded"));
    v.simulated = a.simulated || b.simulated;
    v.measured = a.measured || b.measured;
    v.recorded = a.recorded.empty() ? b.recorded : a.recorded;
    return v;
}

ExprValue evaluate_device(const LessonExpr& e, const ExprContext& ctx) {
    if (!ctx.device) return pending();
    const kernels::DeviceInfo& d = *ctx.device;
    if (e.func == "device.name") return value_text(d.name);
    if (e.func == "device.kind") return value_text(d.simulated ? "simulated" : ctx.fallback_device ? "recorded" : "measured");
    if (e.func == "device.sms") return value_text(std::to_string(d.sm_count), d.sm_count);
    if (e.func == "device.smem") return value_text(kernels::format_bytes(d.smem_per_block_optin), d.smem_per_block_optin);
    if (e.func == "device.l2") return value_text(kernels::format_bytes(static_cast<double>(d.l2_bytes)), static_cast<double>(d.l2_bytes));
    if (e.func == "device.tflops" || e.func == "device.ridge") {
        // The roofs the roofline view draws for the step's dtype: the measured cuBLAS GEMM and copy
        // on a GPU, else the peak from clocks x SMs (GPU) or the calibrated GEMM rate (simulated).
        const kernels::RoofSet roofs = kernels::roofs_for(d, ctx.params.dtype);
        const double tflops = roofs.tensor.flops_per_s / 1e12;
        if (!(tflops > 0)) return unavailable("no tensor-core roof known for this device");
        if (e.func == "device.tflops") {
            const std::string gemm = "cuBLAS " + roofs.tensor.name.substr(12) + " GEMM";
            const std::string source = roofs.tensor.kind == "theoretical" ? std::string("clocks \xC3\x97 SMs, dense")
                                       : datasheet_scaled(d) ? "datasheet \xC3\x97 the H100's measured ratio for a " + gemm
                                                             : roofs.tensor.kind + " " + gemm;
            return value_text(printf_text("%.0f TFLOP/s", tflops) + " (" + source + ")", tflops);
        }
        if (!(roofs.bytes_per_s > 0)) return unavailable("no bandwidth known for this device");
        const double ridge = roofs.tensor.flops_per_s / roofs.bytes_per_s;
        return value_text(printf_text("%.0f FLOP/B", ridge), ridge);
    }
    const BandwidthCeiling c = bandwidth_ceiling(d);
    if (c.gbps <= 0) return unavailable("no bandwidth known for this device");
    return value_text(kernels::format_gbps(c.gbps) + " (" + ceiling_source(d, c.source) + ")", c.gbps);
}

ExprValue evaluate_if(const LessonExpr& e, const ExprContext& ctx) {
    bool holds = false;
    bool simulated = false, was_measured = false;
    std::string recorded;
    if (const UnaryTest* t = find_unary(e.args)) {
        const std::string word = t->word;
        if (word == "simulated" || word == "recorded") {
            if (!ctx.device) return pending();
            holds = word == "simulated" ? ctx.device->simulated : ctx.fallback_device != nullptr;
        } else if (word == "refused" || word == "runs") {
            if (!ctx.device) return pending();
            if (std::string bad = kernels::validate(ctx.params); !bad.empty()) return unavailable(bad);
            holds = refusal_of(e.args[1], ctx).empty() == (word == "runs");
        } else {  // counters, timeline: what the measurement carries
            ExprValue why;
            const kernels::Measurement* m = find_measurement(ctx, e.args[1], why);
            if (!m) {
                if (why.state == ExprValue::State::pending) return why;
                holds = false;
            } else {
                holds = word == "counters" ? m->measured_bytes.has_value() : !m->timeline.empty();
            }
        }
    } else if (is_limiter_test(e.args)) {
        ExprValue why;
        const std::optional<kernels::RunPrice> run = price_of(e.args[1], ctx, why);
        if (!run) return why;
        const LimiterClass* c = limiter_class(run->limiter);
        holds = c && (e.args[3] == c->fine || e.args[3] == c->kind);
    } else {
        Condition c;
        split_condition(e.args, c);  // check_expr has passed
        double x[2] = {0, 0};
        const std::vector<std::string>* sides[2] = {&c.left, &c.right};
        for (int i = 0; i < 2; ++i) {
            if (literal(*sides[i], x[i])) continue;
            const LessonExpr sub = side_expr(*sides[i]);
            const ExprValue v = evaluate(sub, ctx);
            if (v.state != ExprValue::State::value) return v;  // measuring, or why the verdict cannot be had
            if (!v.number) return unavailable("{" + sub.source + "} is not a number");
            x[i] = *v.number;
            simulated = simulated || v.simulated;
            was_measured = was_measured || v.measured;
            if (!v.recorded.empty()) recorded = v.recorded;
        }
        holds = c.op == "<" ? x[0] < x[1] : c.op == "<=" ? x[0] <= x[1] : c.op == ">" ? x[0] > x[1] : x[0] >= x[1];
    }
    const size_t b = holds ? 0 : 1;
    // The text of the chosen branch with its own live numbers filled in.
    ExprValue v = value_text(e.branch_spans.size() == 2 ? spans_text(e.branch_spans[b], ctx) : e.branches[b]);
    v.branch = static_cast<int>(b);
    v.simulated = simulated;
    v.measured = was_measured;
    v.recorded = recorded;
    return v;
}

}  // namespace

std::string spans_text(const std::vector<ProseSpan>& spans, const ExprContext& ctx) {
    std::string out;
    for (const ProseSpan& s : spans) {
        if (s.kind == ProseSpan::Kind::expr) out += evaluate(s.expr, ctx).text;
        else out += s.text;
    }
    return out;
}

ExprValue evaluate(const LessonExpr& e, const ExprContext& ctx) {
    if (std::string why = check_expr(e, ctx.params.workload); !why.empty()) return unavailable(why);
    if (e.func == "term") {
        return value_text(join(e.args, " "));  // the word as the lesson writes it; its definition is the tooltip
    }
    if (e.func.rfind("model.", 0) == 0) {
        if (e.func == "model.min_dram") {
            if (std::string bad = kernels::validate(ctx.params); !bad.empty()) return unavailable(bad);
            const double b = static_cast<double>(kernels::min_bytes(ctx.params));
            return value_text(kernels::format_bytes(b), b);
        }
        return evaluate_model(e, ctx);
    }
    if (e.func.rfind("measured.", 0) == 0) return evaluate_measured(e, ctx);
    if (e.func.rfind("timeline.", 0) == 0) return evaluate_timeline(e, ctx);
    if (e.func == "ratio") return evaluate_ratio(e, ctx);
    if (e.func == "if") return evaluate_if(e, ctx);
    if (e.func.rfind("device.", 0) == 0) return evaluate_device(e, ctx);
    if (e.func == "param") {
        if (e.args[0] == "dtype") return value_text(kernels::to_string(ctx.params.dtype));
        const kernels::ParamSpec* spec = spec_named(ctx.params.workload, e.args[0]);
        const double v = ctx.params.get(spec->name);
        if (spec->auto_choice && v == kernels::kAutoValue) return value_text("auto", v);
        return value_text(spec->integer ? kernels::format_count(static_cast<int64_t>(v)) : printf_text("%g", v), v);
    }
    // refusal: only where something is refused (issue 28: "an impossible tile says why it cannot
    // run: runs on NVIDIA H100"); a step that may see both writes {if refused V | {refusal V} | ...}.
    if (!ctx.device) return pending();
    if (std::string bad = kernels::validate(ctx.params); !bad.empty()) return unavailable(bad);
    const std::string why = refusal_of(e.args[0], ctx);
    if (why.empty()) return unavailable(e.args[0] + " is not refused here: it runs on " + ctx.device->name);
    return value_text(why);
}


// =============================================================================================
// [SECTION] What a verdict rests on (a prediction's reveal)
// =============================================================================================

bool is_text_expression(const LessonExpr& e) { return is_text_expr(e); }

std::vector<std::string> condition_evidence(const LessonExpr& verdict, const ExprContext& ctx) {
    std::vector<std::string> out;
    const std::vector<std::string>& args = verdict.args;
    if (const UnaryTest* t = find_unary(args)) {
        const std::string word = t->word;
        if (word == "simulated" || word == "recorded") {
            LessonExpr kind;
            kind.func = "device.kind";
            kind.source = "device.kind";
            out.push_back("the numbers here are " + evaluate(kind, ctx).text);
        } else if (word == "refused" || word == "runs") {
            const std::string why = refusal_of(args[1], ctx);
            out.push_back(why.empty() ? args[1] + " runs here" : args[1] + " is refused: " + why);
        } else {
            out.push_back(word + " " + args[1] + ": " + (evaluate(verdict, ctx).branch == 0 ? "yes" : "no"));
        }
        return out;
    }
    if (is_limiter_test(args)) {
        const LessonExpr limiter = side_expr({"model.limiter", args[1]});
        out.push_back("the model's limiter for " + args[1] + ": " + evaluate(limiter, ctx).text);
        return out;
    }
    Condition c;
    if (!split_condition(args, c).empty()) return out;
    for (const std::vector<std::string>* side : {&c.left, &c.right}) {
        double value = 0;
        if (literal(*side, value)) continue;
        const LessonExpr sub = side_expr(*side);
        out.push_back(sub.source + " = " + evaluate(sub, ctx).text);
    }
    return out;
}

}  // namespace app
