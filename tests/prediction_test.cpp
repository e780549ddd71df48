// Tests of app/lessons/prediction (parsing @predict blocks, units, tolerance, grading and the
// reveal), the player's side of predictions (hidden numbers, classroom reveal, answers kept) in
// app/lessons/lesson_player and the answer book of app/lessons/model/answers (JSON, CSV).
#include "app/lessons/model/answers.h"
#include "app/lessons/lesson_player.h"
#include "app/lessons/parser.h"
#include "app/lessons/prediction.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"
#include "kernels/sim/sim_backend.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace app;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// One step of the chain with a number prediction and a choice.
const char* kLesson = R"(@lesson Predict
@step Count
@workload chain
@dtype bf16
@variants unfused fused
@param rows 1024
@param hidden 1024
Some prose with {model.dram fused}.
@predict ratio model.dram unfused fused within 15% in x
How many times more {term DRAM} bytes?
@reveal
Nine tensors against three: {model.dram unfused} and {model.dram fused}.
@end
@predict choice
Faster or not?
@option faster if measured.time fused < measured.time unfused
@option not faster if measured.time fused >= measured.time unfused
@reveal
Measured: {measured.time fused}.
@end
)";

std::string one_step(const std::string& body) { return "@lesson T\n@step S\n@workload chain\nProse.\n" + body; }

// Every error of parsing `text` as "t.lesson", one per line.
std::string errors_of(const std::string& text) {
    const LessonParse p = parse_lesson("t.lesson", text);
    REQUIRE_FALSE(p.errors.empty());
    std::string out;
    for (const LessonError& e : p.errors) out += e.text() + "\n";
    return out;
}

kernels::Measurement timed(const kernels::Params& p, const std::string& variant, double ms) {
    kernels::Measurement m;
    m.job.params = p;
    m.job.variant = variant;
    m.ok = true;
    m.device = kernels::find_sim_gpu("H100")->info;  // the device the context names
    m.time.median_ms = ms;
    m.time.reps = 10;
    return m;
}

struct Setup {
    Lesson lesson;
    kernels::DeviceInfo device;
    std::vector<kernels::Measurement> results;
    ExprContext ctx;
    Setup() {
        const LessonParse p = parse_lesson("p.lesson", kLesson);
        for (const LessonError& e : p.errors) FAIL_CHECK(e.text());
        REQUIRE(p.ok());
        lesson = p.lesson;
        device = kernels::find_sim_gpu("H100")->info;
        ctx.params = lesson.steps[0].state.params;
        ctx.selected = lesson.steps[0].state.variants;
        ctx.device = &device;
        ctx.results = &results;
    }
    double bytes_ratio() const {
        const uint64_t l2 = static_cast<uint64_t>(device.l2_bytes);
        return static_cast<double>(kernels::model("unfused", ctx.params, l2).dram_bytes()) /
               static_cast<double>(kernels::model("fused", ctx.params, l2).dram_bytes());
    }
};

}  // namespace

TEST_CASE("a prediction block parses its expression tolerance unit question options and reveal", "[prediction]") {
    Setup s;
    const LessonStep& step = s.lesson.steps[0];
    REQUIRE(step.predictions.size() == 2);
    const Prediction& n = step.predictions[0];
    CHECK(n.kind == Prediction::Kind::number);
    CHECK(n.line == 9);
    CHECK(n.expr.func == "ratio");
    CHECK(n.expr.args == std::vector<std::string>{"model.dram", "unfused", "fused"});
    CHECK(n.relative);
    CHECK(n.tolerance == Approx(0.15));
    CHECK(n.unit == "x");
    CHECK(n.question.size() == 1);
    CHECK(n.reveal.size() == 1);
    // The prose after the block is not part of it, and the step's own prose is untouched.
    CHECK(step.prose.size() == 1);
    const Prediction& c = step.predictions[1];
    CHECK(c.kind == Prediction::Kind::choice);
    REQUIRE(c.options.size() == 2);
    CHECK(c.options[0].label == "faster");
    CHECK(c.options[1].label == "not faster");
    CHECK(c.options[0].condition.func == "if");
    CHECK(c.options[0].condition.args == std::vector<std::string>{"measured.time", "fused", "<", "measured.time", "unfused"});

    // Defaults: a unit by quantity; an absolute tolerance in it.
    Prediction p;
    CHECK(parse_prediction_head("model.dram fused within 2", p).empty());
    CHECK_FALSE(p.relative);
    CHECK(p.unit == "MiB");
    CHECK(tolerance_text(p) == "\xC2\xB1" "2 MiB");
    CHECK(parse_prediction_head("measured.dram_percent fused within 10 %", p).empty());
    CHECK(p.relative);
    CHECK(p.unit == "%");
}

