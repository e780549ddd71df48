// flash_wgmma's launch registers per thread, from ptxas (kernels/attention/flash_wgmma_registers.inc), for the
// model's occupancy: the instance the default build runs (v14's order of Oi's rescale where it is the default, the
// epilogue's instance for skip's wgmma_fused). Only the two model files that set a flash_wgmma kernel's registers
// include it (attention_model.cpp, skip_model.cpp): attention.h is included by two dozen files, .cu ones among them.
#pragma once

#include "kernels/attention/attention.h"

namespace kernels::attention {

// With two or three consumer warpgroups __launch_bounds__(threads, 1) holds the launch to the register file's share
// (one block per SM); with one (Br = 64) ptxas uses what the instance needs, and at 64 x 64, d = 64 (119 registers)
// two blocks share an SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor sizes the persistent grid by it).
// An instance the table does not hold (not built): the register file's share.
RegisterUse flash_wgmma_launch_registers(const AttentionParams& p, bool skip_epilogue);

}  // namespace kernels::attention
