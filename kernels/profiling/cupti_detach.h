// Detaching CUPTI between jobs. Once any CUPTI call is made, CUPTI stays attached to the process,
// and while attached it keeps about 24 bytes of host memory for every kernel launch, profiled or
// not, until it is detached (H100, CUDA 13.0, driver 580: heaptrack put 32 MiB over 1.25 million
// launches in libcupti under cuLaunchKernel after a 200 s GUI soak; `fusionlab bench` of the
// 1000-launch workload kept 650-780 KiB per job with the activity trace or the range profiler on,
// 22 KiB with neither; docs/RELIABILITY.md). The GPU backend uses CUPTI for a moment per full job
// (the timeline's trace, the DRAM counters), so it can detach after each such job; the next CUPTI
// call attaches it again, and users re-register what they need when cupti_detach_count() moved.
//
// On by default (since 2026-11-28; FUSIONLAB_CUPTI_DETACH=0 keeps CUPTI attached, to compare): kept
// attached, every GUI soak's C heap rose by 13-15 MiB per 200 s replay on an H100, which an all-day
// lab cannot afford; detached, `fusionlab bench` kept 3-6x less per job, all GPU tests passed, and
// every job still read its counters and its timeline. One 10-minute soak with it on (2026-11-25)
// ended with GPU memory +202 MiB, not explained then; docs/RELIABILITY.md has that run and the
// soaks in passes that measure both settings.
#pragma once

#include <cstdint>
#include <string>

namespace kernels {

// True unless FUSIONLAB_CUPTI_DETACH=0 is in the environment (read on every call).
bool cupti_detach_enabled();

// cuptiFinalize. Call with no CUPTI session open: streams synchronised, the activity trace flushed
// and disabled, the range profiler deinitialised. Returns "" or what failed (nothing to undo).
std::string detach_cupti();

// How many times detach_cupti() has detached CUPTI in this process.
uint64_t cupti_detach_count();

}  // namespace kernels