TEST_CASE("malformed predictions are reported with their lines", "[prediction]") {
    const std::string reveal = "How many?\n@reveal\nThis.\n@end\n";
    CHECK(contains(errors_of(one_step("@predict model.dram fused\n" + reveal)), "t.lesson:5: a number prediction states its tolerance"));
    CHECK(contains(errors_of(one_step("@predict model.dram fused within zero\n" + reveal)), "t.lesson:5: bad tolerance 'zero'"));
    CHECK(contains(errors_of(one_step("@predict model.dram fused within 150%\n" + reveal)), "accepts any answer"));
    CHECK(contains(errors_of(one_step("@predict model.dram fused within 10% in ms\n" + reveal)),
                   "t.lesson:5: unit 'ms' does not measure bytes"));
    CHECK(contains(errors_of(one_step("@predict model.bound fused within 10%\n" + reveal)), "is text, not a number to predict"));
    CHECK(contains(errors_of(one_step("@predict model.dram nope within 10%\n" + reveal)), "unknown variant 'nope'"));
    CHECK(contains(errors_of(one_step("@predict model.dram fused within 10%\n@reveal\nThis.\n@end\n")),
                   "t.lesson:5: the prediction asks nothing"));
    CHECK(contains(errors_of(one_step("@predict model.dram fused within 10%\nHow many?\n@end\n")),
                   "t.lesson:5: the prediction has no reveal"));
    CHECK(contains(errors_of(one_step("@predict model.dram fused within 10%\nHow many?\n@reveal\nThis.\n")),
                   "t.lesson:5: unclosed @predict block"));
    CHECK(contains(errors_of(one_step("@predict choice\nWhich?\n@option a if model.dram fused < model.dram unfused\n@reveal\nThis.\n@end\n")),
                   "t.lesson:5: a choice needs two options or more"));
    CHECK(contains(errors_of(one_step("@predict choice\nWhich?\n@option a if model.dram fused < model.dram unfused\n"
                                        "@option A if model.dram fused >= model.dram unfused\n@reveal\nThis.\n@end\n")),
                   "t.lesson:8: option 'A' is listed twice"));
    CHECK(contains(errors_of(one_step("@predict choice\nWhich?\n@option a model.dram fused < 3\n@reveal\nThis.\n@end\n")),
                   "t.lesson:7: @option takes LABEL if CONDITION"));
    CHECK(contains(errors_of(one_step("@predict choice\nWhich?\n@option a if model.dram fused\n@option b if runs fused\n@reveal\nT.\n@end\n")),
                   "t.lesson:7: option 'a': no comparison"));
    CHECK(contains(errors_of(one_step("@predict model.dram fused within 10%\nHow?\n@option a if runs fused\n@reveal\nT.\n@end\n")),
                   "t.lesson:7: @option in a number prediction"));
    CHECK(contains(errors_of(one_step("@option a if runs fused\n")), "t.lesson:5: @option outside a @predict block"));
    CHECK(contains(errors_of(one_step("@predict model.dram fused within 10%\nHow?\n@param rows 64\n@reveal\nT.\n@end\n")),
                   "t.lesson:7: @param inside the @predict block opened at line 5"));
}

