// Properties of the float64 skip-connection reference: the coefficients' boundaries, t = 0 gives x,
// large t gives sigma_d x attention, t_b per batch element, the [batch, N, heads d] layout of x,
// and random, distinct inputs.
#include "kernels/skip/skip.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <vector>

using namespace kernels;
using namespace kernels::skip;

namespace {

SkipParams make(int64_t bh, int64_t batch, int64_t N, int64_t d, DType t, bool causal, double sigma_d, double time) {
    SkipParams p;
    p.attn.batch_heads = bh;
    p.attn.N = N;
    p.attn.d = d;
    p.attn.dtype = t;
    p.attn.causal = causal;
    p.attn.seed = 99;
    p.batch = batch;
    p.sigma_d = sigma_d;
    p.t = time;
    return p;
}

std::vector<double> out_row(const SkipParams& p, int64_t bh, int64_t row) {
    std::vector<double> o(static_cast<size_t>(p.attn.d));
    reference_out_row(p, bh, row, o.data());
    return o;
}

std::vector<double> attention_row(const SkipParams& p, int64_t bh, int64_t row) {
    std::vector<double> o(static_cast<size_t>(p.attn.d));
    attention::reference_row(p.attn, bh, row, o.data());
    return o;
}

}  // namespace

TEST_CASE("c_skip and c_out: boundaries and the consistency-model identity", "[skip][reference]") {
    for (double s : {0.5, 1.0}) {
        CHECK(c_skip(s, 0) == 1.0);
        CHECK(c_out(s, 0) == 0.0);
        CHECK(c_skip(s, s) == Approx(0.5));
        CHECK(c_out(s, 1e6) == Approx(s).epsilon(1e-9));
        CHECK(c_skip(s, 1e6) < 1e-12);
        // c_skip² σ_d² ... the parametrisation keeps c_skip(t) (t² + σ²) = σ² and c_out² = σ² t² / (σ² + t²).
        for (double t : {0.002, 0.3, 1.0, 80.0}) {
            CHECK(c_skip(s, t) * (t * t + s * s) == Approx(s * s));
            CHECK(c_out(s, t) * c_out(s, t) == Approx(s * s * t * t / (s * s + t * t)));
        }
    }
}

TEST_CASE("t_b = t (b + 1) / batch: the last element has t, t = 0 zeroes them all", "[skip][reference]") {
    SkipParams p = make(8, 4, 16, 8, DType::f32, false, 0.5, 2.0);
    CHECK(t_of(p, 0) == Approx(0.5));
    CHECK(t_of(p, 3) == Approx(2.0));
    p.t = 0;
    for (int64_t b = 0; b < 4; ++b) CHECK(t_of(p, b) == 0.0);
}

TEST_CASE("t = 0: out equals x exactly, for every dtype, causal or not", "[skip][reference]") {
    for (DType t : {DType::f32, DType::f16, DType::bf16})
        for (bool causal : {false, true}) {
            const SkipParams p = make(4, 2, 33, 16, t, causal, 0.5, 0.0);
            for (int64_t bh = 0; bh < 4; ++bh)
                for (int64_t row : {int64_t{0}, int64_t{17}, int64_t{32}}) {
                    const std::vector<double> o = out_row(p, bh, row);
                    for (int64_t c = 0; c < p.attn.d; ++c)
                        CHECK(o[static_cast<size_t>(c)] == static_cast<double>(x_value(p, bh, row, c)));
                }
        }
}

TEST_CASE("large t: out approaches sigma_d x attention (attention itself for sigma_d = 1)", "[skip][reference]") {
    for (double s : {0.5, 1.0}) {
        const SkipParams p = make(2, 1, 40, 16, DType::f32, true, s, 1000.0);
        for (int64_t row : {int64_t{0}, int64_t{39}}) {
            const std::vector<double> o = out_row(p, 1, row), a = attention_row(p, 1, row);
            for (size_t c = 0; c < o.size(); ++c) CHECK(o[c] == Approx(s * a[c]).margin(2e-3));
        }
    }
}

TEST_CASE("each batch element uses its own t: heads of one element share the coefficients", "[skip][reference]") {
    const SkipParams p = make(6, 3, 12, 8, DType::f32, false, 1.0, 3.0);  // 2 heads per element
    for (int64_t bh = 0; bh < 6; ++bh) {
        const double t = t_of(p, bh / 2);
        const std::vector<double> o = out_row(p, bh, 5), a = attention_row(p, bh, 5);
        for (int64_t c = 0; c < p.attn.d; ++c)
            CHECK(o[static_cast<size_t>(c)] ==
                  Approx(c_skip(1.0, t) * x_value(p, bh, 5, c) + c_out(1.0, t) * a[static_cast<size_t>(c)]));
    }
    CHECK(t_of(p, 0) != t_of(p, 2));
}

TEST_CASE("x is laid out [batch, N, heads d]: one index per element, head h at columns h d..", "[skip][reference]") {
    const SkipParams p = make(6, 2, 5, 4, DType::f32, false, 0.5, 1.0);  // 3 heads per element, C = 12
    std::set<uint64_t> seen;
    for (int64_t bh = 0; bh < 6; ++bh)
        for (int64_t r = 0; r < 5; ++r)
            for (int64_t c = 0; c < 4; ++c) seen.insert(bnc_index(p, bh, r, c));
    CHECK(seen.size() == 6u * 5u * 4u);
    CHECK(*seen.rbegin() == 6u * 5u * 4u - 1);
    CHECK(bnc_index(p, 0, 0, 0) == 0);
    CHECK(bnc_index(p, 1, 0, 0) == 4);          // head 1 of element 0: the next d columns of row 0
    CHECK(bnc_index(p, 0, 1, 0) == 12);         // row 1 of element 0 starts after C = 12 columns
    CHECK(bnc_index(p, 3, 0, 0) == 5u * 12u);   // element 1 starts after N C
}

TEST_CASE("x is random, dtype-representable, and differs from q, k, v", "[skip][reference]") {
    const SkipParams p = make(2, 1, 64, 16, DType::bf16, false, 0.5, 1.0);
    int zeros = 0;
    std::set<float> values;
    for (int64_t r = 0; r < 64; ++r)
        for (int64_t c = 0; c < 16; ++c) {
            const float x = x_value(p, 1, r, c);
            CHECK(round_to_dtype(x, DType::bf16) == x);
            zeros += x == 0.0f;
            values.insert(x);
            CHECK(std::isfinite(x));
        }
    CHECK(zeros < 8);
    CHECK(values.size() > 100);
    int same_as_v = 0;
    for (int64_t r = 0; r < 64; ++r) same_as_v += x_value(p, 0, r, 0) == attention::v_value(p.attn, 0, r, 0);
    CHECK(same_as_v < 8);
}

TEST_CASE("the variant attention's result is attention itself - the others' is out", "[skip][reference]") {
    const SkipParams p = make(2, 2, 20, 8, DType::f32, false, 0.5, 1.5);
    std::vector<double> a(8), o(8);
    reference_result_row("attention", p, 1, 3, a.data());
    reference_result_row("fused", p, 1, 3, o.data());
    CHECK(a == attention_row(p, 1, 3));
    CHECK(o == out_row(p, 1, 3));
    CHECK(a != o);
}
