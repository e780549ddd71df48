// The entry point of flash_wgmma (attention_wgmma.cu), the attention kernel for sm_90a. That file is
// compiled for sm_90a only, and only when the build's architecture list contains 90
// (FUSIONLAB_HAVE_WGMMA); attention.cu calls it and refuses the variant otherwise.
#pragma once

#include "kernels/attention/attention.h"
#include "kernels/attention/attention_epilogue.cuh"

#include <cuda_runtime.h>

namespace kernels::attention::gpu {

// Runs flash_wgmma on p (tile p.Br x p.Bc, d in {64, 128}, fp16 or bf16): reads Q, K, V and writes O,
// or with the skip epilogue (ep.x != nullptr) writes ep.out instead.
// Throws on a CUDA error or parameters it does not take (the model's validate() refuses those first).
void launch_flash_wgmma(const AttentionParams& p, const void* Q, const void* K, const void* V, void* O,
                        cudaStream_t stream, const SkipEpilogue& ep = SkipEpilogue{});

}  // namespace kernels::attention::gpu
