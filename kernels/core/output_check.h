// How close a GPU output must be to the float64 CPU reference before its time may be shown (the
// GPU backend's check, kernels/gpu/gpu_backend.cu), how much of the output the check compares,
// and the error sums it reports. Plain C++, so the rule is tested without a GPU, and the simulated
// backend's CPU emulation (kernels/sim/emulate.h) samples the same rows and sums the same way.
#pragma once

#include "kernels/core/types.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace kernels {

// Relative L2 error allowed over the compared elements. fp32: the only differences from float64 are
// fp32 rounding in the math (erff, rsqrtf: a few ulp). fp16/bf16: the output itself is rounded to
// 11 or 8 significant bits (unfused: every intermediate too).
inline double relative_tolerance(DType t) { return t == DType::f32 ? 1e-5 : 1e-2; }

// The absolute error that still passes when the relative one does not: a tiny output (a single
// element, or one that cancels to near zero) of O(1) operands carries their rounding. Unfused chain
// bf16 rounds four intermediates (h1, h2, h3, out), each by up to half an ulp of a value up to 2
// (2^-8 in bf16, 2^-11 in fp16); on an H100, rows = hidden = 1 gave 0.0033 (0.024 relative, the
// residual add cancelling). fp32 keeps tolerance/10: its math differs from float64 by a few fp32
// ulps of O(1) values, far below that.
inline double absolute_tolerance(DType t) {
    const double half_ulp_of_2 = t == DType::bf16 ? 0x1p-8 : t == DType::f16 ? 0x1p-11 : 0x1p-24;
    return std::max(relative_tolerance(t) / 10, 4 * half_ulp_of_2);
}

// True when an output with this relative L2 and largest absolute error passes (NaN never does).
inline bool output_matches(DType t, double rel_l2, double max_abs) {
    return rel_l2 <= relative_tolerance(t) || max_abs <= absolute_tolerance(t);
}

// The CPU reference's budget for the check: how many rows a workload samples (its rows_to_check).
// A full job samples up to 4e8 multiply-adds of attention rows (~0.5 s on one core at N = 8192) or
// 4M elementwise outputs; a quick job (the GUI's first pass while a slider moves) fewer, so the
// answer comes within ~300 ms. Every configuration is still checked before its time is shown; the
// full pass re-checks more.
struct CheckBudget {
    double max_mults = 4e8;                   // multiply-adds of reference rows (attention, ffn)
    int64_t max_elements = int64_t{1} << 22;  // reference elements (row-wise workloads)
};
inline constexpr CheckBudget kFullCheck{4e8, int64_t{1} << 22}, kQuickCheck{2e7, int64_t{1} << 18};
inline constexpr CheckBudget check_budget(bool quick) { return quick ? kQuickCheck : kFullCheck; }

// Max absolute and relative L2 error of checked values against the reference; a non-finite
// difference makes both infinite.
struct ErrorSum {
    double max_abs = 0, err2 = 0, ref2 = 0;
    void add(const float* got, const double* want, size_t n) {
        for (size_t c = 0; c < n; ++c) {
            const double e = static_cast<double>(got[c]) - want[c];
            if (!std::isfinite(e)) {
                max_abs = err2 = INFINITY;
                continue;
            }
            max_abs = std::max(max_abs, std::fabs(e));
            err2 += e * e;
            ref2 += want[c] * want[c];
        }
    }
    double rel_l2() const { return ref2 > 0 ? std::sqrt(err2 / ref2) : (err2 > 0 ? INFINITY : 0.0); }
};

}  // namespace kernels
