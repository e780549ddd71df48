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
#include <random>
#include <algorithm>
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

TEST_CASE("soak: frame times kept in fixed bins give percentiles within 1 percent", "[soak]") {
    // A log-normal spread of frame times like a loaded machine's (1 ms to 2 s), 200000 frames: the
    // histogram's percentiles lie at most 1 % above the exact nearest-rank ones and its maximum is
    // exact (its bins are fixed: the soak once kept every frame's time, 8 bytes a frame inside the
    // heap it judges).
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> ms(std::log(40.0), 0.9);
    std::vector<double> all;
    app::FrameTimeHistogram h;
    for (int i = 0; i < 200000; ++i) {
        const double v = std::clamp(ms(rng), 1.0, 2000.0);
        all.push_back(v);
        h.add(v);
    }
    CHECK(h.count() == all.size());
    for (double p : {50.0, 95.0, 99.0}) {
        const double exact = app::percentile(all, p);
        INFO("p" << p << ": exact " << exact << ", histogram " << h.percentile(p));
        CHECK(h.percentile(p) >= exact);
        CHECK(h.percentile(p) <= exact * 1.0101);
    }
    CHECK(h.max() == *std::max_element(all.begin(), all.end()));
    CHECK(h.percentile(100) == h.max());
    CHECK(app::FrameTimeHistogram{}.percentile(50) == 0);
    // Outside the bins' range: below the first bin, above the last; still counted.
    app::FrameTimeHistogram edges;
    edges.add(0.0);
    edges.add(1e9);
    CHECK(edges.count() == 2);
    CHECK(edges.percentile(50) <= 0.0101);
    CHECK(edges.max() == 1e9);
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
            if (!soak.before_frame(state, now)) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                continue;
            }
            soak.frame_started();
            // What the frame loop would do: measure what is selected (simulated) when it changed.
            if (state.params_dirty && kernels::validate(state.settings.params).empty()) {
                const app::ResolvedBackend backend = fl_test::sim_backend("H100");
                std::vector<kernels::Job> batch = app::make_batch(state.settings, backend);
                for (kernels::Job& job : batch) job.emulate = false;  // the CPU arithmetic would block this loop
                app::store_results(state, runner.run_blocking(std::move(batch)));
            }
            state.params_dirty = false;  // submitted, or refused with its message
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

