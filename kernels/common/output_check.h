// How close a GPU output must be to the float64 CPU reference before its time may be shown (the
// GPU backend's check, kernels/common/gpu_backend.cu). Plain C++, so the rule is tested without a GPU.
#pragma once

#include "kernels/common/types.h"

#include <algorithm>

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

}  // namespace kernels
