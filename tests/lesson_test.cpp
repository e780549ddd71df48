// Tests of the lesson engine app/lessons/ (format, parser, prose, live expressions), app/lessons/lesson_player (applying
// steps) and app/lessons/lesson_bundle (atomic bundle folders). The shipped lessons themselves are also
// parsed here; `fusionlab lessons check` and the headless renders run as ctest tests
// (tests/lesson_tests.cmake).
#include "app/lessons/expressions.h"
#include "app/lessons/glossary.h"
#include "app/lessons/model/lesson.h"
#include "app/lessons/lesson_bundle.h"
#include "app/lessons/lesson_files.h"
#include "app/lessons/lesson_player.h"
#include "app/lessons/parser.h"
#include "app/lessons/prose.h"
#include "app/lessons/vocabulary.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/format.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/core/registry.h"
#include "temp_dir.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace fs = std::filesystem;
using namespace app;

namespace {

// A small valid lesson: two steps, the second inheriting the first's state.
const char* kValid = R"(// comment
@lesson Test lesson
@about One line.

@step First
@workload chain
@dtype fp32
@variants unfused fused
@param rows 256
@param hidden 512
@view results
@highlight results.bytes_chart
@measure
Plain **bold** `code` and $x^2 + d_k$ with {model.dram fused} and {ratio model.dram unfused fused}.
Same paragraph.

- a bullet
@recall Why?
Because {model.kernels unfused}.
@end

@step Second
@param rows 1024
@view memory
Only rows changes.
)";

// The first error of parsing `text` (as "t.lesson").
LessonError first_error(const std::string& text) {
    const LessonParse p = parse_lesson("t.lesson", text);
    REQUIRE_FALSE(p.errors.empty());
    return p.errors.front();
}

// A header and one step with the given body.
std::string one_step(const std::string& body) { return "@lesson T\n@step S\n" + body; }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

kernels::Measurement fake_measurement(const kernels::Params& p, const std::string& variant, double ms, bool simulated) {
    kernels::Measurement m;
    m.job.params = p;
    m.job.variant = variant;
    m.ok = true;
    m.device.name = simulated ? "H100 (simulated)" : "GPU";
    m.device.simulated = simulated;
    m.time.median_ms = ms;
    m.time.reps = 10;
    return m;
}

// A chain of rows x hidden in bf16, and a simulated H100 by name (the tests add what they need).
kernels::Params chain_bf16(int64_t rows, int64_t hidden) {
    kernels::Params p;
    p.workload = "chain";
    p.set("rows", rows);
    p.set("hidden", hidden);
    p.dtype = kernels::DType::bf16;
    return p;
}

kernels::DeviceInfo simulated_h100() {
    kernels::DeviceInfo device;
    device.name = "H100 (simulated)";
    device.simulated = true;
    return device;
}

}  // namespace

TEST_CASE("a valid lesson parses with its title, steps, state and prose", "[lesson]") {
    const LessonParse p = parse_lesson("dir/07-x.lesson", kValid);
    INFO((p.errors.empty() ? std::string() : p.errors.front().text()));
    REQUIRE(p.ok());
    const Lesson& l = p.lesson;
    CHECK(l.name == "07-x");
    CHECK(l.title == "Test lesson");
    CHECK(l.about == "One line.");
    REQUIRE(l.steps.size() == 2);

    const LessonStep& a = l.steps[0];
    CHECK(a.line == 5);
    CHECK(a.state.params.workload == "chain");
    CHECK(a.state.params.dtype == kernels::DType::f32);
    CHECK(a.state.params.get_int("rows") == 256);
    CHECK(a.state.params.get_int("hidden") == 512);
    CHECK(a.state.variants == std::vector<std::string>{"unfused", "fused"});
    CHECK(a.state.highlight == "results.bytes_chart");
    CHECK(a.state.measure);
    CHECK(a.state.controls == std::vector<std::string>{"rows", "hidden"});  // what the step sets
    REQUIRE(a.prose.size() == 2);                                           // paragraph + bullet
    CHECK_FALSE(a.prose[0].bullet);
    CHECK(a.prose[1].bullet);
    REQUIRE(a.recalls.size() == 1);
    CHECK(a.recalls[0].line == 18);
    CHECK(a.recalls[0].answer.size() == 1);

    // Spans: text, bold, code, maths rendered, expressions with their arguments.
    std::vector<ProseSpan::Kind> kinds;
    const ProseSpan* expr = nullptr;
    const ProseSpan* math = nullptr;
    for (const ProseSpan& s : a.prose[0].spans) {
        kinds.push_back(s.kind);
        if (s.kind == ProseSpan::Kind::expr && !expr) expr = &s;
        if (s.kind == ProseSpan::Kind::math) math = &s;
    }
    CHECK(std::count(kinds.begin(), kinds.end(), ProseSpan::Kind::bold) == 1);
    CHECK(std::count(kinds.begin(), kinds.end(), ProseSpan::Kind::code) == 1);
    CHECK(std::count(kinds.begin(), kinds.end(), ProseSpan::Kind::expr) == 2);
    REQUIRE(math);
    CHECK(math->text == "x\xC2\xB2 + d\xE2\x82\x96");
    REQUIRE(expr);
    CHECK(expr->expr.func == "model.dram");
    CHECK(expr->expr.args == std::vector<std::string>{"fused"});

    // Step 2 inherits everything but the highlight and @measure.
    const LessonStep& b = l.steps[1];
    CHECK(b.state.params.get_int("rows") == 1024);
    CHECK(b.state.params.get_int("hidden") == 512);
    CHECK(b.state.params.dtype == kernels::DType::f32);
    CHECK(b.state.variants == a.state.variants);
    CHECK(b.state.view == "memory");
    CHECK(b.state.highlight.empty());
    CHECK_FALSE(b.state.measure);
}

