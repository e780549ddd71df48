// Detaching CUPTI between jobs. Once any CUPTI call is made, CUPTI stays attached to the process,
// and while attached it keeps about 24 bytes of host memory for every kernel launch, profiled or
// not, until it is detached (H100, CUDA 13.0, driver 580: heaptrack put 32 MiB over 1.25 million
// launches in libcupti under cuLaunchKernel after a 200 s GUI soak; `fusionlab bench` of the
// 1000-launch workload kept 650-780 KiB per job with the activity trace or the range profiler on,
// 22 KiB with neither; docs/RELIABILITY.md). The GPU backend uses CUPTI for a moment per full job
// (the timeline's trace, the DRAM counters), so it can detach after each such job; the next CUPTI
// call attaches it again, and users re-register what they need when cupti_detach_count() moved.
//
// Off: a diagnostic switch (FUSIONLAB_CUPTI_DETACH=1), not a remedy. Measured on an H100 on
// 2026-11-28 with two exact-replay soaks side by side (docs/RELIABILITY.md, "GPU soaks in passes"):
// kept attached, the C heap at the ends of passes 2-3 stayed within 0.1 MiB of pass 1's end; detached
// and attached again after every job, it rose 5.1 and 3.3 MiB a pass and one process's GPU memory 26
// MiB a pass. (The 13-15 MiB per GUI replay of 2026-11-25 were first uses that inexact replays met
// anew, and the GL driver.) `fusionlab bench` keeps 3-6x less per job with it on, since a job
// launches tens of thousands of kernels; the GUI's jobs do not.
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
