// Every skip-connection variant through the GPU backend's checked run against the float64 CPU
// reference: random inputs (never zeros), poisoned attn_out and out, ragged N, every tile of each
// kernel (flash_wgmma's on compute capability 9.0, refused elsewhere with the reason and those cases
// skipped), both sigma_d, causal and not; t = 0 gives out == x bit for bit (zero error against the
// reference, which is x exactly there); the backend times each variant per kernel like the model;
// refusals say why.
#include "kernels/attention/attention.h"
#include "kernels/core/backend.h"
#include "kernels/core/output_check.h"
#include "kernels/core/registry.h"
#include "kernels/skip/skip.h"
#include "tests/gpu_backend_fixture.h"
#include "tests/test_skip.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using kernels::DType;
using namespace kernels::skip;
using fl_test::gpu_refusal;

namespace {

kernels::Params make(int64_t bh, int64_t batch, int64_t N, int64_t d, DType t, bool causal, double sigma_d, double time,
                     int Br = 64, int Bc = 64, uint64_t seed = 1) {
    SkipParams p;
    p.attn.batch_heads = bh;
    p.attn.N = N;
    p.attn.d = d;
    p.attn.dtype = t;
    p.attn.causal = causal;
    p.attn.Br = Br;
    p.attn.Bc = Bc;
    p.attn.seed = seed;
    p.batch = batch;
    p.sigma_d = sigma_d;
    p.t = time;
    return to_params(p);
}

bool tensor_cores() { return fl_test::gpu_device().cc_major >= 8; }

// flash_wgmma's variants run on compute capability 9.0 alone, and only in builds with sm_90a code:
// elsewhere they must be refused with the reason, and nothing runs. Returns whether they run here.
bool wgmma_runs_here() {
    const kernels::DeviceInfo& dev = fl_test::gpu_device();
    const kernels::Params p = make(2, 1, 64, 64, DType::f16, false, 0.5, 1);
    const std::string why = gpu_refusal(p, "wgmma_fused");
    if (why.empty()) {
        REQUIRE((dev.cc_major == 9 && dev.cc_minor == 0));
        return true;
    }
    CHECK_THAT(why, Catch::Contains("wgmma_fused runs flash_wgmma"));
    CHECK_THAT(why, Catch::Contains("compute capability 9.0") || Catch::Contains("not in this build"));
    const kernels::Measurement m = fl_test::run_gpu_job(p, "wgmma_fused");
    CHECK_FALSE(m.ok);
    CHECK(m.refused);
    CHECK(m.error == why);
    return false;
}

// For the test cases that need flash_wgmma: false, with the case skipped and the reason, where it
// does not run here.
bool wgmma_runs() {
    if (wgmma_runs_here()) return true;
    fl_test::skip("the wgmma variants do not run here: " + gpu_refusal(make(2, 1, 64, 64, DType::f16, false, 0.5, 1), "wgmma_fused"));
    return false;
}

kernels::Measurement check_variant(const std::string& variant, const kernels::Params& p) {
    return fl_test::check_on_gpu(p, variant);
}

}  // namespace

TEST_CASE("skip two_pass and fused on flash_tc match the reference: fp16, bf16, ragged N, causal, both sigma_d",
          "[gpu][skip]") {
    if (!tensor_cores()) {
        CHECK_THAT(gpu_refusal(make(2, 1, 64, 64, DType::f16, false, 0.5, 1), "fused"),
                   Catch::Contains("compute capability 8.0"));
        fl_test::skip("flash_tc needs compute capability 8.0; this GPU refuses it (checked above)");
        return;
    }
    uint64_t seed = 10;
    for (const char* v : {"attention", "two_pass", "fused"})
        for (DType t : {DType::f16, DType::bf16})
            for (int64_t d : {32, 64, 128})
                for (int64_t N : {1, 17, 129, 1000})
                    for (bool causal : {false, true}) {
                        const double sigma_d = seed % 2 == 0 ? 0.5 : 1.0;  // both, alternating
                        check_variant(v, make(6, 3, N, d, t, causal, sigma_d, 1.5, 64, 64, seed++));
                    }
}

