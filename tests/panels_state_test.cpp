// The GUI's shared state (app/core/panels_state.h) without a GUI: the validation the panels show
// follows the parameters, computed once per change; the live loop's passes on the simulated backend
// (the quick batch asks for few reps, one warm-up and no counters, and is not stale for the
// parameters it measured; a simulated GPU answers with one full pass and no quick one).
#include "app/core/panels_state.h"

#include "kernels/common/backend.h"
#include "kernels/common/registry.h"

#include "sim_settings.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

TEST_CASE("panels_state: params_error follows the parameters", "[panels_state]") {
    app::AppState state;
    CHECK(app::params_error(state) == kernels::validate(state.settings.params));
    CHECK(app::params_error(state).empty());

    state.settings.params.set("rows", 0);
    const std::string& bad = app::params_error(state);
    CHECK_FALSE(bad.empty());
    CHECK(bad == kernels::validate(state.settings.params));
    // Asked again without a change: the same answer (the kept one, not a new string).
    CHECK(&app::params_error(state) == &bad);

    state.settings.params = app::Settings{}.params;
    CHECK(app::params_error(state).empty());
}

TEST_CASE("panels_state: a variant's refusal is kept until the parameters or the device change", "[panels_state]") {
    app::ValidationCache cache;
    kernels::Params p = kernels::default_params("attention");
    p.dtype = kernels::DType::f32;
    p.set("br", 128).set("bc", 128).set("d", 128);  // the teaching kernel's tiles do not fit 228 KiB in fp32
    const kernels::DeviceInfo& h100 = kernels::find_sim_gpu("H100")->info;
    const std::string& flash = cache.refusal(p, h100, "flash");
    CHECK_THAT(flash, Catch::Contains("shared memory"));
    CHECK(&cache.refusal(p, h100, "flash") == &flash);  // asked again: the kept answer
    CHECK_THAT(cache.refusal(p, h100, "flash_tc"), Catch::Contains("fp16 or bf16"));
    p.set("br", 16).set("bc", 16);
    CHECK(cache.refusal(p, h100, "flash").empty());  // new parameters: asked anew
    p.dtype = kernels::DType::f16;
    CHECK_THAT(cache.refusal(p, h100, "flash_tc"), Catch::Contains("Bc = 64 or 128"));  // Bc = 16: not built
    p.set("bc", 64);
    CHECK(cache.refusal(p, kernels::find_sim_gpu("V100")->info, "flash_tc").find("8.0") != std::string::npos);
}

using fl_test::attention_settings;
using fl_test::sim_backend;

TEST_CASE("live loop: the quick batch asks for few reps, one warm-up and no counters", "[panels_state][live]") {
    app::Settings s = attention_settings();
    s.reps = 50;
    const auto quick = app::make_quick_batch(s, sim_backend());
    const auto full = app::make_batch(s, sim_backend());
    REQUIRE(quick.size() == full.size());
    for (size_t i = 0; i < quick.size(); ++i) {
        CHECK(quick[i].quick);
        CHECK(quick[i].reps == app::kQuickReps);
        CHECK(quick[i].warmup == 1);
        CHECK_FALSE(quick[i].measure_counters);
        CHECK_FALSE(full[i].quick);
        CHECK(full[i].reps == 50);
        CHECK(full[i].measure_counters);
    }
    // A quick result of the current parameters is not stale although its reps differ.
    kernels::Measurement m;
    m.job = quick.front();
    CHECK_FALSE(app::is_stale(m, s, sim_backend()));
    m.job.quick = false;
    CHECK(app::is_stale(m, s, sim_backend()));
}

TEST_CASE("live loop: a simulated GPU answers with one full pass", "[panels_state][live]") {
    app::Runner runner;
    runner.wait_until_probed();
    app::AppState state;
    state.settings = attention_settings();
    app::mark_changed(state, 0.0);
    app::update_measurements(state, runner, 1.0);  // after the debounce
    CHECK(state.live.full_running);
    CHECK_FALSE(state.live.quick_running);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (state.live.full_running && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        app::update_measurements(state, runner, 1.0);
    }
    CHECK_FALSE(state.live.full_running);
    REQUIRE(app::visible_results(state).size() == app::selected_variants(state.settings).size());
    for (const kernels::Measurement* m : app::visible_results(state)) CHECK_FALSE(m->job.quick);
}

