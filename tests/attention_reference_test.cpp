// Properties of the float64 attention reference: probabilities, the causal mask, invariances, and
// the inputs it regenerates.
#include "kernels/attention/attention.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

using namespace kernels;
using namespace kernels::attention;

namespace {

AttentionParams make(int64_t bh, int64_t N, int64_t d, DType t, bool causal, uint64_t seed = 7) {
    AttentionParams p;
    p.batch_heads = bh;
    p.N = N;
    p.d = d;
    p.dtype = t;
    p.causal = causal;
    p.seed = seed;
    return p;
}

using Matrix = std::vector<std::vector<double>>;

Matrix load(const AttentionParams& p, int64_t head, float (*value)(const AttentionParams&, int64_t, int64_t, int64_t)) {
    Matrix m(static_cast<size_t>(p.N), std::vector<double>(static_cast<size_t>(p.d)));
    for (int64_t r = 0; r < p.N; ++r)
        for (int64_t c = 0; c < p.d; ++c) m[static_cast<size_t>(r)][static_cast<size_t>(c)] = value(p, head, r, c);
    return m;
}

// Plain softmax attention of one query row over explicit keys and values (no mask).
std::vector<double> attend(const std::vector<double>& q, const Matrix& K, const Matrix& V) {
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.size()));
    std::vector<double> s(K.size());
    for (size_t j = 0; j < K.size(); ++j) s[j] = std::inner_product(q.begin(), q.end(), K[j].begin(), 0.0) * scale;
    const double mx = *std::max_element(s.begin(), s.end());
    double sum = 0;
    for (double& x : s) sum += x = std::exp(x - mx);
    std::vector<double> o(q.size(), 0.0);
    for (size_t j = 0; j < K.size(); ++j)
        for (size_t c = 0; c < q.size(); ++c) o[c] += s[j] / sum * V[j][c];
    return o;
}

}  // namespace

TEST_CASE("every row of P is a probability distribution, and causal rows are zero after the query", "[attention][reference]") {
    for (bool causal : {false, true}) {
        const AttentionParams p = make(2, 37, 24, DType::f32, causal);
        std::vector<double> P(37);
        for (int64_t h = 0; h < 2; ++h)
            for (int64_t r = 0; r < p.N; ++r) {
                reference_probabilities(p, h, r, P.data());
                double sum = 0;
                for (int64_t j = 0; j < p.N; ++j) {
                    CHECK(P[static_cast<size_t>(j)] >= 0);
                    if (causal && j > r) CHECK(P[static_cast<size_t>(j)] == 0);
                    if (!causal || j <= r) CHECK(P[static_cast<size_t>(j)] > 0);
                    sum += P[static_cast<size_t>(j)];
                }
                CHECK(sum == Approx(1.0).epsilon(1e-12));
            }
    }
}

TEST_CASE("causal row 0 attends only to key 0, so it equals V row 0", "[attention][reference]") {
    for (DType t : kAllDTypes) {
        const AttentionParams p = make(3, 50, 64, t, true);
        std::vector<double> o(64);
        for (int64_t h = 0; h < 3; ++h) {
            reference_row(p, h, 0, o.data());
            for (int64_t c = 0; c < 64; ++c) CHECK(o[static_cast<size_t>(c)] == static_cast<double>(v_value(p, h, 0, c)));
        }
    }
}

TEST_CASE("the last causal row sees every key, like the unmasked one", "[attention][reference]") {
    const AttentionParams causal = make(1, 33, 16, DType::bf16, true);
    AttentionParams full = causal;
    full.causal = false;
    std::vector<double> a(16), b(16);
    reference_row(causal, 0, 32, a.data());
    reference_row(full, 0, 32, b.data());
    for (size_t c = 0; c < 16; ++c) CHECK(a[c] == Approx(b[c]).epsilon(1e-14));
}

TEST_CASE("permuting keys and values together leaves the output unchanged", "[attention][reference]") {
    const AttentionParams p = make(1, 29, 32, DType::f16, false, 99);
    const Matrix Q = load(p, 0, q_value), K = load(p, 0, k_value), V = load(p, 0, v_value);
    std::vector<size_t> perm(29);
    std::iota(perm.begin(), perm.end(), size_t{0});
    std::reverse(perm.begin(), perm.end());
    std::rotate(perm.begin(), perm.begin() + 5, perm.end());
    Matrix Kp, Vp;
    for (size_t i : perm) {
        Kp.push_back(K[i]);
        Vp.push_back(V[i]);
    }
    std::vector<double> want(32);
    for (int64_t r = 0; r < p.N; ++r) {
        reference_row(p, 0, r, want.data());
        const std::vector<double> got = attend(Q[static_cast<size_t>(r)], Kp, Vp);
        for (size_t c = 0; c < 32; ++c) CHECK(got[c] == Approx(want[c]).margin(1e-13));
    }
}

TEST_CASE("each output is a convex combination of V's rows", "[attention][reference]") {
    const AttentionParams p = make(1, 40, 8, DType::f32, false);
    const Matrix V = load(p, 0, v_value);
    std::vector<double> o(8);
    for (int64_t r = 0; r < p.N; ++r) {
        reference_row(p, 0, r, o.data());
        for (size_t c = 0; c < 8; ++c) {
            double lo = INFINITY, hi = -INFINITY;
            for (const auto& row : V) lo = std::min(lo, row[c]), hi = std::max(hi, row[c]);
            CHECK(o[c] >= lo);
            CHECK(o[c] <= hi);
        }
    }
}

TEST_CASE("inputs are random, dtype-representable, distinct per tensor and head", "[attention][reference]") {
    for (DType t : kAllDTypes) {
        const AttentionParams p = make(2, 64, 64, t, false);
        int zeros = 0, same_qk = 0, same_heads = 0;
        for (int64_t r = 0; r < 64; ++r)
            for (int64_t c = 0; c < 64; ++c) {
                const float q = q_value(p, 0, r, c), k = k_value(p, 0, r, c);
                CHECK(round_to_dtype(q, t) == q);
                CHECK(q >= -1.0f);
                CHECK(q <= 1.0f);
                zeros += q == 0.0f;
                same_qk += q == k;
                same_heads += q == q_value(p, 1, r, c);
            }
        CHECK(zeros < 4);  // input_value is a 24-bit uniform: an exact zero is a 1 in 2^24 event
        CHECK(same_qk < 100);
        CHECK(same_heads < 100);
    }
}

TEST_CASE("rows_to_check: all rows when small, both ends of several heads when large", "[attention][reference]") {
    const AttentionParams small = make(2, 10, 16, DType::f16, true);
    CHECK(rows_to_check(small).size() == 20);
    const AttentionParams big = make(64, 8192, 128, DType::f16, false);
    const std::vector<RowRef> rows = rows_to_check(big);
    CHECK(rows.size() >= 6);
    CHECK(rows.size() < 64 * 8192);
    auto has = [&](int64_t h, int64_t r) {
        return std::any_of(rows.begin(), rows.end(), [&](const RowRef& x) { return x.head == h && x.row == r; });
    };
    CHECK(has(0, 0));
    CHECK(has(63, 8191));
    CHECK(has(32, 0));
    for (const RowRef& x : rows) {
        CHECK(x.head >= 0);
        CHECK(x.head < 64);
        CHECK(x.row >= 0);
        CHECK(x.row < 8192);
    }
}
