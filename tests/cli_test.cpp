// Command-line parsing without a process: options become the right values, bad input exits 2 with
// one line naming the option, help exits 0. (tests/cli_test.cmake runs the real binary.)
#include "app/cli/cli.h"

#include <catch2/catch.hpp>

#include <sstream>

namespace {

struct Parse {
    app::cli::ParsedCommand cmd;
    std::string out, err;
};

Parse parse(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    Parse p;
    p.cmd = app::cli::parse_command_line(args, out, err);
    p.out = out.str();
    p.err = err.str();
    return p;
}

}  // namespace

TEST_CASE("cli: no arguments means the GUI", "[cli]") {
    const auto p = parse({});
    CHECK(p.cmd.exit_code == -1);
    CHECK(p.cmd.command == app::cli::Command::gui);
    const auto q = parse({"--sim", "h200", "--font-scale", "2"});
    REQUIRE(q.cmd.exit_code == -1);
    CHECK(q.cmd.gui.sim_gpu == "H200");  // normalised to the registry's key
    CHECK(q.cmd.gui.font_scale == 2.0f);
}

TEST_CASE("cli: bench defaults and sweeps", "[cli]") {
    const auto d = parse({"bench"});
    REQUIRE(d.cmd.exit_code == -1);
    REQUIRE(d.cmd.command == app::cli::Command::bench);
    const kernels::Params defaults;
    CHECK(d.cmd.bench.workloads.size() == kernels::workloads().size());
    CHECK(d.cmd.bench.variants.empty());
    CHECK(d.cmd.bench.params.empty());  // nothing given: every workload's defaults
    const auto chain = app::cli::sweep_params(d.cmd.bench, "chain", defaults.dtype);
    REQUIRE(chain.size() == 1);
    CHECK(chain[0].get_int("rows") == defaults.get_int("rows"));
    CHECK(chain[0].get_int("hidden") == defaults.get_int("hidden"));
    CHECK(d.cmd.bench.dtypes == std::vector<kernels::DType>{defaults.dtype});
    CHECK(d.cmd.bench.sim_gpu.empty());
    CHECK_FALSE(d.cmd.bench.per_kernel);

    const auto s = parse({"bench", "--workload", "bias_gelu", "--variant", "fused", "--rows", "64,128", "256",
                          "--hidden", " 32 , 48", "--dtype", "fp32,bf16,fp32", "--dropout", "0.25", "--seed", "7",
                          "--reps", "30", "--sim", "a100", "--kernels"});
    REQUIRE(s.cmd.exit_code == -1);
    const auto& b = s.cmd.bench;
    CHECK(b.workloads == std::vector<std::string>{"bias_gelu"});
    CHECK(b.variants == std::vector<std::string>{"fused"});
    REQUIRE(app::cli::given_values(b, "rows"));
    CHECK(*app::cli::given_values(b, "rows") == std::vector<double>{64, 128, 256});
    CHECK(*app::cli::given_values(b, "hidden") == std::vector<double>{32, 48});
    CHECK(b.dtypes == std::vector<kernels::DType>{kernels::DType::f32, kernels::DType::bf16});
    CHECK(*app::cli::given_values(b, "dropout") == std::vector<double>{0.25});
    CHECK(*app::cli::given_values(b, "seed") == std::vector<double>{7});
    const auto sweep = app::cli::sweep_params(b, "bias_gelu", kernels::DType::f32);
    CHECK(sweep.size() == 6);  // 3 rows x 2 hidden
    for (const auto& p : sweep) CHECK(p.get_int("seed") == 7);
    CHECK(b.reps == 30);
    CHECK(b.sim_gpu == "A100");
    CHECK(b.per_kernel);
}

TEST_CASE("cli: attention options come from its ParamSpec table", "[cli][attention]") {
    const auto p = parse({"bench", "--workload", "attention", "--variant", "all", "--N", "1024,4096", "--d", "64",
                          "--heads", "64", "--dtype", "fp16", "--causal", "0,1", "--br", "64", "--bc", "32",
                          "--rows", "8", "--sim", "H100"});
    REQUIRE(p.cmd.exit_code == -1);
    const auto& b = p.cmd.bench;
    CHECK(b.workloads == std::vector<std::string>{"attention"});
    const auto sweep = app::cli::sweep_params(b, "attention", kernels::DType::f16);
    REQUIRE(sweep.size() == 4);  // 2 N x 2 causal; --rows is not an attention parameter: ignored
    for (const auto& q : sweep) {
        CHECK(q.get_int("d") == 64);
        CHECK(q.get_int("heads") == 64);
        CHECK(q.get_int("br") == 64);
        CHECK(q.get_int("bc") == 32);
    }
    CHECK(sweep[0].get_int("N") == 1024);
    CHECK_FALSE(sweep[0].get_bool("causal"));
    CHECK(sweep[3].get_int("N") == 4096);
    CHECK(sweep[3].get_bool("causal"));

    const auto shot = parse({"shot", "--out", "a.png", "--workload", "attention", "--N", "2048", "--causal", "1",
                             "--br", "32"});
    REQUIRE(shot.cmd.exit_code == -1);
    CHECK(shot.cmd.shot.params.get_int("N") == 2048);
    CHECK(shot.cmd.shot.params.get_bool("causal"));
    CHECK(shot.cmd.shot.params.get_int("br") == 32);
}

