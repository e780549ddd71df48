// Timelines: busy/idle arithmetic, aggregation of identical kernels into one row, and the chart's
// pixel bars (merged when narrower than a pixel, never lost) and duration labels.
#include "app/files/export.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/timeline.h"
#include "viz/timeline.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace {

std::vector<kernels::KernelSpan> evenly(int n, double kernel_ms, double gap_ms) {
    std::vector<kernels::KernelSpan> s;
    double t = 0;
    for (int i = 0; i < n; ++i) {
        s.push_back({"step", t, t + kernel_ms, 100});
        t += kernel_ms + gap_ms;
    }
    return s;
}

}  // namespace

TEST_CASE("timeline stats: busy, idle, mean and max gap - overlaps counted once", "[timeline]") {
    const auto s = evenly(5, 0.002, 0.001);
    const kernels::TimelineStats st = kernels::timeline_stats(s);
    CHECK(st.kernels == 5);
    CHECK(st.span_ms == Approx(0.014));
    CHECK(st.busy_ms == Approx(0.010));
    CHECK(st.idle_ms == Approx(0.004));
    CHECK(st.mean_gap_us == Approx(1.0));
    CHECK(st.max_gap_us == Approx(1.0));
    // Two overlapping kernels (concurrent streams) and a 5 us hole.
    const std::vector<kernels::KernelSpan> o{{"a", 0, 0.003, 0}, {"b", 0.001, 0.004, 0}, {"c", 0.009, 0.010, 0}};
    const kernels::TimelineStats so = kernels::timeline_stats(o);
    CHECK(so.busy_ms == Approx(0.005));
    CHECK(so.idle_ms == Approx(0.005));
    CHECK(so.max_gap_us == Approx(5.0));
    // One long stall among short gaps: the median stays at the typical gap, the mean does not.
    auto stalled = evenly(11, 0.001, 0.002);
    for (size_t i = 5; i < stalled.size(); ++i) {
        stalled[i].start_ms += 1.0;
        stalled[i].end_ms += 1.0;
    }
    const kernels::TimelineStats ss = kernels::timeline_stats(stalled);
    CHECK(ss.median_gap_us == Approx(2.0));
    CHECK(ss.mean_gap_us > 100.0);
    CHECK(ss.max_gap_us == Approx(1002.0));
    CHECK(kernels::timeline_stats({}).kernels == 0);
}

TEST_CASE("timeline: identical kernel names become one row, mean per kernel", "[timeline]") {
    std::vector<kernels::KernelTime> k;
    for (int i = 0; i < 1000; ++i) k.push_back({"step", {0.002 + (i % 2) * 0.002, 0.001, 0.005, 20}, 512});
    k.push_back({"tail", {1.0, 1.0, 1.0, 20}, 7});
    const auto rows = kernels::aggregate_kernel_times(k);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].name == "step x1000");
    CHECK(rows[0].time.median_ms == Approx(0.003));
    CHECK(rows[0].bytes == 512);
    CHECK(rows[1].name == "tail");
    CHECK(kernels::aggregated_count(rows[0].name) == 1000);
    CHECK(kernels::aggregated_count("gelu") == 1);
    CHECK(kernels::aggregated_count("whole run (5 kernels)") == 5);  // timed without events between kernels
    CHECK(kernels::aggregated_count("whole run (x kernels)") == 1);
    CHECK(kernels::launched_kernels(rows) == 1001);
}

TEST_CASE("timeline chart: sub-pixel kernels merge, visible gaps split bars, every kernel drawn", "[timeline][viz]") {
    // 1000 kernels of 2 us with 1 us gaps over 3 ms on 300 px: 0.1 px per us, all merge into bars.
    const auto s = evenly(1000, 0.002, 0.001);
    const auto merged = viz::pixel_bars(s, 0, 3.0, 0, 300);
    size_t covered = 0;
    for (const auto& b : merged) {
        CHECK(b.x1 - b.x0 >= 1.0f);
        covered += b.count();
    }
    CHECK(covered == 1000);
    CHECK(merged.size() < 400);
    // Zoomed in to the first 29 us on 290 px: 10 px per us, every kernel its own bar.
    const auto zoomed = viz::pixel_bars(s, 0, 0.029, 0, 290);
    CHECK(zoomed.size() == 10);
    CHECK(zoomed[1].x0 - zoomed[0].x1 == Approx(10.0f));
    CHECK(zoomed[0].count() == 1);
    CHECK(viz::pixel_bars(s, 1.0, 0.5, 0, 300).empty());  // an empty window draws nothing
}

