// Exercise files (app/exercises/exercise.h), their compile check and the NVRTC log reader
// (kernels/gpu/nvrtc_compile.h), and `fusionlab exercises` without a GPU (app/exercises/exercise_cli.h).
#include "app/files/export.h"
#include "app/files/results_import.h"
#include "app/exercises/exercise.h"
#include "app/exercises/exercise_cli.h"
#include "app/exercises/exercise_reference.h"
#include "app/lessons/exercise_predictions.h"
#include "app/lessons/lesson_devices.h"
#include "app/lessons/lesson_player.h"
#include "app/lessons/prediction.h"
#include "kernels/core/backend.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"
#include "kernels/gpu/nvrtc_compile.h"

#include "test_skip.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace app::exercises;

namespace {

const std::string kSourceDir = FL_SOURCE_DIR;

// A small valid exercise; tests change one line of it.
std::string valid_text() {
    return "exercise: small\n"
           "title: Small\n"
           "workload: bias_gelu\n"
           "params: rows=64 hidden=128 dtype=fp16\n"
           "variant: fused\n"
           "replaces: fused_bias_gelu\n"
           "compare: unfused fused\n"
           "kernel: k\n"
           "signature: const T* __restrict__ x, const T* bias, T* out, int64_t hidden\n"
           "grid: rows\n"
           "block: 128\n"
           "goal: time <= 1.5 x fused\n"
           "goal: dram <= 1.1 x fused\n"
           "\n== task\nDo it.\n== hint\nOne.\n== hint\nTwo.\n"
           "== starter\nextern \"C\" __global__ void k(const T* x, const T* bias, T* out, int64_t hidden) {}\n"
           "== solution\nextern \"C\" __global__ void k(const T* x, const T* bias, T* out, int64_t hidden) {\n"
           "  out[0] = x[0];\n}\n";
}

std::string replace_line(std::string text, const std::string& starts, const std::string& with) {
    const size_t at = text.find(starts);
    REQUIRE(at != std::string::npos);
    const size_t end = text.find('\n', at);
    return text.replace(at, end - at, with);
}

bool has_error(const ExerciseParse& p, int line, const std::string& words) {
    for (const ExerciseError& e : p.errors)
        if ((line < 0 || e.line == line) && e.message.find(words) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("exercise parser reads every field of a valid file") {
    const ExerciseParse p = parse_exercise("/x/small.exercise", valid_text());
    for (const ExerciseError& e : p.errors) INFO(e.text());
    REQUIRE(p.ok());
    const Exercise& ex = p.exercise;
    CHECK(ex.name == "small");
    CHECK(ex.workload == "bias_gelu");
    CHECK(ex.params.get("rows") == 64);
    CHECK(ex.params.get("hidden") == 128);
    CHECK(ex.params.dtype == kernels::DType::f16);
    CHECK(ex.variant == "fused");
    CHECK(ex.replaces == "fused_bias_gelu");
    CHECK(ex.compare == std::vector<std::string>{"unfused", "fused"});
    REQUIRE(ex.arguments.size() == 4);
    CHECK(ex.arguments[0].type == "const T* __restrict__");
    CHECK(ex.arguments[0].name == "x");
    CHECK(ex.arguments[3].type == "int64_t");
    CHECK(ex.signature() ==
          "extern \"C\" __global__ void k(const T* __restrict__ x, const T* bias, T* out, int64_t hidden)");
    CHECK(ex.block == std::array<int, 3>{128, 1, 1});
    REQUIRE(ex.goals.size() == 2);
    CHECK(ex.goals[0].text() == "time <= 1.5 x fused");
    CHECK(ex.goals[1].kind == Goal::Kind::dram);
    CHECK(ex.hints.size() == 2);
    CHECK(ex.task == "Do it.");
    CHECK(ex.solution_line == 24);  // the line after "== solution"
    CHECK(ex.solution.find("out[0] = x[0];") != std::string::npos);
}

TEST_CASE("exercise parser names the line of each error") {
    SECTION("unknown parameter") {
        const ExerciseParse p = parse_exercise("small.exercise", replace_line(valid_text(), "params:", "params: rows=64 widht=3"));
        CHECK(has_error(p, 4, "unknown parameter 'widht' of bias_gelu"));
    }
    SECTION("parameter out of range") {
        const ExerciseParse p = parse_exercise("small.exercise", replace_line(valid_text(), "params:", "params: rows=0"));
        CHECK(has_error(p, 4, "rows"));
    }
    SECTION("a replaced kernel the variant does not have") {
        const ExerciseParse p = parse_exercise("small.exercise", replace_line(valid_text(), "replaces:", "replaces: gelu"));
        CHECK(has_error(p, 6, "fused has no such kernel (its kernels: fused_bias_gelu)"));
    }
    SECTION("a goal against a variant not compared") {
        const ExerciseParse p =
            parse_exercise("small.exercise", replace_line(valid_text(), "compare:", "compare: unfused"));
        CHECK(has_error(p, 12, "goal against 'fused', which 'compare:' does not list"));
    }
    SECTION("a malformed goal") {
        const ExerciseParse p =
            parse_exercise("small.exercise", replace_line(valid_text(), "goal: time", "goal: time < 2 fused"));
        CHECK(has_error(p, 12, "goal takes"));
    }
    SECTION("a grid naming no parameter") {
        const ExerciseParse p = parse_exercise("small.exercise", replace_line(valid_text(), "grid:", "grid: ceil(N/64)"));
        CHECK(has_error(p, 10, "'N' is not a parameter of bias_gelu"));
    }
    SECTION("a block over 1024 threads") {
        const ExerciseParse p = parse_exercise("small.exercise", replace_line(valid_text(), "block:", "block: 64 32"));
        CHECK(has_error(p, 11, "2048 threads exceeds"));
    }
    SECTION("a signature type the harness cannot pass") {
        const ExerciseParse p = parse_exercise("small.exercise", replace_line(valid_text(), "signature:", "signature: double* x"));
        CHECK(has_error(p, 9, "type word 'double'"));
    }
    SECTION("the name differs from the file's") {
        const ExerciseParse p = parse_exercise("other.exercise", valid_text());
        CHECK(has_error(p, 1, "differs from the file's name 'other'"));
    }
    SECTION("a solution without the kernel") {
        std::string text = valid_text();
        text = text.substr(0, text.find("== solution")) + "== solution\n__global__ void other() {}\n";
        const ExerciseParse p = parse_exercise("small.exercise", text);
        CHECK(has_error(p, 24, "the solution must define extern \"C\" __global__ void k"));
    }
    SECTION("missing sections and keys") {
        const ExerciseParse p = parse_exercise("small.exercise", "exercise: small\ntitle: t\n");
        CHECK(has_error(p, -1, "missing 'workload:'"));
        CHECK(has_error(p, -1, "missing section '== solution'"));
        CHECK(has_error(p, -1, "at least one '== hint'"));
    }
    SECTION("an unknown section") {
        const ExerciseParse p = parse_exercise("small.exercise", valid_text() + "== answers\nnope\n");
        CHECK(has_error(p, 27, "unknown section '== answers'"));
    }
}

TEST_CASE("launch dimensions evaluate for the parameters") {
    kernels::Params p = kernels::default_params("attention");
    p.set("N", 1000);
    p.set("heads", 3);
    int64_t v = 0;
    std::string why;
    REQUIRE(evaluate_dimension("ceil(N/64)", p, v, why));
    CHECK(v == 16);
    REQUIRE(evaluate_dimension("heads * 2", p, v, why));
    CHECK(v == 6);
    CHECK_FALSE(evaluate_dimension("ceil(N/0)", p, v, why));
    CHECK(why.find("positive integer") != std::string::npos);
    CHECK(check_dimension("rows", "attention").find("not a parameter of attention") != std::string::npos);
}

TEST_CASE("every shipped exercise checks") {
    const std::string dir = kSourceDir + "/exercises";
    const std::vector<std::string> files = exercise_files(dir);
    REQUIRE(files.size() >= 4);
    std::vector<std::string> names;
    for (const std::string& f : files) {
        const ExerciseParse p = load_exercise(f);
        for (const ExerciseError& e : p.errors) INFO(e.text());
        CHECK(p.ok());
        names.push_back(p.exercise.name);
        // The job a submission becomes: the exercise's kernel in the place of the variant's.
        const kernels::Job job = submission_job(p.exercise, p.exercise.params, p.exercise.solution, "s.cu", {});
        REQUIRE(job.student);
        CHECK(job.variant == "yours");
        CHECK(job.student->base_variant == p.exercise.variant);
        CHECK(job.student->argument_names.size() == p.exercise.arguments.size());
        CHECK(job.student->grid[0] >= 1);
    }
    for (const char* want : {"chain_fused", "bias_gelu", "skip_epilogue", "online_softmax"})
        CHECK(std::find(names.begin(), names.end(), want) != names.end());
}

// exercises/measured/: the reference solution as measured on real GPUs (shown where nothing can
// run). Each file reads, is the solution's run (a row of yours on an NVIDIA card), and meets every
// goal of the exercise as shipped: a goal tightened past what the reference did there fails here.
TEST_CASE("the shipped measured reference solutions read and meet their goals there") {
    int files = 0;
    for (const std::string& f : exercise_files(kSourceDir + "/exercises")) {
        const ExerciseParse p = load_exercise(f);
        REQUIRE(p.ok());
        for (const MeasuredReference& r : measured_references(p.exercise)) {
            INFO(r.file << ": " << r.error);
            ++files;
            CHECK(r.error.empty());
            REQUIRE(r.lines.size() == 1 + p.exercise.goals.size());
            CHECK(r.lines[0].rfind("reference solution on NVIDIA ", 0) == 0);
            for (size_t i = 1; i < r.lines.size(); ++i) {
                INFO(r.lines[i]);
                CHECK(r.lines[i].find(": met - ") != std::string::npos);
            }
        }
    }
    CHECK(files >= 4);  // one card at least for each shipped exercise
}

TEST_CASE("a measured file that is not a solution's run says so") {
    const fs::path dir = fs::temp_directory_path() / "fl_measured_test";
    fs::remove_all(dir);
    fs::create_directories(dir / "measured");
    fs::copy_file(kSourceDir + "/exercises/bias_gelu.exercise", dir / "bias_gelu.exercise");
    std::ofstream(dir / "measured" / "bias_gelu.H100.json") << "{\"measurements\": []}";
    std::ofstream(dir / "measured" / "bias_gelu.broken.json") << "{";
    const ExerciseParse p = load_exercise((dir / "bias_gelu.exercise").string());
    REQUIRE(p.ok());
    const std::vector<MeasuredReference> refs = measured_references(p.exercise);
    REQUIRE(refs.size() == 2);  // sorted: bias_gelu.H100.json, bias_gelu.broken.json
    for (const MeasuredReference& r : refs) {
        INFO(r.error);
        CHECK(r.lines.empty());
        CHECK(r.error.find(fs::path(r.file).filename().string()) != std::string::npos);  // names the file
    }
    fs::remove_all(dir);
}

TEST_CASE("a malformed exercise file is refused with its lines") {
    const ExerciseParse p = load_exercise(kSourceDir + "/tests/exercises/malformed.exercise");
    CHECK(has_error(p, 5, "unknown parameter 'widht'"));
    CHECK(has_error(p, 13, "goal against 'fused'"));
    CHECK(has_error(p, -1, "missing section '== solution'"));
}

TEST_CASE("an unreadable exercise file is one error at line 0") {
    const ExerciseParse p = load_exercise(kSourceDir + "/exercises");  // a folder
    REQUIRE(p.errors.size() == 1);
    CHECK(p.errors[0].line == 0);
}

TEST_CASE("NVRTC log lines map back to the student's lines") {
    const std::string log = "yours.cu(5): error: identifier \"bias_value\" is undefined\n"
                            "        out[i] = bias_value;\n"
                            "yours.cu(7): warning #177-D: variable \"z\" was declared but never referenced\n"
                            "fusionlab_exercise.cuh(3): error: not the student's file\n"
                            "yours.cu(x): error: no line number\n"
                            "1 error detected in the compilation of \"yours.cu\".\n";
    const std::vector<kernels::nvrtc::Diagnostic> d = kernels::nvrtc::parse_log(log, "yours.cu");
    REQUIRE(d.size() == 1);
    CHECK(d[0].line == 5);
    CHECK(d[0].severity == "error");
    CHECK(d[0].message == "identifier \"bias_value\" is undefined");
    // The prelude numbers the student's first line 1.
    kernels::nvrtc::CompileRequest r;
    r.source_name = "yours.cu";
    r.element_type = "__half";
    const std::string pre = kernels::nvrtc::prelude(r);
    CHECK(pre.find("typedef __half T;") != std::string::npos);
    const std::string last_line = "#line 1 \"yours.cu\"\n";
    REQUIRE(pre.size() > last_line.size());
    CHECK(pre.substr(pre.size() - last_line.size()) == last_line);
}

TEST_CASE("shipped starters and solutions compile with NVRTC where it is installed") {
    if (!kernels::nvrtc::status().empty()) {
        fl_test::skip(kernels::nvrtc::status());
        return;
    }
    const std::string dir = kSourceDir + "/exercises";
    const auto headers = exercise_headers(dir);
    REQUIRE(headers.size() == 1);
    for (const std::string& f : exercise_files(dir)) {
        const ExerciseParse p = load_exercise(f);
        REQUIRE(p.ok());
        for (const std::string& line : compile_check(p.exercise, headers, 9, 0)) FAIL(line);
    }
    // A kernel with an error is reported on its own line.
    kernels::nvrtc::CompileRequest req;
    std::ifstream in(kSourceDir + "/tests/exercises/compile_error_bias_gelu.cu");
    std::stringstream text;
    text << in.rdbuf();
    req.source = text.str();
    req.source_name = "compile_error_bias_gelu.cu";
    req.element_type = "__nv_bfloat16";
    req.headers = headers;
    const kernels::nvrtc::CompileResult r = kernels::nvrtc::compile(req);
    CHECK_FALSE(r.ok);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].line == 5);
    CHECK(r.diagnostics[0].message.find("bias_value") != std::string::npos);
}

TEST_CASE("goals are judged from the measured numbers") {
    ExerciseParse p = parse_exercise("small.exercise", valid_text());
    REQUIRE(p.ok());
    kernels::Measurement yours, fused;
    yours.ok = fused.ok = true;
    yours.job.variant = "yours";
    fused.job.variant = "fused";
    yours.time.median_ms = 1.4;
    fused.time.median_ms = 1.0;
    yours.measured_bytes = 1200;
    fused.measured_bytes = 1000;
    std::vector<GoalVerdict> v = judge_goals(p.exercise, yours, {fused});
    REQUIRE(v.size() == 2);
    CHECK(v[0].checked);
    CHECK(v[0].met);  // 1.4x <= 1.5x
    CHECK(v[1].checked);
    CHECK_FALSE(v[1].met);  // 1.2x > 1.1x
    fused.measured_bytes.reset();
    fused.measured_bytes_note = "unavailable: counters need admin rights";
    v = judge_goals(p.exercise, yours, {fused});
    CHECK_FALSE(v[1].checked);
    CHECK(v[1].reason.find("admin rights") != std::string::npos);
}

TEST_CASE("a run's yours exports and imports with the variant it is modeled as") {
    // A simulated fused result relabelled as a student's kernel (as `exercises run --json` writes one).
    auto sim = kernels::make_sim_backend(*kernels::find_sim_gpu("H100"));
    kernels::Job job;
    job.params = kernels::default_params("bias_gelu");
    job.variant = "fused";
    job.emulate = false;
    kernels::Measurement m = sim->run(job, kernels::CancelToken{});
    REQUIRE(m.ok);
    m.job.variant = kernels::kStudentVariant;
    m.model_variant = "fused";
    std::vector<kernels::Measurement> back;
    REQUIRE(app::parse_measurements_json(app::measurements_json({m}), back).empty());
    REQUIRE(back.size() == 1);
    CHECK(back[0].job.variant == "yours");
    CHECK(back[0].modeled_variant() == "fused");
    CHECK(back[0].bytes_read == m.bytes_read);
    // yours without a variant it is modeled as is refused, naming the field.
    m.model_variant.clear();
    back.clear();
    CHECK(app::parse_measurements_json(app::measurements_json({m}), back).find("model_variant") != std::string::npos);
}

// =============================================================================================
// Predictions in exercise files: the lessons' @predict syntax in a `== predictions` section,
// checked against the exercise's workload and played by the lessons' machinery.
// =============================================================================================
namespace {

const std::string kPredictions =
    "== predictions\n"
    "@predict model.dram fused within 15% in MiB\n"
    "How many DRAM bytes must the fused kernel move?\n"
    "@reveal\n"
    "x read, out written: {model.dram fused}.\n"
    "@end\n"
    "\n"
    "@predict choice\n"
    "Faster?\n"
    "@option faster if measured.time fused < measured.time unfused\n"
    "@option not faster if measured.time fused >= measured.time unfused\n"
    "@reveal\n"
    "Measured: {measured.time fused}.\n"
    "@end\n";

// valid_text() with a predictions section after the task; its first line is line 17.
std::string with_predictions(const std::string& section) {
    std::string t = valid_text();
    const size_t at = t.find("== hint\n");
    return t.insert(at, section);
}

// An exercise file as the app reads it: the exercise's own parse, then (when that is valid) its
// predictions parsed by the lesson engine, their errors added to the file's.
struct ParsedWithPredictions {
    ExerciseParse exercise;
    app::ExercisePredictionParse predictions;
};
ParsedWithPredictions parse_with_predictions(const std::string& text) {
    ParsedWithPredictions r;
    r.exercise = parse_exercise("small.exercise", text);
    if (r.exercise.ok()) {
        r.predictions = app::parse_exercise_predictions(r.exercise.exercise);
        for (const ExerciseError& e : r.predictions.errors) r.exercise.errors.push_back(e);
    }
    return r;
}

// A shipped exercise and its predictions; the test fails when either does not parse.
ParsedWithPredictions load_shipped(const std::string& name) {
    ParsedWithPredictions r;
    r.exercise = load_exercise(kSourceDir + "/exercises/" + name + ".exercise");
    REQUIRE(r.exercise.ok());
    r.predictions = app::parse_exercise_predictions(r.exercise.exercise);
    for (const ExerciseError& e : r.predictions.errors) FAIL_CHECK(e.text());
    return r;
}

}  // namespace

TEST_CASE("an exercise's predictions parse in the lessons' syntax") {
    const ParsedWithPredictions parsed = parse_with_predictions(with_predictions(kPredictions));
    const ExerciseParse& p = parsed.exercise;
    for (const ExerciseError& e : p.errors) INFO(e.text());
    REQUIRE(p.ok());
    // The exercise keeps the section as written; the lesson engine parsed it.
    CHECK(p.exercise.predictions_line == 18);
    CHECK(p.exercise.predictions_text.rfind("@predict model.dram fused within 15% in MiB\n", 0) == 0);
    const std::vector<app::Prediction>& ps = parsed.predictions.predictions;
    REQUIRE(ps.size() == 2);
    CHECK(ps[0].kind == app::Prediction::Kind::number);
    CHECK(ps[0].expr.func == "model.dram");
    CHECK(ps[0].unit == "MiB");
    CHECK(ps[0].tolerance == Approx(0.15));
    CHECK(ps[0].line == 18);
    CHECK(ps[0].question.size() == 1);
    CHECK(ps[0].reveal.size() == 1);
    CHECK(ps[1].kind == app::Prediction::Kind::choice);
    CHECK(ps[1].options.size() == 2);
    CHECK(ps[1].options[1].label == "not faster");
    // The task and the hints are still read around it.
    CHECK(p.exercise.task == "Do it.");
    CHECK(p.exercise.hints.size() == 2);
    // As a one-step lesson: the exercise's parameters and compared variants, its answer key.
    const app::Lesson l = app::prediction_lesson(p.exercise, ps);
    CHECK(l.name == "exercise:small");
    REQUIRE(l.steps.size() == 1);
    CHECK(l.steps[0].state.params.get("rows") == 64);
    CHECK(l.steps[0].state.variants == std::vector<std::string>{"unfused", "fused"});
    CHECK(l.steps[0].predictions.size() == 2);
}

TEST_CASE("malformed exercise predictions are refused with their lines") {
    auto parse = [](const std::string& section) { return parse_with_predictions(with_predictions(section)).exercise; };
    // Line 17 is `== predictions`, 18 the first line of its body.
    CHECK(has_error(parse("== predictions\n@predict model.dram nope within 15% in MiB\nQ?\n@reveal\nR.\n@end\n"), 18, "nope"));
    CHECK(has_error(parse("== predictions\nA question with no block.\n"), 18, "text outside a @predict block"));
    CHECK(has_error(parse("== predictions\n@predict model.dram fused within 15% in MiB\nQ?\n@reveal\nR.\n"), 18, "unclosed @predict"));
    CHECK(has_error(parse("== predictions\n@predict model.dram fused in MiB\nQ?\n@reveal\nR.\n@end\n"), 18, "tolerance"));
    CHECK(has_error(parse("== predictions\n@predict model.dram fused within 15% in ms\nQ?\n@reveal\nR.\n@end\n"), 18,
                    "does not measure"));
    CHECK(has_error(parse("== predictions\n@predict model.dram fused within 15% in MiB\nQ?\n@option a if model.dram fused > 0\n"
                          "@reveal\nR.\n@end\n"),
                    20, "@option in a number prediction"));
    CHECK(has_error(parse("== predictions\n@predict choice\nQ?\n@option only if measured.time fused < measured.time unfused\n"
                          "@reveal\nR.\n@end\n"),
                    -1, "option"));
    CHECK(has_error(parse("== predictions\n@predict model.dram fused within 15% in MiB\nIs it 128 MiB?\n@reveal\nR.\n@end\n"), 19,
                    "'128' typed into a prediction's question"));
    CHECK(has_error(parse("== predictions\n@predict model.dram fused within 15% in MiB\nQ?\n@reveal\nIt is {model.dram nope}.\n@end\n"),
                    21, "nope"));
    CHECK(has_error(parse("== predictions\n@predict model.dram fused within 15% in MiB\nQ?\n@step Next\n@end\n"), 20,
                    "@step inside the @predict block"));
    CHECK(has_error(parse("== predictions\n\n"), 17, "holds no @predict block"));
    CHECK(has_error(parse(kPredictions + kPredictions), -1, "section 'predictions' appears twice"));
}

// Each shipped exercise asks at least two predictions, and each is answerable on every simulated
// GPU and every shipped recording: a number has a value, a choice exactly one option that holds.
TEST_CASE("every shipped exercise's predictions are answerable on every device") {
    std::vector<std::string> left_out;
    std::vector<app::LessonDevice> devices = app::lesson_devices(&left_out);
    for (const std::string& w : left_out) FAIL_CHECK(w);
    REQUIRE(devices.size() >= 3);
    int recordings = 0;
    for (const app::LessonDevice& d : devices) recordings += d.kind == kernels::BackendKind::recorded;
    CHECK(recordings >= 2);
    for (const std::string& f : exercise_files(kSourceDir + "/exercises")) {
        INFO(f);
        const ParsedWithPredictions p = load_shipped(fs::path(f).stem().string());
        CHECK(p.predictions.predictions.size() >= 2);
        for (const app::LessonError& e :
             app::check_predictions_on_devices(app::prediction_lesson(p.exercise.exercise, p.predictions.predictions), devices))
            FAIL_CHECK(e.text());
    }
}

// bias_gelu as shipped (8192 x 4096 bf16) on the simulated H100: the fused kernel moves x and out
// once (64 MiB each) plus one bias row; the unfused pair moves h twice more: twice the bytes.
TEST_CASE("bias_gelu's predictions evaluate to the closed form on a simulated H100") {
    const ParsedWithPredictions p = load_shipped("bias_gelu");
    const app::Lesson l = app::prediction_lesson(p.exercise.exercise, p.predictions.predictions);
    std::vector<app::LessonDevice> devices = app::lesson_devices();
    app::LessonDevice* h100 = nullptr;
    for (app::LessonDevice& d : devices)
        if (d.kind == kernels::BackendKind::simulated && d.sim_key == "H100") h100 = &d;
    REQUIRE(h100);
    const std::vector<kernels::Measurement> results = app::measure_step(*h100, l.steps[0]);
    const app::ExprContext ctx = app::step_context(*h100, l.steps[0], results);
    const std::vector<app::Prediction>& ps = l.steps[0].predictions;
    REQUIRE(ps.size() >= 3);
    const double mib = 1024.0 * 1024.0;
    const app::PredictionGrade bytes = app::grade_prediction(ps[0], "128", ctx);
    REQUIRE(bytes.state == app::ExprValue::State::value);
    CHECK(bytes.truth / mib == Approx(128.0).epsilon(0.01));
    CHECK(bytes.right);
    CHECK_FALSE(app::grade_prediction(ps[0], "192 MiB", ctx).right);  // counting h once: 50 % high
    const app::PredictionGrade ratio = app::grade_prediction(ps[1], "2", ctx);
    CHECK(ratio.truth == Approx(2.0).epsilon(0.01));
    CHECK(ratio.right);
    // The choice: the simulated times decide, and exactly one option holds.
    const app::PredictionGrade faster = app::grade_prediction(ps[2], "", ctx);
    REQUIRE(faster.state == app::ExprValue::State::value);
    CHECK(faster.correct == 0);
    CHECK(faster.simulated);
}

// The exercise pane's answers go to the app's answer book under "exercise:NAME", beside the
// lessons', and out in the teacher's CSV.
TEST_CASE("an exercise's answers are kept under its answer key and exported with the lessons'") {
    const ParsedWithPredictions p = load_shipped("bias_gelu");
    const app::Lesson l = app::prediction_lesson(p.exercise.exercise, p.predictions.predictions);
    std::vector<app::LessonDevice> devices = app::lesson_devices();
    REQUIRE_FALSE(devices.empty());
    const std::vector<kernels::Measurement> results = app::measure_step(devices.front(), l.steps[0]);
    const app::ExprContext ctx = app::step_context(devices.front(), l.steps[0], results);
    app::LessonPlayerState lp;
    app::PredictionPlay play;
    app::PredictionSet set{app::exercise_answer_key(p.exercise.exercise), 1, &p.predictions.predictions, &play};
    CHECK_FALSE(app::prediction_settled(lp.answers, set.owner, 1, play.settled, 0));
    const app::PredictionGrade g = app::answer_prediction(lp, set, 0, "100", ctx);
    CHECK(g.answered);
    CHECK(lp.answers_dirty);
    CHECK(app::prediction_settled(lp.answers, set.owner, 1, play.settled, 0));
    CHECK_FALSE(app::prediction_settled(lp.answers, set.owner, 1, play.settled, 1));
    // Classroom mode's P reveals the next one without keeping an answer.
    CHECK(app::reveal_next_prediction(lp.answers, set));
    CHECK(play.settled.count(1));
    CHECK(lp.answers.answers.size() == 1);
    const app::PredictionAnswer& a = lp.answers.answers.front();
    CHECK(a.lesson == "exercise:bias_gelu");
    CHECK(a.prediction == 1);
    CHECK(a.answer == "100");
    CHECK(a.tolerance.find("15") != std::string::npos);
    CHECK(app::answers_csv(lp.answers).find("exercise:bias_gelu,1,1,number,") != std::string::npos);
    app::AnswerBook back;
    CHECK(app::answers_from_json(app::answers_to_json(lp.answers), back).empty());
    CHECK(back.find("exercise:bias_gelu", 1, 1) != nullptr);
}
