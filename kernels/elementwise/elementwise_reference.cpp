// CPU reference of the elementwise workloads in float64 on the dtype-rounded inputs, and the
// inputs themselves (regenerated per row, so checking a sample of a huge tensor needs no copy).
#include "kernels/core/philox.h"
#include "kernels/elementwise/elementwise.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernels::elementwise {

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------
static uint64_t element_index(const ElementwiseParams& p, int64_t row, int64_t col) {
    return static_cast<uint64_t>(row) * static_cast<uint64_t>(p.hidden) + static_cast<uint64_t>(col);
}

float x_value(const ElementwiseParams& p, int64_t row, int64_t col) {
    return round_to_dtype(input_value(p.seed, kX, element_index(p, row, col)), p.dtype);
}

float residual_value(const ElementwiseParams& p, int64_t row, int64_t col) {
    return round_to_dtype(input_value(p.seed, kResidual, element_index(p, row, col)), p.dtype);
}

float gamma_value(const ElementwiseParams& p, int64_t col) {
    return round_to_dtype(1.0f + 0.5f * input_value(p.seed, kGamma, static_cast<uint64_t>(col)), p.dtype);
}

float beta_value(const ElementwiseParams& p, int64_t col) {
    return round_to_dtype(input_value(p.seed, kBeta, static_cast<uint64_t>(col)), p.dtype);
}

float bias_value(const ElementwiseParams& p, int64_t col) {
    return round_to_dtype(input_value(p.seed, kBias, static_cast<uint64_t>(col)), p.dtype);
}

// ---------------------------------------------------------------------------------------------
// Reference
// ---------------------------------------------------------------------------------------------
double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

static void chain_row(const ElementwiseParams& p, int64_t row, double* out) {
    const int64_t H = p.hidden;
    std::vector<double> x(static_cast<size_t>(H));
    double sum = 0;
    for (int64_t c = 0; c < H; ++c) sum += x[static_cast<size_t>(c)] = x_value(p, row, c);
    const double mean = sum / static_cast<double>(H);
    double sq = 0;
    for (double v : x) sq += (v - mean) * (v - mean);
    const double rstd = 1.0 / std::sqrt(sq / static_cast<double>(H) + static_cast<double>(kLayerNormEps));
    const uint32_t threshold = dropout_threshold(p.dropout_p);
    const double keep_scale = 1.0 / (1.0 - p.dropout_p);
    for (int64_t c = 0; c < H; ++c) {
        const double h = (x[static_cast<size_t>(c)] - mean) * rstd * gamma_value(p, c) + beta_value(p, c);
        const bool keep = dropout_keep(p.seed, element_index(p, row, c), threshold);
        out[c] = (keep ? gelu(h) * keep_scale : 0.0) + residual_value(p, row, c);
    }
}

static void bias_gelu_row(const ElementwiseParams& p, int64_t row, double* out) {
    for (int64_t c = 0; c < p.hidden; ++c)
        out[c] = gelu(static_cast<double>(x_value(p, row, c)) + static_cast<double>(bias_value(p, c)));
}

void reference_row(const ElementwiseParams& p, int64_t row, double* out) {
    if (p.chain) chain_row(p, row, out);
    else bias_gelu_row(p, row, out);
}

std::vector<int64_t> rows_to_check(const ElementwiseParams& p, int64_t max_elements) {
    std::vector<int64_t> rows;
    if (p.rows * p.hidden <= max_elements) {
        for (int64_t r = 0; r < p.rows; ++r) rows.push_back(r);
        return rows;
    }
    // First, last and evenly spaced rows between: catches errors at both ends and in the middle.
    const int64_t count = std::clamp<int64_t>(max_elements / std::max<int64_t>(p.hidden, 1), 2, 256);
    for (int64_t i = 0; i < count; ++i) rows.push_back(i * (p.rows - 1) / (count - 1));
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

}  // namespace kernels::elementwise
