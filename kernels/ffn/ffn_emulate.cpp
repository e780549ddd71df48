// The feed-forward block's arithmetic on the CPU (kernels/sim/emulate.h), one token row at a time:
//   GEMMs      fp32 accumulation as cuBLAS / cuBLASLt run them (tensor-core k-steps of 16 for
//              fp16/bf16, one FMA chain along K in fp32), the result stored in the dtype;
//   unfused    h1 = round(x W1); h2 = round(h1 + b1) (bias kernel); act = round(GELU(h2)) (GELU
//              kernel: the elementwise workloads' device GELU); y = round(act W2); out = round(y + b2);
//   fused_elementwise  h1 = round(x W1); act = round(GELU(h1 + b1)) in one kernel; then as unfused;
//   epilogue(_graph)   act = round(GELU_tanh(acc + b1)) and out = round(acc + b2) on the accumulator.
// cuBLASLt's GELU epilogue is the tanh form; how it evaluates tanh is not documented: here in fp32
// with a correctly rounded tanh. The weights come from input_value() as on the GPU (regenerated once
// per parameter set and shared by the reference and every variant).
#include "kernels/sim/emulate.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/ffn/ffn.h"

#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

namespace kernels::ffn {

namespace {

float gelu_tanh_f32(float x) {
    const float k = 0.7978845608028654f;  // sqrt(2 / pi)
    const float inner = k * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + std::tanh(inner));
}

// The weights of the last parameter set (regenerating d_model x d_ff Philox values twice per row
// set would dominate every check).
struct WeightCache {
    std::mutex mutex;
    FfnParams key;
    std::shared_ptr<const Weights> weights;
};
WeightCache& weight_cache() {
    static WeightCache cache;
    return cache;
}
bool same_weights(const FfnParams& a, const FfnParams& b) {
    return a.d_model == b.d_model && a.d_ff == b.d_ff && a.dtype == b.dtype && a.seed == b.seed;
}
std::shared_ptr<const Weights> cached_weights(const FfnParams& p) {
    WeightCache& c = weight_cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    return c.weights && same_weights(c.key, p) ? c.weights : nullptr;
}
std::shared_ptr<const Weights> weights_for(const FfnParams& p) {
    if (auto w = cached_weights(p)) return w;
    auto w = std::make_shared<const Weights>(generate_weights(p));
    WeightCache& c = weight_cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.key = p;
    c.weights = w;
    return w;
}

}  // namespace

void emulate_row(const std::string& variant, const FfnParams& p, const Weights& w, int64_t row, float* out) {
    const int64_t d = p.d_model, f = p.d_ff;
    const DType t = p.dtype;
    const Variant v = variant_of(variant);
    std::vector<float> x(static_cast<size_t>(d)), h(static_cast<size_t>(f)), y(static_cast<size_t>(d));
    for (int64_t c = 0; c < d; ++c) x[static_cast<size_t>(c)] = x_value(p, row, c);
    emu::gemm_row(t, x.data(), w.w1_32.data(), d, f, h.data());
    for (int64_t j = 0; j < f; ++j) {
        float& a = h[static_cast<size_t>(j)];
        const float bias = b1_value(p, j);
        if (v == Variant::unfused) a = round_to_dtype(elementwise::gpu_gelu_for(t, round_to_dtype(round_to_dtype(a, t) + bias, t)), t);
        else if (v == Variant::fused_elementwise) a = round_to_dtype(elementwise::gpu_gelu_for(t, round_to_dtype(a, t) + bias), t);
        else a = round_to_dtype(gelu_tanh_f32(a + bias), t);  // GEMM 1's GELU_BIAS epilogue
    }
    emu::gemm_row(t, h.data(), w.w2_32.data(), f, d, y.data());
    for (int64_t c = 0; c < d; ++c) {
        const float a = y[static_cast<size_t>(c)], bias = b2_value(p, c);
        out[c] = is_epilogue(v) ? round_to_dtype(a + bias, t) : round_to_dtype(round_to_dtype(a, t) + bias, t);
    }
}

EmulatedCheck emulate(const std::string& variant, const FfnParams& p, const EmulationBudget& budget) {
    const std::vector<int64_t> rows = rows_to_check(p, budget.check.max_mults);
    const double macs = 2.0 * static_cast<double>(p.d_model) * static_cast<double>(p.d_ff);  // per row, both GEMMs
    const double n = static_cast<double>(rows.size()), f = static_cast<double>(p.d_ff);
    RowCheck c;
    c.rows = static_cast<int64_t>(rows.size());
    c.width = p.d_model;
    c.all_rows = p.M;
    c.dtype = p.dtype;
    c.what = "rows of out";
    c.how = "first, last and evenly spaced; 2 d_model d_ff multiply-adds each";
    c.versus = std::string("the float64 CPU reference with this variant's roundings") +
               (is_epilogue(variant_of(variant)) ? " and cuBLASLt's tanh-form GELU" : "");
    // Measured at d_model = 1024, d_ff = 4096 (kernels/sim/emulate.h's machine): the weights 45 ns
    // per value (Philox and the first touch of 32 MiB), the reference 1.9 ns and the emulation 1.0 ns
    // per multiply-add (both stream W1 and W2 from memory once per row).
    constexpr double kWeightSeconds = 4.5e-8, kReferenceMacSeconds = 2.0e-9, kEmulatedMacSeconds = 1.0e-9;
    c.setup_s = cached_weights(p) ? 0.0 : macs * kWeightSeconds;  // W1 and W2
    c.reference_s = n * (macs * kReferenceMacSeconds + f * kElementSeconds);
    c.emulation_s = n * (macs * kEmulatedMacSeconds + f * kElementSeconds);
    auto weights = std::make_shared<std::shared_ptr<const Weights>>();
    c.setup = [&] { *weights = weights_for(p); };
    c.reference = [&](int64_t i, double* want) {
        std::vector<double> one;
        reference_rows(variant, p, **weights, {rows[static_cast<size_t>(i)]}, one);
        std::copy(one.begin(), one.end(), want);
    };
    c.emulate = [&](int64_t i, float* got) { emulate_row(variant, p, **weights, rows[static_cast<size_t>(i)], got); };
    return run_row_check(c, budget);
}

}  // namespace kernels::ffn
