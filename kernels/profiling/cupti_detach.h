// Detaching CUPTI between jobs. Once any CUPTI call is made, CUPTI stays attached to the process,
// and while attached it keeps about 24 bytes of host memory for every kernel launch, profiled or
// not, until it is detached (H100, CUDA 13.0, driver 580: heaptrack put 32 MiB over 1.25 million
// launches in libcupti under cuLaunchKernel after a 200 s GUI soak; `fusionlab bench` of the
// 1000-launch workload kept 650-780 KiB per job with the activity trace or the range profiler on,
// 22 KiB with neither; docs/RELIABILITY.md). The GPU backend uses CUPTI for a moment per full job
// (the timeline's trace, the DRAM counters), so it can detach after each such job; the next CUPTI
// call attaches it again, and users re-register what they need when cupti_detach_count() moved.
//
// Opt-in (FUSIONLAB_CUPTI_DETACH=1) until it has passed the GUI soak: with it on, `fusionlab bench`
// kept 3-6x less per job, all GPU tests passed, and every job still read its counters and its
// timeline; but the one 10-minute H100 soak run with it on failed (GPU memory +202 MiB, host RSS
// +49.6 MiB against +0.0 and +37-39 MiB without), and the device time to tell why ran out.
// docs/RELIABILITY.md has the figures.
#pragma once

#include <cstdint>
#include <string>

namespace kernels {

// FUSIONLAB_CUPTI_DETACH=1 in the environment (read on every call).
bool cupti_detach_enabled();

// cuptiFinalize. Call with no CUPTI session open: streams synchronised, the activity trace flushed
// and disabled, the range profiler deinitialised. Returns "" or what failed (nothing to undo).
std::string detach_cupti();

// How many times detach_cupti() has detached CUPTI in this process.
uint64_t cupti_detach_count();

}  // namespace kernels
