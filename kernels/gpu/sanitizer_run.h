// Sanitizer runs (scripts/gpu_sanitize.sh): with FUSIONLAB_SANITIZER_RUN=1 in the environment the
// GPU backend runs each kernel as few times as the job asks (no minimum of 20 timed reps, one
// warm-up run) and skips the hardware counters (the CUPTI profiler and compute-sanitizer cannot
// share the GPU). Every result then says so in its timing note and `bench` prints a banner: the
// times of such a run are not measurements. Without the variable nothing changes.
#pragma once

namespace kernels {

// Timed repetitions a GPU measurement uses at least, so its median means something.
inline constexpr int kMinGpuTimedReps = 20;

// True when FUSIONLAB_SANITIZER_RUN is set to anything but "" or "0" (read once).
bool sanitizer_run();
// Timed reps for a job that asked for `requested`: at least kMinGpuTimedReps, or at least 1 in
// a sanitizer run.
int gpu_timed_reps(int requested);
// Warm-up runs before timing: at least 1; exactly 1 in a sanitizer run.
int gpu_warmup_runs(int requested);
// The note put in front of every timing note of a sanitizer run.
const char* sanitizer_run_note();

}  // namespace kernels
