// The elementwise kernels' arithmetic on the CPU (kernels/sim/emulate.h), one output row at a
// time, as elementwise.cu computes it:
//   layernorm / fused_chain (row kernels): the row's sum in the block's order (each thread's chunks
//     in order, a warp butterfly, then the warps' sums one after another; a cluster's blocks' sums
//     then in rank order: row_config's layout), mean = sum * (1 / hidden);
//     the squared deviations the same way (d * d + sq contracted to one FMA); rstd = rsqrtf(sq *
//     (1 / hidden) + eps) (one FMA); h = fma((x - mean) rstd, gamma, beta); 16-bit (v6, but
//     fused_chain_spill): one pass of d = x - x[0], sum d and sum d^2 each in that order, and
//     h = fma(fma(x, rstd, -mean rstd), gamma, beta) (staged rows: the two passes); fused_chain then GELU,
//     dropout (Philox mask, times 1 / (1 - p) in fp32) and + residual in registers, one store (fused:
//     the scale and the add one FMA, v6; fused_spill: a multiply, then an add).
//   gelu, dropout, add, bias_add, fused_bias_gelu (flat kernels): one element at a time in fp32,
//     each kernel's output rounded to the dtype where it is stored.
//   GELU: elementwise.cu's Abramowitz & Stegun 7.1.26 form with rcp.approx and ex2.approx (its erf
//     differs from the reference's by up to 1.5e-7: part of the error shown), max(x, 0) - |q| with its last
//     multiply and the subtraction one FMA (fused_chain_spill: v4's select form, x - q not contracted);
//     v7: every kernel storing fp16 or bf16 but fused_chain_spill takes the logistic form instead
//     (gelu_logistic.h, |error| <= 2.6e-5).
#include "kernels/sim/emulate.h"
#include "kernels/core/philox.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/gelu_logistic.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace kernels::elementwise {

float gpu_gelu(float x) {
    constexpr float kP = 0.3275911f * 0.70710678118654752f;
    constexpr float kA1 = 0.5f * 0.254829592f, kA2 = 0.5f * -0.284496736f, kA3 = 0.5f * 1.421413741f,
                    kA4 = 0.5f * -1.453152027f, kA5 = 0.5f * 1.061405429f;
    constexpr float kHalfLog2e = -0.5f * 1.4426950408889634f;
    const float ax = std::fabs(x);
    const float t = emu::rcp_ftz(emu::fma32(kP, ax, 1.0f));
    const float poly = t * emu::fma32(emu::fma32(emu::fma32(emu::fma32(kA5, t, kA4), t, kA3), t, kA2), t, kA1);
    // kernels/core/gelu_fast.h: max(x, 0) - (|x| P) e as one FMA
    return emu::fma32(-(ax * poly), emu::exp2_ftz(x * x * kHalfLog2e), std::fmax(x, 0.0f));
}

namespace {
// gelu_logistic.h's gelu_logistic_factor: s Phi(x) = 1 / (1/s + 2^{x q(min(x^2, 25)) + log2(1/s)})
float gelu_logistic_factor(float x, const GeluScaleFold& fold) {
    const float u = std::fmin(x * x, kGeluLogisticClamp);
    const float q = emu::fma32(emu::fma32(kGeluLogistic2, u, kGeluLogistic1), u, kGeluLogistic0);
    return emu::rcp_ftz(fold.inverse + emu::exp2_ftz(emu::fma32(x, q, fold.log2_inverse)));
}
}  // namespace

float gpu_gelu_logistic(float x) { return x * gelu_logistic_factor(x, GeluScaleFold{1.0f, 0.0f}); }

float gpu_gelu_for(DType t, float x) { return t == DType::f32 ? gpu_gelu(x) : gpu_gelu_logistic(x); }

float gpu_gelu_logistic_scaled_add(float x, float scale, float residual) {
    // the fused chain's kept element: x factor + residual, one FMA (the fold's bits the launcher's)
    return emu::fma32(x, gelu_logistic_factor(x, gelu_scale_fold(scale)), residual);
}