TEST_CASE("an answer is checked against the live value within the stated tolerance", "[prediction]") {
    Setup s;
    const Prediction& p = s.lesson.steps[0].predictions[0];
    const double truth = s.bytes_ratio();
    char exact[32];
    std::snprintf(exact, sizeof exact, "%.6f", truth);
    PredictionGrade g = grade_prediction(p, exact, s.ctx);
    REQUIRE(g.state == ExprValue::State::value);
    CHECK(g.answered);
    CHECK(g.right);
    CHECK(g.truth == Approx(truth));
    // 14 % high is inside ±15 %, 16 % high is not; the same low.
    CHECK(grade_prediction(p, std::to_string(truth * 1.14), s.ctx).right);
    CHECK_FALSE(grade_prediction(p, std::to_string(truth * 1.16), s.ctx).right);
    CHECK(grade_prediction(p, std::to_string(truth * 0.86), s.ctx).right);
    CHECK_FALSE(grade_prediction(p, std::to_string(truth * 0.84), s.ctx).right);
    // Units typed with the answer: "3x" and "3×" are the same factor; a unit of another quantity is refused.
    CHECK(grade_prediction(p, std::to_string(truth) + "x", s.ctx).right);
    CHECK(grade_prediction(p, std::to_string(truth) + " \xC3\x97", s.ctx).right);
    g = grade_prediction(p, "3 MiB", s.ctx);
    CHECK_FALSE(g.answered);
    CHECK(contains(g.answer_error, "'MiB' is not a unit of a factor"));
    g = grade_prediction(p, "lots", s.ctx);
    CHECK_FALSE(g.answered);
    CHECK(contains(g.answer_error, "type a number"));

    // Bytes in MiB by default, any byte unit typed: 1 GiB = 1024 MiB.
    Prediction bytes;
    REQUIRE(parse_prediction_head("model.dram fused within 1%", bytes).empty());
    const double fused = static_cast<double>(kernels::model("fused", s.ctx.params, static_cast<uint64_t>(s.device.l2_bytes)).dram_bytes());
    CHECK(grade_prediction(bytes, std::to_string(fused / 1048576.0), s.ctx).right);
    CHECK(grade_prediction(bytes, std::to_string(fused / 1024.0) + " KiB", s.ctx).right);
    CHECK_FALSE(grade_prediction(bytes, std::to_string(fused / 1e6 * 1.05) + " MB", s.ctx).right);
    // An absolute tolerance: a count within 0.5 is exact.
    Prediction count;
    REQUIRE(parse_prediction_head("model.kernels unfused within 0.5", count).empty());
    CHECK(grade_prediction(count, "4", s.ctx).right);
    CHECK_FALSE(grade_prediction(count, "5", s.ctx).right);
}

TEST_CASE("the reveal says how far off the answer was and what the right one rests on", "[prediction]") {
    Setup s;
    const Prediction& p = s.lesson.steps[0].predictions[0];
    const double truth = s.bytes_ratio();
    const PredictionGrade low = grade_prediction(p, std::to_string(truth * 0.5), s.ctx);
    CHECK(low.off_percent);
    CHECK(*low.off_percent == Approx(-50).margin(0.01));
    CHECK(contains(low.verdict, "50 % low"));
    CHECK(contains(low.verdict, "outside the \xC2\xB1" "15 %"));
    CHECK(contains(low.verdict, low.truth_text));
    REQUIRE_FALSE(low.evidence.empty());
    CHECK(contains(low.evidence[0], "ratio model.dram unfused fused = "));
    CHECK(contains(low.evidence[0], "unfused over fused"));
    const PredictionGrade high = grade_prediction(p, std::to_string(truth * 1.1), s.ctx);
    CHECK(contains(high.verdict, "10 % high"));
    CHECK(contains(high.verdict, "within the"));
    // No answer (the classroom's reveal): the value alone, nothing graded.
    const PredictionGrade none = grade_prediction(p, "", s.ctx);
    CHECK_FALSE(none.answered);
    CHECK(contains(none.verdict, "It is " + none.truth_text));
}

