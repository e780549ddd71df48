// The feed-forward block's arithmetic on the CPU (kernels/ffn/ffn_emulate.cpp): bf16 errors of the
// size its roundings make, fp32 far tighter, the GPU check's rows, and the weights' cost in the limit.
#include "kernels/sim/emulate.h"
#include "kernels/core/output_check.h"
#include "kernels/ffn/ffn.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace kernels;
using namespace kernels::ffn;

namespace {

FfnParams params(DType t) {
    FfnParams p;
    p.dtype = t;
    p.M = 40;
    p.d_model = 256;
    p.d_ff = 1000;
    return p;
}

EmulatedCheck run(const std::string& variant, const FfnParams& p) {
    const EmulatedCheck e = emulate(variant, p, EmulationBudget{kQuickCheck, 30.0, {}});
    REQUIRE(e.computed);
    return e;
}

}  // namespace

TEST_CASE("emulated ffn: fp32 accumulation against float64 with the same roundings", "[emulate][ffn]") {
    const FfnParams b16 = params(DType::bf16), f32 = params(DType::f32);
    for (const char* v : {"unfused", "fused_elementwise", "epilogue", "epilogue_graph"}) {
        const EmulatedCheck b = run(v, b16);
        const EmulatedCheck f = run(v, f32);
        // The reference rounds where the variant stores, so what remains in bf16 is an fp32 sum landing
        // on the other side of a rounding boundary: rare at d_model = 256 (none, or a few), more with
        // longer sums (H100, d_model = 4096: 4e-4 to 9e-4). fp32: the sums' own rounding.
        CHECK(b.rel_l2 < 2e-3);
        CHECK(f.rel_l2 > 0);
        CHECK(f.rel_l2 < relative_tolerance(DType::f32));
        CHECK(b.rows == static_cast<int64_t>(rows_to_check(b16, kQuickCheck.max_mults).size()));
        CHECK(b.elements == b.rows * 256);
    }
}

TEST_CASE("emulated ffn: each variant rounds where it stores", "[emulate][ffn]") {
    const FfnParams p = params(DType::bf16);
    const Weights w = generate_weights(p);
    std::vector<float> unfused(256), fused(256), epilogue(256);
    int64_t differ_fused = 0, differ_epilogue = 0;
    for (int64_t row = 0; row < 8; ++row) {
        emulate_row("unfused", p, w, row, unfused.data());
        emulate_row("fused_elementwise", p, w, row, fused.data());
        emulate_row("epilogue", p, w, row, epilogue.data());
        for (size_t c = 0; c < 256; ++c) {
            differ_fused += unfused[c] != fused[c];        // h2 rounded or not
            differ_epilogue += fused[c] != epilogue[c];    // h1 and y rounded or not, erf or tanh GELU
        }
    }
    CHECK(differ_fused > 0);
    CHECK(differ_epilogue > differ_fused);
}

TEST_CASE("emulated ffn at a prefill size: the weights alone exceed the limit", "[emulate][ffn]") {
    FfnParams p = params(DType::bf16);
    p.M = 2048;
    p.d_model = 4096;
    p.d_ff = 16384;
    const EmulatedCheck e = emulate("epilogue", p, EmulationBudget{kFullCheck, 0.5, {}});
    CHECK_FALSE(e.computed);
    CHECK(e.estimated_s > 2);  // 2 x 64 M weights from Philox before any row
    CHECK(e.rows == static_cast<int64_t>(rows_to_check(p, kFullCheck.max_mults).size()));
    CHECK_THAT(e.why_not, Catch::StartsWith("not emulated: ~"));
}
