// The GUI's shared state (app/core/panels_state.h) without a GUI: the validation the panels show
// follows the parameters, computed once per change; the live loop's passes on the simulated backend
// (the quick batch asks for few reps, one warm-up and no counters, and is not stale for the
// parameters it measured; a simulated GPU answers with one full pass and no quick one).
#include "app/core/panels_state.h"

#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

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


// ---- the headline: each variant against the baseline its definition names ----

namespace {

kernels::Measurement headline_result(const std::string& workload, const std::string& variant, double ms,
                                     uint64_t bytes, int kernel_count) {
    kernels::Measurement m;
    m.ok = true;
    m.job.params = kernels::default_params(workload);
    m.job.variant = variant;
    m.time.median_ms = ms;
    m.bytes_read = bytes;
    for (int k = 0; k < kernel_count; ++k) m.kernels.push_back({std::string("k").append(std::to_string(k)), {}, 0});
    return m;
}

}  // namespace

TEST_CASE("panels_state: every workload's baselines name its own variants, and no chain loops", "[panels_state]") {
    for (const std::string& w : kernels::workload_names()) {
        const auto& vs = kernels::variants(w);
        for (const kernels::VariantInfo& v : vs) {
            if (v.improves_on.empty()) continue;
            INFO(w << ": " << v.name << " -> " << v.improves_on);
            CHECK(kernels::has_variant(w, v.improves_on));
            CHECK(v.improves_on != v.name);
            // Walking up the chain ends at a baseline within the number of variants.
            std::string at = v.improves_on;
            size_t hops = 0;
            for (; hops <= vs.size() && !at.empty(); ++hops)
                for (const kernels::VariantInfo& u : vs)
                    if (u.name == at) {
                        at = u.improves_on;
                        break;
                    }
            CHECK(hops <= vs.size());
        }
    }
    // The pairs a teacher compares (kernels/*/*_def.cpp say why).
    auto baseline = [](const std::string& w, const std::string& v) {
        for (const kernels::VariantInfo& i : kernels::variants(w))
            if (i.name == v) return i.improves_on;
        return std::string("?");
    };
    CHECK(baseline("chain", "fused") == "unfused");
    CHECK(baseline("chain", "fused_spill") == "fused");
    CHECK(baseline("attention", "flash") == "naive");
    CHECK(baseline("attention", "flash_tc") == "naive");
    CHECK(baseline("attention", "flash_wgmma") == "flash_tc");
    CHECK(baseline("skip", "wgmma_fused") == "wgmma_two_pass");
    CHECK(baseline("ffn", "epilogue_graph") == "epilogue");
}

TEST_CASE("panels_state: the headline compares each variant with its declared baseline, never fastest vs slowest",
          "[panels_state]") {
    // chain: fused is fastest, fused_spill slower than fused but faster than unfused. Fastest against
    // slowest would say "fused is 4.00x faster than unfused" and nothing about fused_spill.
    const kernels::Measurement unfused = headline_result("chain", "unfused", 4.0, 4096, 4);
    const kernels::Measurement fused = headline_result("chain", "fused", 1.0, 1024, 1);
    const kernels::Measurement spill = headline_result("chain", "fused_spill", 2.5, 2048, 1);
    const std::vector<const kernels::Measurement*> shown = {&unfused, &fused, &spill};
    const auto pairs = app::baseline_pairs(shown);
    REQUIRE(pairs.size() == 2);
    CHECK(pairs[0].variant == &fused);
    CHECK(pairs[0].baseline == &unfused);
    CHECK(pairs[1].variant == &spill);
    CHECK(pairs[1].baseline == &fused);
    const auto lines = app::headline_lines(shown, {false, false, false});
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].text == "fused vs unfused: 4.00\xC3\x97 faster; 4.00\xC3\x97 fewer DRAM bytes (1.00 KiB instead of "
                           "4.00 KiB); 1 kernel instead of 4.");
    CHECK_THAT(lines[1].text, Catch::StartsWith("fused_spill vs fused: 2.50\xC3\x97 slower; 2.00\xC3\x97 more DRAM bytes"));
    CHECK_FALSE(lines[0].stale);

    // Without fused on screen, fused_spill is compared with the next baseline up its chain.
    const auto up = app::baseline_pairs({&unfused, &spill});
    REQUIRE(up.size() == 1);
    CHECK(up[0].baseline == &unfused);
    // A baseline alone has nothing to compare with.
    CHECK(app::headline_lines({&unfused}, {false}).empty());
}

TEST_CASE("panels_state: the headline never mixes numbers of different settings", "[panels_state]") {
    const kernels::Measurement unfused = headline_result("chain", "unfused", 4.0, 4096, 4);
    const kernels::Measurement fused = headline_result("chain", "fused", 0.01, 1024, 1);  // new settings, much faster
    const std::vector<const kernels::Measurement*> shown = {&unfused, &fused};
    // One side new, one side old: no ratio at all (it would be "400x faster ... 4x fewer bytes").
    const auto mixed = app::headline_lines(shown, {true, false});
    REQUIRE(mixed.size() == 1);
    CHECK(mixed[0].stale);
    CHECK_THAT(mixed[0].text, Catch::Contains("updating"));
    CHECK_THAT(mixed[0].text, !Catch::Contains("\xC3\x97"));
    // Both old: the old ratio, marked as such.
    const auto old = app::headline_lines(shown, {true, true});
    REQUIRE(old.size() == 1);
    CHECK(old[0].stale);
    CHECK_THAT(old[0].text, Catch::Contains("400.00\xC3\x97 faster"));
    CHECK_THAT(old[0].text, Catch::Contains("earlier settings"));
}
