// Counter-based random numbers (Philox4x32-10, Salmon et al., SC'11) usable on host and device,
// so the unfused kernels, the fused kernel and the CPU reference drop exactly the same elements:
// the mask is a pure function of (seed, element index), never stored.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FL_HD __host__ __device__ __forceinline__
#else
#define FL_HD inline
#endif

namespace kernels {

struct Philox4 {
    uint32_t v[4];
};

FL_HD uint32_t philox_mulhi(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __umulhi(a, b);
#else
    return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

// Philox4x32 with 10 rounds; counter c, key k.
FL_HD Philox4 philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
    constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    for (int r = 0; r < 10; ++r) {
        const uint32_t hi0 = philox_mulhi(M0, c0), lo0 = M0 * c0;
        const uint32_t hi1 = philox_mulhi(M1, c2), lo1 = M1 * c2;
        const uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
        c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
        k0 += W0; k1 += W1;
    }
    return Philox4{{c0, c1, c2, c3}};
}

// Dropout keep decision for element `index` of a tensor: one Philox call covers 8 consecutive
// elements (4 words x two 16-bit uniforms), so the RNG costs ~1/8 of a call per element.
// keep <=> u16 >= threshold, threshold = round(p * 65536): p is resolved to 1/65536.
FL_HD uint32_t dropout_threshold(double p) {
    const double t = p * 65536.0 + 0.5;
    return t <= 0 ? 0u : (t >= 65536.0 ? 65536u : static_cast<uint32_t>(t));
}

FL_HD uint32_t dropout_u16(const Philox4& r, int lane /*0..7*/) {
    const uint32_t w = r.v[lane >> 1];
    return (lane & 1) ? (w >> 16) : (w & 0xFFFFu);
}

FL_HD Philox4 dropout_block(uint64_t seed, uint64_t index) {
    const uint64_t group = index >> 3;  // 8 elements per Philox call
    return philox4x32_10(static_cast<uint32_t>(group), static_cast<uint32_t>(group >> 32), 0x5EEDu, 0u,
                         static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

FL_HD bool dropout_keep(uint64_t seed, uint64_t index, uint32_t threshold) {
    return dropout_u16(dropout_block(seed, index), static_cast<int>(index & 7)) >= threshold;
}

// Deterministic pseudo-random inputs in [-1, 1): value of element `index` of tensor `tensor_id`.
// The GPU fills its buffers with this and the CPU reference regenerates any row it checks,
// so checking sampled rows of a huge tensor needs no copy of the inputs.
FL_HD float input_value(uint64_t seed, uint32_t tensor_id, uint64_t index) {
    const Philox4 r = philox4x32_10(static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), tensor_id,
                                    0xA11CEu, static_cast<uint32_t>(seed) ^ 0x9E3779B9u,
                                    static_cast<uint32_t>(seed >> 32));
    return static_cast<float>(r.v[0] >> 8) * (2.0f / 16777216.0f) - 1.0f;  // 24-bit uniform
}

}  // namespace kernels
