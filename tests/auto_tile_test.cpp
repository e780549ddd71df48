// The `auto` tile (issue 34, point 3; kernels/sim/auto_choice.h, app/recordings/auto_pick.h): the
// default of Br and Bc, resolved per variant and device to the fastest candidate by the model and the
// card's recording, said with its numbers; a tile the user sets is run as set.
#include "app/cli/cli.h"
#include "app/files/results_import.h"
#include "app/recordings/recording_file.h"
#include "app/core/runner.h"
#include "app/recordings/auto_pick.h"
#include "app/recordings/sim_heldout.h"
#include "kernels/attention/attention.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"
#include "kernels/sim/auto_choice.h"

#include "test_skip.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

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

// One measured shape of flash_wgmma: every tile `auto` may pick, with its measured median.
struct TileTime {
    int br, bc;
    double ms;
};
struct MeasuredShape {
    int N, heads, d, causal;
    std::vector<TileTime> tiles;
};
// A shape where the model's pick is further than 5 % from the fastest measured tile, with why.
struct KnownMiss {
    int N, heads, d, causal;
    const char* why;
};

// The simulated H200's own pick (no recording) against a table's measured tiles, at its busy shapes: N >= 2048, and
// N = 1024 from 64 heads (at N = 1024 with 16 heads every tile takes 17-34 us, a few microseconds apart). Within 5 %
// of the fastest measured tile but at the listed misses, which must still miss (a fixed one leaves its list).
// Returns the shapes held.
int check_auto_picks(const char* table, const std::vector<MeasuredShape>& shapes, const std::vector<KnownMiss>& misses) {
    const SimGpu& h200 = *find_sim_gpu("H200");
    int held = 0;
    for (const MeasuredShape& s : shapes) {
        if (s.N == 1024 && s.heads < 64) continue;
        const auto miss = std::find_if(misses.begin(), misses.end(), [&](const KnownMiss& m) {
            return m.N == s.N && m.heads == s.heads && m.d == s.d && m.causal == s.causal;
        });
        const AutoPick pick = pick_auto("flash_wgmma", attention_at(s.heads, s.N, s.d, s.causal != 0), h200.info);
        REQUIRE(pick.resolved);
        double best = 1e30, picked = 0;
        for (const TileTime& t : s.tiles) {
            best = std::min(best, t.ms);
            if (pick.params.get("br") == t.br && pick.params.get("bc") == t.bc) picked = t.ms;
        }
        INFO(table << ": N = " << s.N << ", " << s.heads << " heads, d = " << s.d << (s.causal ? ", causal" : "")
                   << ": auto picked " << pick.label << " (measured " << picked << " ms), the fastest measured " << best << " ms");
        REQUIRE(picked > 0);
        if (miss != misses.end()) {
            INFO("known: " << miss->why);
            CHECK(picked / best > 1.05);  // a fixed miss leaves the list
        } else {
            CHECK(picked / best <= 1.05);
        }
        ++held;
    }
    return held;
}

