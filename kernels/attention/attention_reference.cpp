// CPU reference of attention in float64 on the dtype-rounded inputs, and the inputs themselves
// (regenerated per row, so checking a sample of a huge problem needs no copy of Q, K, V).
#include "kernels/attention/attention.h"
#include "kernels/core/philox.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kernels::attention {

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------
static uint64_t element_index(const AttentionParams& p, int64_t head, int64_t row, int64_t col) {
    return (static_cast<uint64_t>(head) * static_cast<uint64_t>(p.N) + static_cast<uint64_t>(row)) *
               static_cast<uint64_t>(p.d) +
           static_cast<uint64_t>(col);
}

float q_value(const AttentionParams& p, int64_t head, int64_t row, int64_t col) {
    return round_to_dtype(input_value(p.seed, kQ, element_index(p, head, row, col)), p.dtype);
}
float k_value(const AttentionParams& p, int64_t head, int64_t row, int64_t col) {
    return round_to_dtype(input_value(p.seed, kK, element_index(p, head, row, col)), p.dtype);
}
float v_value(const AttentionParams& p, int64_t head, int64_t row, int64_t col) {
    return round_to_dtype(input_value(p.seed, kV, element_index(p, head, row, col)), p.dtype);
}

// ---------------------------------------------------------------------------------------------
// Reference
// ---------------------------------------------------------------------------------------------
// K and V of one head, regenerated once and kept for the next rows of the same head: the checks
// walk sampled rows head by head, and regenerating N x d Philox values per row made the check's
// cost the same ~0.5 s at every N (H200 live-loop measurement, PERF.md "Live loop").
const HeadInputs& head_inputs(const AttentionParams& p, int64_t head) {
    thread_local HeadInputs cache;
    if (cache.seed == p.seed && cache.N == p.N && cache.d == p.d && cache.head == head && cache.dtype == p.dtype)
        return cache;
    cache.seed = p.seed;
    cache.N = p.N;
    cache.d = p.d;
    cache.head = head;
    cache.dtype = p.dtype;
    const size_t n = static_cast<size_t>(p.N * p.d);
    cache.K.resize(n);
    cache.V.resize(n);
    for (int64_t j = 0; j < p.N; ++j)
        for (int64_t c = 0; c < p.d; ++c) {
            cache.K[static_cast<size_t>(j * p.d + c)] = k_value(p, head, j, c);
            cache.V[static_cast<size_t>(j * p.d + c)] = v_value(p, head, j, c);
        }
    return cache;
}

void reference_probabilities(const AttentionParams& p, int64_t head, int64_t row, double* P) {
    const int64_t keys = p.causal ? row + 1 : p.N;  // causal: keys 0..row
    std::vector<double> q(static_cast<size_t>(p.d));
    for (int64_t c = 0; c < p.d; ++c) q[static_cast<size_t>(c)] = q_value(p, head, row, c);
    const double scale = 1.0 / std::sqrt(static_cast<double>(p.d));
    const std::vector<float>& K = head_inputs(p, head).K;
    double max_s = -INFINITY;
    for (int64_t j = 0; j < keys; ++j) {
        double s = 0;
        for (int64_t c = 0; c < p.d; ++c)
            s += q[static_cast<size_t>(c)] * static_cast<double>(K[static_cast<size_t>(j * p.d + c)]);
        P[j] = s * scale;
        max_s = std::max(max_s, P[j]);
    }
    double sum = 0;
    for (int64_t j = 0; j < keys; ++j) sum += P[j] = std::exp(P[j] - max_s);
    for (int64_t j = 0; j < keys; ++j) P[j] /= sum;
    for (int64_t j = keys; j < p.N; ++j) P[j] = 0;
}

void reference_row(const AttentionParams& p, int64_t head, int64_t row, double* out) {
    std::vector<double> P(static_cast<size_t>(p.N));
    reference_probabilities(p, head, row, P.data());
    const int64_t keys = p.causal ? row + 1 : p.N;
    std::fill(out, out + p.d, 0.0);
    const std::vector<float>& V = head_inputs(p, head).V;
    for (int64_t j = 0; j < keys; ++j) {
        const double w = P[static_cast<size_t>(j)];
        for (int64_t c = 0; c < p.d; ++c) out[c] += w * static_cast<double>(V[static_cast<size_t>(j * p.d + c)]);
    }
}

std::vector<RowRef> rows_to_check(const AttentionParams& p, double max_mults) {
    std::vector<RowRef> rows;
    // Reference cost: about 2 N d multiply-adds per row.
    const double per_row = 2.0 * static_cast<double>(p.N) * static_cast<double>(p.d);
    const double all = per_row * static_cast<double>(p.N) * static_cast<double>(p.batch_heads);
    if (all <= max_mults) {
        for (int64_t h = 0; h < p.batch_heads; ++h)
            for (int64_t r = 0; r < p.N; ++r) rows.push_back({h, r});
        return rows;
    }
    // First, middle and last heads; in each the first, last and evenly spaced rows (the causal
    // mask makes early and late rows different, so both ends matter).
    std::vector<int64_t> heads = {0, p.batch_heads / 2, p.batch_heads - 1};
    heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
    const double budget_rows = max_mults / per_row / static_cast<double>(heads.size());
    const int64_t count = std::clamp<int64_t>(static_cast<int64_t>(budget_rows), 2, std::min<int64_t>(p.N, 512));
    for (int64_t h : heads) {
        std::vector<int64_t> picked;
        for (int64_t i = 0; i < count; ++i) picked.push_back(count == 1 ? 0 : i * (p.N - 1) / (count - 1));
        picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
        for (int64_t r : picked) rows.push_back({h, r});
    }
    return rows;
}

}  // namespace kernels::attention
