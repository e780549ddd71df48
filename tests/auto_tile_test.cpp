// The `auto` tile (issue 34, point 3; kernels/sim/auto_choice.h, app/recordings/auto_pick.h): the
// default of Br and Bc, resolved per variant and device to the fastest candidate by the model and the
// card's recording, said with its numbers; a tile the user sets is run as set.
#include "app/cli/cli.h"
#include "app/recordings/recording_file.h"
#include "app/core/runner.h"
#include "app/recordings/auto_pick.h"
#include "kernels/attention/attention.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"
#include "kernels/sim/auto_choice.h"

#include "test_skip.h"

#include <catch2/catch.hpp>

#include <set>
#include <sstream>

using namespace kernels;

namespace {

Params attention_at(int64_t heads, int64_t N, int64_t d, bool causal = false) {
    Params p = default_params("attention");
    p.dtype = DType::f16;
    p.set("heads", double(heads)).set("N", double(N)).set("d", double(d)).set("causal", causal ? 1 : 0);
    return p;
}

double simulated_ms(const SimGpu& gpu, const std::string& variant, const Params& p) {
    Job job;
    job.params = p;
    job.variant = variant;
    job.emulate = false;
    const Measurement m = make_sim_backend(gpu)->run(job, {});
    REQUIRE(m.ok);
    return m.time.median_ms;
}

}  // namespace

TEST_CASE("auto is the default tile and the CLI and lessons spell it auto", "[auto]") {
    const Params p = default_params("attention");
    CHECK(p.get("br") == kAutoValue);
    CHECK(p.get("bc") == kAutoValue);
    CHECK(has_auto(p));
    CHECK(validate(p).empty());
    const ParamSpec* br = find_param_spec("attention", "br");
    REQUIRE(br);
    CHECK(param_value_text(*br, 0) == "auto");
    CHECK(param_value_text(*br, 128) == "128");
    CHECK_THAT(legal_values_text(*br), Catch::StartsWith("auto, 16"));
    double v = -1;
    CHECK(parse_param_word(*br, "auto", v));
    CHECK(v == kAutoValue);
    CHECK_FALSE(parse_param_word(*find_param_spec("attention", "N"), "auto", v));  // only tiles offer auto

    std::ostringstream out, err;
    const auto cmd = app::cli::parse_command_line({"bench", "--workload", "attention", "--br", "auto", "--bc", "64"}, out, err);
    REQUIRE(cmd.exit_code == -1);
    const auto sweep = app::cli::sweep_params(cmd.bench, "attention", DType::f16);
    REQUIRE(sweep.size() == 1);
    CHECK(sweep[0].get("br") == kAutoValue);
    CHECK(sweep[0].get("bc") == 64);
    // auto is not a number for parameters without it.
    const auto bad = app::cli::parse_command_line({"bench", "--workload", "attention", "--N", "auto"}, out, err);
    CHECK(bad.exit_code == 2);
}

TEST_CASE("auto picks the fastest tile the model prices on the device", "[auto]") {
    for (const char* key : {"H100", "A100", "RTX4090"}) {
        const SimGpu& gpu = *find_sim_gpu(key);
        for (const char* variant : {"flash", "flash_tc"}) {
            for (int64_t d : {64, 128}) {
                const Params p = attention_at(16, 2048, d);
                const AutoPick pick = pick_auto(variant, p, gpu.info);
                INFO(key << " " << variant << " d=" << d << ": " << pick.why << pick.error);
                REQUIRE(pick.resolved);
                CHECK(pick.params.get("br") != kAutoValue);
                CHECK(pick.params.get("bc") != kAutoValue);
                // No candidate the device runs is faster than the pick, by the simulated backend itself.
                const double best = simulated_ms(gpu, variant, pick.params);
                for (const AutoCandidate& c : pick.candidates) CHECK(simulated_ms(gpu, variant, c.params) >= best);
                CHECK(pick.candidates.size() >= 3);  // the RTX 4090 (99 KiB a block) refuses 128-row tiles at d = 128
                CHECK_THAT(pick.why, Catch::Contains("auto br x bc " + pick.label));
                CHECK_THAT(pick.why, Catch::Contains(" ms") || Catch::Contains(" us"));
            }
        }
    }
    // flash_wgmma's tiles on Hopper; none elsewhere, so the job is refused for the variant's reason.
    const AutoPick h100 = pick_auto("flash_wgmma", attention_at(64, 4096, 64), find_sim_gpu("H100")->info);
    CHECK(h100.resolved);
    CHECK(h100.candidates.size() == 6);
    const AutoPick a100 = pick_auto("flash_wgmma", attention_at(64, 4096, 64), find_sim_gpu("A100")->info);
    CHECK_FALSE(a100.resolved);
    CHECK_THAT(a100.error, Catch::Contains("compute capability 9.0"));
    // naive has no tile: nothing to pick and nothing said; it runs the value an unresolved auto reads as,
    // so a recording (whose naive points carry 64 x 64) still finds it.
    const AutoPick naive = pick_auto("naive", attention_at(16, 1024, 64), find_sim_gpu("H100")->info);
    CHECK(naive.why.empty());
    CHECK(naive.params.get("br") == attention::kUnresolvedAutoTile);
}