// flash_wgmma's shapes of bench tables in the export format (assets/measurements), every tile measured at each.
std::vector<MeasuredShape> measured_shapes(const std::vector<std::string>& files) {
    std::map<std::tuple<int, int, int, int>, std::vector<TileTime>> by_shape;
    for (const std::string& file : files) {
        std::vector<Measurement> ms;
        const std::string error = app::load_measurements_json(std::string(FL_SOURCE_DIR) + "/" + file, ms);
        INFO(file);
        REQUIRE(error.empty());
        for (const Measurement& m : ms) {
            if (!m.ok || m.job.variant != "flash_wgmma" || !(m.time.median_ms > 0)) continue;
            const Params& p = m.job.params;
            by_shape[{static_cast<int>(p.get_int("N")), static_cast<int>(p.get_int("heads")), static_cast<int>(p.get_int("d")),
                      static_cast<int>(p.get_int("causal"))}]
                .push_back({static_cast<int>(p.get_int("br")), static_cast<int>(p.get_int("bc")), m.time.median_ms});
        }
    }
    std::vector<MeasuredShape> shapes;
    for (const auto& [key, tiles] : by_shape)
        if (tiles.size() >= 2) shapes.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), tiles});
    return shapes;
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
        // Variants the recording measured with kernels rewritten since (its superseded.txt: the H100's flash_wgmma v5
        // and skip's wgmma variants on it) time another kernel than the one the model prices: left out, as the held-out
        // study leaves them out.
        std::vector<std::string> errors;
        const std::vector<app::SupersededPoints> superseded = app::read_superseded(
            (std::filesystem::path(rec->path).parent_path() / "superseded.txt").string(), errors);
        CHECK(errors.empty());
        const auto rewritten = [&](const Measurement& m) {
            return std::any_of(superseded.begin(), superseded.end(), [&](const app::SupersededPoints& s) {
                return s.workload == m.job.params.workload &&
                       std::find(s.variants.begin(), s.variants.end(), m.job.variant) != s.variants.end();
            });
        };
        std::set<std::string> seen;
        int shapes = 0, same = 0, wgmma_br64_picks = 0;
        double worst = 1, sum = 0, wgmma_br64_worst = 1;
        std::string worst_at;
        for (const Measurement& m : rec->measurements) {
            const std::string& v = m.job.variant;
            if (!m.ok || !find_param_spec(m.job.params.workload, "br") || rewritten(m)) continue;
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
            // One consumer warpgroup (Br = 64): its lone block's latency is not in the schedule (v5 measured 1.58x v4 at
            // the same key on the H100's recording, whose flash_wgmma points are now left out as superseded), and the model
            // picks 64 x 64 for skip's wgmma_fused at 4 x 4 heads, N = 1024 on the H200 (16 heads, 256 items of 64 rows
            // on 132 SMs against 128 of 128 rows) where 64 x 128 measured 0.70x of it. Listed, and held apart.
            if (model_only.params.get("br") == 64 && (v == "flash_wgmma" || v.rfind("wgmma_", 0) == 0)) {
                INFO(key << " " << v << " " << describe(p) << ": the model picks " << model_only.label << ", " << loss
                          << "x the fastest recorded");
                ++wgmma_br64_picks;
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
        // 1.107 on the H200's re-take since the turn is priced per key tile: flash_wgmma at 16 heads, N = 4096, d = 64
        // picks 128 x 128 where 192 x 128 measured 0.90x of it (the same shape as the simulated H200's listed miss in
        // "the simulated H200's auto tile against attn's measured tiles").
        // 1.035 on the H200's re-take of 17:31 UTC since the eighth pass (whole tiles, the item's memory trip, the turn's
        // rescale; flash_wgmma's 64-row picks held with the rest), the H100's with its superseded variants left out.
        CHECK(worst <= 1.11);
        WARN(key << ": flash_wgmma's 64-row picks, held apart: " << wgmma_br64_picks << ", up to " << wgmma_br64_worst
                  << "x the fastest recorded");
        if (wgmma_br64_picks > 0) CHECK(wgmma_br64_worst > 1.10);  // 1.43 (H200): fixed, the exception goes
    }
}

