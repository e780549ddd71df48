// The launch workload's arithmetic on the CPU (kernels/sim/emulate.h): each step one fp32 FMA,
// y = fmaf(y, a, b); stream and graph store y in the dtype after every step (step_kernel), fused
// once at the end (fused_steps_kernel). The float64 reference (launch_model.cpp) follows the same
// rounding points on purpose, so the error is 0 but for a double-rounding tie of its FMA: what the
// GPU check shows too (assets/measurements/h100-bench-2026-11-25/launch.json).
#include "kernels/sim/emulate.h"
#include "kernels/launch/launch.h"

#include <vector>

namespace kernels::launch {

float emulate_value(const std::string& variant, const LaunchParams& p, int64_t i) {
    const bool store_each_step = variant_of(variant) != Variant::fused;
    float y = x_value(p, i);
    for (int64_t k = 0; k < p.steps; ++k) {
        y = emu::fma32(y, kA, kB);
        if (store_each_step) y = round_to_dtype(y, p.dtype);
    }
    return round_to_dtype(y, p.dtype);
}

EmulatedCheck emulate(const std::string& variant, const LaunchParams& p, const EmulationBudget& budget) {
    // The GPU check's elements, whatever the budget; listed only when the emulation runs (16M of them
    // would take 128 MiB to estimate what they cost).
    const int64_t count = elements_checked(p);
    std::vector<int64_t> elements;
    const double n = static_cast<double>(count), steps = static_cast<double>(p.steps);
    // each step waits for the one before: measured 5.3 ns per step, 8.3 with a 16-bit rounding
    const bool fused = variant_of(variant) == Variant::fused;
    const double per_step = kChainSeconds + (!fused && p.dtype != DType::f32 ? kRoundSeconds : 0.0);
    RowCheck c;
    c.rows = count;
    c.width = 1;
    c.all_rows = p.elements;
    c.dtype = p.dtype;
    c.what = "elements of y";
    c.how = "evenly spaced, the last included";
    c.versus = std::string("the float64 CPU reference (") +
               (fused ? "rounded once" : "rounded after every step") + ")";
    c.reference_s = n * (kInputSeconds + steps * per_step);
    c.emulation_s = c.reference_s;
    c.setup = [&] { elements = elements_to_check(p); };
    c.reference = [&](int64_t i, double* want) { *want = reference_value(variant, p, elements[static_cast<size_t>(i)]); };
    c.emulate = [&](int64_t i, float* got) { *got = emulate_value(variant, p, elements[static_cast<size_t>(i)]); };
    return run_row_check(c, budget);
}

}  // namespace kernels::launch
