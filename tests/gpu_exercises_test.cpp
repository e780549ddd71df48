// The variant `yours` on a real GPU: a student's kernel compiled by NVRTC and run by the harness
// (kernels/gpu/student_kernel.cuh, kernels/gpu/gpu_backend.cu), and `fusionlab exercises run`
// end to end (app/exercises/exercise_cli.h): every shipped reference solution passes, a wrong kernel
// fails naming its first wrong element, an out-of-bounds write is reported as such, a kernel that
// never ends is stopped by the watchdog and one that faults leaves the app running. The device
// bundle (scripts/device_exercises_run.sh) runs them all again under compute-sanitizer memcheck
// (FUSIONLAB_SANITIZER_RUN=1: one rep, goals not judged, `exercises run` says so).
//
// Paths: FUSIONLAB_SOURCE_DIR (default: this source tree) holds exercises/ and tests/exercises/;
// FUSIONLAB_EXE (default: this build's fusionlab) is the program the CLI tests run.
#include "gpu_backend_fixture.h"

#include "kernels/core/registry.h"
#include "kernels/gpu/sanitizer_run.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#if defined(__unix__)
#include <sys/wait.h>
#endif

namespace {

std::string source_dir() {
    const char* e = std::getenv("FUSIONLAB_SOURCE_DIR");
    return e && *e ? e : FL_SOURCE_DIR;
}

std::string exe() {
    const char* e = std::getenv("FUSIONLAB_EXE");
    return e && *e ? e : FL_FUSIONLAB_EXE;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The bias_gelu exercise's job for `source` (the fields exercises/bias_gelu.exercise gives),
// small enough to run in moments.
kernels::Job bias_gelu_job(const std::string& source, const std::string& name, const std::string& hidden_type = "int64_t") {
    kernels::Params p = kernels::default_params("bias_gelu");
    p.set("rows", 512);
    p.set("hidden", 1000);  // not a multiple of 8 or 256: the ragged edge of each row
    p.dtype = kernels::DType::bf16;
    auto k = std::make_shared<kernels::StudentKernel>();
    k->exercise = "bias_gelu";
    k->source = source;
    k->source_name = name;
    k->headers = {{"fusionlab_exercise.cuh", read_text(source_dir() + "/exercises/include/fusionlab_exercise.cuh")}};
    k->entry = "bias_gelu_yours";
    k->base_variant = "fused";
    k->replaces = "fused_bias_gelu";
    k->argument_names = {"x", "bias", "out", "hidden"};
    k->argument_types = {"const T*", "const T*", "T*", hidden_type};
    k->grid = {512, 1, 1};
    k->block = {256, 1, 1};
    k->watchdog_seconds = 10;
    kernels::Job job;
    job.params = p;
    job.variant = kernels::kStudentVariant;
    job.backend = kernels::BackendKind::gpu;
    job.reps = 20;
    job.student = std::move(k);
    return job;
}

const char* kRightBiasGelu =
    "extern \"C\" __global__ void bias_gelu_yours(const T* x, const T* bias, T* out, int64_t hidden) {\n"
    "    const int64_t row = blockIdx.x;\n"
    "    for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x)\n"
    "        out[row * hidden + c] = from_float<T>(gelu(to_float(x[row * hidden + c]) + to_float(bias[c])));\n"
    "}\n";

struct Process {
    int code = -1;
    std::string output;
    double seconds = 0;
};

// Runs the program with `args` (stdout and stderr together).
Process run_program(const std::string& args) {
    Process r;
    const auto start = std::chrono::steady_clock::now();
    const std::string command = "'" + exe() + "' " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe);
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
    const int status = pclose(pipe);
#if defined(__unix__)
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
#else
    r.code = status;
#endif
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Under compute-sanitizer the child's output goes into the log too. Measured on an H200
    // (2026-11-28): `compute-sanitizer --target-processes all` did not instrument these children
    // (a fault came back as cudaErrorIllegalAddress with no memcheck report, no child summary), so
    // scripts/device_exercises_run.sh runs memcheck on each `exercises run` case directly as well.
    if (kernels::sanitizer_run()) std::printf("---- %s (exit %d):\n%s\n", args.c_str(), r.code, r.output.c_str());
    return r;
}


// The app keeps working: a built-in variant still runs and checks on this process's GPU context.
void check_gpu_still_works() {
    kernels::Params p = kernels::default_params("bias_gelu");
    p.set("rows", 256);
    p.set("hidden", 1024);
    const kernels::Measurement m = fl_test::run_gpu_job(p, "fused");
    INFO(m.error);
    CHECK(m.ok);
    CHECK(m.checked);
}

// What `exercises run` prints for a submission that passes: under compute-sanitizer times mean
// nothing, so it checks correctness only and says the goals were not judged.
std::string passed_line() {
    return kernels::sanitizer_run() ? "correct; goals not judged" : "correct and within every goal";
}

}  // namespace

TEST_CASE("a student's kernel runs as yours: checked against the reference and timed", "[exercises][harness]") {
    kernels::Job job = bias_gelu_job(kRightBiasGelu, "yours.cu");
    job.measure_counters = true;
    const kernels::Measurement m = fl_test::gpu_backend().run(job, {});
    INFO(m.error);
    REQUIRE(m.ok);
    CHECK(m.job.variant == "yours");
    CHECK(m.checked);
    CHECK(m.rel_l2_error < 1e-2);
    CHECK(m.time.median_ms > 0);
    REQUIRE(m.kernels.size() == 1);
    CHECK(m.kernels[0].name == "bias_gelu_yours");
    CHECK(m.timing_note.find("yours: bias_gelu_yours: grid 512x1x1, block 256x1x1") != std::string::npos);
    CHECK(m.timing_note.find("registers") != std::string::npos);
    CHECK_FALSE(m.timeline.empty());
}

