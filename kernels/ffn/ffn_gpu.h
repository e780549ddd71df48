// The one entry point into kernels/ffn/ffn.cu beyond its WorkloadDef: a timing for kernels/PERF.md,
// not a check (the GPU tests check ffn through the backend's checked run and the GpuWorkload that
// WorkloadDef::make_gpu makes). The epilogue variant's two cuBLASLt GEMMs with their epilogues
// (GELU_BIAS, BIAS) against the same GEMMs alone (DEFAULT), which no variant runs: the goal of
// kernels/PERF.md, the epilogue costs < 5% at M >= 2048. CUDA builds only.
#pragma once

#include "kernels/ffn/ffn.h"

namespace kernels::ffn::gpu {

// `reps` runs of each, alternating run by run so that clock changes under a long GEMM load (power,
// heat) hit both alike: medians in milliseconds (CUDA events around each run, one buffer set, back
// to back after 3 warm-up runs of each).
struct LtTimes {
    double alone_ms = 0, with_epilogues_ms = 0;
};
LtTimes time_lt_gemms(const FfnParams& p, int reps);

}  // namespace kernels::ffn::gpu
