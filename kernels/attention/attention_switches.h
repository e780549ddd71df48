// The check of flash_wgmma's comparison switches (FUSIONLAB_FLASH_WGMMA_*, README "diagnostic switches"): each
// takes a few named values, and anything else (a typo) is refused with the values it takes instead of running the
// default without a word. A header of its own so that adding to it rebuilds only the files that use it
// (attention.h is included by most of the app).
#pragma once

#include <string>

namespace kernels::attention {

// "" when every FUSIONLAB_FLASH_WGMMA_* switch that is set has a value it takes; otherwise the first one that
// does not, with the values it takes (validate() refuses flash_wgmma with it, on the GPU and in the simulator).
std::string flash_wgmma_switch_problem();

}  // namespace kernels::attention