TEST_CASE("a tile the user sets is run as set and only the auto one is picked", "[auto]") {
    const SimGpu& gpu = *find_sim_gpu("H100");
    Params set = attention_at(16, 2048, 64);
    set.set("br", 64).set("bc", 64);
    const AutoPick none = pick_auto("flash_tc", set, gpu.info);
    CHECK_FALSE(none.resolved);
    CHECK(none.params == set);
    // Br set, Bc auto: only Bc moves.
    Params half = set;
    half.set("bc", kAutoValue);
    const AutoPick bc_only = pick_auto("flash_tc", half, gpu.info);
    REQUIRE(bc_only.resolved);
    CHECK(bc_only.params.get("br") == 64);
    CHECK(bc_only.candidates.size() == 2);  // flash_tc's Bc: 64 or 128
    CHECK_THAT(bc_only.why, Catch::StartsWith("auto bc "));

    app::Runner runner;
    Job job;
    job.params = set;
    job.variant = "flash_tc";
    job.sim_gpu = "H100";
    job.emulate = false;
    const Measurement m = runner.run_blocking({job}).at(0);
    REQUIRE(m.ok);
    CHECK_FALSE(m.auto_params);
    CHECK(m.auto_choice.empty());
    CHECK(m.ran_params() == set);
}

TEST_CASE("the runner runs the pick and every result says what it picked and why", "[auto]") {
    app::Runner runner;
    Job job;
    job.params = attention_at(64, 4096, 64);
    job.variant = "flash_wgmma";
    job.sim_gpu = "H100";
    job.emulate = false;
    const Measurement m = runner.run_blocking({job}).at(0);
    REQUIRE(m.ok);
    REQUIRE(m.auto_params);
    CHECK(m.job.params.get("br") == kAutoValue);  // what was asked stays, so the GUI finds its result
    const AutoPick pick = app::pick_auto_for("flash_wgmma", job.params, find_sim_gpu("H100")->info);
    CHECK(*m.auto_params == pick.params);
    CHECK(m.auto_choice == pick.why);
    CHECK_THAT(describe(m.ran_params(), "flash_wgmma"), Catch::Contains("tile " + param_number_text(pick.params.get("br"))));
    // The time is the picked tile's.
    CHECK(m.time.median_ms == Approx(simulated_ms(*find_sim_gpu("H100"), "flash_wgmma", pick.params)));
}