TEST_CASE("skip two_pass and fused on flash_tc: every tile flash_tc offers", "[gpu][skip]") {
    if (!tensor_cores()) {
        fl_test::skip("flash_tc needs compute capability 8.0");
        return;
    }
    // The fused epilogue loads the x tile into Qi's place: during the last key tile when each warp
    // keeps its Qi fragments in registers (16 rows per warp), after the loop when it re-reads them
    // (32 rows per warp, Br = 128); N = 1 (one key tile), 129 and 300 (ragged, several tiles).
    uint64_t seed = 50;
    for (const char* v : {"two_pass", "fused"})
        for (int64_t d : {32, 64, 128})
            for (int Br : kernels::attention::kTileSizes)
                for (int Bc : kernels::attention::kTcTileSizes)
                    for (int64_t N : {1, 129, 300})
                        for (bool causal : {false, true}) {
                            const kernels::Params p = make(4, 2, N, d, seed % 2 ? DType::bf16 : DType::f16, causal,
                                                           causal ? 1.0 : 0.5, 0.8, Br, Bc, seed);
                            ++seed;
                            if (const std::string why = gpu_refusal(p, v); !why.empty()) {
                                CHECK_THAT(why, Catch::Contains("bytes of shared memory"));  // a tile too big
                                continue;
                            }
                            check_variant(v, p);
                        }
}

TEST_CASE("skip wgmma_two_pass and wgmma_fused match the reference: every tile, d 64/128, fp16/bf16, ragged N",
          "[gpu][skip][wgmma]") {
    if (!wgmma_runs()) return;
    // The fused epilogue's x tile comes in by TMA from [batch, N, heads d] (a 4-d tensor map) once a
    // consumer warpgroup's last Sij is done: N = 1 (one key tile, the x copy right after the first
    // product), 17 and 129 (rows past N zero-filled and not stored; a one-row last block at 129 with
    // Br = 64 or 128), 300 (several tiles); batch 3 of 2 heads and 2 of 3 heads, so a wrong head or
    // batch coordinate of the map shows.
    uint64_t seed = 3000;
    for (const char* v : {"wgmma_two_pass", "wgmma_fused"})
        for (DType t : {DType::f16, DType::bf16})
            for (int64_t d : {64, 128})
                for (int Br : kernels::attention::kWgmmaRowTiles)
                    for (int Bc : kernels::attention::kWgmmaColTiles)
                        for (int64_t N : {1, 17, 129, 300})
                            for (bool causal : {false, true}) {
                                if (!kernels::attention::wgmma_tile_built(Br, Bc, d)) continue;  // refused: registers
                                const int64_t batch = seed % 2 == 0 ? 3 : 2;
                                check_variant(v, make(6, batch, N, d, t, causal, seed % 3 == 0 ? 1.0 : 0.5, 1.5, Br, Bc, seed));
                                ++seed;
                            }
}

TEST_CASE("skip wgmma_fused: longer sequences, many heads, sampled rows", "[gpu][skip][wgmma]") {
    if (!wgmma_runs()) return;
    uint64_t seed = 3500;
    for (bool causal : {false, true})
        for (int64_t d : {64, 128}) {
            // 4097: the last row block has one row; 40 problems as 8 batch elements of 5 heads.
            check_variant("wgmma_fused", make(4, 2, 4097, d, DType::f16, causal, 0.5, 2.0, 128, 128, seed++));
            check_variant("wgmma_fused", make(40, 8, 1000, d, DType::bf16, causal, 1.0, 0.7, 128, 64, seed++));
            check_variant("wgmma_two_pass", make(40, 8, 1000, d, DType::f16, causal, 0.5, 0.7, 64, 128, seed++));
        }
}

// One small run per tile and d for compute-sanitizer (scripts/gpu_sanitize.sh --tests): ragged N = 129.
TEST_CASE("skip wgmma small: every tile once, for the sanitizers", "[gpu][skip][wgmma]") {
    if (!wgmma_runs()) return;
    uint64_t seed = 3900;
    for (const char* v : {"wgmma_two_pass", "wgmma_fused"})
        for (int64_t d : {64, 128})
            for (int Br : kernels::attention::kWgmmaRowTiles)
                for (int Bc : kernels::attention::kWgmmaColTiles) {
                    if (!kernels::attention::wgmma_tile_built(Br, Bc, d)) continue;  // refused: registers
                    const bool causal = seed % 2 == 1;
                    check_variant(v, make(2, 2, 129, d, causal ? DType::bf16 : DType::f16, causal, 0.5, 1.0, Br, Bc, seed++));
                }
}

