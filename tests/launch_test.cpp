// The launch workload's host side: parameters and their limits, the model (K kernels each moving
// the vector, fused one), the memory animation's counters at K = 1000, the float64 reference, and
// the simulated backend's estimate, per-kernel row and modeled timeline.
#include "kernels/sim/sim_backend.h"
#include "kernels/core/timeline.h"
#include "kernels/launch/launch.h"
#include "viz/model/memory_player.h"
#include "kernels/core/registry.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace {

using kernels::DType;
using kernels::Params;

Params launch_params(int64_t steps, int64_t elements, DType t = DType::f32) {
    Params p;
    p.workload = "launch";
    p.set("steps", steps);
    p.set("elements", elements);
    p.dtype = t;
    return p;
}

kernels::Measurement simulate(const Params& p, const std::string& variant, const std::string& gpu = "H100") {
    auto backend = kernels::make_sim_backend(*kernels::find_sim_gpu(gpu));
    kernels::Job job;
    job.params = p;
    job.variant = variant;
    job.emulate = false;  // times, gaps and limiters (launch_emulate_test has the arithmetic)
    return backend->run(job, {});
}

}  // namespace

TEST_CASE("launch: parameters are named steps and elements, with clear limits", "[launch]") {
    CHECK(kernels::find_workload("launch") == &kernels::workload_def("launch"));
    const auto* steps = kernels::find_param_spec("launch", "steps");
    const auto* elements = kernels::find_param_spec("launch", "elements");
    REQUIRE(steps);
    REQUIRE(elements);
    CHECK(std::string(steps->name) == "steps");
    CHECK(std::string(elements->name) == "elements");
    CHECK(steps->min == 1);
    CHECK(steps->max == 1000);
    CHECK(steps->log_scale);
    CHECK(elements->log_scale);
    // The default vector fits in any simulated GPU's L2 (x and y); the largest does not.
    const Params d = launch_params(kernels::default_params("launch").get_int("steps"), kernels::default_params("launch").get_int("elements"));
    for (const auto& g : kernels::sim_gpus()) {
        CHECK(2 * d.get_int("elements") * 4 < g.info.l2_bytes);
        CHECK(static_cast<int64_t>(elements->max) * 4 > g.info.l2_bytes);
    }
    CHECK(kernels::validate(launch_params(100, 65536)).empty());
    CHECK_THAT(kernels::validate(launch_params(0, 65536)), Catch::Contains("steps = 0"));
    CHECK_THAT(kernels::validate(launch_params(1001, 65536)), Catch::Contains("steps = 1001"));
    CHECK_THAT(kernels::validate(launch_params(10, 0)), Catch::Contains("elements = 0"));
    CHECK(kernels::has_variant("launch", "stream"));
    CHECK(kernels::has_variant("launch", "graph"));
    CHECK(kernels::has_variant("launch", "fused"));
}

TEST_CASE("launch: model bytes are K kernels of one vector each, fused one", "[launch]") {
    for (DType t : kernels::kAllDTypes)
        for (int64_t n : {int64_t{1}, int64_t{255}, int64_t{257}, int64_t{65536}})
            for (int64_t K : {int64_t{1}, int64_t{3}, int64_t{1000}}) {
                const Params p = launch_params(K, n, t);
                const uint64_t vec = static_cast<uint64_t>(n) * static_cast<uint64_t>(kernels::dtype_bytes(t));
                for (const char* v : {"stream", "graph"}) {
                    const kernels::Model m = kernels::model(v, p);
                    REQUIRE(static_cast<int64_t>(m.kernels.size()) == K);
                    CHECK(m.bytes_read() == static_cast<uint64_t>(K) * vec);
                    CHECK(m.bytes_written() == static_cast<uint64_t>(K) * vec);
                    CHECK(m.kernels.front().buffers.front().buffer == "x");
                    if (K > 1) CHECK(m.kernels.back().buffers.front().buffer == "y");
                    CHECK(m.flops() == Approx(2.0 * static_cast<double>(K) * static_cast<double>(n)));
                }
                const kernels::Model f = kernels::model("fused", p);
                REQUIRE(f.kernels.size() == 1);
                CHECK(f.bytes() == 2 * vec);
                CHECK(f.bytes() == kernels::min_bytes(p));
                CHECK(f.flops() == Approx(2.0 * static_cast<double>(K) * static_cast<double>(n)));
            }
}

TEST_CASE("launch: the memory animation's counters equal the model, and K = 1000 is cheap", "[launch][memory_player]") {
    for (const auto& v : kernels::variants("launch"))
        for (int64_t n : {int64_t{1000}, int64_t{65536}}) {
            const Params p = launch_params(1000, n);
            const auto start = std::chrono::steady_clock::now();
            const kernels::MemoryPlayer player(v.name, p);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            const kernels::Model m = kernels::model(v.name, p);
            CHECK(player.total_read_after(player.step_count()) == m.bytes_read());
            CHECK(player.total_written_after(player.step_count()) == m.bytes_written());
            CHECK(ms < 500);
            REQUIRE(player.tensor_index("y") >= 0);
            CHECK(player.tensors()[static_cast<size_t>(player.tensor_index("y"))].bytes == static_cast<uint64_t>(n) * 4);
        }
}

