// CPU reference of decode attention in float64 on the dtype-rounded inputs, the inputs themselves
// (regenerated from Philox, so any row can be checked without a copy of the cache), the page table,
// and the rows the checks compare.
#include "kernels/sim/emulate.h"
#include "kernels/core/philox.h"
#include "kernels/decode/decode.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace kernels::decode {

namespace {
uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
}  // namespace

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------
uint64_t q_index(const DecodeParams& p, int64_t b, int64_t h, int64_t c) {
    return (u(b) * u(p.heads) + u(h)) * u(p.d) + u(c);
}
uint64_t kv_index(const DecodeParams& p, int64_t b, int64_t g, int64_t t, int64_t c) {
    return ((u(b) * u(p.kv_heads) + u(g)) * u(p.kv_len) + u(t)) * u(p.d) + u(c);
}
float q_value(const DecodeParams& p, int64_t b, int64_t h, int64_t c) {
    return round_to_dtype(input_value(p.seed, kQ, q_index(p, b, h, c)), p.dtype);
}

// Fisher-Yates over the pool's pages with a Philox draw per position: pool page table[b pps + i]
// holds tokens i page .. of sequence b. Deterministic by seed, and the GPU gets this same table.
std::vector<int32_t> page_table(const DecodeParams& p) {
    if (p.page <= 0) return {};
    const uint64_t total = u(p.batch) * u(pages_per_seq(p));
    std::vector<int32_t> table(total);
    std::iota(table.begin(), table.end(), 0);
    for (uint64_t i = total; i > 1; --i) {
        const Philox4 r = philox4x32_10(static_cast<uint32_t>(i), static_cast<uint32_t>(i >> 32), kPageShuffle, 0u,
                                        static_cast<uint32_t>(p.seed), static_cast<uint32_t>(p.seed >> 32));
        const uint64_t draw = (static_cast<uint64_t>(r.v[0]) << 32 | r.v[1]) % i;
        std::swap(table[i - 1], table[draw]);
    }
    return table;
}

uint64_t stored_offset(const DecodeParams& p, const std::vector<int32_t>& table, int64_t b, int64_t g, int64_t t) {
    if (p.page <= 0) return kv_index(p, b, g, t, 0);
    const uint64_t pool_page = u(table[u(b) * u(pages_per_seq(p)) + u(t / p.page)]);
    return ((pool_page * u(p.kv_heads) + u(g)) * u(p.page) + u(t % p.page)) * u(p.d);
}

const GroupInputs& group_inputs(const DecodeParams& p, int64_t b, int64_t g) {
    thread_local GroupInputs cache;
    DecodeParams key = p;
    key.page = 0;  // the cache's values do not depend on where they are stored, nor on the split
    key.splits = 0;
    if (cache.b == b && cache.g == g && cache.p == key) return cache;
    cache.p = key;
    cache.b = b;
    cache.g = g;
    const size_t n = static_cast<size_t>(p.kv_len * p.d);
    cache.K.resize(n);
    cache.V.resize(n);
    const uint64_t base = kv_index(p, b, g, 0, 0);
    for (size_t i = 0; i < n; ++i) {
        cache.K[i] = round_to_dtype(input_value(p.seed, kK, base + i), p.dtype);
        cache.V[i] = round_to_dtype(input_value(p.seed, kV, base + i), p.dtype);
    }
    return cache;
}

// ---------------------------------------------------------------------------------------------
// Reference
// ---------------------------------------------------------------------------------------------
void reference_row(const DecodeParams& p, int64_t b, int64_t h, double* out) {
    const GroupInputs& in = group_inputs(p, b, h / group_size(p));
    const size_t d = static_cast<size_t>(p.d), N = static_cast<size_t>(p.kv_len);
    std::vector<double> q(d), s(N);
    for (size_t c = 0; c < d; ++c) q[c] = q_value(p, b, h, static_cast<int64_t>(c));
    const double scale = 1.0 / std::sqrt(static_cast<double>(p.d));
    double m = -INFINITY;
    for (size_t t = 0; t < N; ++t) {
        double dot = 0;
        const float* k = &in.K[t * d];
        for (size_t c = 0; c < d; ++c) dot += q[c] * static_cast<double>(k[c]);
        s[t] = dot * scale;
        m = std::max(m, s[t]);
    }
    double l = 0;
    for (size_t t = 0; t < N; ++t) l += (s[t] = std::exp(s[t] - m));
    std::fill(out, out + d, 0.0);
    for (size_t t = 0; t < N; ++t) {
        const float* v = &in.V[t * d];
        const double w = s[t] / l;
        for (size_t c = 0; c < d; ++c) out[c] += w * static_cast<double>(v[c]);
    }
}

// ---------------------------------------------------------------------------------------------
// The rows the checks compare
// ---------------------------------------------------------------------------------------------
std::vector<RowRef> rows_to_check(const DecodeParams& p, double max_mults) {
    const double per_row = 2.0 * static_cast<double>(p.kv_len) * static_cast<double>(p.d);
    // Regenerating a group's K and V costs about kInputSeconds / kMacSeconds multiply-adds an element.
    const double per_group = 2.0 * static_cast<double>(p.kv_len) * static_cast<double>(p.d) * (kInputSeconds / kMacSeconds);
    const int64_t G = group_size(p), groups = p.batch * p.kv_heads;
    std::vector<RowRef> rows;
    if (static_cast<double>(groups) * (per_group + static_cast<double>(G) * per_row) <= max_mults) {
        for (int64_t b = 0; b < p.batch; ++b)
            for (int64_t h = 0; h < p.heads; ++h) rows.push_back({b, h});
        return rows;
    }
    // Groups in the order first, last, middle, then evenly spaced, while they fit.
    std::vector<int64_t> order{0};
    if (groups > 1) order.push_back(groups - 1);
    if (groups > 2) order.push_back(groups / 2);
    for (int64_t i = 1; i < 8 && groups > 3; ++i) order.push_back(groups * i / 8);
    std::vector<int64_t> picked;
    double spent = 0;
    for (int64_t gi : order) {
        if (std::find(picked.begin(), picked.end(), gi) != picked.end()) continue;
        const double all_heads = per_group + static_cast<double>(G) * per_row;
        if (!picked.empty() && spent + all_heads > max_mults) break;
        picked.push_back(gi);
        spent += all_heads;
    }
    std::sort(picked.begin(), picked.end());
    for (int64_t gi : picked) {
        const int64_t b = gi / p.kv_heads, g = gi % p.kv_heads;
        std::vector<int64_t> heads;
        if (per_group + static_cast<double>(G) * per_row <= max_mults || G <= 3) {
            for (int64_t j = 0; j < G; ++j) heads.push_back(j);
        } else {
            heads = {0, G / 2, G - 1};
        }
        for (int64_t j : heads) rows.push_back({b, g * G + j});
    }
    return rows;
}

std::string sampled_rows_how() {
    return "the query heads of the first, last and middle (sequence, KV head) groups";
}

}  // namespace kernels::decode
