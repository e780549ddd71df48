// Inputs of the feed-forward block (the GPU fills its buffers with the same expressions) and the
// float64 CPU reference of sampled output rows, with each variant's rounding points (ffn.h).
//
// Inputs: input_value(seed, tensor id, flat index) in [-1, 1), times a scale, rounded to the dtype:
//   x 1; W1 1/sqrt(d_model); W2 1/sqrt(d_ff) (a layer's initialisation: activations stay O(1));
//   b1, b2 1/4 (a power of two: exact). The weight scales are computed once in fp32 and the GPU
//   multiplies by the same float, so host and device values are bit-identical.
//
// [SECTION] Inputs
// [SECTION] GELU
// [SECTION] Weights
// [SECTION] Reference rows
#include "kernels/core/philox.h"
#include "kernels/ffn/ffn.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace kernels::ffn {

// =============================================================================================
// [SECTION] Inputs
// =============================================================================================
namespace {
constexpr float kBiasScale = 0.25f;
uint64_t idx(int64_t row, int64_t cols, int64_t col) {
    return static_cast<uint64_t>(row) * static_cast<uint64_t>(cols) + static_cast<uint64_t>(col);
}
}  // namespace

float w1_scale(const FfnParams& p) { return 1.0f / std::sqrt(static_cast<float>(p.d_model)); }
float w2_scale(const FfnParams& p) { return 1.0f / std::sqrt(static_cast<float>(p.d_ff)); }

float x_value(const FfnParams& p, int64_t row, int64_t col) {
    return round_to_dtype(input_value(p.seed, kX, idx(row, p.d_model, col)), p.dtype);
}
float w1_value(const FfnParams& p, int64_t k, int64_t j) {
    return round_to_dtype(input_value(p.seed, kW1, idx(k, p.d_ff, j)) * w1_scale(p), p.dtype);
}
float b1_value(const FfnParams& p, int64_t j) {
    return round_to_dtype(input_value(p.seed, kB1, static_cast<uint64_t>(j)) * kBiasScale, p.dtype);
}
float w2_value(const FfnParams& p, int64_t j, int64_t c) {
    return round_to_dtype(input_value(p.seed, kW2, idx(j, p.d_model, c)) * w2_scale(p), p.dtype);
}
float b2_value(const FfnParams& p, int64_t c) {
    return round_to_dtype(input_value(p.seed, kB2, static_cast<uint64_t>(c)) * kBiasScale, p.dtype);
}

// =============================================================================================
// [SECTION] GELU
// =============================================================================================
double gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) {
    const double k = std::sqrt(2.0 / 3.14159265358979323846);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

// =============================================================================================
// [SECTION] Weights
// =============================================================================================
namespace {
float half_bits_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
    float v;
    if (exp == 0) {
        v = std::ldexp(static_cast<float>(mant), -24);  // zero and subnormals
    } else if (exp == 31) {
        v = mant ? NAN : INFINITY;
    } else {
        v = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
    }
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits |= sign;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}
}  // namespace

float bits_to_float(DType t, uint16_t bits) {
    if (t == DType::bf16) {
        const uint32_t w = static_cast<uint32_t>(bits) << 16;
        float v;
        std::memcpy(&v, &w, sizeof v);
        return v;
    }
    static const std::array<float, 65536> table = [] {
        std::array<float, 65536> a{};
        for (uint32_t i = 0; i < 65536; ++i) a[i] = half_bits_to_float(static_cast<uint16_t>(i));
        return a;
    }();
    return table[bits];
}

float Weights::w1(int64_t k, int64_t j) const {
    const size_t i = static_cast<size_t>(idx(k, d_ff, j));
    return w1_32.empty() ? bits_to_float(dtype, w1_16[i]) : w1_32[i];
}
float Weights::w2(int64_t j, int64_t c) const {
    const size_t i = static_cast<size_t>(idx(j, d_model, c));
    return w2_32.empty() ? bits_to_float(dtype, w2_16[i]) : w2_32[i];
}

Weights generate_weights(const FfnParams& p) {
    Weights w;
    w.dtype = p.dtype;
    w.d_model = p.d_model;
    w.d_ff = p.d_ff;
    w.w1_32.resize(static_cast<size_t>(p.d_model * p.d_ff));
    w.w2_32.resize(static_cast<size_t>(p.d_ff * p.d_model));
    for (int64_t k = 0; k < p.d_model; ++k)
        for (int64_t j = 0; j < p.d_ff; ++j) w.w1_32[static_cast<size_t>(idx(k, p.d_ff, j))] = w1_value(p, k, j);
    for (int64_t j = 0; j < p.d_ff; ++j)
        for (int64_t c = 0; c < p.d_model; ++c) w.w2_32[static_cast<size_t>(idx(j, p.d_model, c))] = w2_value(p, j, c);
    return w;
}