TEST_CASE("cli: bad bench input exits 2 with one line naming the option and the range", "[cli]") {
    struct Case {
        std::vector<std::string> args;
        std::string message;
    };
    const std::vector<Case> cases = {
        {{"bench", "--rows", "0"}, "--rows '0' is out of range (legal: 1.."},
        {{"bench", "--rows", "-5"}, "--rows '-5' is out of range"},
        {{"bench", "--rows", "abc"}, "--rows 'abc' is not a whole number"},
        {{"bench", "--rows", "12x"}, "--rows '12x' is not a whole number"},
        {{"bench", "--rows", "1e3"}, "--rows '1e3' is not a whole number"},
        {{"bench", "--rows", "64,"}, "--rows has an empty value"},
        {{"bench", "--hidden", "99999999"}, "--hidden '99999999' is out of range"},
        {{"bench", "--dtype", "fp8"}, "--dtype 'fp8' is not a dtype"},
        {{"bench", "--workload", "nope"}, "--workload 'nope' is not a workload"},
        {{"bench", "--variant", "flash"}, "--variant 'flash' is not a variant"},
        {{"bench", "--sim", "XYZ"}, "--sim 'XYZ' is not a simulated GPU"},
        {{"bench", "--dropout", "-0.1"}, "--dropout '-0.1' is out of range"},
        {{"bench", "--dropout", "inf"}, "--dropout 'inf' is not a number"},
        {{"bench", "--seed", "-1"}, "--seed '-1' is not a whole number"},
        {{"bench", "--reps", "0"}, "--reps '0' is out of range (legal: 1..1000)"},
        {{"bench", "--workload", "attention", "--br", "48"}, "--br '48' is not one of the choices (legal: auto, 16, 32, 64, 128 or 192)"},
        {{"bench", "--workload", "attention", "--d", "0"}, "--d '0' is out of range (legal: 1..128)"},
        {{"bench", "--workload", "attention", "--N", "abc"}, "--N 'abc' is not a whole number (legal: 1..65536)"},
        {{"bench", "--workload", "attention", "--causal", "2"}, "--causal '2' is not a switch (legal: 0 or 1)"},
        {{"bench", "--workload", "attention", "--heads", "64", "--N", "65536", "--d", "128", "--heads", "4096"},
         "too large"},
        {{"bench", "--reps", "many"}, "--reps 'many' is not a whole number"},
        {{"bench", "--repeat", "0"}, "--repeat '0' is out of range (legal: 1..100)"},
        {{"bench", "--repeat", "two"}, "--repeat 'two' is not a whole number"},
        {{"--soak", "5", "--soak-passes", "0"}, "--soak-passes '0' is out of range (legal: 1..10)"},
        {{"bench", "--csv", "/nonexistent/dir/x.csv"}, "--csv: cannot write /nonexistent/dir/x.csv"},
        {{"bench", "--bogus"}, "--bogus"},
        {{"shot", "--size", "12x"}, "--size '12x' is not a size"},
        {{"shot", "--size", "x720"}, "--size 'x720' is not a size"},
        {{"shot", "--out", "a.png", "--size", "100000x720"}, "--size '100000x720' is out of range"},
        {{"shot", "--out", "a.png", "--theme", "pink"}, "--theme 'pink' is not a theme"},
        {{"shot", "--out", "a.png", "--workload", "all"}, "--workload 'all' is not a workload"},
        {{"shot"}, "--out FILE.png is required"},
        {{"info", "--sim", "nope"}, "--sim 'nope' is not a simulated GPU"},
        {{"--font-scale", "0.5"}, "--font-scale '0.5' is out of range"},
    };
    for (const auto& c : cases) {
        const auto p = parse(c.args);
        INFO("args: " << Catch::Detail::stringify(c.args) << "\nstderr: " << p.err);
        CHECK(p.cmd.exit_code == app::cli::kExitUsage);
        CHECK_THAT(p.err, Catch::Contains(c.message));
        CHECK(std::count(p.err.begin(), p.err.end(), '\n') == 1);
        CHECK(p.out.empty());
    }
}

TEST_CASE("cli: help exits 0 and prints the options", "[cli]") {
    const auto p = parse({"bench", "--help"});
    CHECK(p.cmd.exit_code == 0);
    CHECK_THAT(p.out, Catch::Contains("--rows"));
    CHECK_THAT(p.out, Catch::Contains("--csv"));
    CHECK(p.err.empty());
}

