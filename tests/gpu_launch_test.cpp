// The launch workload on a real GPU: every variant through the backend's checked run against the
// float64 reference on random inputs, with y poisoned first, at ragged sizes and K from 1 to 1000;
// the workload's check itself (its GpuWorkload) catches an unwritten y and a wrong rounding rule; the
// backend's timing, per-kernel row and timeline; and every workload gets a timeline.
#include "kernels/core/backend.h"
#include "kernels/core/output_check.h"
#include "kernels/core/registry.h"
#include "kernels/core/timeline.h"
#include "kernels/core/workload_def.h"
#include "kernels/gpu/gpu_workload.h"
#include "kernels/gpu/sanitizer_run.h"
#include "kernels/launch/launch.h"
#include "tests/gpu_backend_fixture.h"

#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cstdio>
#include <memory>
#include <string>

namespace {

using kernels::DType;
using kernels::Params;

Params launch_params(int64_t steps, int64_t elements, DType t, uint64_t seed = 77) {
    Params p;
    p.workload = "launch";
    p.set("steps", steps);
    p.set("elements", elements);
    p.dtype = t;
    p.set("seed", seed);
    return p;
}

kernels::Measurement run_job(const Params& p, const std::string& variant, int reps = 20) {
    return fl_test::run_gpu_job(p, variant, reps);
}

// Every variant against the reference for each dtype, K in `steps` and ragged n. One section a dtype,
// named by it ("fp16"), so compute-sanitizer can run the dtypes as three processes side by side
// (`-c fp16`): under racecheck the whole case takes longer than one device call allows.
void check_variants(std::initializer_list<int64_t> steps_list, std::initializer_list<int64_t> sizes) {
    for (DType t : kernels::kAllDTypes)
        DYNAMIC_SECTION(kernels::to_string(t))
        for (int64_t steps : steps_list)
            for (int64_t n : sizes)
                for (const auto& v : kernels::launch::variants()) {
                    if (steps == 1000 && n > 65536) continue;  // the CPU reference's time, not the GPU's
                    fl_test::check_on_gpu(launch_params(steps, n, t), v.name);
                }
}

}  // namespace

TEST_CASE("gpu launch: every variant matches the reference on poisoned y, ragged sizes", "[gpu][launch]") {
    check_variants({1, 7, 100, 1000}, {1, 255, 257, 65536, 1000003});
}

// Few launches, for compute-sanitizer memcheck (each launch costs milliseconds under it).
TEST_CASE("gpu launch memcheck: every variant, ragged sizes, K up to 7", "[gpu][launch][memcheck]") {
    check_variants({1, 7}, {1, 255, 257, 4099});
}

// The workload's GpuWorkload driven step by step, so that the check is shown wrong outputs.
TEST_CASE("gpu launch: the check sees an unwritten y and a wrong rounding rule", "[gpu][launch]") {
    cudaStream_t s = nullptr;
    REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
    unsigned long long* counter = nullptr;
    REQUIRE(cudaMalloc(&counter, sizeof *counter) == cudaSuccess);
    const std::unique_ptr<kernels::GpuWorkload> w = kernels::workload_def("launch").make_gpu();
    REQUIRE(w != nullptr);
    const auto check = [&] {
        w->begin_check(kernels::kFullCheck);
        w->gather_output(s, counter);
        return w->finish_check();
    };
    const Params p = launch_params(50, 4099, DType::f32);
    w->prepare("stream", p, 1, s);
    w->fill_inputs(s);
    w->poison_outputs(s);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    // Nothing ran: all of y is still poison.
    CHECK(check().nonfinite == 4099);
    // One step fewer than asked is caught (a wrong kernel count in a graph or a stream loop): the
    // same buffers, run with 49 steps, checked as 50.
    Params fewer = p;
    fewer.set("steps", 49);
    w->prepare("stream", fewer, 1, s);
    w->launch_run(s);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    w->prepare("stream", p, 1, s);
    const kernels::GpuCheck short_run = check();
    CHECK(short_run.rel_l2 > 1e-4);
    CHECK_FALSE(kernels::output_matches(DType::f32, short_run.rel_l2, short_run.max_abs));
    // bf16: stream rounds every step, fused once; the two rules give visibly different y.
    const Params b = launch_params(100, 4099, DType::bf16);
    w->prepare("stream", b, 1, s);
    w->fill_inputs(s);
    w->launch_run(s);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    const kernels::GpuCheck own = check();
    CHECK(kernels::output_matches(DType::bf16, own.rel_l2, own.max_abs));
    w->prepare("fused", b, 1, s);  // the same buffers: y as stream left it, against fused's rule
    const kernels::GpuCheck other = check();
    INFO("stream's y against stream's rule: " << own.rel_l2 << ", against fused's: " << other.rel_l2);
    CHECK(other.rel_l2 > 1e-3);
    CHECK(other.rel_l2 > own.rel_l2);
    w->release();
    cudaFree(counter);
    cudaStreamDestroy(s);
}

