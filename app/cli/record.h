// `fusionlab record`: measures, on the GPU in front of it, every lesson step's parameter set and the
// GUI's sweeps, every variant of each, and writes one recording (app/recordings/recording_file.h) into
// OUT/<card>-<date>/recording.json. scripts/record_gpu.sh runs it on a lent GPU.
//
// The points, in the order they are measured (what a budget cuts first comes last):
//   1. every step of every shipped lesson (the parameters the step puts on screen), and the sweep a
//      step with @sweep starts from there;
//   2. the sweep view's default sweeps from each workload's default parameters: every sweepable
//      size parameter over its default range (app/core/sweep.h: N, d, heads; rows, hidden; steps,
//      elements; M, d_model; ...), then each tile-like choice (a log-scaled choice parameter: Br,
//      Bc) over its choices, the others at their defaults.
// Each point runs every variant of its workload as one batch through the runner. Repetitions are cut
// before points: a variant gets the asked reps, fewer (down to 3) where its kernels are slow enough
// that the reps would pass about a second. A variant no lesson step shows at that point is left out
// when the simulator expects it to take more than kMaxUnshownJobSeconds (the teaching flash kernel at
// N = 32768 would take a minute). With a time budget the recorder starts no point it expects to end
// past the budget. What it leaves out, refusals and failures are listed in the header ("cut").
// --sim KEY rehearses on a simulated GPU: the same points, the same file (marked a rehearsal, which
// the app refuses to load), and an estimate of the time the GPU would take.
#pragma once

#include "app/lessons/model/lesson.h"
#include "kernels/core/types.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace app {

struct RecordOptions {
    std::string out;            // folder; the recording goes to out/<card>-<date>/recording.json
    int reps = 10;              // timed repetitions per variant (taken as asked: Job::reps_as_asked)
    int warmup = 2;
    double budget_s = 0;        // > 0: start no point expected to end after this many seconds
    std::string sim_gpu;        // non-empty: rehearse on this simulated GPU
    bool list = false;          // print the points (and the rehearsal's estimate); measure nothing
    std::string command;        // the command line, for the header
};

struct RecordPoint {
    kernels::Params params;
    std::vector<std::string> origins;  // "lesson 04 step 2", "sweep attention N", ... (each that needs it)
    std::vector<std::string> shown;    // the variants a lesson step shows at this point (empty: none)
};

// Timed repetitions of a variant whose run takes `run_ms` (by the simulator) when `asked` were asked.
inline constexpr int kMinRecordReps = 3;
inline constexpr double kRepSeconds = 1.0;
int record_reps(int asked, double run_ms);
// A variant no lesson shows at a point is left out above this many seconds (by the estimate).
inline constexpr double kMaxUnshownJobSeconds = 10.0;

// Every point, deduplicated, in measuring order (lessons first, then the default sweeps).
std::vector<RecordPoint> recording_points(const std::vector<Lesson>& lessons);

// The time a job of this simulated measurement would take on the GPU with these reps (checked run,
// warm-up, timed reps, timeline, counters) plus the host's fixed costs per job measured on an
// H100 (the CPU check, CUPTI's range profiler): the rehearsal's estimate.
double estimated_job_seconds(const kernels::Measurement& simulated, int reps, int warmup);

int run_record(const RecordOptions& o, std::ostream& out, std::ostream& err);

}  // namespace app
