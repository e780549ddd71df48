// Every step of every shipped lesson, played on every device the app offers: each simulated GPU
// (kernels::sim_gpus()) and each shipped recording (app::recordings()). The step's text is
// evaluated as the lesson pane shows it (no window, no PNG) and must read true on that device:
//   - no live number left "unavailable" or "measuring", no stray brace;
//   - no word said twice ("`flash_wgmma` flash_wgmma needs");
//   - no limiter named for a variant the device refuses (the engine then says "unavailable");
//   - no ratio quoted the wrong way round ("0.87× faster", "0.5× fewer bytes");
//   - no "at the ... ceiling" in a paragraph whose own percentages of the ceiling are all below
//     the threshold the lessons use (85 %).
// Every prediction is answered there too: a number has its live value (and that value, typed back,
// counts as right), a choice exactly one option whose condition holds on live values (choosing it
// is right, any other is not), and the reveal reads true like the prose.
// Emulation (a simulated GPU's error against the reference) runs only for the variants whose
// error a step quotes, so the test stays fast enough for CI.
#include "app/lessons/expressions.h"
#include "app/lessons/model/lesson.h"
#include "app/lessons/lesson_files.h"
#include "app/lessons/lesson_devices.h"
#include "app/lessons/lesson_player.h"
#include "app/lessons/prediction.h"
#include "app/recordings/auto_pick.h"
#include "app/recordings/recorded_backend.h"
#include "app/recordings/recording_file.h"
#include "app/lessons/prose.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

using app::Lesson;
using app::LessonStep;
using app::ProseSpan;

// Variants whose error against the reference the spans quote (emulation is only run for them).
void error_variants(const std::vector<ProseSpan>& spans, std::set<std::string>& out) {
    for (const ProseSpan& s : spans) {
        if (s.kind != ProseSpan::Kind::expr) continue;
        if (s.expr.func == "measured.error" && !s.expr.args.empty()) out.insert(s.expr.args[0]);
        for (const auto& b : s.expr.branch_spans) error_variants(b, out);
    }
}

std::string step_text(const LessonStep& step, const app::ExprContext& ctx) {
    std::string text = step.title + ".\n" + app::prose_plain_text(step.prose, ctx);
    for (const app::RecallQuestion& q : step.recalls)
        text += "Q: " + app::spans_plain_text(q.question, ctx) + "\nA: " + app::prose_plain_text(q.answer, ctx);
    return text;
}

// A prediction's unit scale (its answers are typed in it).
double unit_scale(const app::Prediction& p) {
    const app::AnswerUnit* u = app::find_unit(app::expr_quantity(p.expr), p.unit);
    return u ? u->scale : 1.0;
}

// A choice's condition names a live value: a side that is not a literal number, or a test on the
// device or a variant (refused, runs, model.limiter ...), never literals alone ("1 < 2").
bool names_a_live_value(const app::LessonExpr& condition) {
    for (const std::string& w : condition.args) {
        if (w == "<" || w == "<=" || w == ">" || w == ">=") continue;
        char* end = nullptr;
        std::strtod(w.c_str(), &end);
        if (w.empty() || *end != '\0') return true;
    }
    return false;
}

std::string without_markup(std::string s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '`') continue;
        if (s[i] == '*' && i + 1 < s.size() && s[i + 1] == '*') {
            ++i;
            continue;
        }
        out += s[i];
    }
    return out;
}

// Problems in one rendered step: each a short message.
std::vector<std::string> problems_in(const std::string& rendered) {
    std::vector<std::string> found;
    // An emulation stopped because this CPU was busy (kernels/sim/emulate.cpp's overrun stop)
    // depends on the machine's load, not on the lesson: the app says why, and so it is not counted.
    static const std::regex overrun(R"(unavailable: not emulated: stopped after [^)]*\))");
    const std::string text = std::regex_replace(without_markup(rendered), overrun, "(emulation stopped)");
    for (const char* bad : {"unavailable", "measuring", "{", "}"})
        if (text.find(bad) != std::string::npos) found.push_back(std::string("says '") + bad + "'");
    for (const std::string& w : app::doubled_words(text)) found.push_back("says '" + w + " " + w + "'");
    // A ratio quoted the wrong way round: "0.87× faster", "0.50× fewer".
    static const std::regex ratio(R"(([0-9]+\.?[0-9]*)\xC3\x97 (faster|fewer|more|slower|less))");
    for (std::sregex_iterator it(text.begin(), text.end(), ratio), end; it != end; ++it)
        if (std::atof((*it)[1].str().c_str()) < 1.0) found.push_back("quotes '" + it->str() + "'");
    // "at the copy/memory ceiling" in a paragraph whose percentages of the ceiling are all below 85 %.
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find("\n\n", start);
        if (end == std::string::npos) end = text.size();
        const std::string para = text.substr(start, end - start);
        start = end + 2;
        static const std::regex at_ceiling(R"((^|[^t] )at (or near )?the (copy|memory) ceiling)");
        if (!std::regex_search(para, at_ceiling)) continue;
        static const std::regex percent(R"(([0-9]+) % of )");
        double best = -1;
        for (std::sregex_iterator it(para.begin(), para.end(), percent), e; it != e; ++it)
            best = std::max(best, std::atof((*it)[1].str().c_str()));
        if (best >= 0 && best < 85) found.push_back("says 'at the ceiling' beside " + std::to_string(static_cast<int>(best)) + " %");
    }
    return found;
}

}  // namespace