TEST_CASE("launch: reference is y = y*a + b K times, bounded, and depends on x at K = 1000", "[launch]") {
    const Params p1 = launch_params(1, 100);
    for (int64_t i = 0; i < 100; ++i) {
        const double x = kernels::launch::x_value(kernels::launch::to_launch(p1), i);
        CHECK(x != 0);
        CHECK(kernels::launch::reference_value("stream", kernels::launch::to_launch(p1), i) ==
              static_cast<float>(x * static_cast<double>(kernels::launch::kA) + static_cast<double>(kernels::launch::kB)));
    }
    const Params p = launch_params(1000, 64);
    double spread_lo = 1e9, spread_hi = -1e9;
    for (int64_t i = 0; i < 64; ++i) {
        const double y = kernels::launch::reference_value("fused", kernels::launch::to_launch(p), i);
        CHECK(std::fabs(y) < 1.0);
        spread_lo = std::min(spread_lo, y);
        spread_hi = std::max(spread_hi, y);
        // fp32: stream (rounded to fp32 every step) and fused (fp32 register) are the same rule.
        CHECK(kernels::launch::reference_value("stream", kernels::launch::to_launch(p), i) == Approx(y).margin(1e-6));
    }
    CHECK(spread_hi - spread_lo > 0.3);  // a^1000 = 0.37: x still shows through
    // bf16: rounding y after every step loses the small steps; fused keeps them.
    const Params b = launch_params(100, 256, DType::bf16);
    double diff = 0;
    for (int64_t i = 0; i < 256; ++i)
        diff = std::max(diff, std::fabs(kernels::launch::reference_value("stream", kernels::launch::to_launch(b), i) -
                                        kernels::launch::reference_value("fused", kernels::launch::to_launch(b), i)));
    CHECK(diff > 0.01);
}

TEST_CASE("launch: simulated graph and fused beat stream, one row for K kernels, modeled gaps", "[launch][sim]") {
    const Params p = launch_params(1000, 65536);
    const auto stream = simulate(p, "stream"), graph = simulate(p, "graph"), fused = simulate(p, "fused");
    REQUIRE(stream.ok);
    REQUIRE(graph.ok);
    REQUIRE(fused.ok);
    const kernels::DeviceInfo& d = stream.device;
    CHECK(d.graph_kernel_us > 0);
    CHECK(d.graph_kernel_us < d.launch_overhead_us);
    CHECK(graph.time.median_ms < stream.time.median_ms);
    CHECK(fused.time.median_ms < graph.time.median_ms / 10);
    // Timed from an idle GPU: the first launch, then per step the host's launch rate (stream) or a
    // graph node's cost, each longer than the 256 KiB kernel (y stays in L2): launch-bound.
    const kernels::SimCalibration c = kernels::calibration_for(d);
    // (+ about 1 us: the last kernel's own time on the GPU, or the first node's.)
    // A step is the host's launch or the GPU's queued gap plus its shortest kernel (the CUPTI floor, a graph
    // node's cost less its 0.08 us gap), whichever is slower: on the fitted H100 the GPU's (2.95 + 1.17 us).
    const double step_us = std::max(c.host_launch_us, c.queued_gap_us + c.graph_node_us - 0.08);
    CHECK(stream.time.median_ms == Approx((c.first_launch_us + 999 * step_us) * 1e-3).margin(2e-3));
    CHECK(graph.time.median_ms == Approx((c.graph_launch_us + 999 * c.graph_node_us) * 1e-3).margin(2e-3));
    CHECK_THAT(stream.limiter, Catch::StartsWith("bound by launch cost"));
    CHECK_THAT(graph.limiter, Catch::StartsWith("bound by graph-replay cost"));
    // One kernel: a graph launch from idle is cheaper than a stream launch (H100, 2026-11-25: 4.0 against
    // 6.0 us). A known miss of the fitted model (kernels/PERF.md, "Held out"): its graph launch (10 us) is
    // the recordings' 100-512-node graphs', which spend 13-59 us beyond their nodes; fixed, this flips.
    const auto graph1 = simulate(launch_params(1, 65536), "graph"), stream1 = simulate(launch_params(1, 65536), "stream");
    CHECK(graph1.time.median_ms > stream1.time.median_ms);
    REQUIRE(stream.kernels.size() == 1);
    CHECK(stream.kernels[0].name == "step x1000");
    CHECK(stream.kernels[0].time.median_ms == Approx(stream.time.median_ms / 1000));
    CHECK(stream.kernels[0].bytes == 2u * 65536u * 4u / 1000u);  // DRAM: x once and y once over 1000 kernels
    REQUIRE(stream.timeline.size() == 1000);
    const kernels::TimelineStats st = kernels::timeline_stats(stream.timeline);
    // On the GPU clock a tiny kernel lasts about a graph node's cost (the recordings' CUPTI spans):
    // a stream's gap is what the host's rate leaves of its step; a graph's nodes run back to back,
    // 0.08 us apart (sim_backend.cpp, kGraphNodeGapUs).
    const double kernel_us = (graph.timeline[1].end_ms - graph.timeline[1].start_ms) * 1e3;
    CHECK(kernel_us == Approx(c.graph_node_us - 0.08).margin(0.01));
    CHECK(st.mean_gap_us == Approx(step_us - kernel_us).margin(0.1));  // the host's or the GPU's step, less the kernel
    CHECK(kernels::timeline_stats(graph.timeline).mean_gap_us == Approx(0.08).margin(0.01));
    CHECK(fused.timeline.size() == 1);
    CHECK_THAT(stream.timeline_source, Catch::Contains("simulated"));
    CHECK_THAT(graph.timeline_source, Catch::Contains("graph"));
}