TEST_CASE("a wrong student kernel fails naming its first wrong element", "[exercises][harness]") {
    const kernels::Measurement m =
        fl_test::gpu_backend().run(bias_gelu_job(read_text(source_dir() + "/tests/exercises/wrong_bias_gelu.cu"), "wrong.cu"), {});
    INFO(m.error);
    CHECK_FALSE(m.ok);
    CHECK_FALSE(m.context_lost);
    CHECK(m.error.find("output differs from the CPU reference; first wrong element out[row ") != std::string::npos);
    CHECK(m.error.find(": expected ") != std::string::npos);
    CHECK(m.error.find(", got ") != std::string::npos);
    CHECK(m.time.median_ms == 0);  // no time for an output that is wrong
    check_gpu_still_works();
}

TEST_CASE("a student kernel's write past its output is reported as such", "[exercises][harness]") {
    const kernels::Measurement m =
        fl_test::gpu_backend().run(bias_gelu_job(read_text(source_dir() + "/tests/exercises/oob_bias_gelu.cu"), "oob.cu"), {});
    INFO(m.error);
    CHECK_FALSE(m.ok);
    CHECK(m.error.find("your kernel wrote past the end of its output out") != std::string::npos);
    CHECK(m.error.find("16 bytes changed in the guard zone after it, from byte 0 to byte 15") != std::string::npos);
    check_gpu_still_works();
}

TEST_CASE("a student kernel that does not compile names its line", "[exercises][harness]") {
    const kernels::Measurement m = fl_test::gpu_backend().run(
        bias_gelu_job(read_text(source_dir() + "/tests/exercises/compile_error_bias_gelu.cu"), "compile_error_bias_gelu.cu"), {});
    CHECK_FALSE(m.ok);
    CHECK(m.error.find("your kernel does not compile (NVRTC ") != std::string::npos);
    CHECK(m.error.find("compile_error_bias_gelu.cu:5: error: ") != std::string::npos);
    CHECK(m.error.find("bias_value") != std::string::npos);
}

TEST_CASE("a student signature that disagrees with the workload is refused before compiling", "[exercises][harness]") {
    const kernels::Measurement m = fl_test::gpu_backend().run(bias_gelu_job(kRightBiasGelu, "yours.cu", "int"), {});
    CHECK_FALSE(m.ok);
    CHECK(m.error.find("declares hidden as 'int', but it is 'int64_t' in this workload") != std::string::npos);
}

TEST_CASE("exercises run: every shipped reference solution passes", "[exercises][cli]") {
    for (const char* name : {"bias_gelu", "chain_fused", "skip_epilogue", "online_softmax"}) {
        const Process p = run_program(std::string("exercises run ") + name + " --solution");
        INFO(name << ":\n" << p.output);
        CHECK(p.code == 0);
        CHECK(p.output.find(passed_line()) != std::string::npos);
        CHECK(p.output.find("FAILED") == std::string::npos);  // no compared variant failed either
    }
}

TEST_CASE("exercises run: a kernel that does not compile exits 1 naming its line", "[exercises][cli]") {
    const Process p =
        run_program("exercises run bias_gelu --kernel '" + source_dir() + "/tests/exercises/compile_error_bias_gelu.cu'");
    INFO(p.output);
    CHECK(p.code == 1);
    CHECK(p.output.find("compile_error_bias_gelu.cu:5: error: ") != std::string::npos);
    CHECK(p.output.find("bias_value") != std::string::npos);
}

TEST_CASE("exercises run: a wrong kernel exits 1 with the first wrong element", "[exercises][cli]") {
    const Process p = run_program("exercises run chain_fused --kernel '" + source_dir() + "/tests/exercises/wrong_chain.cu'");
    INFO(p.output);
    CHECK(p.code == 1);
    CHECK(p.output.find("yours failed: output differs from the CPU reference; first wrong element out[row ") !=
          std::string::npos);
}

TEST_CASE("exercises run: an out-of-bounds write exits 1 saying so", "[exercises][cli]") {
    const Process p = run_program("exercises run bias_gelu --kernel '" + source_dir() + "/tests/exercises/oob_bias_gelu.cu'");
    INFO(p.output);
    CHECK(p.code == 1);
    CHECK(p.output.find("your kernel wrote past the end of its output out") != std::string::npos);
}

TEST_CASE("exercises run: a kernel that never ends is stopped by the watchdog and the GPU keeps working", "[exercises][cli]") {
    const Process p = run_program("exercises run bias_gelu --kernel '" + source_dir() + "/tests/exercises/hang_bias_gelu.cu'");
    INFO(p.output);
    CHECK(p.code == 1);
    CHECK(p.output.find("stopped by the watchdog: your kernel bias_gelu_yours was still running after 10 s") !=
          std::string::npos);
    CHECK(p.seconds < 120);  // the built-in variants, then 10 s of watchdog, then the process ends
    check_gpu_still_works();
}

TEST_CASE("exercises run: a kernel that faults exits 1 and the GPU keeps working", "[exercises][cli]") {
    const Process p = run_program("exercises run bias_gelu --kernel '" + source_dir() + "/tests/exercises/fault_bias_gelu.cu'");
    INFO(p.output);
    CHECK(p.code == 1);
    CHECK(p.output.find("your kernel faulted: ") != std::string::npos);
    check_gpu_still_works();
}
