// The elementwise kernels' arithmetic on the CPU (kernels/elementwise/elementwise_emulate.cpp): the
// unfused chain's four roundings show, fp32 is tight, a wrong mask is caught, the GPU check's rows,
// the time limit, and the H100's recorded bias_gelu error reproduced.
#include "kernels/sim/emulate.h"
#include "kernels/core/output_check.h"
#include "kernels/core/philox.h"
#include "kernels/elementwise/elementwise.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace kernels;
using namespace kernels::elementwise;

namespace {

ElementwiseParams params(bool chain, DType t, int64_t rows = 48, int64_t hidden = 1000) {
    ElementwiseParams p;
    p.chain = chain;
    p.dtype = t;
    p.rows = rows;
    p.hidden = hidden;  // not a multiple of 8: the row kernel's scalar path, ragged chunks
    p.dropout_p = 0.1;
    return p;
}

EmulatedCheck run(const std::string& variant, const ElementwiseParams& p) {
    const EmulatedCheck e = emulate(variant, p, EmulationBudget{kFullCheck, 30.0, {}});
    REQUIRE(e.computed);
    return e;
}

}  // namespace

TEST_CASE("emulated chain: bf16 rounding errors, four roundings unfused against one fused", "[emulate][elementwise]") {
    for (int64_t hidden : {1000, 1024}) {
        const ElementwiseParams p = params(true, DType::bf16, 48, hidden);
        const EmulatedCheck fused = run("fused", p), unfused = run("unfused", p), spill = run("fused_spill", p);
        // out rounded to bf16 (8 significant bits): ~1.6e-3; the unfused chain also rounds h1, h2, h3:
        // ~3.1e-3 (H100, 8192 x 8192: 1.62e-3 and 3.14e-3).
        CHECK(fused.rel_l2 > 1.0e-3);
        CHECK(fused.rel_l2 < 2.2e-3);
        CHECK(unfused.rel_l2 > 1.5 * fused.rel_l2);
        CHECK(unfused.rel_l2 < relative_tolerance(DType::bf16));
        // fused_spill keeps the recorded code; fused (v6) makes dropout's scale and the residual add one FMA:
        // one rounding apart before the bf16 store, so the error sums agree to 1 %, not to the bit
        CHECK(std::fabs(spill.rel_l2 - fused.rel_l2) <= 0.01 * fused.rel_l2);
    }
}

TEST_CASE("emulated elementwise in fp32 is far tighter than in bf16 and fp16", "[emulate][elementwise]") {
    for (bool chain : {true, false})
        for (const char* v : {"unfused", "fused"}) {
            const double f32 = run(v, params(chain, DType::f32)).rel_l2;
            const double f16 = run(v, params(chain, DType::f16)).rel_l2;
            const double bf16 = run(v, params(chain, DType::bf16)).rel_l2;
            CHECK(f32 > 0);  // the device GELU's erf (1.5e-7) and fp32 rounding
            CHECK(f32 < relative_tolerance(DType::f32));
            CHECK(f32 < f16 / 100);
            CHECK(f16 < bf16);
        }
}

TEST_CASE("an elementwise emulation with the wrong dropout mask is caught", "[emulate][elementwise]") {
    ElementwiseParams p = params(true, DType::bf16);
    std::vector<float> got(static_cast<size_t>(p.hidden));
    std::vector<double> want(static_cast<size_t>(p.hidden));
    ErrorSum right, wrong;
    for (int64_t row : rows_to_check(p)) {
        reference_row(p, row, want.data());
        emulate_row("fused", p, row, got.data());
        right.add(got.data(), want.data(), got.size());
        // A chain that drops with another threshold (p = 0.2 where the kernels use 0.1): a mask
        // that differs in one element of ten, kept ones scaled by 1.25 instead of 1.11.
        ElementwiseParams other = p;
        other.dropout_p = 0.2;
        emulate_row("fused", other, row, got.data());
        wrong.add(got.data(), want.data(), got.size());
    }
    CHECK(right.rel_l2() < 2.2e-3);
    CHECK(wrong.rel_l2() > relative_tolerance(DType::bf16));
}