TEST_CASE("maths renders as readable unicode", "[lesson]") {
    CHECK(render_math("N^2") == "N\xC2\xB2");
    CHECK(render_math("S_{ij}") == "S\xE1\xB5\xA2\xE2\xB1\xBC");
    // The group's braces never show (issue 28: "√{d}" printed raw).
    CHECK(render_math("\\sqrt{d}") == "\xE2\x88\x9A" "d");
    CHECK(render_math("QK^T / \\sqrt{d}") == "QK\xE1\xB5\x80 / \xE2\x88\x9A" "d");
    CHECK(render_math("\\sqrt{d + 1}") == "\xE2\x88\x9A(d + 1)");
    CHECK(render_math("a \\times b") == "a \xC3\x97 b");
    CHECK(render_math("a*b") == "a\xC2\xB7" "b");
    // Transpose: the modifier letter T (U+1D40, in the fonts' loaded range), not a raw caret.
    CHECK(render_math("K^T") == "K\xE1\xB5\x80");
    CHECK(render_math("K_j^T") == "K\xE2\xB1\xBC\xE1\xB5\x80");
    // A group with no superscript form keeps its braces as parentheses, maths inside rendered.
    CHECK(render_math("e^{x_1 - y}") == "e^(x\xE2\x82\x81 - y)");
}

TEST_CASE("every error class is reported with its line", "[lesson]") {
    struct Case {
        std::string text;
        int line;
        std::string message;  // a part of the message
    };
    const std::vector<Case> cases = {
        {one_step("text\n@frobnicate 3\n"), 4, "unknown directive @frobnicate"},
        {"@lesson T\n@param rows 4\n@step S\ntext\n", 2, "must come after a @step"},
        {"@lesson T\nloose prose\n@step S\ntext\n", 2, "text before the first @step"},
        {"@step S\ntext\n", 1, "missing @lesson"},
        {"@lesson T\n@lesson U\n@step S\ntext\n", 2, "a second @lesson"},
        {"@lesson T\n@step Empty\n@workload chain\n@step S\ntext\n", 2, "has no prose"},
        {"@lesson T\n", 1, "has no @step"},
        {one_step("@workload softmax\ntext\n"), 3, "unknown workload 'softmax' (legal: chain, bias_gelu, attention"},
        {one_step("@workload chain\n@variants unfused flash\ntext\n"), 4, "unknown variant 'flash' of chain"},
        {one_step("@view rooflin\ntext\n"), 3, "unknown view 'rooflin' (legal: results, memory"},
        {one_step("@highlight results.nothing\ntext\n"), 3, "unknown highlight 'results.nothing'"},
        {one_step("@view results\n@highlight memory.sram\ntext\n"), 4, "add @view memory"},
        {one_step("@workload attention\n@param N 0\ntext\n"), 4, "N"},
        {one_step("@workload attention\n@param br 48\ntext\n"), 4, "16, 32, 64, 128 or 192"},
        {one_step("@workload attention\n@param N many\ntext\n"), 4, "bad value 'many' for N (legal: "},
        {one_step("@workload chain\n@param N 64\ntext\n"), 4, "unknown parameter 'N' for chain"},
        {one_step("@dtype fp8\ntext\n"), 3, "bad dtype 'fp8'"},
        {one_step("@controls rows sparkle\ntext\n"), 3, "unknown control 'sparkle'"},
        {one_step("text\n@recall Why?\nanswer\n"), 4, "unclosed @recall block"},
        {one_step("text\n@recall Why?\nanswer\n@param rows 8\n@end\n"), 6, "inside the @recall block opened at line 4"},
        {one_step("text\n@end\n"), 4, "@end without an open @recall"},
        {one_step("text\n@recall Why?\n@end\n"), 4, "has no answer"},
        {one_step("some **bold\n"), 3, "unclosed ** (bold)"},
        {one_step("some `code\n"), 3, "unclosed ` (code)"},
        {one_step("some $x^2\n"), 3, "unclosed $ (maths)"},
        {one_step("a {model.l2sm fused\n"), 3, "unclosed { (live expression)"},
        {one_step("a } b\n"), 3, "a } without its {"},
        // Levels: an expression without a level is gone, with the two to choose from.
        {one_step("@workload chain\nx {model.bytes fused}\n"), 4, "does not say which level it counts: write model.l2sm"},
        {one_step("@workload chain\nx {measured.bytes fused}\n"), 4, "write measured.dram"},
        // A level the highlighted chart does not show: the DRAM chart with L2->SM bytes.
        {one_step("@workload chain\n@highlight results.bytes_chart\nx {model.l2sm fused}\n"), 5,
         "quotes L2\xE2\x86\x92SM bytes, but the highlighted results.bytes_chart shows DRAM"},
        {one_step("@workload chain\n@view memory\n@highlight memory.race\nx {ratio model.l2sm unfused fused}\n"), 6,
         "highlighted memory.race shows DRAM"},
        // A limiter typed into prose, a title or a verdict on numbers.
        {one_step("@workload chain\nthe fused kernel is memory-bound\n"), 4, "'memory-bound' typed into prose"},
        {one_step("@workload chain\nit is bound by issue\n"), 4, "'bound by' typed into prose"},
        {"@lesson Chains are memory-bound\n@step S\ntext\n", 1, "typed into the lesson title"},
        {one_step("@workload chain\nx {if measured.dram_percent fused >= 85 | memory-bound | issue-bound}\n"), 4,
         "in a verdict on numbers"},
        // A word said twice; a level word written another way.
        {one_step("`flash_wgmma` flash_wgmma needs a Hopper GPU\n"), 3, "'flash_wgmma flash_wgmma': a word said twice"},
        {one_step("the HBM bytes of x\n"), 3, "'HBM bytes': write the level words"},
        // A glossary term used before its link.
        {one_step("each CTA holds a tile\n"), 3, "'CTA' is used before it is explained"},
        {one_step("x {term sparkle}\n"), 3, "no glossary term 'sparkle'"},
        {one_step("@workload chain\nx {if model.limiter fused is sparkly | a | b}\n"), 4, "unknown limiter class 'sparkly'"},
        {one_step("@workload chain\nx {ratio model.limiter unfused fused}\n"), 4, "ratio of 'model.limiter'?"},
        {one_step("ok\nsee {model.size fused}\n"), 4, "unknown function 'model.size'"},
        {one_step("x {measured.time}\n"), 3, "measured.time takes 1 argument (VARIANT), not 0"},
        {one_step("@workload chain\nx {measured.time flash}\n"), 4, "unknown variant 'flash' of chain"},
        {one_step("@workload chain\nx {ratio speed unfused fused}\n"), 4, "ratio of 'speed'"},
        {one_step("@workload chain\nx {model.l2sm_buffer unfused S}\n"), 4, "moves no buffer named 'S'"},
        {one_step("@workload chain\nx {param N}\n"), 4, "unknown parameter 'N' of chain"},
        {one_step("@workload chain\nx {model.tensor unfused S}\n"), 4, "moves no buffer named 'S'"},
        // Verdicts: a comparison of live numbers (or constants) and two plain texts.
        {one_step("@workload chain\nx {if measured.dram_percent fused | a | b}\n"), 4, "no comparison"},
        {one_step("@workload chain\nx {if measured.dram_percent fused >= 85 | a}\n"), 4, "a condition and two texts"},
        {one_step("@workload chain\nx {if >= 85 | a | b}\n"), 4, "needs a side on its left"},
        {one_step("@workload chain\nx {if measured.dram_percent flash >= 85 | a | b}\n"), 4, "unknown variant 'flash'"},
        {one_step("@workload chain\nx {if device.name > 3 | a | b}\n"), 4, "'device.name' is not a number"},
        {one_step("@workload chain\nx {if 1 < 2 < 3 | a | b}\n"), 4, "one comparison only"},
        // Each value legal, the combination too large: reported at the step's line.
        {"@lesson T\n\n@step Big\n@workload chain\n@param rows 1048576\n@param hidden 16384\ntext\n", 3, "too large"},
    };
    for (const Case& c : cases) {
        INFO(c.text);
        const LessonError e = first_error(c.text);
        INFO(e.text());
        CHECK(e.file == "t.lesson");
        CHECK(e.line == c.line);
        CHECK(contains(e.message, c.message));
        CHECK(e.text() == "t.lesson:" + std::to_string(c.line) + ": " + e.message);
    }
}