// =============================================================================================
// [SECTION] Reference rows
// =============================================================================================
namespace {

// acc[r][n] = sum_k a[r][k] b(k, n) for R rows at once, b read one row at a time (converted once).
template <typename RowOfB>
void gemm_rows(const std::vector<std::vector<double>>& a, int64_t K, int64_t N, RowOfB row_of_b,
               std::vector<std::vector<double>>& acc) {
    acc.assign(a.size(), std::vector<double>(static_cast<size_t>(N), 0.0));
    std::vector<float> brow(static_cast<size_t>(N));
    for (int64_t k = 0; k < K; ++k) {
        row_of_b(k, brow.data());
        for (size_t r = 0; r < a.size(); ++r) {
            const double ak = a[r][static_cast<size_t>(k)];
            double* out = acc[r].data();
            for (int64_t n = 0; n < N; ++n) out[n] += ak * static_cast<double>(brow[static_cast<size_t>(n)]);
        }
    }
}

double rounded(double v, DType t) { return round_to_dtype(static_cast<float>(v), t); }

}  // namespace

void reference_rows(const std::string& variant, const FfnParams& p, const Weights& w, const std::vector<int64_t>& rows,
                    std::vector<double>& out) {
    if (!has_variant(variant)) throw std::invalid_argument("unknown ffn variant '" + variant + "'");
    if (w.d_model != p.d_model || w.d_ff != p.d_ff || w.dtype != p.dtype)
        throw std::invalid_argument("ffn reference: weights of another shape or dtype");
    const int64_t d = p.d_model, f = p.d_ff;
    const DType t = p.dtype;
    const Variant kind = variant_of(variant);
    const bool epilogue = is_epilogue(kind);
    std::vector<std::vector<double>> x(rows.size(), std::vector<double>(static_cast<size_t>(d)));
    for (size_t r = 0; r < rows.size(); ++r)
        for (int64_t c = 0; c < d; ++c) x[r][static_cast<size_t>(c)] = x_value(p, rows[r], c);

    std::vector<std::vector<double>> h;
    gemm_rows(x, d, f, [&](int64_t k, float* dst) { for (int64_t j = 0; j < f; ++j) dst[j] = w.w1(k, j); }, h);
    std::vector<double> b1(static_cast<size_t>(f)), b2(static_cast<size_t>(d));
    for (int64_t j = 0; j < f; ++j) b1[static_cast<size_t>(j)] = b1_value(p, j);
    for (int64_t c = 0; c < d; ++c) b2[static_cast<size_t>(c)] = b2_value(p, c);
    // act: each variant's rounding points (every stored intermediate is rounded to the dtype).
    for (auto& row : h)
        for (int64_t j = 0; j < f; ++j) {
            double& v = row[static_cast<size_t>(j)];
            const double bias = b1[static_cast<size_t>(j)];
            if (kind == Variant::unfused) v = rounded(gelu_erf(rounded(rounded(v, t) + bias, t)), t);  // h1, h2, act
            else if (kind == Variant::fused_elementwise) v = rounded(gelu_erf(rounded(v, t) + bias), t);  // h1, act
            else v = rounded(gelu_tanh(v + bias), t);  // act only; cuBLASLt's GELU is the tanh form
        }
    std::vector<std::vector<double>> y;
    gemm_rows(h, f, d, [&](int64_t j, float* dst) { for (int64_t c = 0; c < d; ++c) dst[c] = w.w2(j, c); }, y);
    out.resize(rows.size() * static_cast<size_t>(d));
    for (size_t r = 0; r < rows.size(); ++r)
        for (int64_t c = 0; c < d; ++c) {
            const double v = y[r][static_cast<size_t>(c)], bias = b2[static_cast<size_t>(c)];
            out[r * static_cast<size_t>(d) + static_cast<size_t>(c)] =
                epilogue ? rounded(v + bias, t) : rounded(rounded(v, t) + bias, t);  // y then out, or out only
        }
}

std::vector<int64_t> rows_to_check(const FfnParams& p, double max_mults) {
    const double per_row = 2.0 * static_cast<double>(p.d_model) * static_cast<double>(p.d_ff);
    const int64_t budget = std::clamp<int64_t>(static_cast<int64_t>(max_mults / per_row), 2, 64);
    const int64_t n = std::min<int64_t>(budget, p.M);
    std::vector<int64_t> rows;
    if (n <= 1) return {p.M - 1};
    for (int64_t i = 0; i < n; ++i) rows.push_back(i * (p.M - 1) / (n - 1));  // first .. last, evenly spaced
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

}  // namespace kernels::ffn