TEST_CASE("gpu launch: backend times K launches, one row per kernel name, a K-kernel timeline", "[gpu][launch]") {
    // Under compute-sanitizer every launch is instrumented: K = 100 and 2 reps there (the same
    // launch and graph code; K = 1000 x 20 reps x 3 variants took more than 9 minutes).
    const bool sanitized = kernels::sanitizer_run();
    for (int64_t steps : {int64_t{1}, int64_t{10}, int64_t{sanitized ? 100 : 1000}})
        for (const char* variant : {"stream", "graph", "fused"}) {
            const Params p = launch_params(steps, 65536, DType::f32);
            const kernels::Measurement m = run_job(p, variant, sanitized ? 2 : 20);
            INFO(variant << " K=" << steps << ": " << m.error);
            REQUIRE(m.ok);
            CHECK(m.checked);
            CHECK(m.time.median_ms > 0);
            REQUIRE(m.kernels.size() == 1);
            const int64_t kernels_per_run = std::string(variant) == "fused" ? 1 : steps;
            CHECK(kernels::aggregated_count(m.kernels[0].name) == kernels_per_run);
            CHECK(m.kernels[0].time.median_ms == Approx(m.time.median_ms / static_cast<double>(kernels_per_run)));
            // Without CUPTI (FUSIONLAB_TIMELINE=events, as under compute-sanitizer) a graph's replay is one
            // span: events cannot sit between a graph's kernels, and the source says so.
            const bool graph_without_cupti = std::string(variant) == "graph" &&
                                             m.timeline_source.rfind("CUDA events around the whole graph replay", 0) == 0;
            CHECK(static_cast<int64_t>(m.timeline.size()) == (graph_without_cupti ? 1 : kernels_per_run));
            const kernels::TimelineStats st = kernels::timeline_stats(m.timeline);
            CHECK(st.busy_ms > 0);
            // The traced run's kernels take no longer than a timed run's; its span can hold one tracer
            // stall (seen on H200 under CUPTI: one 0.3-0.9 ms gap per traced run), so the busy time
            // and the median gap are what is bounded, not the span.
            // (Times under compute-sanitizer are the instrumentation's, not the kernels': not bounded there.)
            if (!sanitized) {
                CHECK(st.busy_ms <= m.time.max_ms * 1.5 + 0.05);
                if (st.kernels > 2) CHECK(st.median_gap_us < 50.0);
            }
            std::printf("launch %-6s K=%-4lld median %.4f ms = %.2f us per kernel; timeline %lld kernels, busy %.4f ms, "
                        "mean gap %.2f us (%s)\n",
                        variant, static_cast<long long>(steps), m.time.median_ms,
                        m.time.median_ms * 1e3 / static_cast<double>(kernels_per_run), static_cast<long long>(st.kernels),
                        st.busy_ms, st.mean_gap_us, m.timeline_source.c_str());
        }
}

TEST_CASE("gpu timeline: every workload's variants record one span per kernel", "[gpu][timeline]") {
    // Under compute-sanitizer, which checks accesses rather than times: 257 rows or keys (ragged),
    // 2 heads, 1 rep; at 1024 x 8 heads and 20 reps racecheck took more than 8 minutes.
    const bool sanitized = kernels::sanitizer_run();
    const int64_t size = sanitized ? 257 : 1024;
    for (const char* w : {"chain", "bias_gelu", "attention"})
        for (const auto& v : kernels::variants(w)) {
            Params p;
            p.workload = w;
            p.set("rows", size);
            p.set("hidden", size);
            p.set("N", size);
            p.set("heads", sanitized ? 2 : 8);
            p.dtype = DType::f16;
            const kernels::Measurement m = run_job(p, v.name, sanitized ? 1 : 20);
            INFO(w << " " << v.name << ": " << m.error);
            REQUIRE(m.ok);
            const kernels::Model mod = kernels::model(v.name, p);
            CHECK(m.timeline.size() == mod.kernels.size());
            CHECK(!m.timeline_source.empty());
            for (size_t k = 0; k + 1 < m.timeline.size(); ++k) {
                CHECK(m.timeline[k].end_ms >= m.timeline[k].start_ms);
                CHECK(m.timeline[k + 1].start_ms >= m.timeline[k].start_ms);
            }
            const kernels::TimelineStats st = kernels::timeline_stats(m.timeline);
            std::printf("timeline %-9s %-8s %zu kernels, span %.4f ms, busy %.4f ms, mean gap %.2f us (%s)\n",
                        w, v.name.c_str(), m.timeline.size(), st.span_ms, st.busy_ms, st.mean_gap_us,
                        m.timeline_source.c_str());
            if (std::string(w) == "attention" && v.name == "naive") {
                CHECK(m.timeline.size() == 3);
                // Queued kernels: a few us at most, never a host round trip. The median, because a traced
                // run can hold one tracer stall (the mean would then be a few hundred us).
                CHECK(st.median_gap_us < 100.0);
            }
        }
}