TEST_CASE("a limiter in a verdict on the limiter, a term after its link and a verdict's live texts are legal", "[lesson]") {
    const LessonParse p = parse_lesson("t.lesson",
                                       "@lesson T\n@step S\n@workload attention\n@variants naive flash_tc\n"
                                       "A {term CTA} holds a tile; each CTA is one block. `naive` is {model.bound naive}"
                                       "{if model.limiter naive is issue | : issue-bound, said by the model | }.\n"
                                       "{if refused flash_tc | {refusal flash_tc} | `flash_tc` takes {measured.time flash_tc}}.\n");
    for (const LessonError& e : p.errors) INFO(e.text());
    CHECK(p.ok());
    REQUIRE(p.lesson.steps.size() == 1);
    const ProseSpan* found = nullptr;
    for (const ProseBlock& b : p.lesson.steps[0].prose)
        for (const ProseSpan& s : b.spans)
            if (s.kind == ProseSpan::Kind::expr && s.expr.func == "if" && s.expr.args[0] == "refused") found = &s;
    REQUIRE(found);
    const ProseSpan& verdict = *found;
    REQUIRE(verdict.expr.branch_spans.size() == 2);
    CHECK(verdict.expr.branch_spans[1][2].expr.func == "measured.time");
    CHECK(expr_levels(verdict.expr) == 0);
    CHECK(doubled_words("the the end") == std::vector<std::string>{"the"});
    CHECK(doubled_words("64 \xC3\x97 64, that is, that").empty());
    CHECK(typed_bound_words("a \"compute-bound\" claim").empty());
    CHECK(typed_bound_words("a compute-bound kernel") == std::vector<std::string>{"compute-bound"});
}

TEST_CASE("the shipped glossary reads, and every highlight id has the levels its panel shows", "[lesson]") {
    const Glossary& g = shipped_glossary();
    for (const LessonError& e : g.errors) FAIL_CHECK(e.text());
    for (const char* key : {"DRAM", "L2\xE2\x86\x92SM", "on chip", "CTA", "thread block", "Philox", "L2 roof",
                            "instruction issue", "flash_tc", "occupancy", "ridge point"})
        CHECK(g.find(key) != nullptr);
    CHECK(find_highlight("results.bytes_chart")->levels == static_cast<int>(Level::dram));
    CHECK(find_highlight("memory.race")->levels == static_cast<int>(Level::dram));
    CHECK(find_highlight("memory.footer")->levels == static_cast<int>(Level::dram));
    CHECK((find_highlight("results.table")->levels & static_cast<int>(Level::l2sm)) != 0);
    CHECK(find_highlight("results.time_chart")->levels == 0);
}