TEST_CASE("timeline chart: zoom keeps the time under the cursor, pan follows the mouse", "[timeline][viz]") {
    const viz::TimelineView v{0.0, 1.0};
    const viz::TimelineView in = viz::zoom_view(v, 0.25, 1.0f);
    CHECK(in.t1 - in.t0 == Approx(0.8));
    CHECK((0.25 - in.t0) / (in.t1 - in.t0) == Approx(0.25));  // 0.25 ms stays a quarter of the way in
    const viz::TimelineView back = viz::zoom_view(in, 0.25, -1.0f);
    CHECK(back.t0 == Approx(0.0).margin(1e-12));
    CHECK(back.t1 == Approx(1.0));
    CHECK(viz::zoom_view(v, 0.5, 200.0f).t1 - viz::zoom_view(v, 0.5, 200.0f).t0 == Approx(1e-6));  // 1 ns floor
    const viz::TimelineView panned = viz::pan_view(v, 50.0f, 500.0f);  // drag right by a tenth
    CHECK(panned.t0 == Approx(-0.1));
    CHECK(panned.t1 == Approx(0.9));
}

TEST_CASE("timeline chart: durations read in the right unit", "[timeline][viz]") {
    CHECK(viz::duration_text(0.00085) == "850 ns");
    CHECK(viz::duration_text(0.0021) == "2.1 us");
    CHECK(viz::duration_text(0.25) == "250 us");
    CHECK(viz::duration_text(1.35) == "1.35 ms");
    const viz::TimelineView v = viz::fit_view({{"a", "", evenly(3, 0.002, 0.001), 0}});
    CHECK(v.t0 < 0);
    CHECK(v.t1 > 0.008);
}

TEST_CASE("timeline: the JSON export carries every span, the source and the gaps", "[timeline][export]") {
    kernels::Params p;
    p.workload = "launch";
    p.set("steps", 10);
    p.set("elements", 4096);
    const kernels::SimGpu* gpu = kernels::find_sim_gpu("H100");
    REQUIRE(gpu);
    kernels::Job job;
    job.params = p;
    job.variant = "stream";
    const kernels::Measurement m = kernels::make_sim_backend(*gpu)->run(job, {});
    REQUIRE(m.ok);
    const auto doc = nlohmann::json::parse(app::measurements_json({m}));
    const auto& t = doc["measurements"][0]["timeline"];
    REQUIRE(t["spans"].size() == 10);
    CHECK(t["kernels"] == 10);
    CHECK(t["spans"][3]["name"] == "step");
    // DRAM bytes per kernel (the L2 reuse model): the first step reads x from DRAM, the last one's y
    // reaches DRAM; the 8 KiB y stays in L2 in between.
    CHECK(t["spans"][0]["modeled_bytes"] == 4096 * 2);
    CHECK(t["spans"][3]["modeled_bytes"] == 0);
    CHECK(t["spans"][9]["modeled_bytes"] == 4096 * 2);
    CHECK(t["spans"][1]["start_ms"].get<double>() > t["spans"][0]["end_ms"].get<double>());
    // Timed from idle: after the first launch each step takes the host's launch rate or the GPU's queued
    // gap plus the kernel, whichever is slower (the fitted H100: the GPU's), of which the kernel itself
    // lasts its GPU-clock floor (a graph node's cost less the 0.08 us between nodes): the gap is the rest.
    const double kernel_us = (t["spans"][3]["end_ms"].get<double>() - t["spans"][3]["start_ms"].get<double>()) * 1e3;
    CHECK(kernel_us == Approx(gpu->cal.graph_node_us - 0.08).margin(0.01));
    const double step_us = std::max(gpu->cal.host_launch_us, gpu->cal.queued_gap_us + kernel_us);
    CHECK(t["mean_gap_us"].get<double>() == Approx(step_us - kernel_us).margin(0.1));
    CHECK(t["source"].get<std::string>().find("simulated") != std::string::npos);
    CHECK(doc["measurements"][0]["kernels"][0]["name"] == "step x10");
}