// What the GUI's frame loop does around the driver, for the tests below: a frame when the driver
// says so, the parameters submitted (params_dirty cleared) in the frame after a change, and the time
// a frame takes. `frame` (0-based drawn frames of the run) lets a test vary the frame time by pass.
// `on_hold` runs on a turn without a frame (the GUI takes finished results then).
template <class OnFrame, class OnHold>
void run_frames(app::SoakDriver& soak, app::AppState& state, OnFrame on_frame, OnHold on_hold) {
    double now = 0;
    uint64_t frame = 0;
    while (!soak.done()) {
        if (!soak.before_frame(state, now)) {
            on_hold();
            std::this_thread::sleep_for(std::chrono::microseconds(500));
            continue;
        }
        now += static_cast<double>(soak.frame_seconds());
        soak.frame_started();
        const int ms = on_frame(frame++);
        state.params_dirty = false;
        soak.frame_finished(state);
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
}

template <class OnFrame>
void run_frames(app::SoakDriver& soak, app::AppState& state, OnFrame on_frame) {
    run_frames(soak, state, on_frame, [] {});
}

TEST_CASE("soak: with passes, every pass replays the same actions from the same defaults", "[soak]") {
    app::AppState state;
    std::ostringstream report, progress;
    app::SoakOptions opts{1.2, 11, 640, 480, 0.02};
    opts.passes = 2;
    opts.progress = &progress;
    app::SoakDriver soak(opts, state);
    // The settings after every action and the frame it came in, per pass (exports, lesson steps and
    // views change no settings here: the sequence of parameter values is what a replay must repeat).
    std::vector<std::string> seen[2];
    std::vector<uint64_t> frame_of_action[2];
    std::vector<float> clock[2];
    uint64_t actions = 0, first_frame_of_pass[2] = {0, 0};
    int last_pass = 0;
    run_frames(soak, state, [&](uint64_t frame) {
        const int pass = std::min(soak.pass(), 1);
        if (pass != last_pass) first_frame_of_pass[pass] = frame;
        last_pass = pass;
        clock[pass].push_back(soak.frame_seconds());
        if (soak.report().actions != actions) {
            actions = soak.report().actions;
            seen[pass].push_back(app::settings_to_json(state.settings));
            frame_of_action[pass].push_back(frame - first_frame_of_pass[pass]);
        }
        return 1;
    });
    REQUIRE(soak.pass() == 1);
    INFO("actions: pass 1 " << seen[0].size() << ", pass 2 " << seen[1].size());
    REQUIRE(seen[0].size() > 10);  // about 25 on a loaded machine, 60 on a quiet one
    // Every action, in the same frame of its pass, with the same settings after it; the same clock.
    CHECK(seen[0] == seen[1]);
    CHECK(frame_of_action[0] == frame_of_action[1]);
    CHECK(clock[0] == clock[1]);
    REQUIRE(clock[0].size() > app::SoakDriver::kClockFrames);
    CHECK(clock[0].front() == 1.0f / 60.0f);
    soak.finish(report);
    const app::SoakReport& r = soak.report();
    CHECK(r.clock_step_seconds >= 1.0 / 60.0 - 1e-9);
    CHECK(r.clock_step_seconds <= 0.25);
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
    // A line per pass: its frames and actions add up to the run's, and both passes drew the same frames.
    REQUIRE(r.frames_per_pass.size() == 2);
    REQUIRE(r.actions_per_pass.size() == 2);
    CHECK(r.frames_per_pass[0] == r.frames_per_pass[1]);
    CHECK(r.frames_per_pass[0] + r.frames_per_pass[1] == r.frames);
    CHECK(r.actions_per_pass[0] + r.actions_per_pass[1] == r.actions);
    CHECK(r.frame_p95_per_pass[1] >= r.frame_p50_per_pass[1]);
    CHECK_THAT(report.str(), Catch::Contains("pass   frames   p50 ms   p95 ms   max ms   actions   exports"));
#if defined(__linux__)
    REQUIRE(r.rss_replay_growth.has_value());
    CHECK(*r.rss_replay_growth == r.rss_pass_end[1] - r.rss_pass_end[0]);
#endif
}

TEST_CASE("soak: a replay with slower frames does the same actions in the same frames as pass 1", "[soak]") {
    // Pass 1 draws a frame every millisecond, pass 2 every 3 ms: the actions follow the simulated
    // clock, so both passes do the same actions in the same frames; pass 2 takes longer on the wall
    // clock. (Scheduled on the wall clock, as before 2026-11-28, pass 2 did a third fewer actions,
    // and the intermediate states measured differed.)
    app::AppState state;
    std::ostringstream report;
    app::SoakOptions opts{1.0, 5, 640, 480, 0.02};
    opts.passes = 2;
    app::SoakDriver soak(opts, state);
    run_frames(soak, state, [&](uint64_t) { return soak.pass() == 0 ? 1 : 3; });
    soak.finish(report);
    const app::SoakReport& r = soak.report();
    REQUIRE(r.actions_per_pass.size() == 2);
    INFO("actions: pass 1 " << r.actions_per_pass[0] << ", pass 2 " << r.actions_per_pass[1]);
    CHECK(r.actions_per_pass[0] > 10);
    CHECK(r.actions_per_pass[0] == r.actions_per_pass[1]);
    CHECK(r.frames_per_pass[0] == r.frames_per_pass[1]);
    REQUIRE(r.wall_seconds_per_pass.size() == 2);
    CHECK(r.wall_seconds_per_pass[1] > 1.5 * r.wall_seconds_per_pass[0]);
}

TEST_CASE("soak: an action waits without drawing while a measurement runs so replays match", "[soak]") {
    // The "measurement" started by a submission runs for 2 turns of the loop in pass 1 and 9 in
    // pass 2 (a slower machine), and its results are taken on a turn without a frame (as the GUI
    // does while the driver waits): the waiting actions draw no frame meanwhile and never act while
    // results are pending, so both passes still do the same actions in the same frames, whether a
    // batch ended before its next action was due or after.
    app::AppState state;
    std::ostringstream report;
    app::SoakOptions opts{1.0, 3, 640, 480, 0.02};
    opts.passes = 2;
    app::SoakDriver soak(opts, state);
    int running_turns = 0;
    soak.jobs_running = [&] { return running_turns-- > 0; };
    std::vector<uint64_t> frame_of_action[2];
    uint64_t actions = 0, pass_start = 0;
    int last_pass = 0;
    run_frames(soak, state, [&](uint64_t frame) {
        const int pass = std::min(soak.pass(), 1);
        if (pass != last_pass) pass_start = frame;
        last_pass = pass;
        if (soak.report().actions != actions) {
            actions = soak.report().actions;
            frame_of_action[pass].push_back(frame - pass_start);
        }
        if (state.params_dirty) {  // submitted: busy for a while, then results to take
            running_turns = pass == 0 ? 2 : 9;
            state.live.full_running = true;
        }
        return 1;
    }, [&] {
        if (running_turns <= 0) state.live.full_running = false;  // the results taken
    });
    soak.finish(report);
    const app::SoakReport& r = soak.report();
    INFO(report.str());
    REQUIRE(frame_of_action[0].size() > 10);
    CHECK(frame_of_action[0] == frame_of_action[1]);
    CHECK(r.frames_per_pass[0] == r.frames_per_pass[1]);
    REQUIRE(r.held_turns_per_pass.size() == 2);
    CHECK(r.held_turns_per_pass[0] > 0);
    CHECK(r.held_turns_per_pass[1] > r.held_turns_per_pass[0]);
    CHECK_THAT(report.str(), Catch::Contains("waits"));
}

#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
TEST_CASE("soak: memory kept during a replay fails the soak, naming RSS and the C heap", "[soak]") {
    app::AppState state;
    std::ostringstream report;
    app::SoakOptions opts{1.2, 11, 640, 480, 0.05};
    opts.passes = 2;
    app::SoakDriver soak(opts, state);
    std::vector<char> leak;  // what a leak in pass 2 would keep: 24 MiB, every page touched
    run_frames(soak, state, [&](uint64_t) {
        if (soak.pass() == 1 && leak.empty()) leak.assign(24 << 20, 1);
        return 2;
    });
    const int code = soak.finish(report);
    INFO(report.str());
    CHECK(code == 1);
    CHECK_THAT(report.str(), Catch::Contains("FAILURE: host RSS at the end of pass 2 rose up to +") &&
                                 Catch::Contains("FAILURE: C heap in use at the end of pass 2 rose up to +") &&
                                 Catch::Contains("over pass 1's end (limit 8.0 MiB)"));
    CHECK(leak[12345] == 1);
}
#endif
