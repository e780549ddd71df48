// Plain C++ entry points into the skip CUDA file for the GPU tests (no CUDA headers needed). Only
// present in builds with CUDA (kernels/skip/skip.cu). None throws: failures come back in `error`.
#pragma once

#include "kernels/skip/skip.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kernels::skip::gpu {

// "" when `variant` can run p on this device; else why not, with the numbers.
std::string why_not_runnable(const std::string& variant, const SkipParams& p);

// Runs `variant` once on freshly filled inputs with attn_out and out poisoned (0xFF bytes: NaN in
// every dtype) and returns its result converted to float: out in [batch, N, heads d] order, or
// attn_out in [batch_heads, N, d] order for the variant attention. fp16/bf16 -> float is exact, so
// comparing these floats bit for bit compares the stored bits.
struct Output {
    bool ok = false;
    std::string error;
    std::vector<float> result;
    int64_t nonfinite = 0;  // NaN/inf elements of the result: unwritten poison counts here
};
Output run_once(const std::string& variant, const SkipParams& p);

// Index of (attention problem bh, row, col) in Output::result for `variant`.
uint64_t result_index(const std::string& variant, const SkipParams& p, int64_t bh, int64_t row, int64_t col);

}  // namespace kernels::skip::gpu