TEST_CASE("every step of every lesson reads true on every device: both recordings and every simulated GPU",
          "[lessons][devices]") {
    std::vector<Lesson> lessons;
    std::vector<app::LessonError> errors;
    app::load_all_lessons(lessons, errors);
    for (const auto& e : errors) FAIL_CHECK(e.text());
    REQUIRE(lessons.size() >= 10);
    std::vector<std::string> left_out;
    std::vector<app::LessonDevice> devices = app::lesson_devices(&left_out);
    for (const std::string& why : left_out) FAIL_CHECK(why);
    // Both shipped recordings and at least the H100, H200, A100 and RTX 4090.
    REQUIRE(devices.size() >= 6);

    size_t steps_played = 0, steps_per_device = 0, predictions_answered = 0, predictions_per_device = 0;
    for (const Lesson& lesson : lessons) {
        steps_per_device += lesson.steps.size();
        for (const LessonStep& step : lesson.steps) predictions_per_device += step.predictions.size();
    }
    // FL_LESSON_TEXT_DIR=folder: also write every rendered step there, one file per device, to read.
    const char* dump_dir = std::getenv("FL_LESSON_TEXT_DIR");
    for (app::LessonDevice& dev : devices) {
        std::string dump;
        for (const Lesson& lesson : lessons) {
            for (size_t si = 0; si < lesson.steps.size(); ++si) {
                const LessonStep& step = lesson.steps[si];
                std::set<std::string> want_error;
                for (const auto& b : step.prose) error_variants(b.spans, want_error);
                for (const auto& q : step.recalls)
                    for (const auto& b : q.answer) error_variants(b.spans, want_error);
                const std::vector<kernels::Measurement> results = app::measure_step(dev, step, want_error);
                const app::ExprContext ctx = app::step_context(dev, step, results);
                const std::string text = step_text(step, ctx);
                if (dump_dir) dump += "==== " + lesson.name + " step " + std::to_string(si + 1) + "\n" + text + "\n";
                for (const std::string& p : problems_in(text))
                    FAIL_CHECK(lesson.name << " step " << si + 1 << " on " << dev.label << ": " << p << "\n---\n" << text);
                // Each prediction has its answer here, and the reveal reads true like the prose.
                for (size_t pi = 0; pi < step.predictions.size(); ++pi) {
                    const app::Prediction& pred = step.predictions[pi];
                    const app::PredictionGrade g = app::grade_prediction(pred, "", ctx);
                    INFO(lesson.name << " step " << si + 1 << " prediction " << pi + 1 << " on " << dev.label);
                    CHECK(g.state == app::ExprValue::State::value);
                    CHECK_FALSE(g.verdict.empty());
                    if (pred.kind == app::Prediction::Kind::number) {
                        CHECK(std::isfinite(g.truth));
                        // The right answer, typed back in the prediction's unit, counts as right.
                        CHECK(app::grade_prediction(pred, std::to_string(g.truth / unit_scale(pred)), ctx).right);
                    } else {
                        // The right option comes from live values: each option's condition names a
                        // live expression (not literals alone), exactly one holds, and choosing it is right.
                        for (const app::PredictionOption& o : pred.options) CHECK(names_a_live_value(o.condition));
                        REQUIRE(g.correct >= 0);
                        CHECK(app::grade_prediction(pred, pred.options[static_cast<size_t>(g.correct)].label, ctx).right);
                        for (size_t oi = 0; oi < pred.options.size(); ++oi)
                            if (static_cast<int>(oi) != g.correct) CHECK_FALSE(app::grade_prediction(pred, pred.options[oi].label, ctx).right);
                    }
                    std::string reveal = g.verdict + "\n";
                    for (const std::string& e : g.evidence) reveal += e + "\n";
                    reveal += app::prose_plain_text(pred.reveal, ctx) + app::prose_plain_text(pred.question, ctx);
                    for (const std::string& p : problems_in(reveal))
                        FAIL_CHECK(lesson.name << " step " << si + 1 << " prediction " << pi + 1 << " on " << dev.label << ": " << p
                                               << "\n---\n" << reveal);
                    ++predictions_answered;
                }
                ++steps_played;
            }
        }
        if (dump_dir) std::ofstream(std::string(dump_dir) + "/" + dev.label + ".txt") << dump;
    }
    CHECK(predictions_answered == devices.size() * predictions_per_device);
    CHECK(steps_played == devices.size() * steps_per_device);
}

TEST_CASE("every shipped lesson poses at least two predictions", "[lessons][devices]") {
    std::vector<Lesson> lessons;
    std::vector<app::LessonError> errors;
    app::load_all_lessons(lessons, errors);
    REQUIRE(lessons.size() >= 11);
    for (const Lesson& lesson : lessons) {
        size_t n = 0;
        for (const LessonStep& step : lesson.steps) n += step.predictions.size();
        INFO(lesson.name);
        CHECK(n >= 2);
    }
}

TEST_CASE("the device test's checks catch what they are for", "[lessons][devices]") {
    CHECK(!problems_in("flash takes unavailable: refused").empty());
    CHECK(problems_in("error unavailable: not emulated: stopped after 0.8 s, ~2 s needed on this CPU (estimated 0.4 s).").empty());
    CHECK(!problems_in("a {stray} brace").empty());
    CHECK(!problems_in("`flash_wgmma` flash_wgmma needs more").empty());
    CHECK(!problems_in("it is 0.87\xC3\x97 faster").empty());
    CHECK(problems_in("it is 1.20\xC3\x97 faster").empty());
    CHECK(!problems_in("It reaches 70 % of the copy ceiling: at the copy ceiling.").empty());
    CHECK(problems_in("It reaches 90 % of the copy ceiling: at the copy ceiling.").empty());
    CHECK(problems_in("It reaches 70 % of the copy ceiling: not at the copy ceiling.").empty());
}