TEST_CASE("cli: shot options", "[cli]") {
    const auto p = parse({"shot", "--out", "shot.png", "--size", "1920x1080", "--font-scale", "2", "--theme", "light",
                          "--workload", "bias_gelu", "--rows", "512", "--hidden", "768", "--dtype", "fp16", "--sim",
                          "v100", "--reps", "5"});
    REQUIRE(p.cmd.exit_code == -1);
    REQUIRE(p.cmd.command == app::cli::Command::shot);
    const auto& s = p.cmd.shot;
    CHECK(s.out == "shot.png");
    CHECK(s.width == 1920);
    CHECK(s.height == 1080);
    CHECK(s.font_scale == 2.0f);
    CHECK(s.theme == "light");
    CHECK(s.params.workload == "bias_gelu");
    CHECK(s.params.get_int("rows") == 512);
    CHECK(s.params.get_int("hidden") == 768);
    CHECK(s.params.dtype == kernels::DType::f16);
    CHECK(s.sim_gpu == "V100");
    CHECK(s.reps == 5);
}

TEST_CASE("cli: parse_size", "[cli]") {
    int w = 0, h = 0;
    CHECK(app::cli::parse_size("--size", "1280x720", w, h).empty());
    CHECK((w == 1280 && h == 720));
    CHECK(app::cli::parse_size("--size", "640X480", w, h).empty());
    CHECK((w == 640 && h == 480));
    for (const char* bad : {"", "12x", "x12", "1280*720", "1280x720x3", "-1280x720", "axb", "1280 x"})
        CHECK_FALSE(app::cli::parse_size("--size", bad, w, h).empty());
}

// Found by tests/fuzz/fuzz_params: a value holding a newline was echoed as is, so the
// "one line naming the option" error became two lines. Control characters are now escaped.
TEST_CASE("cli: a value with control characters still gives a one-line error", "[cli][fuzz]") {
    int w = 0, h = 0;
    const std::string size_problem = app::cli::parse_size("--size", "12\nx", w, h);
    CHECK(size_problem.find('\n') == std::string::npos);
    CHECK(size_problem.find("12\\nx") != std::string::npos);

    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"bench", "--N", "10\n24"}, {"bench", "--dtype", "fp\x1b[31m"},
          {"shot", "--out", "x.png", "--size", "1\t2"}, {"bench", "--nope\nsecond"}}) {
        const auto p = parse(args);
        CHECK(p.cmd.exit_code == app::cli::kExitUsage);
        REQUIRE_FALSE(p.err.empty());
        CHECK(p.err.find('\n') == p.err.size() - 1);
        CHECK(p.err.find('\x1b') == std::string::npos);
    }
}

// A sweep is the product of its lists: a few long lists must be refused with a message, not
// built (billions of parameter sets would exhaust memory inside the parser).
TEST_CASE("cli: a sweep too long to run is refused before it is built", "[cli][fuzz]") {
    std::string rows, hidden;
    for (int i = 1; i <= 400; ++i) {
        if (i > 1) {
            rows += ',';
            hidden += ',';
        }
        rows += std::to_string(i);
        hidden += std::to_string(i + 1000);
    }
    const auto p = parse({"bench", "--sim", "H100", "--workload", "chain", "--rows", rows, "--hidden", hidden});
    CHECK(p.cmd.exit_code == app::cli::kExitUsage);
    CHECK_THAT(p.err, Catch::Contains("160000 parameter sets") && Catch::Contains("--rows, --hidden") &&
                          Catch::Contains("at most 100000"));
    // 400 x 200 = 80000 sets is long but allowed.
    const auto q = parse({"bench", "--sim", "H100", "--workload", "chain", "--rows", rows, "--hidden",
                          hidden.substr(0, hidden.find(",1201"))});
    CHECK(q.cmd.exit_code == -1);
}

TEST_CASE("cli: bench --repeat runs the whole sweep again, in the same order", "[cli]") {
    const auto p = parse({"bench", "--sim", "H100", "--workload", "bias_gelu", "--variant", "fused", "--rows", "64,128",
                          "--hidden", "256", "--repeat", "3"});
    REQUIRE(p.cmd.exit_code == -1);
    CHECK(p.cmd.bench.repeat == 3);
    CHECK(parse({"bench"}).cmd.bench.repeat == 1);
    std::ostringstream out, err;
    REQUIRE(app::cli::run_command(p.cmd, out, err) == 0);
    // Two parameter sets x 3 passes: rows 64, 128, 64, 128, 64, 128.
    std::vector<std::string> rows;
    std::istringstream lines(out.str());
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("bias_gelu", 0) == 0) rows.push_back(line.find(" 64 x 256") != std::string::npos ? "64" : "128");
    CHECK(rows == std::vector<std::string>{"64", "128", "64", "128", "64", "128"});
}

TEST_CASE("cli: --soak-passes needs --soak and sets the replays", "[cli]") {
    const auto p = parse({"--soak", "60", "--soak-passes", "2"});
    REQUIRE(p.cmd.exit_code == -1);
    CHECK(p.cmd.gui.soak_passes == 2);
    CHECK(parse({"--soak", "60"}).cmd.gui.soak_passes == 1);
    CHECK_THAT(parse({"--soak-passes", "2"}).err, Catch::Contains("need --soak SECONDS"));
}