TEST_CASE("auto uses the card's recorded times where the recording has the shape", "[auto][recorded]") {
    const auto rec = app::find_recording("h100-2026-11-27");
    if (!rec) {
        fl_test::skip("no recording h100-2026-11-27 found");
        return;
    }
    // A point of the recording whose variant was recorded at more than one tile.
    int checked = 0;
    for (const Measurement& m : rec->measurements) {
        if (!m.ok || m.job.params.workload != "attention" || m.job.variant != "flash_wgmma") continue;
        Params p = m.job.params;
        p.set("br", kAutoValue).set("bc", kAutoValue);
        const AutoPick pick = app::pick_auto_for("flash_wgmma", p, rec->device, rec->key);
        REQUIRE(pick.resolved);
        int recorded = 0;
        for (const AutoCandidate& c : pick.candidates) recorded += c.recorded_ms.has_value();
        if (recorded < 2) continue;
        INFO(describe(p) << ": " << pick.why);
        // Recorded candidates compare by their recorded medians.
        for (const AutoCandidate& c : pick.candidates)
            if (c.recorded_ms) CHECK(c.compared_ms == *c.recorded_ms);
        CHECK_THAT(pick.why, Catch::Contains("(recorded)"));
        // The recorded backend runs the picked tile from the recording.
        app::Runner runner;
        Job job;
        job.params = p;
        job.variant = "flash_wgmma";
        job.backend = BackendKind::recorded;
        job.recording = rec->key;
        const Measurement r = runner.run_blocking({job}).at(0);
        REQUIRE(r.ok);
        REQUIRE(r.auto_params);
        CHECK(*r.auto_params == pick.params);
        if (pick.candidates.front().recorded_ms) {
            CHECK(r.recorded());
            CHECK(r.time.median_ms == *pick.candidates.front().recorded_ms);
        }
        ++checked;
    }
    CHECK(checked >= 1);
}

// How well the model alone picks (no recording): at every shape of the recordings where a tiled variant
// was measured at two or more tiles, the recorded time of the model's pick against the fastest recorded
// tile. The pick with the recording (what the app does on these cards) is the fastest recorded by
// construction; the model alone is what a card without a recording gets.
TEST_CASE("the model's own tile pick against the recordings' fastest tile", "[auto][recorded]") {
    for (const char* key : {"h100-2026-11-28", "h200-2026-11-28"}) {
        const auto rec = app::find_recording(key);
        if (!rec) {
            fl_test::skip(std::string("no recording ") + key);
            return;
        }
        std::set<std::string> seen;
        int shapes = 0, same = 0;
        double worst = 1, sum = 0, wgmma_br64_worst = 1;
        std::string worst_at;
        for (const Measurement& m : rec->measurements) {
            const std::string& v = m.job.variant;
            if (!m.ok || !find_param_spec(m.job.params.workload, "br")) continue;
            Params p = m.job.params;
            p.set("br", kAutoValue).set("bc", kAutoValue);
            if (!seen.insert(v + " " + app::point_key(p, v)).second) continue;
            const AutoPick model_only = pick_auto(v, p, rec->device);
            if (!model_only.resolved) continue;
            double best = 0;
            int recorded = 0;
            for (const AutoCandidate& c : model_only.candidates)
                if (const Measurement* r = rec->find(c.params, v); r && r->ok) {
                    ++recorded;
                    if (best == 0 || r->time.median_ms < best) best = r->time.median_ms;
                }
            const Measurement* picked = rec->find(model_only.params, v);
            if (recorded < 2 || !picked || !picked->ok) continue;
            ++shapes;
            const double loss = picked->time.median_ms / best;
            same += loss == 1.0;
            sum += loss;
            // flash_wgmma v5 at Br = 64 (one consumer warpgroup) measured 1.58x v4 at the same key, a cost the
            // schedule does not carry (kernels/PERF.md, "Held out, third pass"): the model picks it where v4
            // was fastest. Listed, and held apart.
            if (model_only.params.get("br") == 64 && (v == "flash_wgmma" || v.rfind("wgmma_", 0) == 0)) {
                INFO(key << " " << v << " " << describe(p) << ": the model picks " << model_only.label << ", " << loss
                          << "x the fastest recorded");
                wgmma_br64_worst = std::max(wgmma_br64_worst, loss);
                continue;
            }
            if (loss > worst) worst = loss, worst_at = v + " " + describe(p) + ": " + model_only.label;
        }
        WARN(key << ": the model alone picked the fastest recorded tile at " << same << " of " << shapes
                  << " shapes; its pick's recorded time is " << (shapes ? sum / shapes : 0) << "x the fastest on average, "
                  << worst << "x at worst (" << worst_at << ")");
        CHECK(shapes >= 5);
        // 1.029 on the H100, 1.024 on the H200 against the recordings of 2026-11-27 (kernels/PERF.md, "The auto tile").
        CHECK(worst <= 1.10);
        WARN(key << ": flash_wgmma's 64-row picks, held apart: up to " << wgmma_br64_worst << "x the fastest recorded");
        CHECK(wgmma_br64_worst > 1.10);  // 1.72 (H100), 1.25 (H200): fixed, the exception goes
    }
}
