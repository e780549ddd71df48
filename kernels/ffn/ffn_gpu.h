// What the GPU tests need from kernels/ffn/ffn.cu beyond the WorkloadDef: the GpuWorkload itself
// (the tests drive it step by step) and the timing of the two cuBLASLt GEMMs with and without
// their epilogues (PERF.md's goal: the epilogue costs < 5% at M >= 2048). CUDA builds only.
#pragma once

#include "kernels/gpu/gpu_workload.h"
#include "kernels/ffn/ffn.h"

#include <memory>

namespace kernels::ffn::gpu {

std::unique_ptr<GpuWorkload> make_gpu_workload();

// The epilogue variant's two cuBLASLt GEMMs with their epilogues (GELU_BIAS, BIAS) and without
// (DEFAULT: the same GEMMs alone), `reps` runs of each, alternating run by run so that clock
// changes under a long GEMM load (power, heat) hit both alike: medians in milliseconds (CUDA events
// around each run, one buffer set, back to back after 3 warm-up runs of each).
struct LtTimes {
    double alone_ms = 0, with_epilogues_ms = 0;
};
LtTimes time_lt_gemms(const FfnParams& p, int reps);

}  // namespace kernels::ffn::gpu
