// The simulator on points it was not fitted on (issue 34, point 4; app/recordings/sim_heldout.h):
// a third of every recording's and bench table's points, chosen by a hash of the point's key before
// any fit, held to the bounds below per card; the host-side constants the simulated H100 and H200
// carry are what the fit makes of the other two thirds.
// FL_HELDOUT_TABLE=<file> writes every point (fitted and held out) as a markdown table;
// FL_HELDOUT_CSV=<file> the same as CSV for analysis.
#include "app/recordings/recording_file.h"
#include "app/recordings/sim_heldout.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"
#include "kernels/core/timeline.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

using namespace app;

namespace {

const std::vector<SimPoint>& all_points() {
    static const std::vector<SimPoint> points = [] {
        std::vector<std::string> errors;
        std::vector<SimPoint> ps = load_sim_points(std::string(FL_SOURCE_DIR) + "/assets/recordings", FL_SOURCE_DIR, errors);
        for (const std::string& e : errors) WARN(e);
        return ps;
    }();
    return points;
}

// Held-out points outside 25 %, with what bounds them (kernels/PERF.md, "Held out").
const char* known_heldout_miss(const SimPoint& p) {
    const auto has = [&](const char* text) { return p.shape.find(text) != std::string::npos; };
    if (p.variant == "fused_spill" && has("fp32"))
        return "the register table (ptxas) shows no spills for the fp32 instance, yet it runs 1.7x the model and the "
               "counters read 1.6x its bytes: local-memory traffic the spill estimate does not see";
    if (p.workload == "launch" && p.variant == "stream" && has("n=256"))
        return "the lent host's launch rate, which is noise at this point: the same 100 launches of a ~1 us kernel took "
               "406-634 us across n = 256-16384 in one recording (H100; 388-548 us on the H200), where n changes nothing "
               "on the GPU; 6.3 us a launch at n = 256 (5.5 on the H200), the model's 4.15 (4.0)";
    if (p.workload == "launch" && p.variant == "graph" && has("K=10,"))
        return "a 10-node graph replay measured 31.1 us (min 21.8, max 117.8) where one node took 4.0 us and 100 nodes "
               "1.3 us each: the launch's host cost varies more than the model's one graph launch";
    return nullptr;
}

}  // namespace

TEST_CASE("the held-out split is a fixed third of the points chosen by their keys alone", "[sim][heldout]") {
    kernels::Params p;
    p.workload = "launch";
    p.dtype = kernels::DType::bf16;
    p.set("steps", 100).set("elements", 1024);
    // The hash of a key never changes (a changed hash would move points between the sides).
    CHECK(heldout_hash(p, "graph") == heldout_hash(p, "graph"));
    CHECK(heldout_hash(p, "graph") != heldout_hash(p, "stream"));
    const std::vector<SimPoint>& points = all_points();
    REQUIRE(points.size() > 1000);
    int held = 0;
    for (const SimPoint& pt : points) {
        held += pt.held_out;
        // The same shape and variant sits on the same side on both cards.
        CHECK(pt.held_out == held_out(pt.measured.job.params, pt.variant));
    }
    const double share = double(held) / double(points.size());
    INFO(held << " of " << points.size() << " held out");
    CHECK(share > 0.28);
    CHECK(share < 0.39);
}