// Every Br x Bc of a teaching variant in one dtype, causal and not, at a ragged N = 100. One test
// case per variant and dtype (six, not one) so a compute-sanitizer run can spread the ~300
// launches over processes (scripts/gpu_sanitize.sh --parallel shards by test case).
namespace {
void check_every_tile(const char* v, DType t, uint64_t seed) {
    for (int Br : kernels::attention::kTileSizes)
        for (int Bc : kernels::attention::kTileSizes)
            for (bool causal : {false, true}) {
                const kernels::Params p = make(4, 2, 100, 64, t, causal, causal ? 1.0 : 0.5, 0.8, Br, Bc, seed++);
                if (const std::string why = gpu_refusal(p, v); !why.empty()) {
                    CHECK_THAT(why, Catch::Contains("bytes of shared memory"));  // a tile too big
                    continue;
                }
                check_variant(v, p);
            }
}
}  // namespace

TEST_CASE("skip teaching_two_pass matches the reference for every tile size: fp16", "[gpu][skip]") {
    check_every_tile("teaching_two_pass", DType::f16, 1000);
}
TEST_CASE("skip teaching_two_pass matches the reference for every tile size: bf16", "[gpu][skip]") {
    check_every_tile("teaching_two_pass", DType::bf16, 1100);
}
TEST_CASE("skip teaching_two_pass matches the reference for every tile size: fp32", "[gpu][skip]") {
    check_every_tile("teaching_two_pass", DType::f32, 1200);
}
TEST_CASE("skip teaching_fused matches the reference for every tile size: fp16", "[gpu][skip]") {
    check_every_tile("teaching_fused", DType::f16, 1300);
}
TEST_CASE("skip teaching_fused matches the reference for every tile size: bf16", "[gpu][skip]") {
    check_every_tile("teaching_fused", DType::bf16, 1400);
}
TEST_CASE("skip teaching_fused matches the reference for every tile size: fp32", "[gpu][skip]") {
    check_every_tile("teaching_fused", DType::f32, 1500);
}

TEST_CASE("skip teaching variants match the reference at odd d (the scalar path) and odd tiles", "[gpu][skip]") {
    uint64_t seed = 1600;
    for (const char* v : {"teaching_two_pass", "teaching_fused"})
        for (int64_t d : {1, 7, 33, 80})  // the skip kernel's scalar path (d % 8 != 0)
            for (int64_t N : {1, 17, 257})
                check_variant(v, make(4, 4, N, d, DType::f32, N == 17, 0.5, 2.0, 32, 16, seed++));
}

TEST_CASE("skip t = 0: out == x bit for bit on the GPU, every variant that writes out", "[gpu][skip]") {
    // At t = 0 the reference's out is x exactly (c_skip = 1, c_out = 0: skip_reference_test.cpp), and
    // every row is compared at this size: a zero error is out == x, element for element.
    const bool tc_runs = tensor_cores(), wgmma = wgmma_runs_here();
    for (const char* v : {"two_pass", "fused", "teaching_two_pass", "teaching_fused", "wgmma_two_pass", "wgmma_fused"}) {
        const bool tc = std::string(v).rfind("teaching", 0) != 0;
        const bool on_wgmma = base_variant(v) == "flash_wgmma";
        if ((tc && !tc_runs) || (on_wgmma && !wgmma)) continue;  // refused: checked by the other cases
        for (DType t : tc ? std::vector<DType>{DType::f16, DType::bf16} : std::vector<DType>{DType::f32, DType::bf16})
            for (bool causal : {false, true}) {
                const kernels::Params p = make(4, 2, 129, 64, t, causal, 0.5, 0.0, on_wgmma ? 128 : 32, 64, 77);
                const kernels::Measurement m = check_variant(v, p);
                INFO(v << " " << kernels::to_string(t) << ": " << m.check_note);
                CHECK(m.checked_elements == 4 * 129 * 64);
                CHECK(m.max_abs_error == 0);
            }
    }
}

