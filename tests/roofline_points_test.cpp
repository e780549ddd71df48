// The roofline's points without a GUI: a result sits at its DRAM intensity (modeled, or counted
// when the counters gave bytes and the toggle asks for them) and at its L2 intensity; the lowest
// roof at those intensities bounds it; the hover text has both levels' formulas; trails move with
// the parameters only.
#include "app/core/panels_state.h"
#include "app/core/roofline_points.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include <catch2/catch.hpp>

namespace {

kernels::Measurement flash_like() {
    kernels::Measurement m;
    m.ok = true;
    m.job.variant = "flash_tc";  // on tensor cores: its compute roof is above the L2 roof here
    m.job.params = kernels::default_params("attention");
    m.flops = 1e12;
    m.time.median_ms = 10;                  // 100 TFLOP/s
    m.bytes_read = 1'000'000'000;           // DRAM: 1 GB -> 1000 FLOP/B
    m.l2_bytes_read = 16'000'000'000;       // L2 <-> SM: 16 GB -> 62.5 FLOP/B
    m.device = kernels::find_sim_gpu("H100")->info;
    return m;
}

}  // namespace

TEST_CASE("roofline points: DRAM and L2 intensities, modeled or counted", "[roofline][levels]") {
    kernels::Measurement m = flash_like();
    app::RooflineLevels p = app::roofline_levels(m, true);
    CHECK(p.flops_per_s == Approx(1e14));
    CHECK_FALSE(p.dram_measured);  // no counter bytes: the model's
    CHECK(p.dram_intensity == Approx(1000));
    CHECK(p.l2_intensity == Approx(62.5));
    m.measured_bytes = 500'000'000;
    p = app::roofline_levels(m, true);
    CHECK(p.dram_measured);
    CHECK(p.dram_intensity == Approx(2000));
    CHECK(p.model_dram_intensity == Approx(1000));
    CHECK(app::roofline_levels(m, false).dram_intensity == Approx(1000));  // the toggle off: modeled
}

TEST_CASE("roofline points: the lowest roof at the point's intensities bounds it", "[roofline][levels]") {
    kernels::RoofSet roofs;
    roofs.bytes_per_s = 3e12;
    roofs.l2_bytes_per_s = 7e12;
    kernels::Roof tensor{"tensor", 989e12, false, "datasheet", "datasheet"};
    app::RooflineLevels p;
    p.dram_intensity = 1000;  // DRAM roof 3000 T: above the tensor roof
    p.l2_intensity = 62.5;    // L2 roof 437.5 T: the lowest
    app::RooflineBound b = app::roofline_bound(p, roofs, tensor);
    CHECK(b.level == "L2");
    CHECK(b.attainable == Approx(437.5e12));
    p.l2_intensity = 1000;
    CHECK(app::roofline_bound(p, roofs, tensor).level == "tensor");
    p.dram_intensity = 10;
    CHECK(app::roofline_bound(p, roofs, tensor).level == "DRAM");
    roofs.l2_bytes_per_s = 0;  // unknown L2 roof: DRAM and compute only
    p = {};
    p.dram_intensity = 1000;
    p.l2_intensity = 1;
    CHECK(app::roofline_bound(p, roofs, tensor).level == "tensor");
}

TEST_CASE("roofline points: the hover text shows both levels' formulas", "[roofline][levels]") {
    const kernels::Measurement m = flash_like();
    const kernels::RoofSet roofs = kernels::roofs_for(m.device, kernels::DType::bf16);
    const std::string t = app::roofline_point_text(m, roofs, true);
    CHECK(t.find("DRAM (circle): bytes (model, L2 reuse rules)") != std::string::npos);
    CHECK(t.find("L2\xE2\x86\x92SM (square)") != std::string::npos);
    CHECK(t.find("62.5 FLOP/B") != std::string::npos);
    CHECK(t.find("The lowest roof at these intensities: L2") != std::string::npos);
    CHECK(t.find("N=1024") != std::string::npos);
}

TEST_CASE("roofline points: a trail grows when the parameters change, not on a re-measurement", "[roofline]") {
    app::AppState state;
    state.settings.params = kernels::default_params("attention");
    kernels::Measurement m = flash_like();
    m.job.id = 1;
    app::store_results(state, {m});
    app::update_roofline_trails(state);
    REQUIRE(state.roofline.trails["flash_tc"].size() == 1);
    m.job.id = 2;  // the full pass of the same parameters
    app::store_results(state, {m});
    app::update_roofline_trails(state);
    CHECK(state.roofline.trails["flash_tc"].size() == 1);
    CHECK(state.roofline.trails["flash_tc"].back().intensity == Approx(1000));
}