TEST_CASE("simulated times on the held-out points per card", "[sim][heldout]") {
    const std::vector<SimPoint>& points = all_points();
    if (const char* path = std::getenv("FL_HELDOUT_CSV")) {
        std::ofstream out(path);
        out << "card,source,workload,variant,shape,held,measured_ms,simulated_ms,kernels,span_ms,limiter\n";
        for (const SimPoint& p : points) {
            const kernels::TimelineStats t = kernels::timeline_stats(p.measured.timeline);
            out << p.card << "," << p.source << "," << p.workload << "," << p.variant << ",\"" << p.shape << "\","
                << p.held_out << "," << p.measured_ms << "," << p.simulated_ms << "," << t.kernels << "," << t.span_ms << "," << p.limiter << "\n";
        }
    }
    for (const std::string& line : heldout_report_lines(points)) WARN(line);
    const auto held = error_table(points, true), fitted = error_table(points, false);
    if (const char* path = std::getenv("FL_HELDOUT_TABLE")) {
        std::ofstream out(path);
        out << "| card | workload | held-out points | mean | median | worst | worst point | fitted points: mean |\n"
               "|---|---|---:|---:|---:|---:|---|---:|\n";
        for (const auto& [card, by_workload] : held)
            for (const auto& [workload, st] : by_workload) {
                char row[512];
                std::snprintf(row, sizeof row, "| %s | %s | %d | %.1f %% | %.1f %% | %.1f %% | %s | %.1f %% |\n", card.c_str(),
                              workload.c_str(), st.n, 100 * st.mean, 100 * st.median, 100 * st.worst,
                              workload == "all" ? "" : st.worst_point.c_str(), 100 * fitted.at(card).at(workload).mean);
                out << row;
            }
    }
    // The bounds this commit meets (kernels/PERF.md, "Held out"): the mean absolute error per card, and
    // every held-out point within 25 % but those listed with their reason.
    const std::map<std::string, double> mean_bound{{"H100", 0.067}, {"H200", 0.070}};
    for (const auto& [card, bound] : mean_bound) {
        REQUIRE(held.count(card));
        const ErrorStats& all = held.at(card).at("all");
        INFO(card << ": " << all.n << " held-out points, mean " << 100 * all.mean << " %, median " << 100 * all.median << " %");
        CHECK(all.n >= 150);
        CHECK(all.mean <= bound);
    }
    for (const SimPoint& p : points) {
        if (!p.held_out) continue;
        const char* why = known_heldout_miss(p);
        INFO(p.card << " " << p.variant << " " << p.shape << " (" << p.source << "): simulated " << p.simulated_ms
                    << " ms, measured " << p.measured_ms << " ms" << (why ? std::string("; known: ") + why : std::string()));
        if (why) CHECK(std::abs(p.error()) > 0.25);  // a fixed miss leaves the list
        else CHECK(std::abs(p.error()) <= 0.25);
    }
}

// The constants the simulated H100 and H200 carry that no benchmark measures are the fit's on the
// fitted two thirds: fitting again from them moves none (each is a fixed point of fit_calibration).
// A constant edited by hand, or a fit run with held-out points in it, fails here.
TEST_CASE("the simulated GPUs' fitted constants are the fit on the fitted points", "[sim][heldout][fit]") {
    const std::vector<SimPoint>& points = all_points();
    for (const std::string card : {"H100", "H200"}) {
        std::vector<const SimPoint*> training;
        for (const SimPoint& p : points)
            if (p.card == card && !p.held_out) training.push_back(&p);
        REQUIRE(training.size() > 300);
        const kernels::SimCalibration built = builtin_calibration(card);
        const CalibrationFit fit = fit_calibration(training, built);
        const kernels::SimCalibration& f = fit.cal;
        char text[640];
        std::snprintf(text, sizeof text,
                      "%s fit on %zu points (%d evaluations, objective %.4f): first_launch %.2f, host_launch %.2f, "
                      "host_library %.2f, gpu_gap %.2f, queued_gap %.2f, graph_launch %.2f, graph_node %.2f, "
                      "library_node_gap %.2f us; shared %.4g GB/s, mma.sync %.4g TFLOP/s, issue %.4g /s, sfu %.4g /s, "
                      "L2 %.4g GB/s, memory latency %.3g us",
                      card.c_str(), training.size(), fit.evaluations, fit.objective, f.first_launch_us, f.host_launch_us,
                      f.host_library_us, f.gpu_gap_us, f.queued_gap_us, f.graph_launch_us, f.graph_node_us,
                      f.library_node_gap_us, f.shared_gbps, f.mma_sync_tflops, f.issue_per_s, f.sfu_per_s, f.l2_gbps,
                      f.memory_latency_us);
        WARN(text);
        CHECK(f.first_launch_us == Approx(built.first_launch_us).epsilon(1e-9));
        CHECK(f.host_launch_us == Approx(built.host_launch_us).epsilon(1e-9));
        CHECK(f.host_library_us == Approx(built.host_library_us).epsilon(1e-9));
        CHECK(f.gpu_gap_us == Approx(built.gpu_gap_us).epsilon(1e-9));
        CHECK(f.queued_gap_us == Approx(built.queued_gap_us).epsilon(1e-9));
        CHECK(f.graph_launch_us == Approx(built.graph_launch_us).epsilon(1e-9));
        CHECK(f.graph_node_us == Approx(built.graph_node_us).epsilon(1e-9));
        CHECK(f.shared_gbps == Approx(built.shared_gbps).epsilon(1e-9));
        CHECK(f.mma_sync_tflops == Approx(built.mma_sync_tflops).epsilon(1e-9));
        CHECK(f.issue_per_s == Approx(built.issue_per_s).epsilon(1e-9));
        CHECK(f.sfu_per_s == Approx(built.sfu_per_s).epsilon(1e-9));
        CHECK(f.l2_gbps == Approx(built.l2_gbps).epsilon(1e-9));
        CHECK(f.memory_latency_us == Approx(built.memory_latency_us).epsilon(1e-9));
    }
}
