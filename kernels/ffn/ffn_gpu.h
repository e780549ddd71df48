// What the GPU tests need from kernels/ffn/ffn.cu beyond the WorkloadDef: the GpuWorkload itself
// (the tests drive it step by step) and the timing of the two cuBLASLt GEMMs with and without
// their epilogues (PERF.md's goal: the epilogue costs < 5% at M >= 2048). CUDA builds only.
#pragma once

#include "kernels/common/gpu_workload.h"
#include "kernels/ffn/ffn.h"

#include <memory>

namespace kernels::ffn::gpu {

std::unique_ptr<GpuWorkload> make_gpu_workload();

// Median of `reps` back-to-back runs (CUDA events, one buffer set) of the epilogue variant's two
// cuBLASLt GEMMs: with their epilogues (GELU_BIAS, BIAS) or without (DEFAULT: the same GEMMs
// alone). Milliseconds.
double time_lt_gemms_ms(const FfnParams& p, bool with_epilogues, int reps);

}  // namespace kernels::ffn::gpu
