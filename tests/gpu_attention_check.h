// What the attention GPU tests share (tests/gpu_attention_test.cpp, tests/gpu_attention_wgmma_test.cpp):
// an attention parameter set in the terms the kernels' tests think in, as the backend takes it.
#pragma once

#include "kernels/attention/attention.h"

namespace kernels::attention::testing {

inline kernels::Params make(int64_t bh, int64_t N, int64_t d, DType t, bool causal, int Br, int Bc, uint64_t seed) {
    AttentionParams p;
    p.batch_heads = bh;
    p.N = N;
    p.d = d;
    p.dtype = t;
    p.causal = causal;
    p.Br = Br;
    p.Bc = Bc;
    p.seed = seed;
    return to_params(p);
}

}  // namespace kernels::attention::testing
