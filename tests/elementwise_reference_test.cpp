// Properties of the float64 CPU reference the GPU variants are checked against.
#include "kernels/core/philox.h"
#include "kernels/elementwise/elementwise.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace kernels;
using namespace kernels::elementwise;

TEST_CASE("round_to_dtype lands on the fp16 and bf16 grids, ties to even", "[dtype]") {
    CHECK(round_to_dtype(1.0f + 0x1p-11f, DType::f16) == 1.0f);            // tie -> even (1.0)
    CHECK(round_to_dtype(1.0f + 3 * 0x1p-11f, DType::f16) == 1.0f + 0x1p-9f);  // tie -> even (up)
    CHECK(round_to_dtype(1.0f + 0x1p-10f, DType::f16) == 1.0f + 0x1p-10f);  // representable
    CHECK(round_to_dtype(0x1p-25f * 3, DType::f16) == 0x1p-23f);           // subnormal, tie -> even
    CHECK(round_to_dtype(70000.0f, DType::f16) == INFINITY);
    CHECK(round_to_dtype(1.0f + 0x1p-8f, DType::bf16) == 1.0f);             // tie -> even
    CHECK(round_to_dtype(1.0f + 0x1p-7f, DType::bf16) == 1.0f + 0x1p-7f);
    CHECK(round_to_dtype(-1.0f - 3 * 0x1p-8f, DType::bf16) == -1.0f - 0x1p-6f);
    CHECK(round_to_dtype(0.1f, DType::f32) == 0.1f);
}

TEST_CASE("gelu matches known values", "[reference]") {
    CHECK(gelu(0.0) == 0.0);
    CHECK(gelu(1.0) == Approx(0.8413447460685429));
    CHECK(gelu(-1.0) == Approx(-0.15865525393145707));
    CHECK(gelu(3.0) == Approx(2.995950490));
}

TEST_CASE("bias_gelu reference is GELU of x + bias on the rounded inputs", "[reference]") {
    elementwise::ElementwiseParams p;
    p.chain = false;
    p.dtype = DType::bf16;
    p.rows = 3;
    p.hidden = 37;
    std::vector<double> out(37);
    reference_row(p, 2, out.data());
    for (int64_t c = 0; c < 37; ++c) {
        const double in = static_cast<double>(x_value(p, 2, c)) + bias_value(p, c);
        CHECK(out[static_cast<size_t>(c)] == gelu(in));
        CHECK(x_value(p, 2, c) == round_to_dtype(x_value(p, 2, c), DType::bf16));
    }
}

TEST_CASE("chain reference with p = 0 equals LayerNorm (Welford) -> GELU -> + residual", "[reference]") {
    elementwise::ElementwiseParams p;
    p.chain = true;
    p.dtype = DType::f32;
    p.rows = 2;
    p.hidden = 1000;
    p.dropout_p = 0;
    std::vector<double> out(1000);
    reference_row(p, 1, out.data());
    // An independent formulation: Welford's running mean and M2 instead of two passes.
    double mean = 0, m2 = 0;
    for (int64_t c = 0; c < 1000; ++c) {
        const double x = x_value(p, 1, c), delta = x - mean;
        mean += delta / static_cast<double>(c + 1);
        m2 += delta * (x - mean);
    }
    const double rstd = 1 / std::sqrt(m2 / 1000 + 1e-5);
    double normalised_sq = 0;
    for (int64_t c = 0; c < 1000; ++c) {
        const double n = (x_value(p, 1, c) - mean) * rstd;
        normalised_sq += n * n;
        const double expect = gelu(n * gamma_value(p, c) + beta_value(p, c)) + residual_value(p, 1, c);
        CHECK(out[static_cast<size_t>(c)] == Approx(expect).margin(1e-10));
    }
    CHECK(normalised_sq / 1000 == Approx(1).epsilon(1e-3));  // unit variance (eps shifts it by ~3e-5)
}

TEST_CASE("chain reference drops the Philox-chosen elements and rescales the rest", "[reference][dropout]") {
    elementwise::ElementwiseParams p;
    p.chain = true;
    p.dtype = DType::f16;
    p.rows = 4;
    p.hidden = 512;
    p.dropout_p = 0.5;
    std::vector<double> with(512), without(512);
    reference_row(p, 3, with.data());
    elementwise::ElementwiseParams q = p;
    q.dropout_p = 0;
    reference_row(q, 3, without.data());
    int dropped = 0;
    for (int64_t c = 0; c < 512; ++c) {
        const double res = residual_value(p, 3, c);
        const size_t i = static_cast<size_t>(c);
        if (with[i] == res) {
            ++dropped;
            CHECK_FALSE(dropout_keep(p.seed, 3 * 512 + static_cast<uint64_t>(c), dropout_threshold(0.5)));
        } else {
            CHECK(with[i] - res == Approx(2 * (without[i] - res)));
        }
    }
    CHECK(dropped > 200);
    CHECK(dropped < 312);
}

TEST_CASE("rows_to_check: all rows when small, first/last/spread when large", "[reference]") {
    elementwise::ElementwiseParams p;
    p.rows = 100;
    p.hidden = 100;
    CHECK(rows_to_check(p).size() == 100);
    p.rows = 8192;
    p.hidden = 8192;
    const std::vector<int64_t> r = rows_to_check(p);
    REQUIRE(r.size() == 256);
    CHECK(r.front() == 0);
    CHECK(r.back() == 8191);
    CHECK(std::is_sorted(r.begin(), r.end()));
}
