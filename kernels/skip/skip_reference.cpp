// CPU reference of the skip-connection workload in float64 on the dtype-rounded inputs: the
// attention reference (kernels/attention/attention_reference.cpp) for F, x regenerated per row.
#include "kernels/core/philox.h"
#include "kernels/skip/skip.h"

#include <vector>

namespace kernels::skip {

uint64_t bnc_index(const SkipParams& p, int64_t bh, int64_t row, int64_t col) {
    const uint64_t heads = static_cast<uint64_t>(heads_per_batch(p));
    const uint64_t b = static_cast<uint64_t>(bh) / heads, h = static_cast<uint64_t>(bh) % heads;
    const uint64_t N = static_cast<uint64_t>(p.attn.N), d = static_cast<uint64_t>(p.attn.d);
    return ((b * N + static_cast<uint64_t>(row)) * heads + h) * d + static_cast<uint64_t>(col);
}

float x_value(const SkipParams& p, int64_t bh, int64_t row, int64_t col) {
    return round_to_dtype(input_value(p.attn.seed, kX, bnc_index(p, bh, row, col)), p.attn.dtype);
}

void reference_out_row(const SkipParams& p, int64_t bh, int64_t row, double* out) {
    const int64_t d = p.attn.d;
    std::vector<double> o(static_cast<size_t>(d));
    attention::reference_row(p.attn, bh, row, o.data());
    const double t = t_of(p, bh / heads_per_batch(p));
    const double cs = c_skip(p.sigma_d, t), co = c_out(p.sigma_d, t);
    for (int64_t c = 0; c < d; ++c)
        out[c] = cs * static_cast<double>(x_value(p, bh, row, c)) + co * o[static_cast<size_t>(c)];
}

void reference_result_row(const std::string& variant, const SkipParams& p, int64_t bh, int64_t row, double* out) {
    if (writes_out(variant)) reference_out_row(p, bh, row, out);
    else attention::reference_row(p.attn, bh, row, out);
}

}  // namespace kernels::skip
