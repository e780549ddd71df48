// The skip workload's arithmetic on the CPU (kernels/sim/emulate.h): the attention kernel's row
// (kernels/attention/attention_emulate.h), then the skip connection as the GPU computes it:
//   attention          attn_out = round(O)
//   two_pass           attn_out = round(O); skip_kernel: out = round(c_skip x + c_out attn_out)
//   fused              the epilogue: out = round(c_skip x + c_out O), O never rounded
// (the teaching_ variants the same on the teaching kernel; the wgmma_ variants on flash_wgmma, whose
// row is flash_tc's arithmetic on its own tile and whose epilogue computes out from the x tile in
// SRAM exactly as flash_tc's does), with the coefficients in fp32 as
// attention_epilogue.cuh computes them (t_b, then c_skip = σ² / fma(t, t, σ²), c_out = σ t /
// sqrt(fma(t, t, σ²))) and out = fma(c_out, O, c_skip x), or c_skip x exactly when c_out = 0.
#include "kernels/attention/attention_emulate.h"
#include "kernels/sim/emulate.h"
#include "kernels/skip/skip.h"

#include <cmath>
#include <vector>

namespace kernels::skip {

namespace {

struct Coefficients {
    float c_skip, c_out;
};

Coefficients coefficients(const SkipParams& p, int64_t bh) {
    const float t_max = static_cast<float>(p.t), sigma = static_cast<float>(p.sigma_d);
    const int64_t b = bh / heads_per_batch(p);
    const float t = t_max * static_cast<float>(b + 1) / static_cast<float>(p.batch);
    const float s2 = sigma * sigma;
    const float denom = emu::fma32(t, t, s2);  // t * t + s2, contracted by nvcc
    return {s2 / denom, sigma * t / std::sqrt(denom)};
}

float skip_value(float x, float o, Coefficients k) { return k.c_out == 0.0f ? k.c_skip * x : emu::fma32(k.c_out, o, k.c_skip * x); }

}  // namespace

EmulatedCheck emulate(const std::string& variant, const SkipParams& p, const EmulationBudget& budget) {
    const std::string kernel = base_variant(variant);
    if (!attention::can_emulate(kernel)) {
        EmulatedCheck r;
        r.why_not = "not emulated: no CPU emulation of " + kernel + " yet";
        return r;
    }
    const attention::AttentionParams& a = p.attn;
    const std::vector<attention::RowRef> rows = attention::rows_to_check(a, budget.check.max_mults);
    const bool out = writes_out(variant), fused = is_fused(variant);
    RowCheck c;
    c.rows = static_cast<int64_t>(rows.size());
    c.width = a.d;
    c.all_rows = a.batch_heads * a.N;
    c.dtype = a.dtype;
    c.what = out ? "rows of out" : "rows of attn_out";
    c.how = attention::sampled_rows_how();
    c.setup_s = attention::inputs_seconds(a, rows) +
                (out ? kInputSeconds * static_cast<double>(rows.size()) * static_cast<double>(a.d) : 0.0);  // x
    c.reference_s = attention::reference_seconds(a, rows);
    c.emulation_s = attention::emulation_seconds(kernel, a, rows);
    c.reference_key = std::string("skip ") + (out ? "out " : "attn_out ") + std::to_string(p.batch) + "x" +
                      std::to_string(heads_per_batch(p)) + "x" + std::to_string(a.N) + "x" + std::to_string(a.d) + " " +
                      to_string(a.dtype) + (a.causal ? " causal" : "") + " t " + std::to_string(p.t) + " sigma_d " +
                      std::to_string(p.sigma_d) + " seed " + std::to_string(a.seed) + " rows " +
                      std::to_string(rows.size());
    c.reference = [&](int64_t i, double* want) {
        reference_result_row(variant, p, rows[static_cast<size_t>(i)].head, rows[static_cast<size_t>(i)].row, want);
    };
    c.emulate = [&](int64_t i, float* got) {
        const attention::RowRef& r = rows[static_cast<size_t>(i)];
        attention::emulate_row(kernel, a, r.head, r.row, got);
        const Coefficients k = coefficients(p, r.head);
        for (int64_t col = 0; col < a.d; ++col) {
            float v = got[col];
            if (!fused) v = round_to_dtype(v, a.dtype);  // attn_out stored
            if (out) v = round_to_dtype(skip_value(x_value(p, r.head, r.row, col), v, k), a.dtype);  // out stored
            got[col] = v;
        }
    };
    return run_row_check(c, budget);
}

}  // namespace kernels::skip
