// Launch-overhead workload, host side: parameters, variants, the tile schedule (one block tile of
// kThreads elements per event, a ragged tail block apart), and the float64 CPU reference.
//
// [SECTION] Parameters and variants
// [SECTION] Schedule
// [SECTION] CPU reference
#include "kernels/launch/launch.h"

#include "kernels/core/philox.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kernels::launch {

// =============================================================================================
// [SECTION] Parameters and variants
// =============================================================================================
const std::vector<VariantInfo>& variants() {
    // `kernels` is the launch count at K = 1; stream and graph launch K kernels (kernel_count()).
    static const std::vector<VariantInfo> v{
        {"stream", "K kernels launched one by one on a stream: each launch is a driver call on the host and a gap "
                   "on the GPU between dependent kernels. y goes through memory (L2 when it fits) between steps.",
         1},
        {"graph", "the same K kernels captured once as a CUDA graph and replayed with one call: no driver call per "
                  "kernel, smaller gaps on the GPU, still K kernels and K trips of y through memory.",
         1, true},
        {"fused", "1 kernel: each thread loads x once, applies the K steps in registers and stores y once.", 1},
    };
    return v;
}

int64_t kernel_count(Variant variant, const LaunchParams& p) { return variant == Variant::fused ? 1 : p.steps; }
int64_t kernel_count(const std::string& variant, const LaunchParams& p) { return kernel_count(variant_of(variant), p); }

uint64_t blocks(const LaunchParams& p) {
    return (static_cast<uint64_t>(p.elements) + kThreads - 1) / kThreads;
}

uint64_t min_bytes(const LaunchParams& p) { return 2 * static_cast<uint64_t>(p.elements) * static_cast<uint64_t>(dtype_bytes(p.dtype)); }

// =============================================================================================
// [SECTION] Schedule
// =============================================================================================
namespace {


// One kernel over the vector: full blocks of kThreads elements as one event group, the ragged tail
// block (elements % kThreads) as its own.
void add_kernel(Schedule& s, const LaunchParams& p, const std::string& name, const std::string& in, double flops_per_element,
                const std::string& compute_what) {
    const int kernel = static_cast<int>(s.kernels.size());
    ScheduleKernel k{name, blocks(p), kThreads, false};
    k.access_bytes = dtype_bytes(p.dtype);  // one element per thread: 4-byte (fp32) or 2-byte accesses
    s.kernels.push_back(k);
    const uint64_t es = static_cast<uint64_t>(dtype_bytes(p.dtype));
    const uint64_t n = static_cast<uint64_t>(p.elements);
    const uint64_t full = n / kThreads, tail = n % kThreads;
    auto group = [&](uint64_t per_block, uint64_t repeat) {
        s.events.push_back({EventKind::load, kernel, in, per_block * es, 0, repeat,
                            "load " + in + " tile (" + std::to_string(per_block) + " values) into registers"});
        TileEvent compute{EventKind::compute, kernel, "", 0, flops_per_element * static_cast<double>(per_block), repeat,
                          compute_what};
        // Per step an FMA plus its share of the loop's counter, compare and branch: about 1.5
        // instructions (calibrated: fused, K = 1000, n = 16M, 1.09 ms on the H100), and ~8 per thread
        // for the index, the bounds check, the load and the store.
        compute.instructions = (flops_per_element / 2.0 * 1.5 + 8.0) * static_cast<double>(per_block);
        s.events.push_back(compute);
        s.events.push_back({EventKind::store, kernel, "y", per_block * es, 0, repeat, "store y tile to memory"});
    };
    if (full > 0) group(kThreads, full);
    if (tail > 0) group(tail, 1);
}

}  // namespace

Schedule schedule(const std::string& variant, const LaunchParams& p) {
    const Variant v = variant_of(variant);
    Schedule s;
    if (v == Variant::fused) {
        add_kernel(s, p, "fused_steps", "x", 2.0 * static_cast<double>(p.steps),
                   "apply y = y*a + b " + std::to_string(p.steps) + " times in registers");
        return s;
    }
    // stream and graph run the same kernels; only how they are launched differs.
    s.kernels.reserve(static_cast<size_t>(p.steps));
    s.events.reserve(static_cast<size_t>(p.steps) * 6);
    for (int64_t k = 0; k < p.steps; ++k)
        add_kernel(s, p, "step", k == 0 ? "x" : "y", 2.0,
                   "step " + std::to_string(k + 1) + " of " + std::to_string(p.steps) + ": y = y*a + b");
    return s;
}

// =============================================================================================
// [SECTION] CPU reference
// =============================================================================================
float x_value(const LaunchParams& p, int64_t i) {
    return round_to_dtype(input_value(p.seed, kX, static_cast<uint64_t>(i)), p.dtype);
}

double reference_value(const std::string& variant, const LaunchParams& p, int64_t i) {
    return reference_value(variant_of(variant), p, i);
}

double reference_value(Variant variant, const LaunchParams& p, int64_t i) {
    const bool store_each_step = variant != Variant::fused;
    const double a = kA, b = kB;
    float y = x_value(p, i);
    for (int64_t k = 0; k < p.steps; ++k) {
        // y*a is exact in float64 (24 x 24 bits); the sum rounded to fp32 is what fmaf gives
        // but for a double-rounding tie (rare, one ulp).
        y = static_cast<float>(static_cast<double>(y) * a + b);
        if (store_each_step) y = round_to_dtype(y, p.dtype);
    }
    return round_to_dtype(y, p.dtype);
}

// The stride of the checked elements: 1 (all of them) when elements * steps is small, else evenly
// spaced with a stride that is not a multiple of the block size.
static int64_t check_stride(const LaunchParams& p, int64_t max_work) {
    const int64_t budget = std::max<int64_t>(2, max_work / std::max<int64_t>(p.steps, 1));
    return p.elements <= budget ? 1 : p.elements / budget + 1;
}

int64_t elements_checked(const LaunchParams& p, int64_t max_work) {
    const int64_t n = p.elements, stride = check_stride(p, max_work);
    const int64_t spaced = (n + stride - 1) / stride;  // 0, stride, ... below n
    return spaced + ((spaced - 1) * stride != n - 1 ? 1 : 0);  // and the last element
}

std::vector<int64_t> elements_to_check(const LaunchParams& p, int64_t max_work) {
    std::vector<int64_t> out;
    const int64_t n = p.elements;
    const int64_t stride = check_stride(p, max_work);
    if (stride == 1) {
        out.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = i;
        return out;
    }
    // Plus the last element (the ragged tail block's last thread).
    for (int64_t i = 0; i < n; i += stride) out.push_back(i);
    if (out.back() != n - 1) out.push_back(n - 1);
    return out;
}

}  // namespace kernels::launch
