// What the attention GPU tests share: run a variant once on poisoned outputs and compare the rows
// rows_to_check() picks against the float64 CPU reference (tests/gpu_attention_test.cpp,
// tests/gpu_attention_wgmma_test.cpp).
#pragma once

#include "kernels/attention/attention.h"
#include "kernels/attention/attention_gpu.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace kernels::attention::testing {

struct Errors {
    double rel_l2 = 0, max_abs = 0;
    int64_t nonfinite = 0, compared = 0;
};

// Compares the rows rows_to_check() picks (all of them for these small problems).
inline Errors compare(const AttentionParams& p, const std::vector<float>& out) {
    Errors e;
    std::vector<double> want(static_cast<size_t>(p.d));
    double err2 = 0, ref2 = 0;
    for (const RowRef& r : rows_to_check(p, 2e7)) {
        reference_row(p, r.head, r.row, want.data());
        for (int64_t c = 0; c < p.d; ++c) {
            const double got = out[static_cast<size_t>((r.head * p.N + r.row) * p.d + c)];
            ++e.compared;
            if (!std::isfinite(got)) {
                ++e.nonfinite;
                continue;
            }
            const double diff = got - want[static_cast<size_t>(c)];
            e.max_abs = std::max(e.max_abs, std::fabs(diff));
            err2 += diff * diff;
            ref2 += want[static_cast<size_t>(c)] * want[static_cast<size_t>(c)];
        }
    }
    e.rel_l2 = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
    return e;
}

// fp32: fp32 dot products and exp over at most a few thousand terms. fp16/bf16: inputs are exact
// in the dtype, but S (naive), P and O are rounded to 11 or 8 significant bits.
inline double tolerance(DType t) { return t == DType::f32 ? 1e-5 : 1e-2; }

inline AttentionParams make(int64_t bh, int64_t N, int64_t d, DType t, bool causal, int Br, int Bc, uint64_t seed) {
    AttentionParams p;
    p.batch_heads = bh;
    p.N = N;
    p.d = d;
    p.dtype = t;
    p.causal = causal;
    p.Br = Br;
    p.Bc = Bc;
    p.seed = seed;
    return p;
}

inline void check_variant(const std::string& variant, const AttentionParams& p) {
    INFO(variant << " bh " << p.batch_heads << " N " << p.N << " d " << p.d << " " << kernels::to_string(p.dtype)
                 << (p.causal ? " causal" : "") << " Br " << p.Br << " Bc " << p.Bc << " seed " << p.seed);
    const gpu::Output r = gpu::run_once(variant, p);
    REQUIRE(r.error == "");
    REQUIRE(r.ok);
    REQUIRE(r.out.size() == static_cast<size_t>(p.batch_heads * p.N * p.d));
    CHECK(r.nonfinite == 0);  // poisoned O: every element written, nothing NaN
    const Errors e = compare(p, r.out);
    INFO("rel L2 " << e.rel_l2 << " max abs " << e.max_abs << " over " << e.compared << " elements");
    CHECK(e.nonfinite == 0);
    CHECK(e.rel_l2 <= tolerance(p.dtype));
}

}  // namespace kernels::attention::testing
