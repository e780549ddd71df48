// The start and end of every kernel of one run on the GPU's clock, for the timeline panel.
// Preferred: CUPTI activity records (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: timestamps the GPU
// takes itself, nothing added to the stream). Where CUPTI is not built in or refuses (another
// profiler holds it, no permission, or FUSIONLAB_TIMELINE=events in the environment), the caller
// falls back to CUDA events around each kernel.
#pragma once

#include "kernels/core/types.h"

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace kernels::gpu {

struct KernelTrace {
    bool ok = false;
    std::string error;              // why no records, when !ok
    std::vector<KernelSpan> spans;  // in start order; names are the kernels' (mangled) symbols
    bool attached_cupti = false;    // CUPTI was called (so the caller should detach it: cupti_detach.h)
};

// Runs `launch_all` (which must enqueue the run's kernels on `stream`) once with kernel activity
// records on, waits for the stream, and returns the kernels that ran, times relative to the first
// start, bytes 0. Never throws for CUPTI trouble (ok == false + error); CUDA errors from launch_all
// propagate.
KernelTrace trace_kernels(const std::function<void()>& launch_all, cudaStream_t stream);

// CUDA events before and after each of `count` kernels (launch(k) enqueues kernel k on `stream`):
// the fallback timeline. Each event pair brackets one kernel, so the gaps include the events' own
// cost (~1-2 us): they are an upper bound on the GPU's idle time.
std::vector<KernelSpan> event_timeline(size_t count, const std::function<void(size_t)>& launch, cudaStream_t stream);

// Gives a trace the model's kernel names and bytes when it recorded exactly the model's kernels
// (launch order = start order on one stream); otherwise keeps the symbols, shortened, bytes 0, and
// says so in `note`.
void name_spans(std::vector<KernelSpan>& spans, const std::vector<std::string>& model_names,
                const std::vector<uint64_t>& model_bytes, std::string& note);

}  // namespace kernels::gpu
