// Plain C++ entry points into the attention CUDA file for the GPU tests and the timing tool (no
// CUDA headers needed). Only present in builds with CUDA (kernels/attention/attention.cu).
// Every function catches CUDA and cuBLAS failures and reports them in `error`; none throws.
#pragma once

#include "kernels/attention/attention.h"
#include "kernels/core/types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kernels::attention::gpu {

// What decides whether a variant can run on the current device.
struct DeviceLimits {
    bool ok = false;
    std::string error;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    int smem_per_block = 0, smem_per_block_optin = 0;
    int64_t free_bytes = 0, total_bytes = 0;
};
DeviceLimits device_limits();

// "" when `variant` can run p on this device; else why not, with the numbers: invalid parameters,
// flash_tc below sm_80, a flash tile that does not fit in shared memory, naive's S and P (or the
// inputs) not fitting in free GPU memory.
std::string why_not_runnable(const std::string& variant, const AttentionParams& p);

// Runs `variant` once on freshly filled inputs with O (and naive's S and P) poisoned with 0xFF
// bytes (NaN in every dtype) first, and returns O (batch_heads x N x d) converted to float.
struct Output {
    bool ok = false;
    std::string error;
    std::vector<float> out;
    int64_t nonfinite = 0;  // NaN/inf elements of O: unwritten poison counts here
};
Output run_once(const std::string& variant, const AttentionParams& p);

// Times the whole variant (all its kernels) with CUDA events: `warmup` runs, then `reps` >= 20
// timed runs queued back to back on one stream; median, min, max. Inputs are random (never zeros);
// the first run's output is scanned for NaN before anything is timed.
struct Timing {
    bool ok = false;
    std::string error;
    TimeStats time;
    std::string device;
    std::string note;  // reps, warm-up, working set vs L2
};
Timing time_variant(const std::string& variant, const AttentionParams& p, int warmup = 3, int reps = 20);

}  // namespace kernels::attention::gpu