TEST_CASE("a number typed into prose is a warning - {=N} marks a definition", "[lesson]") {
    CHECK(typed_numbers("ridge ~412 FLOP/B, 3.5x and 4k tokens.") == std::vector<std::string>{"412", "3.5x", "4k"});
    CHECK(typed_numbers("fp32 on an H100: L2, sm_90, kernels/PERF.md") == std::vector<std::string>{});
    CHECK(typed_numbers("ends with 7.") == std::vector<std::string>{"7"});

    const LessonParse p = parse_lesson("t.lesson", one_step("The peak is ~412 FLOP/B.\n"
                                                            "{=4} kernels, `sm_90`, $N^2 + 2$ and {model.l2sm fused}.\n"
                                                            "- **8 passes**\n"
                                                            "@recall Why 16x?\n"
                                                            "Because {if ratio model.l2sm unfused fused > 2 | three | 3}.\n"
                                                            "@end\n"));
    REQUIRE(p.ok());  // warnings do not stop a lesson from loading
    REQUIRE(p.warnings.size() == 4);
    CHECK(p.warnings[0].line == 3);
    CHECK(contains(p.warnings[0].text(), "t.lesson:3: warning: '412' typed into prose"));
    CHECK(contains(p.warnings[0].message, "mark a definition {=412}"));
    CHECK(p.warnings[1].line == 5);  // bold is prose too
    CHECK(contains(p.warnings[1].message, "'8'"));
    CHECK(p.warnings[2].line == 6);
    CHECK(contains(p.warnings[2].message, "'16x' typed into a recall question"));
    CHECK(p.warnings[3].line == 7);
    CHECK(contains(p.warnings[3].message, "'3' typed into a verdict's text"));
    // The definition shows as plain text, exactly as written.
    const std::vector<ProseSpan>& spans = p.lesson.steps[0].prose[0].spans;
    CHECK(std::any_of(spans.begin(), spans.end(),
                      [](const ProseSpan& s) { return s.kind == ProseSpan::Kind::text && contains(s.text, "4 kernels"); }));
}

TEST_CASE("several errors in one file are all reported, in line order", "[lesson]") {
    const LessonParse p = parse_lesson("t.lesson", "@lesson T\n@step S\n@view nope\n@dtype fp9\ntext\n@bogus\n");
    REQUIRE(p.errors.size() == 3);
    CHECK(p.errors[0].line == 3);
    CHECK(p.errors[1].line == 4);
    CHECK(p.errors[2].line == 6);
}

TEST_CASE("an unreadable lesson file gives an error, not a crash", "[lesson]") {
    const LessonParse p = load_lesson("/nonexistent/x.lesson");
    REQUIRE(p.errors.size() == 1);
    CHECK(p.errors[0].text() == "/nonexistent/x.lesson:0: cannot read the file");
}

TEST_CASE("live expressions show modeled, measured, pending and unavailable values", "[lesson]") {
    const kernels::Params p = chain_bf16(512, 768);
    kernels::DeviceInfo device = simulated_h100();
    device.peak_bw_gbps = 3350;
    device.peak_tensor_tflops = 990;
    std::vector<kernels::Measurement> results;
    ExprContext ctx;
    ctx.params = p;
    ctx.selected = {"unfused", "fused"};
    ctx.device = &device;
    ctx.results = &results;
    auto eval = [&](const std::string& func, std::vector<std::string> args) {
        return evaluate(LessonExpr{func, std::move(args), func, {}, {}}, ctx);
    };

    // Modeled numbers come from kernels::model for exactly these parameters.
    const kernels::Model unfused = kernels::model("unfused", p), fused = kernels::model("fused", p);
    const ExprValue bytes = eval("model.l2sm", {"fused"});
    CHECK(bytes.state == ExprValue::State::value);
    CHECK_FALSE(bytes.measured);
    CHECK(bytes.text == kernels::format_bytes(static_cast<double>(fused.bytes())));
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2f\xC3\x97", static_cast<double>(unfused.bytes()) / static_cast<double>(fused.bytes()));
    CHECK(eval("ratio", {"model.l2sm", "unfused", "fused"}).text == ratio);
    CHECK(eval("model.kernels", {"unfused"}).text == std::to_string(unfused.kernels.size()));
    CHECK(eval("param", {"rows"}).text == "512");
    CHECK(eval("param", {"dtype"}).text == "bf16");

    // Nothing measured yet: pending while a batch runs, else says why.
    ctx.pending = true;
    CHECK(eval("measured.time", {"fused"}).state == ExprValue::State::pending);
    ctx.pending = false;
    CHECK(eval("measured.time", {"fused"}).text == "unavailable: not measured yet");
    ctx.selected = {"unfused"};
    CHECK(contains(eval("measured.time", {"fused"}).text, "fused is not selected"));
    ctx.selected = {"unfused", "fused"};

    // A result for other parameters does not count; one for these does, labelled simulated.
    kernels::Params other = p;
    other.set("rows", 1024);
    results.push_back(fake_measurement(other, "fused", 9.0, true));
    CHECK(eval("measured.time", {"fused"}).state != ExprValue::State::value);
    results.push_back(fake_measurement(p, "fused", 0.5, true));
    results.push_back(fake_measurement(p, "unfused", 1.5, true));
    const ExprValue t = eval("measured.time", {"fused"});
    CHECK(t.state == ExprValue::State::value);
    CHECK(t.simulated);
    CHECK(t.text == kernels::format_time_ms(0.5) + " (simulated)");
    CHECK(eval("ratio", {"measured.time", "unfused", "fused"}).text == "3.00\xC3\x97 (simulated)");

    // A simulated error is computed on the CPU (the variant's emulated arithmetic) and says so; one
    // that was not computed gives the reason.
    results.back().check_note = "not emulated: ~2.0 s on the CPU at this size (256 sampled rows; the limit is 0.5 s)";
    CHECK(eval("measured.error", {"unfused"}).text ==
          "unavailable: not emulated: ~2.0 s on the CPU at this size (256 sampled rows; the limit is 0.5 s)");
    results.back().checked = true;
    results.back().rel_l2_error = 3.14e-3;
    const ExprValue error = eval("measured.error", {"unfused"});
    CHECK(error.text == "3.1e-03 (computed on the CPU)");
    CHECK(error.emulated);
    CHECK_FALSE(error.simulated);
    REQUIRE(error.number);
    CHECK(*error.number == 3.14e-3);

    // Counters not collected: unavailable with the measurement's own reason.
    CHECK(eval("measured.dram", {"fused"}).text == "unavailable: hardware counters not collected");
    // A failed run: its error.
    results[1].ok = false;
    results[1].error = "out of memory";
    CHECK(eval("measured.time", {"fused"}).text == "unavailable: out of memory");
    // No device yet (GPU probe running): pending.
    ctx.device = nullptr;
    CHECK(eval("device.name", {}).state == ExprValue::State::pending);
}

