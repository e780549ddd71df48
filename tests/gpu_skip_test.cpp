// Every skip-connection variant on the GPU against the float64 CPU reference: random inputs (never
// zeros), poisoned attn_out and out, ragged N, every tile of each kernel (flash_wgmma's on compute
// capability 9.0, refused elsewhere with the reason), both sigma_d, causal and not;
// t = 0 gives out == x bit for bit; large t gives sigma_d x attention; the GPU backend checks and
// times each variant per kernel like the model; refusals say why.
#include "kernels/attention/attention.h"
#include "kernels/attention/attention_gpu.h"
#include "kernels/core/backend.h"
#include "kernels/gpu/sanitizer_run.h"
#include "kernels/skip/skip.h"
#include "kernels/skip/skip_gpu.h"
#include "kernels/core/registry.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using kernels::DType;
using namespace kernels::skip;
using namespace kernels::skip::gpu;

namespace {

SkipParams make(int64_t bh, int64_t batch, int64_t N, int64_t d, DType t, bool causal, double sigma_d, double time,
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
    return p;
}

double tolerance(DType t) { return t == DType::f32 ? 1e-5 : 1e-2; }

bool tensor_cores() { return kernels::attention::gpu::device_limits().cc_major >= 8; }

// flash_wgmma's variants run on compute capability 9.0 alone, and only in builds with sm_90a code:
// elsewhere they must be refused with the reason, and nothing runs.
bool wgmma_runs() {
    const kernels::attention::gpu::DeviceLimits dev = kernels::attention::gpu::device_limits();
    REQUIRE(dev.ok);
    const SkipParams p = make(2, 1, 64, 64, DType::f16, false, 0.5, 1);
    const std::string why = why_not_runnable("wgmma_fused", p);
    if (!(dev.cc_major == 9 && dev.cc_minor == 0)) {
        CHECK_THAT(why, Catch::Contains("wgmma_fused runs flash_wgmma"));
        CHECK_THAT(why, Catch::Contains("compute capability 9.0") || Catch::Contains("not in this build"));
        const Output r = run_once("wgmma_fused", p);
        CHECK_FALSE(r.ok);
        CHECK(r.error == why);
        return false;
    }
    if (why.find("not in this build") != std::string::npos) {
        WARN(why);
        return false;
    }
    REQUIRE(why == "");
    return true;
}

// Relative L2 error of the variant's result against the reference on rows_to_check() rows.
double check_variant(const std::string& variant, const SkipParams& p) {
    INFO(variant << " bh " << p.attn.batch_heads << " batch " << p.batch << " N " << p.attn.N << " d " << p.attn.d << " "
                 << kernels::to_string(p.attn.dtype) << (p.attn.causal ? " causal" : "") << " Br " << p.attn.Br
                 << " Bc " << p.attn.Bc << " sigma_d " << p.sigma_d << " t " << p.t);
    const Output r = run_once(variant, p);
    REQUIRE(r.error == "");
    REQUIRE(r.ok);
    REQUIRE(r.result.size() == static_cast<size_t>(p.attn.batch_heads * p.attn.N * p.attn.d));
    CHECK(r.nonfinite == 0);  // poisoned attn_out / out: every element written
    std::vector<double> want(static_cast<size_t>(p.attn.d));
    double err2 = 0, ref2 = 0;
    for (const kernels::attention::RowRef& rr : kernels::attention::rows_to_check(p.attn, 2e7)) {
        reference_result_row(variant, p, rr.head, rr.row, want.data());
        for (int64_t c = 0; c < p.attn.d; ++c) {
            const double got = r.result[static_cast<size_t>(result_index(variant, p, rr.head, rr.row, c))];
            const double diff = got - want[static_cast<size_t>(c)];
            err2 += diff * diff;
            ref2 += want[static_cast<size_t>(c)] * want[static_cast<size_t>(c)];
        }
    }
    const double rel = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
    INFO("rel L2 " << rel);
    CHECK(rel <= tolerance(p.attn.dtype));
    return rel;
}

}  // namespace

