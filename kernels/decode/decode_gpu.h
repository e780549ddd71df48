// Plain C++ entry points into the decode CUDA file for the GPU tests (no CUDA headers needed). Only
// present in builds with CUDA (kernels/decode/decode.cu). None throws: failures come back in `error`.
#pragma once

#include "kernels/decode/decode.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kernels::decode::gpu {

// "" when `variant` can run p on this device (free memory included); else why not, with the numbers.
std::string why_not_runnable(const std::string& variant, const DecodeParams& p);

// Runs `variant` once on freshly filled inputs (the paged pool's empty slots, out, S, P and the
// partials poisoned with 0xFF bytes: NaN in every dtype) and returns out ([batch, heads, d]) as float.
// fp16/bf16 -> float is exact, so comparing these floats bit for bit compares the stored bits.
// `runs` > 1 runs it again on the same buffers (split_kv_fused's counters must come back to 0).
struct Output {
    bool ok = false;
    std::string error;
    std::vector<float> out;
    int64_t nonfinite = 0;  // NaN/inf elements of out: unwritten poison counts here
    int64_t splits = 0;     // the key chunks the kernel ran
};
Output run_once(const std::string& variant, const DecodeParams& p, int runs = 1);

}  // namespace kernels::decode::gpu
