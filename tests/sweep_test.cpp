// The sweep (app/core/sweep.h) on the simulated backend: x2 steps cover the range, every size x
// variant answers, sizes over the limit are skipped with a reason, a bad range is refused, the
// sweep's results never reach the live results, and a cancel stops it. Wall time is recorded. (The
// live loop's passes are tested in panels_state_test.cpp.)
#if defined(FUSIONLAB_HAVE_GUI)  // panels_state is part of the GUI build

#include "app/core/panels_state.h"
#include "app/core/sweep.h"
#include "kernels/core/backend.h"

#include "sim_settings.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

using fl_test::attention_settings;
using fl_test::sim_backend;

TEST_CASE("sweep: x2 steps from 'from' up to 'to'", "[sweep]") {
    CHECK(app::sweep_values(256, 8192) == std::vector<double>{256, 512, 1024, 2048, 4096, 8192});
    CHECK(app::sweep_values(100, 500) == std::vector<double>{100, 200, 400});
    CHECK(app::sweep_values(64, 64) == std::vector<double>{64});
    CHECK(app::sweep_values(0, 10).empty());
    CHECK(app::sweep_values(10, 5).empty());
    CHECK(app::sweepable_params("attention").front() == "N");
    CHECK(app::sweepable_params("chain").front() == "rows");
}

TEST_CASE("sweep: every size x variant answers, in one blocking run", "[sweep]") {
    app::Runner runner;
    app::SweepState sweep;
    const app::Settings s = attention_settings();
    REQUIRE(app::run_sweep_blocking(sweep, s, sim_backend(), runner).empty());
    const size_t variants = app::selected_variants(s).size();
    CHECK(sweep.values == std::vector<double>{256, 512, 1024, 2048, 4096, 8192});
    REQUIRE(sweep.results.size() == sweep.values.size() * variants);
    for (const kernels::Measurement& m : sweep.results) {
        CHECK(m.ok);
        CHECK(m.wall_ms > 0);
    }
    // Bytes grow with N: the first size's naive moves fewer bytes than the last size's.
    CHECK(sweep.results.front().bytes() < sweep.results[sweep.results.size() - variants].bytes());
}

TEST_CASE("sweep: a range outside the spec is refused with the legal range", "[sweep]") {
    app::Runner runner;
    app::SweepState sweep;
    sweep.param = "N";
    sweep.from = 512;
    sweep.to = 1e9;
    const std::string why = app::run_sweep_blocking(sweep, attention_settings(), sim_backend(), runner);
    CHECK(why.find("N from 512") != std::string::npos);
    CHECK(why.find("65536") != std::string::npos);
}

TEST_CASE("sweep: through the frame loop, results go to the sweep only - cancel stops it", "[sweep]") {
    app::Runner runner;
    runner.wait_until_probed();
    app::AppState state;
    state.settings = attention_settings();
    state.params_dirty = false;
    state.sweep_requested = true;  // as a lesson step does
    app::update_measurements(state, runner, 100.0);
    CHECK_FALSE(state.sweep_requested);
    CHECK(state.sweep.running);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (state.sweep.running && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        app::update_measurements(state, runner, 100.0);
    }
    CHECK_FALSE(state.sweep.running);
    CHECK(state.sweep.results.size() == state.sweep.total);
    CHECK(state.results.empty());  // none leaked into the live results

    state.sweep.start_requested = true;
    app::update_measurements(state, runner, 100.0);
    REQUIRE(state.sweep.running);
    state.sweep.cancel_requested = true;
    app::update_measurements(state, runner, 100.0);
    CHECK_FALSE(state.sweep.running);
    CHECK(state.sweep.cancelled);
    CHECK(state.sweep.message.find("cancelled") != std::string::npos);
}

#endif  // FUSIONLAB_HAVE_GUI