TEST_CASE("skip two_pass and fused on flash_tc match the reference: fp16, bf16, ragged N, causal, both sigma_d",
          "[gpu][skip]") {
    if (!tensor_cores()) {
        CHECK_THAT(why_not_runnable("fused", make(2, 1, 64, 64, DType::f16, false, 0.5, 1)),
                   Catch::Contains("compute capability 8.0"));
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
    if (!tensor_cores()) return;
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
                            const SkipParams p = make(4, 2, N, d, seed % 2 ? DType::bf16 : DType::f16, causal,
                                                      causal ? 1.0 : 0.5, 0.8, Br, Bc, seed);
                            ++seed;
                            if (!why_not_runnable(v, p).empty()) continue;  // a tile too big for shared memory
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
                const SkipParams p = make(4, 2, 100, 64, t, causal, causal ? 1.0 : 0.5, 0.8, Br, Bc, seed++);
                if (!why_not_runnable(v, p).empty()) continue;  // a tile too big for shared memory
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
    const bool wgmma = wgmma_runs();
    for (const char* v : {"two_pass", "fused", "teaching_two_pass", "teaching_fused", "wgmma_two_pass", "wgmma_fused"}) {
        const bool tc = std::string(v).rfind("teaching", 0) != 0;
        const bool on_wgmma = base_variant(v) == "flash_wgmma";
        if (tc && !tensor_cores()) continue;
        if (on_wgmma && !wgmma) continue;
        for (DType t : tc ? std::vector<DType>{DType::f16, DType::bf16} : std::vector<DType>{DType::f32, DType::bf16})
            for (bool causal : {false, true}) {
                const SkipParams p = make(4, 2, 129, 64, t, causal, 0.5, 0.0, on_wgmma ? 128 : 32, 64, 77);
                const Output r = run_once(v, p);
                INFO(v << " " << kernels::to_string(t));
                REQUIRE(r.ok);
                int64_t different = 0;
                for (int64_t bh = 0; bh < 4; ++bh)
                    for (int64_t row = 0; row < 129; ++row)
                        for (int64_t c = 0; c < 64; ++c) {
                            const float want = x_value(p, bh, row, c);
                            const float got = r.result[static_cast<size_t>(result_index(v, p, bh, row, c))];
                            different += std::memcmp(&want, &got, sizeof want) != 0;
                        }
                CHECK(different == 0);
            }
    }
}

TEST_CASE("skip large t: out is close to sigma_d x attention", "[gpu][skip]") {
    const bool wgmma = wgmma_runs();
    for (double s : {0.5, 1.0})
        for (const char* v : {"fused", "teaching_fused", "wgmma_fused"}) {
            if (std::string(v) == "fused" && !tensor_cores()) continue;
            if (std::string(v) == "wgmma_fused" && !wgmma) continue;
            const SkipParams p = make(2, 1, 200, 64, DType::f16, false, s, 1000.0, 64, 64, 5);
            const Output fused = run_once(v, p);
            const kernels::attention::gpu::Output att = kernels::attention::gpu::run_once(base_variant(v), p.attn);
            REQUIRE(fused.ok);
            REQUIRE(att.ok);
            double worst = 0;
            for (int64_t bh = 0; bh < 2; ++bh)
                for (int64_t row = 0; row < 200; ++row)
                    for (int64_t c = 0; c < 64; ++c) {
                        const double o = fused.result[static_cast<size_t>(result_index(v, p, bh, row, c))];
                        const double a = att.out[static_cast<size_t>((bh * 200 + row) * 64 + c)];
                        worst = std::max(worst, std::fabs(o - s * a));
                    }
            INFO(v << " sigma_d " << s << ": max |out - sigma_d attention| " << worst);
            CHECK(worst < 5e-3);  // c_skip = 2.5e-7 at most; fp16 rounding of out ~ 1e-3
        }
}

TEST_CASE("skip refusals name the reason, and nothing runs", "[gpu][skip]") {
    CHECK_THAT(why_not_runnable("fused", make(2, 1, 64, 64, DType::f32, false, 0.5, 1)),
               Catch::Contains("fp16 or bf16"));
    CHECK_THAT(why_not_runnable("wgmma_fused", make(2, 1, 64, 32, DType::f16, false, 0.5, 1)),
               Catch::Contains("wgmma_fused runs flash_wgmma, built for d = 64 or 128, not d = 32"));
    CHECK_THAT(why_not_runnable("wgmma_two_pass", make(2, 1, 64, 64, DType::f16, false, 0.5, 1, 32, 64)),
               Catch::Contains("flash_wgmma takes Br = 64, 128 or 192"));
    CHECK_THAT(why_not_runnable("two_pass", make(2, 1, 64, 96, DType::f16, false, 0.5, 1)),
               Catch::Contains("d = 96"));
    const Output r = run_once("fused", make(6, 4, 64, 64, DType::f16, false, 0.5, 1));
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("batch = 4 does not divide batch x heads = 6"));
}

TEST_CASE("GPU backend runs skip: checked, timed per kernel like the model", "[gpu][skip]") {
    std::string why;
    auto backend = kernels::make_gpu_backend(&why);
    REQUIRE(backend != nullptr);
    for (const auto& v : variants()) {
        kernels::Job job;
        job.backend = kernels::BackendKind::gpu;
        job.variant = v.name;
        job.params = to_params(make(8, 2, 1000, 64, DType::f16, v.name == "fused", 0.5, 2.0));
        job.reps = kernels::sanitizer_run() ? 2 : 20;  // compute-sanitizer checks accesses, not times
        const std::string refusal = backend->unavailable_reason(job);
        if (!tensor_cores() && base_variant(v.name) == "flash_tc") {
            CHECK_THAT(refusal, Catch::Contains("compute capability 8.0"));
            continue;
        }
        if (base_variant(v.name) == "flash_wgmma" && !wgmma_runs()) {
            if (refusal.empty()) CHECK_THAT(why_not_runnable(v.name, to_skip(job.params)), Catch::Contains("not in this build"));
            else CHECK_THAT(refusal, Catch::Contains("compute capability 9.0"));
            continue;
        }
        REQUIRE(refusal.empty());
        const kernels::Measurement m = backend->run(job, {});
        INFO(v.name << ": " << m.error);
        REQUIRE(m.ok);
        CHECK(m.checked);
        CHECK(m.rel_l2_error <= 1e-2);
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
    bad.params = to_params(make(6, 4, 64, 64, DType::f16, false, 0.5, 1));
    const kernels::Measurement m = backend->run(bad, {});
    CHECK_FALSE(m.ok);
    CHECK_FALSE(m.refused);
    CHECK_THAT(m.error, Catch::Contains("does not divide"));
}
