// The soak driver (tests/tools/soak_driver.h) without a window: its statistics, its memory probe, and a short
// soak over real simulated results in which it changes the state, exports and reports.
#include "tests/tools/soak_driver.h"

#include "app/core/runner.h"
#include "app/core/settings.h"
#include "kernels/core/registry.h"

#include "sim_settings.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

TEST_CASE("soak: nearest-rank percentiles", "[soak]") {
    CHECK(app::percentile({}, 95) == 0);
    const std::vector<double> v = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};  // unsorted on purpose
    CHECK(app::percentile(v, 50) == 5);
    CHECK(app::percentile(v, 95) == 10);
    CHECK(app::percentile(v, 90) == 9);
    CHECK(app::percentile(v, 100) == 10);
    CHECK(app::percentile(v, 0) == 1);
}

TEST_CASE("soak: host RSS is read on Linux and grows with touched memory", "[soak]") {
    std::string why;
    const auto before = app::host_rss_bytes(&why);
#if defined(__linux__)
    REQUIRE(before.has_value());
    CHECK(*before > (1 << 20));
    std::vector<char> block(64 << 20, 1);  // 64 MiB, every page touched
    const auto after = app::host_rss_bytes(&why);
    REQUIRE(after.has_value());
    CHECK(*after - *before > (48 << 20));
    CHECK(block[12345] == 1);
#else
    CHECK_FALSE(before.has_value());
    CHECK_FALSE(why.empty());
#endif
}

TEST_CASE("soak: a short soak changes parameters, switches views and exports, then reports", "[soak]") {
    app::AppState state;
    state.settings_path = "/should/not/be/used/settings.json";
    std::string export_dir;
    std::ostringstream report;
    int code = -1;
    {
        app::SoakDriver soak(app::SoakOptions{1.5, 7, 640, 480, 0.01}, state);
        CHECK(state.settings_path.empty());  // never writes the user's settings
        export_dir = state.settings.export_dir;
        REQUIRE_FALSE(export_dir.empty());
        CHECK(std::filesystem::is_directory(export_dir));

        app::Runner runner;
        double now = 0;
        std::set<std::string> workloads_seen;
        while (!soak.done()) {
            soak.before_frame(state, now);
            soak.frame_started();
            // What the frame loop would do: measure what is selected (simulated) when it changed.
            if (state.params_dirty && kernels::validate(state.settings.params).empty()) {
                const app::ResolvedBackend backend = fl_test::sim_backend("H100");
                std::vector<kernels::Job> batch = app::make_batch(state.settings, backend);
                for (kernels::Job& job : batch) job.emulate = false;  // the CPU arithmetic would block this loop
                app::store_results(state, runner.run_blocking(std::move(batch)));
                state.params_dirty = false;
            }
            workloads_seen.insert(state.settings.params.workload);
            soak.frame_finished(state);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            now += 0.002;
        }
        code = soak.finish(report);
        const app::SoakReport& r = soak.report();
        CHECK(r.frames > 50);
        CHECK(r.actions > 50);
        CHECK(r.exports_ok > 0);
        CHECK(r.exports_failed == 0);
        CHECK(r.param_changes + r.workload_switches + r.view_switches + r.variant_toggles > 0);
        CHECK(workloads_seen.size() >= 2);
        // Every measured result's shape is new to a one-pass soak at first; repeats are not counted.
        REQUIRE(r.new_shapes_per_pass.size() == 1);
        CHECK(r.new_shapes_per_pass[0] > 0);
        CHECK(static_cast<uint64_t>(r.new_shapes_per_pass[0]) <= r.results_seen);
        CHECK(r.frame_p95_ms >= r.frame_p50_ms);
        CHECK(r.frame_max_ms >= r.frame_p95_ms);
#if defined(__linux__)
        CHECK(r.rss_end.has_value());
#endif
        CHECK((r.gpu_end.has_value() || !r.gpu_note.empty()));  // either a number or why not
    }
    INFO(report.str());
    CHECK_THAT(report.str(), Catch::Contains("frame time") && Catch::Contains("host RSS") &&
                                 Catch::Contains("GPU memory") && Catch::Contains("exports"));
    // About 150 actions, 10 % of them exports of the results the loop measured: all checked.
    CHECK(code == 0);
    CHECK_THAT(report.str(), Catch::Contains("soak: PASSED"));
    CHECK_FALSE(std::filesystem::exists(export_dir));  // the driver cleans up its exports
}