// attn's round 1 (flash_wgmma v13 at d = 64, v12 at d = 128; H200, 2026-11-28 13:20 UTC; kernels/PERF.md's tables "d = 64"
// and "d = 128", fp16, ms, median of 20): every tile `auto` may pick at the goal shapes. Since the eighth pass the turn is
// fitted on v14's table (below), so this one is a table the model was not fitted on.
TEST_CASE("the simulated H200's auto tile against attn's measured tiles", "[auto]") {
    const std::vector<MeasuredShape> shapes{
        {1024, 16, 64, 0, {{64, 64, 0.0199}, {64, 128, 0.0225}, {128, 64, 0.0197}, {128, 128, 0.0190}, {192, 64, 0.0226}, {192, 128, 0.0210}}},
        {1024, 16, 64, 1, {{64, 64, 0.0181}, {64, 128, 0.0174}, {128, 64, 0.0198}, {128, 128, 0.0190}, {192, 64, 0.0225}, {192, 128, 0.0217}}},
        {1024, 128, 64, 0, {{64, 64, 0.1069}, {64, 128, 0.1289}, {128, 64, 0.1035}, {128, 128, 0.0966}, {192, 64, 0.1007}, {192, 128, 0.0888}}},
        {1024, 128, 64, 1, {{64, 64, 0.0653}, {64, 128, 0.0852}, {128, 64, 0.0677}, {128, 128, 0.0634}, {192, 64, 0.0717}, {192, 128, 0.0677}}},
        {2048, 16, 64, 0, {{64, 64, 0.0554}, {64, 128, 0.0650}, {128, 64, 0.0534}, {128, 128, 0.0498}, {192, 64, 0.0650}, {192, 128, 0.0572}}},
        {2048, 16, 64, 1, {{64, 64, 0.0334}, {64, 128, 0.0405}, {128, 64, 0.0336}, {128, 128, 0.0317}, {192, 64, 0.0368}, {192, 128, 0.0332}}},
        {2048, 128, 64, 0, {{64, 64, 0.3848}, {64, 128, 0.4636}, {128, 64, 0.3656}, {128, 128, 0.3375}, {192, 64, 0.3225}, {192, 128, 0.2780}}},
        {2048, 128, 64, 1, {{64, 64, 0.2094}, {64, 128, 0.2715}, {128, 64, 0.2071}, {128, 128, 0.1936}, {192, 64, 0.1933}, {192, 128, 0.1751}}},
        {4096, 16, 64, 0, {{64, 64, 0.1937}, {64, 128, 0.2288}, {128, 64, 0.1836}, {128, 128, 0.1683}, {192, 64, 0.1760}, {192, 128, 0.1517}}},
        {4096, 16, 64, 1, {{64, 64, 0.1045}, {64, 128, 0.1253}, {128, 64, 0.1004}, {128, 128, 0.0927}, {192, 64, 0.0983}, {192, 128, 0.0875}}},
        {4096, 128, 64, 0, {{64, 64, 1.4471}, {64, 128, 1.7431}, {128, 64, 1.3827}, {128, 128, 1.2815}, {192, 64, 1.2244}, {192, 128, 1.0475}}},
        {4096, 128, 64, 1, {{64, 64, 0.7516}, {64, 128, 0.9474}, {128, 64, 0.7315}, {128, 128, 0.6724}, {192, 64, 0.6698}, {192, 128, 0.5907}}},
        {8192, 16, 64, 0, {{64, 64, 0.7415}, {64, 128, 0.8771}, {128, 64, 0.6963}, {128, 128, 0.6371}, {192, 64, 0.6619}, {192, 128, 0.5678}}},
        {8192, 16, 64, 1, {{64, 64, 0.3706}, {64, 128, 0.4497}, {128, 64, 0.3568}, {128, 128, 0.3287}, {192, 64, 0.3158}, {192, 128, 0.2755}}},
        {8192, 128, 64, 0, {{64, 64, 6.1752}, {64, 128, 6.8420}, {128, 64, 5.6322}, {128, 128, 5.0873}, {192, 64, 4.9023}, {192, 128, 4.3722}}},
        {8192, 128, 64, 1, {{64, 64, 2.8993}, {64, 128, 3.5330}, {128, 64, 2.8072}, {128, 128, 2.6131}, {192, 64, 2.5441}, {192, 128, 2.0933}}},
        {16384, 16, 64, 0, {{64, 64, 2.9329}, {64, 128, 3.4770}, {128, 64, 2.7477}, {128, 128, 2.5465}, {192, 64, 2.4052}, {192, 128, 2.0575}}},
        {16384, 16, 64, 1, {{64, 64, 1.4279}, {64, 128, 1.7185}, {128, 64, 1.3568}, {128, 128, 1.2397}, {192, 64, 1.1820}, {192, 128, 1.0240}}},
        {16384, 128, 64, 0, {{64, 64, 24.4965}, {64, 128, 26.8352}, {128, 64, 22.4096}, {128, 128, 20.5896}, {192, 64, 19.8207}, {192, 128, 17.5256}}},
        {16384, 128, 64, 1, {{64, 64, 12.5412}, {64, 128, 14.2345}, {128, 64, 11.9859}, {128, 128, 10.5242}, {192, 64, 10.6873}, {192, 128, 9.1876}}},
        {1024, 16, 128, 0, {{64, 64, 0.0339}, {64, 128, 0.0308}, {128, 64, 0.0267}, {128, 128, 0.0246}, {192, 64, 0.0309}, {192, 80, 0.0302}, {128, 176, 0.0247}}},
        {1024, 16, 128, 1, {{64, 64, 0.0237}, {64, 128, 0.0236}, {128, 64, 0.0259}, {128, 128, 0.0236}, {192, 64, 0.0290}, {192, 80, 0.0283}, {128, 176, 0.0243}}},
        {1024, 128, 128, 0, {{64, 64, 0.2111}, {64, 128, 0.1848}, {128, 64, 0.1527}, {128, 128, 0.1340}, {192, 64, 0.1454}, {192, 80, 0.1416}, {128, 176, 0.1330}}},
        {1024, 128, 128, 1, {{64, 64, 0.1332}, {64, 128, 0.1275}, {128, 64, 0.1007}, {128, 128, 0.0925}, {192, 64, 0.1038}, {192, 80, 0.1046}, {128, 176, 0.1003}}},
        {2048, 16, 128, 0, {{64, 64, 0.1032}, {64, 128, 0.0901}, {128, 64, 0.0754}, {128, 128, 0.0658}, {192, 64, 0.0916}, {192, 80, 0.0898}, {128, 176, 0.0653}}},
        {2048, 16, 128, 1, {{64, 64, 0.0604}, {64, 128, 0.0563}, {128, 64, 0.0460}, {128, 128, 0.0415}, {192, 64, 0.0490}, {192, 80, 0.0488}, {128, 176, 0.0439}}},
        {2048, 128, 128, 0, {{64, 64, 0.7577}, {64, 128, 0.6533}, {128, 64, 0.5292}, {128, 128, 0.4579}, {192, 64, 0.4711}, {192, 80, 0.4598}, {128, 176, 0.4529}}},
        {2048, 128, 128, 1, {{64, 64, 0.4283}, {64, 128, 0.3892}, {128, 64, 0.3035}, {128, 128, 0.2691}, {192, 64, 0.2812}, {192, 80, 0.2820}, {128, 176, 0.2762}}},
        {4096, 16, 128, 0, {{64, 64, 0.3724}, {64, 128, 0.3199}, {128, 64, 0.2607}, {128, 128, 0.2241}, {192, 64, 0.2490}, {192, 80, 0.2423}, {128, 176, 0.2219}}},
        {4096, 16, 128, 1, {{64, 64, 0.1982}, {64, 128, 0.1766}, {128, 64, 0.1436}, {128, 128, 0.1265}, {192, 64, 0.1385}, {192, 80, 0.1362}, {128, 176, 0.1276}}},
        {4096, 128, 128, 0, {{64, 64, 2.9522}, {64, 128, 2.4565}, {128, 64, 1.9882}, {128, 128, 1.7286}, {192, 64, 1.7885}, {192, 80, 1.7459}, {128, 176, 1.6922}}},
        {4096, 128, 128, 1, {{64, 64, 1.5028}, {64, 128, 1.3301}, {128, 64, 1.0647}, {128, 128, 0.9338}, {192, 64, 0.9767}, {192, 80, 0.9579}, {128, 176, 0.9372}}},
        {8192, 16, 128, 0, {{64, 64, 1.4458}, {64, 128, 1.2230}, {128, 64, 0.9932}, {128, 128, 0.8515}, {192, 64, 0.9532}, {192, 80, 0.9253}, {128, 176, 0.8289}}},
        {8192, 16, 128, 1, {{64, 64, 0.7226}, {64, 128, 0.6201}, {128, 64, 0.5059}, {128, 128, 0.4402}, {192, 64, 0.4538}, {192, 80, 0.4446}, {128, 176, 0.4329}}},
        {8192, 128, 128, 0, {{64, 64, 11.8796}, {64, 128, 10.0956}, {128, 64, 8.8061}, {128, 128, 7.5111}, {192, 64, 7.5675}, {192, 80, 7.3300}, {128, 176, 7.4750}}},
        {8192, 128, 128, 1, {{64, 64, 6.1237}, {64, 128, 5.5838}, {128, 64, 4.5146}, {128, 128, 3.7146}, {192, 64, 3.9625}, {192, 80, 3.8474}, {128, 176, 3.8524}}},
        {16384, 16, 128, 0, {{64, 64, 5.9111}, {64, 128, 5.1073}, {128, 64, 3.9116}, {128, 128, 3.7300}, {192, 64, 3.7784}, {192, 80, 3.6639}, {128, 176, 3.6314}}},
        {16384, 16, 128, 1, {{64, 64, 2.9338}, {64, 128, 2.3801}, {128, 64, 1.9327}, {128, 128, 1.6772}, {192, 64, 1.7290}, {192, 80, 1.6885}, {128, 176, 1.6477}}},
        {16384, 128, 128, 0, {{64, 64, 47.1349}, {64, 128, 40.2908}, {128, 64, 34.5669}, {128, 128, 29.6816}, {192, 64, 29.6836}, {192, 80, 28.5103}, {128, 176, 30.2067}}},
        {16384, 128, 128, 1, {{64, 64, 24.6308}, {64, 128, 21.5946}, {128, 64, 17.6865}, {128, 128, 15.6339}, {192, 64, 15.4226}, {192, 80, 15.0899}, {128, 176, 15.0116}}},
    };
    // No shape further than 5 % since the eighth pass (the seventh's three listed misses fall within: 192 x 80 at N =
    // 1024, 128 heads, d = 128, and 128 x 128 at 16 heads, N = 4096 and 8192, d = 64). A new miss is listed with why.
    const std::vector<KnownMiss> misses{};
    CHECK(check_auto_picks("attn's round 1 (v13 / v12)", shapes, misses) == 36);
}