TEST_CASE("skip large t: the fused variants match the reference where out is sigma_d x attention", "[gpu][skip]") {
    // t = 1000: c_skip <= 2.5e-7 and c_out = sigma_d to 1e-7, so out is sigma_d x attention
    // (skip_reference_test.cpp); the GPU's out is compared with that reference.
    const bool tc_runs = tensor_cores(), wgmma = wgmma_runs_here();
    for (double s : {0.5, 1.0})
        for (const char* v : {"fused", "teaching_fused", "wgmma_fused"}) {
            if ((std::string(v) == "fused" && !tc_runs) || (std::string(v) == "wgmma_fused" && !wgmma)) continue;
            const kernels::Measurement m = check_variant(v, make(2, 1, 200, 64, DType::f16, false, s, 1000.0, 64, 64, 5));
            CHECK(m.checked_elements == 2 * 200 * 64);
        }
}

TEST_CASE("skip refusals name the reason, and nothing runs", "[gpu][skip]") {
    CHECK_THAT(gpu_refusal(make(2, 1, 64, 64, DType::f32, false, 0.5, 1), "fused"), Catch::Contains("fp16 or bf16"));
    CHECK_THAT(gpu_refusal(make(2, 1, 64, 32, DType::f16, false, 0.5, 1), "wgmma_fused"),
               Catch::Contains("wgmma_fused runs flash_wgmma, built for d = 64 or 128, not d = 32"));
    CHECK_THAT(gpu_refusal(make(2, 1, 64, 64, DType::f16, false, 0.5, 1, 32, 64), "wgmma_two_pass"),
               Catch::Contains("flash_wgmma takes Br = 64, 128 or 192"));
    CHECK_THAT(gpu_refusal(make(2, 1, 64, 96, DType::f16, false, 0.5, 1), "two_pass"), Catch::Contains("d = 96"));
    const kernels::Measurement m = fl_test::run_gpu_job(make(6, 4, 64, 64, DType::f16, false, 0.5, 1), "fused");
    CHECK_FALSE(m.ok);
    CHECK_THAT(m.error, Catch::Contains("batch = 4 does not divide batch x heads = 6"));
}

TEST_CASE("GPU backend runs skip: checked, timed per kernel like the model", "[gpu][skip]") {
    kernels::Backend* backend = &fl_test::gpu_backend();
    for (const auto& v : variants()) {
        kernels::Job job;
        job.backend = kernels::BackendKind::gpu;
        job.variant = v.name;
        job.params = make(8, 2, 1000, 64, DType::f16, v.name == "fused", 0.5, 2.0);
        job.reps = kernels::sanitizer_run() ? 2 : 20;  // compute-sanitizer checks accesses, not times
        const std::string refusal = backend->unavailable_reason(job);
        if (!tensor_cores() && base_variant(v.name) == "flash_tc") {
            CHECK_THAT(refusal, Catch::Contains("compute capability 8.0"));
            continue;
        }
        if (base_variant(v.name) == "flash_wgmma" && !wgmma_runs_here()) {
            CHECK_THAT(refusal, Catch::Contains("compute capability 9.0") || Catch::Contains("not in this build"));
            continue;
        }
        REQUIRE(refusal.empty());
        const kernels::Measurement m = backend->run(job, {});
        INFO(v.name << ": " << m.error);
        REQUIRE(m.ok);
        CHECK(m.checked);
        CHECK(kernels::output_matches(m.job.params.dtype, m.rel_l2_error, m.max_abs_error));
        CHECK(m.time.reps >= job.reps);
        const kernels::Model model = kernels::model(v.name, job.params);
        REQUIRE(m.kernels.size() == model.kernels.size());
        for (size_t k = 0; k < model.kernels.size(); ++k) CHECK(m.kernels[k].name == model.kernels[k].name);
        // The measurement carries the model at both levels: DRAM (the L2 reuse model for this
        // device's L2) as its bytes, and what the kernels' loads and stores ask for.
        CHECK(m.bytes() == kernels::model(v.name, job.params, static_cast<uint64_t>(m.device.l2_bytes)).dram_bytes());
        CHECK(m.l2_bytes_read + m.l2_bytes_written == model.bytes());
    }
    // A bad batch is a validation error, not a refusal.
    kernels::Job bad;
    bad.backend = kernels::BackendKind::gpu;
    bad.variant = "fused";
    bad.params = make(6, 4, 64, 64, DType::f16, false, 0.5, 1);
    const kernels::Measurement m = backend->run(bad, {});
    CHECK_FALSE(m.ok);
    CHECK_FALSE(m.refused);
    CHECK_THAT(m.error, Catch::Contains("does not divide"));
}