TEST_CASE("a verdict compares live numbers: pending, unavailable, simulated as they are", "[lesson]") {
    const kernels::Params p = chain_bf16(512, 768);
    kernels::DeviceInfo device = simulated_h100();
    device.peak_bw_gbps = 3350;
    device.peak_tensor_tflops = 989;
    device.l2_bytes = int64_t(50) << 20;
    std::vector<kernels::Measurement> results;
    ExprContext ctx;
    ctx.params = p;
    ctx.selected = {"unfused", "fused"};
    ctx.device = &device;
    ctx.results = &results;
    auto verdict = [&](const std::string& source) {
        const LessonParse parsed = parse_lesson("t.lesson", one_step("@workload chain\nx {" + source + "}\n"));
        REQUIRE(parsed.ok());
        return evaluate(parsed.lesson.steps[0].prose[0].spans.back().expr, ctx);
    };
    // Modeled: 9 tensors against 3, so the byte ratio is about 3.
    CHECK(verdict("if ratio model.l2sm unfused fused > 2.5 | three times | less").text == "three times");
    CHECK(verdict("if ratio model.l2sm unfused fused >= 3.5 | more | less, than three").text == "less, than three");
    // Two expressions: an intermediate's footprint against the L2 (bytes with bytes).
    CHECK(verdict("if model.tensor unfused h1 < device.l2 | fits | does not fit").text == "fits");
    ctx.params = chain_bf16(8192, 8192);
    CHECK(verdict("if model.tensor unfused h1 < device.l2 | fits | does not fit").text == "does not fit");
    ctx.params = p;
    // Measured: pending while measuring, the reason when it cannot be had, simulated when it is.
    ctx.pending = true;
    CHECK(verdict("if measured.dram_percent fused >= 85 | at | below").state == ExprValue::State::pending);
    ctx.pending = false;
    CHECK(verdict("if measured.dram_percent fused >= 85 | at | below").text == "unavailable: not measured yet");
    // 1.2 GB in 1 ms: 1200 GB/s, 40 % of the simulated H100's calibrated copy ceiling (2986 GB/s,
    // not the 3350 GB/s datasheet); then 3000 GB/s, at it.
    results.push_back(fake_measurement(p, "fused", 1.0, true));
    results.back().bytes_read = 700'000'000;
    results.back().bytes_written = 500'000'000;
    results.back().device.peak_bw_gbps = 3350;
    const ExprValue below = verdict("if measured.dram_percent fused >= 85 | at the ceiling | below it");
    CHECK(below.text == "below it");
    CHECK(below.simulated);
    CHECK(below.measured);
    CHECK(verdict("if measured.dram_percent fused < 50 | under half | over half").text == "under half");
    results.back().bytes_read = 2'500'000'000;
    CHECK(verdict("if measured.dram_percent fused >= 85 | at the ceiling | below it").text == "at the ceiling");
    CHECK(contains(verdict("if measured.dram fused > 0 | a | b").text, "unavailable: hardware counters"));
}

TEST_CASE("footprint, traffic and the ridge the roofline draws", "[lesson]") {
    const kernels::Params p = chain_bf16(4096, 4096);
    kernels::DeviceInfo device = simulated_h100();
    device.peak_bw_gbps = 4800;
    device.peak_tensor_tflops = 989;
    ExprContext ctx;
    ctx.params = p;
    ctx.device = &device;
    auto eval = [&](const std::string& func, std::vector<std::string> args) {
        return evaluate(LessonExpr{func, std::move(args), func, {}, {}}, ctx);
    };
    // h1 is written once and read once: traffic twice its footprint.
    const double tensor = 4096.0 * 4096 * 2;
    CHECK(eval("model.tensor", {"unfused", "h1"}).number == tensor);
    CHECK(eval("model.tensor", {"unfused", "h1"}).text == kernels::format_bytes(tensor));
    CHECK(eval("model.l2sm_buffer", {"unfused", "h1"}).number == 2 * tensor);
    // Simulated: the calibrated roofs of the card it is named after, the H100's measured cuBLAS bf16
    // GEMM over its measured copy (804.8 / 2.986: 270 FLOP/B), not the datasheet's 989 / 4.8.
    CHECK(eval("device.ridge", {}).text == "270 FLOP/B");
    CHECK(contains(eval("device.tflops", {}).text, "805 TFLOP/s (calibrated cuBLAS bf16 GEMM)"));
    // A GPU: the measured GEMM of the step's dtype over the measured copy, as the roofline panel.
    device.simulated = false;
    device.peak_tensor_tflops = 1070;
    device.measured_copy_gbps = 4000;
    device.measured_bf16_gemm_tflops = 800;
    device.measured_fp16_gemm_tflops = 760;
    CHECK(eval("device.ridge", {}).text == "200 FLOP/B");
    CHECK(eval("device.tflops", {}).text == "800 TFLOP/s (measured cuBLAS bf16 GEMM)");
    ctx.params.dtype = kernels::DType::f16;
    CHECK(eval("device.ridge", {}).text == "190 FLOP/B");
    CHECK(*eval("device.ridge", {}).number == Approx(190));
}

