// The feed-forward block on a real GPU: every variant through the backend's checked run against the
// float64 reference on poisoned outputs (every intermediate poisoned too), ragged M, d_model and
// d_ff, fp16, bf16 and true fp32; the workload's check itself (its GpuWorkload, driven step by step)
// sees an unwritten output and a skipped kernel; the backend's run() checks, times (whole runs from an idle
// GPU) and traces each variant. The epilogue GEMMs against the same GEMMs alone, the timing PERF.md
// quotes, is gpu_ffn_lt_test.cpp's.
#include "kernels/core/backend.h"
#include "kernels/core/output_check.h"
#include "kernels/gpu/sanitizer_run.h"
#include "kernels/core/timeline.h"
#include "kernels/ffn/ffn.h"
#include "kernels/core/registry.h"
#include "kernels/core/workload_def.h"
#include "kernels/gpu/gpu_workload.h"

#include "gpu_backend_fixture.h"

#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cstdio>
#include <memory>
#include <string>

namespace {

using kernels::DType;
using kernels::Params;

Params ffn_params(int64_t M, int64_t d_model, int64_t d_ff, DType t, uint64_t seed = 5) {
    Params p;
    p.workload = "ffn";
    p.dtype = t;
    p.set("M", M).set("d_model", d_model).set("d_ff", d_ff).set("seed", seed);
    return p;
}

kernels::Measurement run_job(const Params& p, const std::string& variant, int reps = 20) {
    return fl_test::run_gpu_job(p, variant, reps);
}

bool bf16_ok() {
    int dev = 0, major = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    return major >= 8;
}

// One checked run of `variant` through the GpuWorkload's steps, as the backend drives it, with or
// without its launches (`run` false: nothing writes out).
kernels::GpuCheck checked_run(kernels::GpuWorkload& w, const std::string& variant, const Params& p, bool run,
                              cudaStream_t s, unsigned long long* counter) {
    w.prepare(variant, p, 1, s);
    w.fill_inputs(s);
    w.poison_outputs(s);
    w.begin_check(kernels::CheckBudget{});
    if (run) w.launch_run(s);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    w.gather_output(s, counter);
    return w.finish_check();
}

}  // namespace

// Every variant through the backend's checked run (tests/gpu_backend_fixture.h: the check users see).
// Under compute-sanitizer (scripts/gpu_sanitize.sh) fewer shapes: each launch costs milliseconds there.
TEST_CASE("gpu ffn: every variant matches the reference on poisoned outputs - ragged M, d_model, d_ff - fp16, bf16, fp32",
          "[gpu][ffn]") {
    const bool sanitized = kernels::sanitizer_run();
    struct Shape {
        int64_t M, d, f;
    };
    const std::vector<Shape> shapes = sanitized ? std::vector<Shape>{{3, 264, 1000}, {129, 256, 0}}
                                                : std::vector<Shape>{{1, 256, 0},     {3, 264, 1000}, {129, 256, 0},
                                                                     {300, 1000, 2008}, {16, 4096, 0}, {1000, 512, 776}};
    uint64_t seed = 100;
    for (DType t : {DType::bf16, DType::f16, DType::f32}) {
        if (t == DType::bf16 && !bf16_ok()) continue;
        for (const Shape& sh : shapes)
            for (const auto& v : kernels::variants("ffn")) {
                const Params p = ffn_params(sh.M, sh.d, sh.f, t, seed++);
                const kernels::Measurement m = fl_test::check_on_gpu(p, v.name);
                // At least one whole row of out compared (the quick check's rows of M).
                CHECK(m.checked_elements >= sh.d);
                CHECK(m.rel_l2_error <= kernels::relative_tolerance(t));
            }
    }
}

// The workload's GpuWorkload driven step by step, so that its check is shown wrong outputs.
TEST_CASE("gpu ffn: the check sees an unwritten out and a skipped kernel", "[gpu][ffn]") {
    cudaStream_t s = nullptr;
    REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
    unsigned long long* counter = nullptr;
    REQUIRE(cudaMalloc(&counter, sizeof *counter) == cudaSuccess);
    const std::unique_ptr<kernels::GpuWorkload> w = kernels::workload_def("ffn").make_gpu();
    REQUIRE(w != nullptr);
    for (const char* v : {"unfused", "fused_elementwise", "epilogue", "epilogue_graph"}) {
        INFO(v);
        const Params p = ffn_params(77, 256, 0, DType::f16);
        const kernels::GpuCheck c = checked_run(*w, v, p, false, s, counter);
        CHECK(c.nonfinite == 77 * 256);  // nothing ran: all of out is still poison
    }
    // A kernel that is skipped leaves NaN in its output, which reaches out (intermediates are poisoned).
    const Params p = ffn_params(40, 256, 0, DType::f16);
    w->prepare("unfused", p, 1, s);
    w->fill_inputs(s);
    w->poison_outputs(s);
    w->begin_check(kernels::CheckBudget{});
    for (size_t k = 0; k < w->kernel_count(); ++k)
        if (k != 2) w->launch_kernel(k, 0, s);  // no GELU
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    // launch_run was not called: the check reads set 0, which these launches wrote.
    w->gather_output(s, counter);
    CHECK(w->finish_check().nonfinite == 40 * 256);
    w->release();
    cudaFree(counter);
    cudaStreamDestroy(s);
}

TEST_CASE("gpu ffn: the backend checks, times and traces every variant", "[gpu][ffn]") {
    const bool sanitized = kernels::sanitizer_run();
    for (int64_t M : {int64_t{1}, int64_t{sanitized ? 64 : 2048}})
        for (const auto& v : kernels::variants("ffn")) {
            const Params p = ffn_params(M, sanitized ? 256 : 1024, 0, bf16_ok() ? DType::bf16 : DType::f16);
            const kernels::Measurement m = run_job(p, v.name, sanitized ? 1 : 20);
            INFO(v.name << " M=" << M << ": " << m.error);
            REQUIRE(m.ok);
            CHECK(m.checked);
            CHECK(m.time.median_ms > 0);
            CHECK(m.flops == Approx(kernels::model(v.name, p).flops()));
            REQUIRE(m.kernels.size() == 1);  // whole-run timing: one row for the run's kernels
            CHECK(kernels::aggregated_count(m.kernels[0].name) == v.kernels);
            const bool graph_without_cupti =
                v.graph_replay && m.timeline_source.rfind("CUDA events around the whole graph replay", 0) == 0;
            // At small M cuBLAS and cuBLASLt split K and add a reduction kernel (H100, CUDA 13.0: M = 1
            // at d_model 1024 ran 3 kernels for epilogue's 2): the timeline may hold more than the model.
            if (graph_without_cupti) CHECK(m.timeline.size() == 1);
            else if (M >= 2048) CHECK(static_cast<int64_t>(m.timeline.size()) == v.kernels);
            else CHECK(static_cast<int64_t>(m.timeline.size()) >= v.kernels);
            CHECK(m.timing_note.find("each rep starts on an idle GPU") != std::string::npos);
            const kernels::TimelineStats st = kernels::timeline_stats(m.timeline);
            std::printf("ffn %-17s M=%-5lld %s: %.4f ms; timeline %lld kernels, busy %.4f ms, idle %.1f %% (%s)\n",
                        v.name.c_str(), static_cast<long long>(M), kernels::to_string(p.dtype), m.time.median_ms,
                        static_cast<long long>(st.kernels), st.busy_ms,
                        st.span_ms > 0 ? 100.0 * st.idle_ms / st.span_ms : 0.0,
                        m.timeline_source.substr(0, m.timeline_source.find(':')).c_str());
        }
}
