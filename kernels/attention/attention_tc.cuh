// The entry point of flash_tc (attention_tc.cu), the mma.sync attention kernel for sm_80 and newer.
// attention.cu launches it for the attention workload, and through launch_attention_kernel() with
// the skip epilogue for kernels/skip.
#pragma once

#include "kernels/attention/attention.h"
#include "kernels/attention/attention_epilogue.cuh"

#include <cuda_runtime.h>

namespace kernels::attention::gpu {

// Runs flash_tc on p (tile p.Br x p.Bc as attention.h offers, d in {32, 64, 128}, fp16 or bf16):
// reads Q, K, V and writes O, or with the skip epilogue (ep.x != nullptr) writes ep.out instead.
// Throws on a CUDA error or parameters it does not take (the model's validate() refuses those first).
void launch_flash_tc(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O, cudaStream_t stream,
                     const SkipEpilogue& ep = SkipEpilogue{});

}  // namespace kernels::attention::gpu
