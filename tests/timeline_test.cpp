// Timelines: busy/idle arithmetic, aggregation of identical kernels into one row, and the chart's
// pixel bars (merged when narrower than a pixel, never lost) and duration labels.
#include "kernels/common/timeline.h"
#include "viz/timeline.h"

#include <catch2/catch.hpp>

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

TEST_CASE("timeline stats: busy, idle, mean and max gap; overlaps counted once", "[timeline]") {
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

TEST_CASE("timeline chart: durations read in the right unit", "[timeline][viz]") {
    CHECK(viz::duration_text(0.00085) == "850 ns");
    CHECK(viz::duration_text(0.0021) == "2.1 us");
    CHECK(viz::duration_text(0.25) == "250 us");
    CHECK(viz::duration_text(1.35) == "1.35 ms");
    const viz::TimelineView v = viz::fit_view({{"a", "", evenly(3, 0.002, 0.001), 0}});
    CHECK(v.t0 < 0);
    CHECK(v.t1 > 0.008);
}
