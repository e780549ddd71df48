// GELU with Abramowitz & Stegun's erf, the form fusionlab's GELU kernels use (kernels/elementwise/
// elementwise.cu) and that a student's exercise kernel may use too (exercises/include/
// fusionlab_exercise.cuh includes this text under NVRTC): one function, no copy to drift.
//
// GELU(x) = x Phi(x) = 0.5 x (1 + erf(x / sqrt 2)), the exact erf form, with erf from Abramowitz &
// Stegun 7.1.26: erf(z) = 1 - t (a1 + t (a2 + ... + t a5)) e^{-z^2}, t = 1 / (1 + p z), z >= 0,
// |error| <= 1.5e-7 (fp32 itself rounds 1.0 to 6e-8). Why not erff(): CUDA's erff costs ~25
// instructions (two polynomial branches, selected per element) and made every GELU kernel
// instruction-bound on an H200 (gelu 75%, fused bias+GELU 69% of copy bandwidth, kernels/PERF.md).
// This form costs ~13: one reciprocal and one exp2 on the special-function unit, 11 FMA-pipe
// operations. With q = 0.5 x t P(t) e^{-x^2/2}:  GELU(x) = x - q for x >= 0, and q for x < 0,
// i.e. max(x, 0) - |q|, the last multiply and subtraction one FMA.
#pragma once

#if defined(__CUDACC__)
namespace kernels {

__device__ __forceinline__ float rcp_approx(float v) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    return r;
}
__device__ __forceinline__ float exp2_approx(float v) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    return r;
}
// 0.5 t P(t) of A&S 7.1.26 at z = |x| / sqrt 2 (the 0.5 of GELU folded into the coefficients)
__device__ __forceinline__ float gelu_erf_poly(float ax) {
    constexpr float kP = 0.3275911f * 0.70710678118654752f;  // p / sqrt 2: t from |x| directly
    // a1..a5 of A&S 7.1.26, halved (the 0.5 of GELU folded in)
    constexpr float kA1 = 0.5f * 0.254829592f, kA2 = 0.5f * -0.284496736f, kA3 = 0.5f * 1.421413741f,
                    kA4 = 0.5f * -1.453152027f, kA5 = 0.5f * 1.061405429f;
    const float t = rcp_approx(fmaf(kP, ax, 1.0f));
    return t * fmaf(fmaf(fmaf(fmaf(kA5, t, kA4), t, kA3), t, kA2), t, kA1);
}
constexpr float kGeluHalfLog2e = -0.5f * 1.4426950408889634f;  // e^{-x^2/2} = 2^{-x^2 log2(e) / 2}

__device__ __forceinline__ float gelu_fast(float x) {
    const float ax = fabsf(x);
    // |q| = |x| P e from |x| (the sign is a free operand modifier), then max(x, 0) - |q|: x - q for
    // x >= 0 and -|q| = q for x < 0 (IEEE products are symmetric in sign). Its last multiply and the
    // subtraction are one FMA, max(x, 0) - (|x| P) e rounded once: FMNMX and FFMA where the select
    // form below takes FMUL, FSETP and a predicated FADD, one instruction fewer per element and one
    // rounding fewer (so not the select form's bits: within one rounding of them).
    return fmaf(-(ax * gelu_erf_poly(ax)), exp2_approx(x * x * kGeluHalfLog2e), fmaxf(x, 0.0f));
}

// The select form gelu_fast had before (x >= 0 ? x - q : q, q's product and the subtraction rounded
// apart): kept for the one kernel whose code must not move (kernels/elementwise/elementwise.cu's
// fused_chain_spill, whose recorded spills the simulator is fitted to).
__device__ __forceinline__ float gelu_fast_select(float x) {
    const float q = x * gelu_erf_poly(fabsf(x)) * exp2_approx(x * x * kGeluHalfLog2e);
    return x >= 0.0f ? x - q : q;
}

}  // namespace kernels
#endif
