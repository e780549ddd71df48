// FUSIONLAB_SANITIZER_RUN: see sanitizer_run.h.
#include "kernels/gpu/sanitizer_run.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace kernels {

bool sanitizer_run() {
    static const bool on = [] {
        const char* v = std::getenv("FUSIONLAB_SANITIZER_RUN");
        return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
    }();
    return on;
}

int gpu_timed_reps(int requested) { return std::max(requested, sanitizer_run() ? 1 : kMinGpuTimedReps); }

int gpu_warmup_runs(int requested) { return sanitizer_run() ? 1 : std::max(requested, 1); }

const char* sanitizer_run_note() {
    return "SANITIZER RUN (FUSIONLAB_SANITIZER_RUN is set): reps as asked, 1 warm-up, no counters; "
           "these times are not measurements";
}

}  // namespace kernels