TEST_CASE("spill expressions come from ptxas's table and the device's L1", "[lesson]") {
    const kernels::Params p = chain_bf16(8192, 8192);
    kernels::DeviceInfo h100 = simulated_h100();
    h100.cc_major = 9;
    ExprContext ctx;
    ctx.params = p;
    ctx.device = &h100;
    auto eval = [&](const std::string& func, std::vector<std::string> args) {
        return evaluate(LessonExpr{func, std::move(args), func, {}, {}}, ctx);
    };
    const kernels::RegisterUse spill = kernels::elementwise::row_kernel_registers("fused_chain_spill", kernels::elementwise::to_elementwise(p));
    const kernels::RegisterUse fused = kernels::elementwise::row_kernel_registers("fused_chain", kernels::elementwise::to_elementwise(p));
    CHECK(eval("model.registers", {"fused_spill"}).text == std::to_string(spill.registers));
    CHECK(eval("model.registers", {"fused"}).text == std::to_string(fused.registers));
    const kernels::Model m = kernels::model("fused_spill", p);
    CHECK(eval("model.spill_bytes", {"fused_spill"}).text == kernels::format_bytes(static_cast<double>(m.local_bytes())));
    char share[16];
    std::snprintf(share, sizeof share, "%.0f %%", 100.0 * kernels::spill_estimate(m.kernels[0], h100).beyond_l1);
    CHECK(eval("model.spill_past_l1", {"fused_spill"}).text == share);
    CHECK(eval("model.spill_past_l1", {"fused"}).text == "0 %");  // 64 registers: the frames fit L1
    // Flat kernels (bias_gelu's) are not in the table: said, not guessed.
    ctx.params.workload = "bias_gelu";
    CHECK(contains(eval("model.registers", {"fused"}).text, "not in the register table"));
    // No device yet: the L1 share waits for it.
    ctx.params = p;
    ctx.device = nullptr;
    CHECK(eval("model.spill_past_l1", {"fused_spill"}).state == ExprValue::State::pending);
}

TEST_CASE("refusal says why a tile does not fit, with the device's numbers", "[lesson]") {
    kernels::Params p;
    p.workload = "attention";
    p.dtype = kernels::DType::f32;
    p.set("br", 128).set("bc", 128);
    p.set("d", 128);
    kernels::DeviceInfo device;
    device.name = "small";
    device.cc_major = 8;
    device.smem_per_block = 49152;
    device.smem_per_block_optin = 101376;
    device.global_mem_bytes = int64_t(1) << 36;
    ExprContext ctx;
    ctx.params = p;
    ctx.device = &device;
    const ExprValue v = evaluate(LessonExpr{"refusal", {"flash"}, "", {}, {}}, ctx);
    CHECK(contains(v.text, "shared memory"));
    ctx.params.set("br", 16).set("bc", 16);
    ctx.params.set("d", 32);
    // Where nothing is refused the expression says so as unavailable (a step that may see both
    // writes {if refused V | {refusal V} | ...}), never "runs on ..." in a sentence about a refusal.
    const ExprValue runs = evaluate(LessonExpr{"refusal", {"flash"}, "", {}, {}}, ctx);
    CHECK(runs.state == ExprValue::State::unavailable);
    CHECK(contains(runs.text, "not refused here: it runs on small"));
}

TEST_CASE("every shipped lesson parses without errors", "[lesson]") {
    const std::string dir = std::string(FL_SOURCE_DIR) + "/lessons";
    const std::vector<std::string> files = lesson_files(dir);
    CHECK(files.size() >= 5);
    for (const char* required : {"02-", "03-", "04-", "07-", "08-", "09-"}) {
        INFO(required);
        CHECK(std::any_of(files.begin(), files.end(),
                          [&](const std::string& f) { return fs::path(f).filename().string().rfind(required, 0) == 0; }));
    }
    for (const std::string& f : files) {
        INFO(f);
        CHECK(!contains(f, "pending"));  // pending/ is not shipped
        const LessonParse p = load_lesson(f);
        for (const LessonError& e : p.errors) FAIL_CHECK(e.text());
        // No number typed into a shipped lesson: each is live or marked a definition.
        for (const LessonError& w : p.warnings) FAIL_CHECK(w.text());
        CHECK(p.lesson.steps.size() >= 3);
        // Every step of a shipped lesson has at least one live number: nothing typed in.
        for (const LessonStep& s : p.lesson.steps) {
            bool live = false;
            for (const ProseBlock& b : s.prose)
                for (const ProseSpan& span : b.spans) live = live || span.kind == ProseSpan::Kind::expr;
            INFO(s.title);
            CHECK(live);
        }
    }
}