namespace {

// gamma and beta of the last parameter set (every row uses them: regenerated once, not per row).
struct Columns {
    std::vector<float> gamma, beta, bias;
};

float keep_scale(const ElementwiseParams& p) {
    return p.dropout_p < 1.0 ? static_cast<float>(1.0 / (1.0 - p.dropout_p)) : 0.0f;
}

// The row kernel's block sum (elementwise.cu row_sum): thread t's values in its order, a warp
// butterfly, then the warps' sums added one after another.
float row_block_sum(const std::vector<float>& per_thread) {
    float total = 0.0f;
    float lanes[32];
    for (size_t w = 0; w < per_thread.size() / 32; ++w) {
        std::copy(per_thread.begin() + static_cast<std::ptrdiff_t>(w * 32),
                  per_thread.begin() + static_cast<std::ptrdiff_t>(w * 32 + 32), lanes);
        total += emu::butterfly_sum(lanes);
    }
    return total;
}

// LayerNorm of one row in the row kernel's order (row_config's layout): each block of the row's
// cluster (one block unless ctas_per_row > 1) sums its threads' chunks as row_block_sum does, then
// the blocks' sums are added in rank order; h = fma((x - mean) rstd, gamma, beta).
void layernorm(const ElementwiseParams& p, RowKernel kernel, const Columns& cols, const std::vector<float>& x,
               std::vector<float>& h) {
    const int64_t H = p.hidden;
    const RowConfig config = row_config(p, kernel);
    const int threads = config.threads_per_row, cpt = config.chunks_per_thread, ctas = config.ctas_per_row;
    const int64_t stride = static_cast<int64_t>(threads) * 8;
    std::vector<float> per_thread(static_cast<size_t>(threads));
    auto for_each_of_thread = [&](int rank, int tid, auto&& f) {
        for (int c = 0; c < cpt; ++c)
            for (int i = 0; i < 8; ++i) {
                const int64_t col = (static_cast<int64_t>(rank) * threads * cpt + tid) * 8 + c * stride + i;
                if (col < H) f(x[static_cast<size_t>(col)]);  // past the row: loaded as 0, adds nothing
            }
    };
    // The sum over the row of f's per-thread partials, in the kernel's order.
    auto row_sum = [&](auto&& partial) {
        float total = 0.0f;
        for (int rank = 0; rank < ctas; ++rank) {
            for (int tid = 0; tid < threads; ++tid) per_thread[static_cast<size_t>(tid)] = partial(rank, tid);
            const float block = row_block_sum(per_thread);
            total = ctas > 1 ? total + block : block;
        }
        return total;
    };
    // The row's sum of (v - center) and of (v - center)^2, each in the kernel's order (v - 0 is v, bit for bit).
    auto sum_about = [&](float center) {
        return row_sum([&](int rank, int tid) {
            float sum = 0.0f;
            for_each_of_thread(rank, tid, [&](float v) { sum += v - center; });
            return sum;
        });
    };
    auto squares_about = [&](float center) {
        return row_sum([&](int rank, int tid) {
            float sq = 0.0f;
            for_each_of_thread(rank, tid, [&](float v) {
                const float d = v - center;
                sq = emu::fma32(d, d, sq);
            });
            return sq;
        });
    };
    const float inv_hidden = 1.0f / static_cast<float>(H);
    const bool sixteen_bit = dtype_bytes(p.dtype) == 2 && kernel == RowKernel::picked;
    float mean = 0.0f, rstd = 0.0f;
    if (sixteen_bit && !config.staged) {
        // v6's 16-bit row_kernel: one pass, each element shifted by the row's first, both sums in the
        // block's order, var = (sum d^2 - (sum d)^2 / n) / n
        const float shift = x[0];
        const float s = sum_about(shift);
        const float q = squares_about(shift);
        const float mean_shifted = s * inv_hidden;
        mean = shift + mean_shifted;
        rstd = emu::rsqrt(emu::fma32(std::max(emu::fma32(-mean_shifted, s, q), 0.0f), inv_hidden, kLayerNormEps));
    } else {
        mean = sum_about(0.0f) * inv_hidden;
        rstd = emu::rsqrt(emu::fma32(squares_about(mean), inv_hidden, kLayerNormEps));
    }
    h.resize(static_cast<size_t>(H));
    // v6's 16-bit row kernels (register and staged): (x - mean) rstd as x rstd + (-mean rstd), one FMA
    const float neg_mean_rstd = -mean * rstd;
    for (int64_t c = 0; c < H; ++c) {
        const size_t i = static_cast<size_t>(c);
        const float normalised = sixteen_bit ? emu::fma32(x[i], rstd, neg_mean_rstd) : (x[i] - mean) * rstd;
        h[i] = emu::fma32(normalised, cols.gamma[i], cols.beta[i]);
    }
}

void emulate_chain_row(const std::string& variant, const ElementwiseParams& p, const Columns& cols, int64_t row,
                       float* out) {
    const int64_t H = p.hidden;
    const DType t = p.dtype;
    const Variant which = variant_of(p, variant);
    const bool fused = which != Variant::unfused;  // fused and fused_spill: the same code, the same arithmetic
    std::vector<float> x(static_cast<size_t>(H)), h;
    for (int64_t c = 0; c < H; ++c) x[static_cast<size_t>(c)] = x_value(p, row, c);
    layernorm(p, which == Variant::fused_spill ? RowKernel::spill : RowKernel::picked, cols, x, h);
    const uint32_t threshold = dropout_threshold(p.dropout_p);
    const float scale = keep_scale(p);
    const uint64_t e0 = static_cast<uint64_t>(row) * static_cast<uint64_t>(H);
    Philox4 mask{};
    uint64_t group = ~uint64_t{0};
    for (int64_t c = 0; c < H; ++c) {
        const uint64_t e = e0 + static_cast<uint64_t>(c);
        if ((e >> 3) != group) mask = dropout_block(p.seed, e), group = e >> 3;
        const bool keep = dropout_u16(mask, static_cast<int>(e & 7)) >= threshold;
        const float res = residual_value(p, row, c);
        float v = h[static_cast<size_t>(c)];
        if (which == Variant::fused) {
            // v6: dropout's scale and the residual add are one FMA; a dropped element is the residual
            if (t == DType::f32) {
                v = gpu_gelu(v);
                v = keep ? emu::fma32(v, scale, res) : res;
            } else {
                // v7: the logistic form with the dropout scale folded in, and the residual in the same FMA
                v = keep ? gpu_gelu_logistic_scaled_add(v, scale, res) : res;
            }
        } else if (fused) {
            v = gpu_gelu(v);  // fused_spill (kept as recorded): the multiply, then the add
            v = keep ? v * scale : 0.0f;
            v += res;
        } else {
            v = round_to_dtype(v, t);                                   // layernorm stores h1
            v = round_to_dtype(gpu_gelu_for(t, v), t);                  // gelu stores h2
            v = round_to_dtype(keep ? v * scale : 0.0f, t);             // dropout stores h3
            v += res;                                                   // add
        }
        out[c] = round_to_dtype(v, t);
    }
}

void emulate_bias_gelu_row(const std::string& variant, const ElementwiseParams& p, const Columns& cols, int64_t row,
                           float* out) {
    const DType t = p.dtype;
    const bool stores_h = variant_of(p, variant) == Variant::unfused;
    for (int64_t c = 0; c < p.hidden; ++c) {
        const float h = x_value(p, row, c) + cols.bias[static_cast<size_t>(c)];
        out[c] = round_to_dtype(gpu_gelu_for(t, stores_h ? round_to_dtype(h, t) : h), t);  // unfused stores h
    }
}

Columns columns(const ElementwiseParams& p) {
    Columns cols;
    const size_t H = static_cast<size_t>(p.hidden);
    if (p.chain) {
        cols.gamma.resize(H);
        cols.beta.resize(H);
        for (size_t c = 0; c < H; ++c) {
            cols.gamma[c] = gamma_value(p, static_cast<int64_t>(c));
            cols.beta[c] = beta_value(p, static_cast<int64_t>(c));
        }
    } else {
        cols.bias.resize(H);
        for (size_t c = 0; c < H; ++c) cols.bias[c] = bias_value(p, static_cast<int64_t>(c));
    }
    return cols;
}

}  // namespace