// flash_wgmma v14 at every tile it builds (H200, 2026-11-28 17:51 UTC, assets/measurements/h200-bench-2026-11-28-v14:
// N = 1k-16k, d = 64 and 128, 16, 64 and 128 heads, causal and not; two thirds of its points are in the turn's fit,
// scripts/wgmma_turn_fit.py), and the 64-head table of the sixth session's final call (v13, 14:26 UTC,
// assets/measurements/h200-bench-2026-11-28-h64), never fitted on. Before the eighth pass the model picked 192 x 80 at
// d = 128 from N = 1024 with 64-128 heads, 7-10 % behind the best v14 tile (N = 1024, 128 heads: 0.1413 ms against
// 0.1322 at 128 x 128; N = 2048, 64 heads: 0.2494 against 0.2288 at 128 x 176): the turn hid 81 % of three
// warpgroups' exp2 time at d = 128, where v14 measured 192 x 80 level with 128 x 128. Priced since: whole tiles
// (the ragged row block of 192 rows computes all of them) and the rescale of Oi in the turn, which no partner hides.
TEST_CASE("the simulated H200's auto tile against the v14 tile table and the 64-head table", "[auto]") {
    const std::vector<MeasuredShape> v14 = measured_shapes({
        "assets/measurements/h200-bench-2026-11-28-v14/v14_h16_d64.json", "assets/measurements/h200-bench-2026-11-28-v14/v14_h16_d128.json",
        "assets/measurements/h200-bench-2026-11-28-v14/v14_h64_d64.json", "assets/measurements/h200-bench-2026-11-28-v14/v14_h64_d128.json",
        "assets/measurements/h200-bench-2026-11-28-v14/v14_h128_d64.json", "assets/measurements/h200-bench-2026-11-28-v14/v14_h128_d128.json"});
    REQUIRE(v14.size() == 60);
    const std::vector<KnownMiss> v14_misses{
        {1024, 64, 64, 1, "192 x 128 measured 1.07x 128 x 128 (0.0384 against 0.0358 ms; 1.06x in the 64-head table too): "
                          "384 causal items of 1-6 key tiles on 132 SMs, where the model prices the three warpgroups' "
                          "longer turn level with the two's (0.0351 ms both)"},
        {8192, 64, 128, 1, "192 x 80 measured 1.056x 128 x 176 (1.792 against 1.697 ms), where the 64-head table of "
                           "14:26 UTC measured the two and 128 x 128 within 0.5 % (1.6953, 1.6865, 1.6924 ms) and v14 "
                           "changed them by 0.6-1.7 %: the calls' spread at this shape"},
    };
    CHECK(check_auto_picks("v14 table", v14, v14_misses) == 56);
    const std::vector<MeasuredShape> h64 = measured_shapes({"assets/measurements/h200-bench-2026-11-28-h64/h64_d64.json",
                                                            "assets/measurements/h200-bench-2026-11-28-h64/h64_d128.json"});
    REQUIRE(h64.size() == 20);
    const std::vector<KnownMiss> h64_misses{
        {1024, 64, 64, 1, "192 x 128 measured 1.06x 128 x 128 (0.0383 against 0.0360 ms), as in the v14 table"},
        {8192, 64, 128, 0, "192 x 80 measured 1.10x 128 x 176 (3.526 against 3.194 ms), where the v14 table measured the "
                           "reverse (3.217 against 3.556 ms: 192 x 80 the fastest tile): the calls' spread at this shape"},
    };
    CHECK(check_auto_picks("64-head table (v13)", h64, h64_misses) == 20);
}