TEST_CASE("emulated elementwise compares the GPU check's rows - the time limit gives the reason", "[emulate][elementwise]") {
    const ElementwiseParams big = params(true, DType::bf16, 65536, 16384);
    for (const CheckBudget& b : {kFullCheck, kQuickCheck}) {
        const EmulatedCheck e = emulate("unfused", big, EmulationBudget{b, 0.0, {}});
        CHECK_FALSE(e.computed);
        CHECK(e.rows == static_cast<int64_t>(rows_to_check(big, b.max_elements).size()));
        CHECK(e.all_rows == 65536);
    }
    const EmulatedCheck slow = emulate("unfused", big, EmulationBudget{kFullCheck, 0.5, {}});
    CHECK_FALSE(slow.computed);
    CHECK(slow.estimated_s > 0.5);
    CHECK_THAT(slow.why_not, Catch::StartsWith("not emulated: ~") && Catch::Contains("256 sampled rows"));
    const EmulatedCheck all = run("fused", params(false, DType::bf16, 6, 40));
    CHECK(all.rows == 6);
    CHECK_THAT(all.note, Catch::StartsWith("all 6 rows vs the float64 CPU reference"));
}

TEST_CASE("the device GELU on the CPU: A&S erf, within 2e-7 of the exact GELU", "[emulate][elementwise]") {
    double worst = 0;
    for (float x = -6.0f; x <= 6.0f; x += 0.01f)
        worst = std::max(worst, std::fabs(static_cast<double>(gpu_gelu(x)) - gelu(static_cast<double>(x))));
    CHECK(worst > 1e-8);  // not the exact one
    CHECK(worst < 1e-6);
    CHECK(gpu_gelu(0.0f) == 0.0f);
    CHECK(gpu_gelu(-30.0f) == 0.0f);  // exp2 underflows (flushed to zero), GELU(x) -> 0
}

TEST_CASE("the 16-bit GELU on the CPU: the logistic form within 2.6e-5 of the exact GELU everywhere", "[emulate][elementwise]") {
    // kernels/elementwise/gelu_logistic.h's bound, over every 7th float from 2^-10 to 40 in magnitude, both
    // signs (the clamp at |x| = 5 included; past 11 an unclamped polynomial would turn back and give
    // GELU(40) = 0); below 2^-10 GELU(x) = x / 2 to well under the bound
    double worst = 0, worst_relative = 0;
    uint32_t from = 0, to = 0;
    const float lo = 0x1p-10f, hi = 40.0f;
    std::memcpy(&from, &lo, sizeof(from));
    std::memcpy(&to, &hi, sizeof(to));
    for (uint32_t bits = from; bits <= to; bits += 7)
        for (const uint32_t sign : {0u, 0x80000000u}) {
            const uint32_t b = bits | sign;
            float x = 0;
            std::memcpy(&x, &b, sizeof(x));
            const double exact = gelu(static_cast<double>(x));
            const double error = std::fabs(static_cast<double>(gpu_gelu_logistic(x)) - exact);
            worst = std::max(worst, error);
            if (std::fabs(exact) >= 1e-3) worst_relative = std::max(worst_relative, error / std::fabs(exact));
        }
    CHECK(worst > 1e-5);  // not A&S (1.5e-7): the cheaper form
    CHECK(worst < 2.6e-5);
    CHECK(worst_relative < 0.019);
    CHECK(gpu_gelu_logistic(0.0f) == 0.0f);
    CHECK(gpu_gelu_logistic(40.0f) == 40.0f);
    CHECK(gpu_gelu_logistic(-40.0f) == 0.0f);  // 2^{+large} overflows to inf, 1 / inf = 0
    // which form a dtype takes: fp32 outputs keep A&S
    CHECK(gpu_gelu_for(DType::f32, 1.25f) == gpu_gelu(1.25f));
    CHECK(gpu_gelu_for(DType::bf16, 1.25f) == gpu_gelu_logistic(1.25f));
    CHECK(gpu_gelu_for(DType::f16, 1.25f) == gpu_gelu_logistic(1.25f));
}