void emulate_row(const std::string& variant, const ElementwiseParams& p, int64_t row, float* out) {
    const Columns cols = columns(p);
    if (p.chain) emulate_chain_row(variant, p, cols, row, out);
    else emulate_bias_gelu_row(variant, p, cols, row, out);
}

EmulatedCheck emulate(const std::string& variant, const ElementwiseParams& p, const EmulationBudget& budget) {
    const std::vector<int64_t> rows = rows_to_check(p, budget.check.max_elements);
    const double H = static_cast<double>(p.hidden), n = static_cast<double>(rows.size()) * H;
    RowCheck c;
    c.rows = static_cast<int64_t>(rows.size());
    c.width = p.hidden;
    c.all_rows = p.rows;
    c.dtype = p.dtype;
    c.what = "rows";
    c.how = "first, last, evenly spaced";
    // Inputs (Philox) dominate: the reference regenerates x, residual, gamma, beta and the mask per
    // element (bias_gelu: x and bias); the emulation x and residual (x), a mask call per 8 elements
    // (measured: chain 128 ns per element of reference, 73 of emulation; bias_gelu 65 and 40 in bf16,
    // about twice that in fp16, whose rounding is slower).
    c.setup_s = (p.chain ? 2 : 1) * H * kInputSeconds;
    c.reference_s = n * ((p.chain ? 5 : 2) * kInputSeconds + kElementSeconds);
    c.emulation_s = n * ((p.chain ? 2.125 : 1) * kInputSeconds + kElementSeconds);
    c.reference_key = std::string(p.chain ? "chain " : "bias_gelu ") + std::to_string(p.rows) + "x" +
                      std::to_string(p.hidden) + " " + to_string(p.dtype) + " dropout " +
                      std::to_string(p.chain ? p.dropout_p : 0.0) + " seed " + std::to_string(p.seed) + " rows " +
                      std::to_string(rows.size());
    auto cols = std::make_shared<Columns>();
    c.setup = [&] { *cols = columns(p); };
    c.reference = [&](int64_t i, double* want) { reference_row(p, rows[static_cast<size_t>(i)], want); };
    c.emulate = [&](int64_t i, float* got) {
        if (p.chain) emulate_chain_row(variant, p, *cols, rows[static_cast<size_t>(i)], got);
        else emulate_bias_gelu_row(variant, p, *cols, rows[static_cast<size_t>(i)], got);
    };
    return run_row_check(c, budget);
}

}  // namespace kernels::elementwise
