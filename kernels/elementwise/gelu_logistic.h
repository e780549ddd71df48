// GELU for 16-bit outputs (elementwise v7): GELU(x) = x Phi(x) with the normal CDF Phi written as a
// logistic function of an odd polynomial, Phi(x) ~ 1 / (1 + e^{-x (c0 + c1 x^2 + c2 x^4)}), the form of
// Bowling et al. ("A logistic approximation to the cumulative normal distribution", J. Industrial
// Engineering and Management 2(1), 2009: c0 = 1.5976, c1 = 0.07056, max error 1.4e-4 in Phi) with one
// term more. c0..c2 were fitted here (scripts/gelu_logistic_fit.py: minimax of the GELU error by Lawson's
// iteration over x in [0, 8]; the error is odd-symmetric, GELU(-x) - approx(-x) = approx(x) - GELU(x)).
//
// Error against the float64 GELU (0.5 x (1 + erf(x / sqrt 2)), the workload's reference), measured over
// every float in [-40, 40] with this sequence in fp32 (tests/elementwise_emulate_test.cpp): at most
// 2.6e-5 absolute, anywhere; relative at most 1.9 % where |GELU| >= 1e-3 (the negative tail, x near -3.4).
// That is 1/9 of fp16's half ulp at 1 (2.4e-4) and 1/76 of bf16's (2e-3): the output's own rounding
// stays the error that shows. fp32 outputs (checked to 1e-5 relative L2) keep A&S 7.1.26
// (kernels/core/gelu_fast.h, 1.5e-7).
//
// Why: the 16-bit fused chain is issue-bound on an H200 (kernels/PERF.md, v6: 44.9 instructions per
// element where 90 % of copy needs about 40), and A&S costs 13 instructions per element. This costs 9:
// FMUL x^2, FMNMX (the clamp below), 3 FFMA (q, then x q + log2(1/s)), MUFU.EX2, FADD, MUFU.RCP, FMUL.
// The clamp: c2 < 0, so the polynomial would turn back past |x| = 11; x^2 is clamped at 25 (|x| = 5,
// where 1 - Phi is 3e-7) and the exponent keeps growing linearly beyond, so the form holds for all x.
// Large |x|: the exponent overflows ex2 to +inf (x -> -inf: 1/inf = 0, GELU = -0) or underflows to 0
// (x -> +inf: GELU = x).
#pragma once

#include <cmath>
#include <limits>

namespace kernels::elementwise {

// The polynomial's coefficients times -log2(e) (e^{-p} = 2^{-p log2 e}): 2^{x (k0 + k1 u + k2 u^2)}, u = x^2.
// Fitted c0 = 1.5950157672743315, c1 = 0.07401129315724235, c2 = -0.0007030337487572999.
inline constexpr double kGeluLogisticNegLog2e = -1.4426950408889634;
inline constexpr float kGeluLogistic0 = static_cast<float>(kGeluLogisticNegLog2e * 1.5950157672743315);
inline constexpr float kGeluLogistic1 = static_cast<float>(kGeluLogisticNegLog2e * 0.07401129315724235);
inline constexpr float kGeluLogistic2 = static_cast<float>(kGeluLogisticNegLog2e * -0.0007030337487572999);
inline constexpr float kGeluLogisticClamp = 25.0f;  // x^2 clamped here (|x| = 5)

// The fused chain's kept elements need GELU(x) s, s = 1 / (1 - p) the dropout scale. Folded into the
// logistic form's denominator, x / ((1 + e) / s) = x / (1/s + 2^{x q + log2(1/s)}), it costs nothing:
// the exponent's multiply becomes an FMA and the "+ 1" adds 1/s instead; the kept element is then
// x factor + residual (one FFMA) where GELU s + residual was an FFMA whose s ptxas reloaded per element
// from the constant bank (one LDC per element). 1/s and log2(1/s) are computed once on the host (here: the
// launcher and the CPU emulation share these bits); s = 0 (nothing kept) folds to +inf, +inf, which
// gives x / inf = 0.
struct GeluScaleFold {
    float inverse;       // 1 / s
    float log2_inverse;  // log2(1 / s)
};
inline GeluScaleFold gelu_scale_fold(float scale) {
    if (!(scale > 0.0f)) return {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()};
    const float inverse = 1.0f / scale;
    return {inverse, std::log2(inverse)};
}

}  // namespace kernels::elementwise

#if defined(__CUDACC__)
#include "kernels/core/gelu_fast.h"

namespace kernels::elementwise {

// s Phi(x) in the logistic form, s folded in (gelu_scale_fold above; s = 1: inverse 1, log2_inverse 0):
// 1 / (1/s + 2^{x q(min(x^2, 25)) + log2(1/s)}), rcp.approx and ex2.approx (gelu_fast.h). GELU(x) s is
// x times it: one FMUL, or in the fused chain one FFMA with the residual (x factor + residual), written
// out so that the CPU emulation rounds where the GPU does.
__device__ __forceinline__ float gelu_logistic_factor(float x, float inverse, float log2_inverse) {
    const float u = fminf(x * x, kGeluLogisticClamp);
    const float q = fmaf(fmaf(kGeluLogistic2, u, kGeluLogistic1), u, kGeluLogistic0);
    return kernels::rcp_approx(inverse + kernels::exp2_approx(fmaf(x, q, log2_inverse)));
}
// GELU(x): 9 instructions (FMUL, FMNMX, 3 FFMA, MUFU.EX2, FADD, MUFU.RCP, FMUL).
__device__ __forceinline__ float gelu_logistic(float x) { return x * gelu_logistic_factor(x, 1.0f, 0.0f); }

}  // namespace kernels::elementwise
#endif
