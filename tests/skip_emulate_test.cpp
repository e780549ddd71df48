// The skip workload's arithmetic on the CPU (kernels/skip/skip_emulate.cpp): t = 0 is exact, the
// attention variant is attention's flash_tc, two_pass rounds attn_out once more than fused, fp32 is
// tight, the wgmma variants follow flash_wgmma's tile, the GPU check's rows and the time limit.
#include "kernels/attention/attention_emulate.h"
#include "kernels/sim/emulate.h"
#include "kernels/core/output_check.h"
#include "kernels/skip/skip.h"

#include <catch2/catch.hpp>

#include <string>
#include <utility>

using namespace kernels;
using namespace kernels::skip;

namespace {

SkipParams params(DType t, double noise) {
    SkipParams p;
    p.attn.batch_heads = 4;
    p.attn.N = 192;
    p.attn.d = 64;
    p.attn.dtype = t;
    p.attn.Br = 32;
    p.attn.Bc = 32;
    p.batch = 2;
    p.t = noise;
    p.sigma_d = 0.5;
    return p;
}

EmulatedCheck run(const std::string& variant, const SkipParams& p) {
    const EmulatedCheck e = emulate(variant, p, EmulationBudget{kFullCheck, 30.0, {}});
    REQUIRE(e.computed);
    return e;
}

}  // namespace

TEST_CASE("emulated skip: t = 0 gives out = x exactly - attention is flash_tc's O", "[emulate][skip]") {
    for (const char* v : {"two_pass", "fused", "teaching_two_pass", "teaching_fused"}) {
        const EmulatedCheck e = run(v, params(DType::f16, 0.0));
        CHECK(e.max_abs == 0.0);  // c_skip = 1, c_out = 0: out is x bit for bit, as on the GPU
        CHECK(e.rel_l2 == 0.0);
    }
    const SkipParams p = params(DType::f16, 2.0);
    const EmulatedCheck a = run("attention", p);
    const EmulatedCheck tc = attention::emulate("flash_tc", p.attn, EmulationBudget{kFullCheck, 30.0, {}});
    CHECK(a.rel_l2 == tc.rel_l2);
    CHECK(a.max_abs == tc.max_abs);
    CHECK_THAT(a.note, Catch::Contains("rows of attn_out"));
}

TEST_CASE("emulated skip: fp16 errors of the size rounding makes, fp32 far tighter", "[emulate][skip]") {
    const SkipParams p = params(DType::f16, 2.0);
    const EmulatedCheck two = run("two_pass", p), fused = run("fused", p);
    const EmulatedCheck teaching = run("teaching_fused", p);
    // out rounded to fp16 (H100 at N = 4096: 2.07e-4 for every variant); two_pass rounds attn_out too,
    // scaled by c_out < 1 it barely shows.
    for (const EmulatedCheck* e : {&two, &fused, &teaching}) {
        CHECK(e->rel_l2 > 1.5e-4);
        CHECK(e->rel_l2 < 2.6e-4);
    }
    CHECK(two.rel_l2 != fused.rel_l2);
    const SkipParams p32 = params(DType::f32, 2.0);
    const EmulatedCheck f32 = run("teaching_fused", p32);
    CHECK(f32.rel_l2 < relative_tolerance(DType::f32));
    CHECK(f32.rel_l2 < teaching.rel_l2 / 100);
}

TEST_CASE("emulated skip on flash_wgmma: its own tile's arithmetic, then the same epilogue as flash_tc's",
          "[emulate][skip]") {
    SkipParams p = params(DType::f16, 0.0);
    p.attn.Br = 64;
    p.attn.Bc = 64;
    for (const char* v : {"wgmma_two_pass", "wgmma_fused"}) {
        const EmulatedCheck e = run(v, p);
        CHECK(e.max_abs == 0.0);  // t = 0: out is x bit for bit
        CHECK_THAT(e.note, Catch::Contains("rows of out"));
    }
    p.t = 2.0;
    for (auto [br, bc] : {std::pair<int, int>{64, 64}, {128, 64}, {64, 128}, {128, 128}}) {
        p.attn.Br = br;
        p.attn.Bc = bc;
        INFO("tile " << br << "x" << bc);
        const EmulatedCheck two = run("wgmma_two_pass", p), fused = run("wgmma_fused", p);
        CHECK(fused.rel_l2 > 1.5e-4);  // out rounded to fp16, as for flash_tc's variants
        CHECK(fused.rel_l2 < 2.6e-4);
        CHECK(two.rel_l2 != fused.rel_l2);  // two_pass rounds attn_out once more
        // flash_wgmma's row is flash_tc's arithmetic on its own tile, and both epilogues compute out the
        // same way: on the same tile the emulated errors are the same numbers.
        const EmulatedCheck tc_fused = run("fused", p), tc_two = run("two_pass", p);
        CHECK(fused.rel_l2 == tc_fused.rel_l2);
        CHECK(fused.max_abs == tc_fused.max_abs);
        CHECK(two.rel_l2 == tc_two.rel_l2);
    }
    // A different tile sums in a different order: the error moves (the tile is wgmma's, not a fixed one).
    p.attn.Br = 64;
    p.attn.Bc = 64;
    const double at64 = run("wgmma_fused", p).rel_l2;
    p.attn.Bc = 128;
    CHECK(run("wgmma_fused", p).rel_l2 != at64);
}

TEST_CASE("emulated skip compares the GPU check's rows - the time limit gives the reason", "[emulate][skip]") {
    SkipParams p = params(DType::f16, 1.0);
    p.attn.batch_heads = 64;
    p.batch = 8;
    p.attn.N = 16384;
    for (const CheckBudget& b : {kFullCheck, kQuickCheck}) {
        const EmulatedCheck e = emulate("fused", p, EmulationBudget{b, 0.0, {}});
        CHECK(e.rows == static_cast<int64_t>(attention::rows_to_check(p.attn, b.max_mults).size()));
    }
    const EmulatedCheck slow = emulate("two_pass", p, EmulationBudget{kFullCheck, 0.5, {}});
    CHECK_FALSE(slow.computed);
    CHECK_THAT(slow.why_not, Catch::StartsWith("not emulated: ~"));
}