TEST_CASE("entering a step applies its state - R returns to it after the user changes things", "[lesson]") {
    AppState state;
    LessonParse p = parse_lesson("t.lesson", kValid);
    REQUIRE(p.ok());
    state.lesson.lessons.push_back(p.lesson);
    state.lesson.loaded = true;
    open_lesson(state, 0, 0, 10.0);
    CHECK(state.lesson.open);
    CHECK(state.settings.params == p.lesson.steps[0].state.params);
    CHECK(selected_variants(state.settings) == p.lesson.steps[0].state.variants);
    CHECK(state.requested_view == "results");
    CHECK(state.highlight == "results.bytes_chart");
    CHECK(state.params_dirty);
    CHECK(state.changed_at <= 10.0 - kSubmitDebounceSeconds);  // @measure: submitted at once
    CHECK_FALSE(step_modified(state));

    state.settings.params.set("rows", 4096);  // the user drags a slider
    CHECK(step_modified(state));
    reset_step(state, 11.0);
    CHECK_FALSE(step_modified(state));
    CHECK(state.settings.params.get_int("rows") == 256);

    CHECK(next_step(state, 12.0));
    CHECK(state.lesson.step == 1);
    CHECK(state.settings.params.get_int("rows") == 1024);
    CHECK(state.requested_view == "memory");
    CHECK(state.highlight.empty());
    CHECK_FALSE(next_step(state, 13.0));  // the last step
    CHECK(previous_step(state, 14.0));
    CHECK_FALSE(previous_step(state, 15.0));
    enter_step(state, 99, 16.0);          // a jump beyond the end clamps
    CHECK(state.lesson.step == 1);
}

TEST_CASE("closing a lesson gives back the user's workload, parameters, dtype and variants - settings.json never holds the lesson's",
          "[lesson]") {
    AppState state;
    state.settings.params.workload = "attention";
    state.settings.params.dtype = kernels::DType::f32;
    state.settings.params.set("N", 2048);
    state.settings.variants["attention"] = {"naive"};
    const Settings before = state.settings;
    LessonParse p = parse_lesson("t.lesson", kValid);
    REQUIRE(p.ok());
    state.lesson.lessons.push_back(p.lesson);
    state.lesson.loaded = true;
    open_lesson(state, 0, 0, 10.0);
    REQUIRE(state.settings.params.workload == "chain");  // the lesson's
    // While the lesson runs, what would be saved is the user's own.
    const Settings saved = settings_to_save(state);
    CHECK(saved.params == before.params);
    CHECK(saved.variants == before.variants);
    next_step(state, 11.0);
    close_lesson(state);
    CHECK_FALSE(state.lesson.open);
    CHECK(state.highlight.empty());
    CHECK(state.settings.params == before.params);
    CHECK(state.settings.params.dtype == kernels::DType::f32);
    CHECK(state.settings.variants == before.variants);
    CHECK(settings_to_save(state) == state.settings);
}

TEST_CASE("classroom mode scales fonts to the screen and restores them", "[lesson]") {
    CHECK(classroom_font_scale(720) == 1.5f);
    CHECK(classroom_font_scale(1080) == 2.25f);
    CHECK(classroom_font_scale(100) == 1.25f);
    CHECK(classroom_font_scale(5000) == 3.0f);
    AppState state;
    state.settings.font_scale = 1.0f;
    set_classroom(state, true, 1080);
    CHECK(state.lesson.classroom);
    CHECK(state.lesson.open);
    CHECK(state.settings.font_scale == 2.25f);
    set_classroom(state, false, 0);
    CHECK(state.settings.font_scale == 1.0f);
}

namespace {

BundleStep bundle_step(int index, const kernels::Params& p) {
    BundleStep s;
    s.index = index;
    s.title = "step " + std::to_string(index + 1);
    s.prose = "text with 1.0 ms";
    s.settings.params = p;
    s.view = "results";
    s.measurements.push_back(fake_measurement(p, "fused", 1.0, true));
    s.width = 4;
    s.height = 3;
    s.rgba.assign(4 * 3 * 4, 200);
    return s;
}

}  // namespace

TEST_CASE("a bundle holds every file of every step, and appears only when complete", "[lesson]") {
    fl_test::TempDir tmp;
    const LessonParse p = parse_lesson("t.lesson", kValid);
    REQUIRE(p.ok());
    kernels::DeviceInfo device;
    device.name = "H100 (simulated)";
    device.simulated = true;
    const std::string dir = (tmp.path / "bundle").string();

    BundleWriter w;
    REQUIRE(w.begin(dir, p.lesson, device).empty());
    REQUIRE(w.add_step(bundle_step(0, p.lesson.steps[0].state.params)).empty());
    REQUIRE(w.add_step(bundle_step(1, p.lesson.steps[1].state.params)).empty());
    CHECK_FALSE(fs::exists(dir));  // nothing at the target before finish()
    REQUIRE(w.finish().empty());
    REQUIRE(fs::is_directory(dir));
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    const std::vector<std::string> expected = {
        "lesson.json",        "step-01-measurements.csv", "step-01-measurements.json", "step-01-settings.json",
        "step-01.png",        "step-01.txt",              "step-02-measurements.csv",  "step-02-measurements.json",
        "step-02-settings.json", "step-02.png",           "step-02.txt"};
    CHECK(names == expected);
    CHECK(tmp.entries() == std::vector<std::string>{"bundle"});  // no temporary folder left
    std::ifstream lesson_json(fs::path(dir) / "lesson.json");
    const std::string json((std::istreambuf_iterator<char>(lesson_json)), std::istreambuf_iterator<char>());
    CHECK(contains(json, "\"simulated\": true"));
    CHECK(contains(json, "\"step-02.png\""));
    std::ifstream settings(fs::path(dir) / "step-02-settings.json");
    const std::string settings_text((std::istreambuf_iterator<char>(settings)), std::istreambuf_iterator<char>());
    CHECK(contains(settings_text, "\"rows\": 1024"));
    CHECK(contains(settings_text, "\"device\""));

    // A second bundle into the same folder replaces the first.
    BundleWriter again;
    REQUIRE(again.begin(dir, p.lesson, device).empty());
    REQUIRE(again.add_step(bundle_step(0, p.lesson.steps[0].state.params)).empty());
    REQUIRE(again.finish().empty());
    CHECK_FALSE(fs::exists(fs::path(dir) / "step-02.png"));
    CHECK(fs::exists(fs::path(dir) / "step-01.png"));
    CHECK(tmp.entries() == std::vector<std::string>{"bundle"});
}

