// GELU with Abramowitz & Stegun's erf, the form fusionlab's GELU kernels use (kernels/elementwise/
// elementwise.cu) and that a student's exercise kernel may use too (exercises/include/
// fusionlab_exercise.cuh includes this text under NVRTC): one function, no copy to drift.
//
// GELU(x) = x Phi(x) = 0.5 x (1 + erf(x / sqrt 2)), the exact erf form, with erf from Abramowitz &
// Stegun 7.1.26: erf(z) = 1 - t (a1 + t (a2 + ... + t a5)) e^{-z^2}, t = 1 / (1 + p z), z >= 0,
// |error| <= 1.5e-7 (fp32 itself rounds 1.0 to 6e-8). Why not erff(): CUDA's erff costs ~25
// instructions (two polynomial branches, selected per element) and made every GELU kernel
// instruction-bound on an H200 (gelu 75%, fused bias+GELU 69% of copy bandwidth, kernels/PERF.md).
// This form costs ~14: one reciprocal and one exp2 on the special-function unit, 9 FMA-pipe
// operations. With q = 0.5 x t P(t) e^{-x^2/2}:  GELU(x) = x - q for x >= 0, and q for x < 0.
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
__device__ __forceinline__ float gelu_fast(float x) {
    constexpr float kP = 0.3275911f * 0.70710678118654752f;  // p / sqrt 2: t from |x| directly
    // a1..a5 of A&S 7.1.26, halved (the 0.5 of GELU folded in)
    constexpr float kA1 = 0.5f * 0.254829592f, kA2 = 0.5f * -0.284496736f, kA3 = 0.5f * 1.421413741f,
                    kA4 = 0.5f * -1.453152027f, kA5 = 0.5f * 1.061405429f;
    constexpr float kHalfLog2e = -0.5f * 1.4426950408889634f;  // e^{-x^2/2} = 2^{-x^2 log2(e) / 2}
    const float t = rcp_approx(fmaf(kP, fabsf(x), 1.0f));
    const float poly = t * fmaf(fmaf(fmaf(fmaf(kA5, t, kA4), t, kA3), t, kA2), t, kA1);
    const float q = x * poly * exp2_approx(x * x * kHalfLog2e);
    return x >= 0.0f ? x - q : q;
}

}  // namespace kernels
#endif