TEST_CASE("a choice's right option is the one whose condition holds on live values", "[prediction]") {
    Setup s;
    const Prediction& p = s.lesson.steps[0].predictions[1];
    // Nothing measured and nothing running: it cannot be answered yet, and says why.
    PredictionGrade g = grade_prediction(p, "faster", s.ctx);
    CHECK(g.state == ExprValue::State::unavailable);
    s.ctx.pending = true;
    CHECK(grade_prediction(p, "faster", s.ctx).state == ExprValue::State::pending);
    s.ctx.pending = false;
    // The measurements decide, both ways round.
    s.results = {timed(s.ctx.params, "unfused", 2.0), timed(s.ctx.params, "fused", 1.0)};
    g = grade_prediction(p, "faster", s.ctx);
    REQUIRE(g.state == ExprValue::State::value);
    CHECK(g.correct == 0);
    CHECK(g.right);
    CHECK(g.truth_text == "faster");
    REQUIRE(g.evidence.size() == 2);
    CHECK(contains(g.evidence[0], "measured.time fused = "));
    CHECK(contains(g.evidence[1], "measured.time unfused = "));
    CHECK(grade_prediction(p, "B", s.ctx).answered);
    CHECK_FALSE(grade_prediction(p, "b", s.ctx).right);
    s.results = {timed(s.ctx.params, "unfused", 1.0), timed(s.ctx.params, "fused", 2.0)};
    g = grade_prediction(p, "faster", s.ctx);
    CHECK(g.correct == 1);
    CHECK_FALSE(g.right);
    CHECK(contains(g.verdict, "The answer here is not faster"));
    CHECK(contains(grade_prediction(p, "sideways", s.ctx).answer_error, "choose one of: faster, not faster"));
}

TEST_CASE("the step's numbers stay hidden until its predictions are answered or revealed and predictions can be turned off",
          "[prediction]") {
    Setup s;
    AppState state;
    state.lesson.lessons.push_back(s.lesson);
    state.lesson.loaded = true;
    open_lesson(state, 0, 0, 0);
    CHECK(step_numbers_hidden(state));
    state.settings.predictions = false;  // the teacher's switch
    CHECK_FALSE(step_numbers_hidden(state));
    state.settings.predictions = true;

    // A student answers the number; the choice is still open, so the numbers stay hidden.
    const PredictionGrade g = answer_prediction(state, 0, std::to_string(s.bytes_ratio()), s.ctx);
    CHECK(g.right);
    CHECK(state.lesson.answers_dirty);
    CHECK(step_numbers_hidden(state));
    // An answer that cannot be read is not kept.
    CHECK_FALSE(answer_prediction(state, 1, "sideways", s.ctx).answered);
    CHECK(state.lesson.answers.answers.size() == 1);
    s.results = {timed(s.ctx.params, "unfused", 2.0), timed(s.ctx.params, "fused", 1.0)};
    CHECK(answer_prediction(state, 1, "not faster", s.ctx).answered);
    CHECK_FALSE(step_numbers_hidden(state));
    REQUIRE(state.lesson.answers.answers.size() == 2);
    const PredictionAnswer& a = state.lesson.answers.answers[1];
    CHECK(a.lesson == "p");
    CHECK(a.step == 1);
    CHECK(a.prediction == 2);
    CHECK(a.answer == "not faster");
    CHECK(a.correct == "faster");
    CHECK_FALSE(a.right);
    CHECK(contains(a.device, "(simulated)"));

    // Back to the step later: answered before, so its numbers show.
    enter_step(state, 0, 1);
    CHECK_FALSE(step_numbers_hidden(state));
}