TEST_CASE("a failed bundle leaves nothing behind", "[lesson]") {
    fl_test::TempDir tmp;
    const LessonParse p = parse_lesson("t.lesson", kValid);
    kernels::DeviceInfo device;
    device.name = "x";
    const std::string dir = (tmp.path / "bundle").string();

    SECTION("a step fails half way") {
        BundleWriter w;
        REQUIRE(w.begin(dir, p.lesson, device).empty());
        REQUIRE(w.add_step(bundle_step(0, p.lesson.steps[0].state.params)).empty());
        BundleStep broken = bundle_step(1, p.lesson.steps[1].state.params);
        broken.rgba.clear();  // no picture: the step cannot be written
        CHECK(contains(w.add_step(broken), "no image"));
        CHECK(contains(w.finish(), "not open"));
        CHECK(tmp.entries().empty());
    }
    SECTION("abandoned before finish") {
        {
            BundleWriter w;
            REQUIRE(w.begin(dir, p.lesson, device).empty());
            REQUIRE(w.add_step(bundle_step(0, p.lesson.steps[0].state.params)).empty());
        }
        CHECK(tmp.entries().empty());
    }
    SECTION("a folder that does not exist") {
        BundleWriter w;
        CHECK(contains(w.begin((tmp.path / "no" / "such" / "b").string(), p.lesson, device), "does not exist"));
        CHECK(tmp.entries().empty());
    }
    SECTION("a folder nobody may create in") {
        BundleWriter w;
        CHECK(contains(w.begin("/proc/fusionlab-bundle", p.lesson, device), "cannot write the bundle"));
        CHECK_FALSE(fs::exists("/proc/fusionlab-bundle"));
    }
    SECTION("a folder that is not a bundle is not replaced") {
        fs::create_directories(tmp.path / "bundle");
        std::ofstream(tmp.path / "bundle" / "notes.txt") << "mine";
        BundleWriter w;
        CHECK(contains(w.begin(dir, p.lesson, device), "not a lesson bundle"));
        CHECK(fs::exists(tmp.path / "bundle" / "notes.txt"));
        CHECK(tmp.entries() == std::vector<std::string>{"bundle"});
    }
}

TEST_CASE("intensity at L2 and at DRAM, and the limiter the calibrated model names", "[lesson]") {
    kernels::Params p;
    p.workload = "attention";
    p.dtype = kernels::DType::f16;
    p.set("N", 4096);
    p.set("d", 64);
    p.set("heads", 16);
    // A set tile: the model below and the lesson's expressions then price the same flash_tc (an auto
    // tile would let the expressions resolve it against the device first).
    p.set("br", 64);
    p.set("bc", 64);
    const kernels::SimGpu* h100 = kernels::find_sim_gpu("H100");
    const kernels::SimGpu* h200 = kernels::find_sim_gpu("H200");
    REQUIRE(h100);
    REQUIRE(h200);
    std::vector<kernels::Measurement> results;
    ExprContext ctx;
    ctx.params = p;
    ctx.selected = {"naive", "flash", "flash_tc"};
    ctx.device = &h100->info;
    ctx.results = &results;
    auto eval = [&](const std::string& func, std::vector<std::string> args) {
        return evaluate(LessonExpr{func, std::move(args), func, {}, {}}, ctx);
    };
    // L2 intensity counts what the loads ask for; DRAM intensity what the L2 reuse model lets through.
    const kernels::Model tc = kernels::model("flash_tc", p);
    CHECK(*eval("model.l2sm_intensity", {"flash_tc"}).number == Approx(tc.flops() / static_cast<double>(tc.bytes())));
    CHECK(*eval("model.dram_intensity", {"flash_tc"}).number == Approx(tc.flops() / static_cast<double>(tc.dram_bytes())));
    CHECK(*eval("model.dram_intensity", {"flash_tc"}).number > 10 * *eval("model.l2sm_intensity", {"flash_tc"}).number);
    // The teaching kernel is bound by shared memory on both simulated GPUs (kernels/PERF.md measures it so).
    CHECK(eval("model.limiter", {"flash"}).text == "shared-memory bandwidth");
    ctx.device = &h200->info;
    CHECK(eval("model.limiter", {"flash"}).text == "shared-memory bandwidth");
    CHECK(eval("model.limiter", {"flash_tc"}).text != "DRAM bandwidth");
    ctx.device = nullptr;
    CHECK(eval("model.limiter", {"flash"}).state == ExprValue::State::pending);
    ctx.device = &h100->info;

    // Measured DRAM intensity: model FLOPs over the counters' bytes; without counters, one reason.
    kernels::Measurement m = fake_measurement(p, "flash_tc", 1.0, false);
    m.flops = 2e9;
    kernels::DeviceInfo gpu = h100->info;  // a real GPU: a measurement counts for the device it was taken on
    gpu.name = "GPU";
    gpu.simulated = false;
    m.device = gpu;
    ctx.device = &gpu;
    results.push_back(m);
    CHECK(eval("measured.dram_intensity", {"flash_tc"}).text == "unavailable: hardware counters not collected");
    results.back().measured_bytes = 1000000;
    CHECK(eval("measured.dram_intensity", {"flash_tc"}).text == "2000 FLOP/B");
    CHECK(eval("ratio", {"measured.dram", "flash_tc", "flash_tc"}).text == "1.00\xC3\x97");
}