TEST_CASE("soak: with passes, every pass replays the same actions from the same defaults", "[soak]") {
    app::AppState state;
    std::ostringstream report, progress;
    app::SoakOptions opts{1.2, 11, 640, 480, 0.005};
    opts.passes = 2;
    opts.progress = &progress;
    app::SoakDriver soak(opts, state);
    // The settings after every action, per pass (exports, lesson steps and views change no settings
    // here: the sequence of parameter values is what a replay must repeat).
    std::vector<std::string> seen[2];
    std::vector<double> action_at;  // seconds into the soak
    uint64_t actions = 0;
    double now = 0;
    while (!soak.done()) {
        soak.before_frame(state, now);
        soak.frame_started();
        if (soak.report().actions != actions) {
            actions = soak.report().actions;
            seen[std::min(soak.pass(), 1)].push_back(app::settings_to_json(state.settings));
            action_at.push_back(soak.elapsed());
        }
        soak.frame_finished(state);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        now += 0.001;
    }
    REQUIRE(soak.pass() == 1);
    const size_t common = std::min(seen[0].size(), seen[1].size());
    INFO("actions: pass 1 " << seen[0].size() << ", pass 2 " << seen[1].size());
    REQUIRE(common > 30);
    // The last action or two of a pass may fall after its end on a slow machine: compare the rest.
    for (size_t i = 0; i + 2 < common; ++i) {
        INFO("action " << i);
        REQUIRE(seen[0][i] == seen[1][i]);
    }
    // Each pass (0.6 s) ends quiet: its last tenth (capped from 10 s) has no action. Read after the
    // action, so a loaded machine may add a little; without the quiet time about 12 actions
    // would fall in each pass's last 0.06 s.
    int in_quiet_time = 0;
    for (double t : action_at)
        if (std::fmod(t, 0.6) > 0.54 + 0.02) ++in_quiet_time;
    CHECK(in_quiet_time == 0);
    soak.finish(report);
    const app::SoakReport& r = soak.report();
#if defined(__linux__)
    // One sample at the end of each pass, split by what backs the pages; the baseline is pass 1's.
    REQUIRE(r.rss_pass_end.size() == 2);
    REQUIRE(r.rss_anon_pass_end.size() == 2);
    CHECK(r.rss_anon_pass_end[0] + r.rss_file_pass_end[0] == r.rss_pass_end[0]);
    CHECK(r.rss_warm == r.rss_pass_end[0]);
    CHECK(r.heap_pass_end.size() == 2);
#endif
    CHECK(r.busy_pass_end.empty());  // the hook is unset here
    CHECK_THAT(report.str(), Catch::Contains("2 passes of the same actions"));
    CHECK_THAT(progress.str(), Catch::Contains("soak: pass 2 of 2 starts"));
    // A line per pass: its frames and actions add up to the run's.
    REQUIRE(r.frames_per_pass.size() == 2);
    REQUIRE(r.actions_per_pass.size() == 2);
    CHECK(r.frames_per_pass[0] + r.frames_per_pass[1] == r.frames);
    CHECK(r.actions_per_pass[0] + r.actions_per_pass[1] == r.actions);
    CHECK(r.frame_p95_per_pass[1] >= r.frame_p50_per_pass[1]);
    CHECK_THAT(report.str(), Catch::Contains("pass   frames   p50 ms   p95 ms   max ms   actions   exports"));
#if defined(__linux__)
    REQUIRE(r.rss_replay_growth.has_value());
    CHECK(*r.rss_replay_growth == r.rss_pass_end[1] - r.rss_pass_end[0]);
#endif
}

TEST_CASE("soak: a replay with slower frames does the same actions as pass 1", "[soak]") {
    // Pass 1 draws a frame every millisecond, pass 2 every 4 ms: the actions follow their own
    // seeded schedule, so both passes do the same number (the last may fall either side of the
    // quiet time). Scheduled from the frame that acted, pass 2 would do about a sixth fewer.
    app::AppState state;
    std::ostringstream report;
    app::SoakOptions opts{1.2, 5, 640, 480, 0.01};
    opts.passes = 2;
    app::SoakDriver soak(opts, state);
    double now = 0;
    while (!soak.done()) {
        soak.before_frame(state, now);
        soak.frame_started();
        soak.frame_finished(state);
        const int ms = soak.pass() == 0 ? 1 : 4;
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        now += 0.001 * ms;
    }
    soak.finish(report);
    const app::SoakReport& r = soak.report();
    REQUIRE(r.actions_per_pass.size() == 2);
    INFO("actions: pass 1 " << r.actions_per_pass[0] << ", pass 2 " << r.actions_per_pass[1]);
    CHECK(r.actions_per_pass[0] > 30);
    CHECK(std::llabs(static_cast<long long>(r.actions_per_pass[0]) - static_cast<long long>(r.actions_per_pass[1])) <= 2);
}

#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
TEST_CASE("soak: memory kept during a replay fails the soak, naming RSS and the C heap", "[soak]") {
    app::AppState state;
    std::ostringstream report;
    app::SoakOptions opts{1.2, 11, 640, 480, 0.05};
    opts.passes = 2;
    app::SoakDriver soak(opts, state);
    std::vector<char> leak;  // what a leak in pass 2 would keep: 24 MiB, every page touched
    double now = 0;
    while (!soak.done()) {
        soak.before_frame(state, now);
        soak.frame_started();
        if (soak.pass() == 1 && leak.empty()) leak.assign(24 << 20, 1);
        soak.frame_finished(state);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        now += 0.002;
    }
    const int code = soak.finish(report);
    INFO(report.str());
    CHECK(code == 1);
    CHECK_THAT(report.str(), Catch::Contains("FAILURE: host RSS at the end of pass 2 rose up to +") &&
                                 Catch::Contains("FAILURE: C heap in use at the end of pass 2 rose up to +") &&
                                 Catch::Contains("over pass 1's end (limit 8.0 MiB)"));
    CHECK(leak[12345] == 1);
}
#endif