TEST_CASE("classroom mode reveals each prediction with a key and keeps no answer", "[prediction]") {
    Setup s;
    AppState state;
    state.lesson.lessons.push_back(s.lesson);
    state.lesson.loaded = true;
    open_lesson(state, 0, 0, 0);
    set_classroom(state, true, 720);
    CHECK(step_numbers_hidden(state));
    CHECK(reveal_next_prediction(state));  // P: the first
    CHECK(prediction_settled(state, 0));
    CHECK_FALSE(prediction_settled(state, 1));
    CHECK(step_numbers_hidden(state));
    CHECK(reveal_next_prediction(state));  // P again: the second
    CHECK_FALSE(step_numbers_hidden(state));
    CHECK_FALSE(reveal_next_prediction(state));  // nothing left
    CHECK(state.lesson.answers.answers.empty());
    CHECK_FALSE(state.lesson.answers_dirty);
    // The next step, and back: posed again (nothing was answered).
    enter_step(state, 0, 1);
    CHECK(step_numbers_hidden(state));
}

TEST_CASE("headless shots show predictions revealed unless asked to pose them", "[prediction]") {
    Setup s;
    AppState state;
    state.interactive = false;
    state.lesson.lessons.push_back(s.lesson);
    state.lesson.loaded = true;
    open_lesson(state, 0, 0, 0);
    CHECK_FALSE(step_numbers_hidden(state));
    state.lesson.shot_predictions_posed = true;
    CHECK(step_numbers_hidden(state));
}

TEST_CASE("answers are kept per lesson in JSON and exported as CSV for the teacher", "[prediction][answers]") {
    AnswerBook book;
    PredictionAnswer a;
    a.lesson = "02-elementwise-chain";
    a.step = 2;
    a.prediction = 1;
    a.kind = "number";
    a.question = "How many times more DRAM bytes, roughly?";
    a.answer = "2.5";
    a.correct = "3.00\xC3\x97 (simulated)";
    a.off_percent = -16.7;
    a.right = false;
    a.tolerance = "\xC2\xB1" "15 %";
    a.device = "NVIDIA H100 (simulated)";
    a.answered_at = "2026-11-28T01:00:00Z";
    book.record(a);
    PredictionAnswer b = a;
    b.lesson = "04-flash-attention";
    b.kind = "choice";
    b.answer = "faster";
    b.correct = "faster";
    b.off_percent.reset();
    b.right = true;
    b.tolerance = "";
    book.record(b);
    a.answer = "3";  // answered again: replaces the first answer
    a.right = true;
    book.record(a);
    REQUIRE(book.answers.size() == 2);
    CHECK(book.count("02-elementwise-chain") == 1);
    CHECK(book.right("02-elementwise-chain") == 1);
    CHECK(book.find("02-elementwise-chain", 2, 1)->answer == "3");

    AnswerBook back;
    CHECK(answers_from_json(answers_to_json(book), back).empty());
    REQUIRE(back.answers.size() == 2);
    CHECK(back.answers[0].answer == "3");
    CHECK(back.answers[0].off_percent);
    CHECK(*back.answers[0].off_percent == Approx(-16.7));
    CHECK_FALSE(back.answers[1].off_percent);
    CHECK(back.answers[1].kind == "choice");

    const std::string csv = answers_csv(back);
    CHECK(csv.rfind("lesson,step,prediction,kind,question,answer,correct,off_percent,right,tolerance,device,answered_at\n", 0) == 0);
    CHECK(contains(csv, "02-elementwise-chain,2,1,number,\"How many times more DRAM bytes, roughly?\",3,"));
    CHECK(contains(csv, ",-16.7,yes,"));
    CHECK(contains(csv, "04-flash-attention,2,1,choice,"));

    // A hand-edited file: a bad entry is left out with a message, the rest kept; broken JSON keeps nothing.
    AnswerBook partial;
    const std::string note = answers_from_json(
        R"({"version":1,"lessons":{"x":[{"step":"two"},{"step":1,"prediction":1,"kind":"number","question":"q","answer":"1",
            "correct":"1","right":true,"tolerance":"","device":"d","answered_at":"t"}]}})",
        partial);
    CHECK(contains(note, "ignored 1 malformed entry"));
    CHECK(partial.answers.size() == 1);
    CHECK(contains(answers_from_json("{not json", partial), "not valid JSON"));
    CHECK(partial.answers.empty());
}
