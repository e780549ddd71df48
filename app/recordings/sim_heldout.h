// The simulator against measurements it was not fitted on (issue 34, point 4).
//
// Every point of every recording and bench table is put on one side of a split chosen before any
// fit, from its key alone: FNV-1a (64 bits) of point_key(params, variant) (app/recordings/recording_file.h:
// workload, variant, dtype and every parameter, no card and no time), modulo 3; 0 holds it out. The
// same shape is held out on both cards, so a fit on one card's point cannot leak into the other's.
// The calibration's constants that no benchmark measures (fit_calibration) are fitted on the rest; `fusionlab info`,
// tests/sim_heldout_test.cpp and kernels/PERF.md report mean, median and worst absolute error of the
// simulated time against the measured median on the held-out points, per card and workload.
//
// [SECTION] The split
// [SECTION] Points and errors
// [SECTION] The fit
// [SECTION] The study in one command
#pragma once

#include "kernels/sim/sim_backend.h"
#include "kernels/core/types.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace app {

// =============================================================================================
// [SECTION] The split
// =============================================================================================

// FNV-1a, 64 bits, of point_key(p, variant): stable across builds, platforms and cards.
uint64_t heldout_hash(const kernels::Params& p, const std::string& variant);
// True for the third of the points the fit never sees (heldout_hash % 3 == 0).
bool held_out(const kernels::Params& p, const std::string& variant);

// =============================================================================================
// [SECTION] Points and errors
// =============================================================================================

// One measured point beside its simulation on the simulated GPU of its card.
struct SimPoint {
    std::string card;       // "H100", "H200" (card_of_device)
    std::string source;     // the file it came from, relative to the repository or recordings folder
    std::string workload, variant, shape;  // shape: describe(params)
    kernels::Measurement measured;         // as recorded (job, device, time, timeline)
    double measured_ms = 0, simulated_ms = 0;
    std::string limiter;    // the simulated result's, in a few words (limiter_word)
    bool held_out = false;
    // Held out because a table of all_held_out points has its card and key (BenchTable::all_held_out), not by its
    // hash: out of the split's share, in every held-out mean.
    bool held_by_table = false;
    // How far the point's own repetitions lie from their median: max(max / median - 1, 1 - min / median).
    // Wider than kNoiseBound, the measurement itself cannot be held to 25 %: the point stays in every
    // mean, but the 25 % check reports it as noise-bound instead of holding the model to it.
    double spread = 0;
    // Measured with kernels rewritten since (a recording's superseded.txt, a bench table's superseded
    // variants): never fitted on, out of every mean but the study's "with the superseded points" lines.
    bool superseded = false;
    double error() const { return measured_ms > 0 ? simulated_ms / measured_ms - 1.0 : 0.0; }
    bool noise_bound() const;
};
inline constexpr double kNoiseBound = 0.25;

// The bench tables of assets/measurements the simulator is held to (paths relative to the
// repository), each with the variants whose kernels have since been rewritten (left out).
struct BenchTable {
    const char* file;
    std::vector<std::string> superseded;
    // Every point of the table is held out, whatever its hash: a table measured after the fit it is checked
    // against (the H200's 64-head attention of 2026-11-28 14:26 UTC). The points of the same card and key in any
    // other source are held out with it (SimPoint::held_by_table), so no fit sees what the table tests.
    bool all_held_out = false;
};
const std::vector<BenchTable>& bench_tables();

// The points of measurements `ms` (ok ones with a time), simulated on their card's simulated GPU
// with calibration `cal_for(card)`; points of a card without a simulated GPU are left out.
using CalibrationFor = kernels::SimCalibration (*)(const std::string& card);
kernels::SimCalibration builtin_calibration(const std::string& card);  // the simulated GPU's own
// Every point is priced with its own machine's measured ceilings (kernels/sim/measured_ceilings.h);
// only the constants no benchmark measures are fitted (fit_calibration).
std::vector<SimPoint> sim_points(const std::vector<kernels::Measurement>& ms, const std::string& source,
                                 CalibrationFor cal_for = builtin_calibration);
// Every studied recording in `recordings_folder` (DIR/*/recording.json) and, when `repository` is not
// empty, every bench table under it. Unreadable files are named in `errors`. A recording's folder may
// hold superseded.txt: the points it measured with kernels rewritten since (kernels/PERF.md, "Held out,
// fourth pass"), one line each "workload variant [variant ...]: why"; they are left out, and `notes`
// (when given) says how many and why.
// With `keep_superseded` the superseded points are kept too, flagged (SimPoint::superseded), for the study's
// numbers with them in.
std::vector<SimPoint> load_sim_points(const std::string& recordings_folder, const std::string& repository,
                                      std::vector<std::string>& errors, std::vector<std::string>* notes = nullptr,
                                      bool keep_superseded = false);
// The superseded lines of a recording folder's superseded.txt: workload, its variants, the reason.
struct SupersededPoints {
    std::string workload;
    std::vector<std::string> variants;
    std::string why;
};
std::vector<SupersededPoints> read_superseded(const std::string& file, std::vector<std::string>& errors);

struct ErrorStats {
    int n = 0;
    double mean = 0, median = 0, worst = 0;  // of |simulated / measured - 1|
    double mean_ratio = 0;                   // of simulated / measured: the bias
    int within_25 = 0;
    std::string worst_point;                 // "variant shape: simulated X ms, measured Y ms"
};
ErrorStats error_stats(const std::vector<const SimPoint*>& points);

// Held-out (or fitted, held_out == false) points: per card, per workload and "all"; superseded points only
// with `with_superseded`.
std::map<std::string, std::map<std::string, ErrorStats>> error_table(const std::vector<SimPoint>& points, bool held_out,
                                                                     bool with_superseded = false);

// The lines `fusionlab info` prints: per card, "all" then each workload, n, mean, median, worst.
std::vector<std::string> heldout_report_lines(const std::vector<SimPoint>& points);

// =============================================================================================
// [SECTION] The fit
// =============================================================================================

// The calibration's fitted constants, by coordinate descent from `start` to the smallest sum of
// |log(simulated / measured)| over `training` (the fitted points of one card):
// - the host side and the GPU's start of a kernel (SimCalibration: first_launch_us, host_launch_us,
//   host_library_us, gpu_gap_us, queued_gap_us, graph_launch_us, graph_node_us),
//   on a grid of 0.05 us within [0, 40] us;
// - the rates the datasheet does not give and no copy or GEMM benchmark measures (shared_gbps, the
//   share of the shared-memory peak the kernels reach; mma_sync_tflops; issue_per_s; sfu_per_s;
//   l2_gbps; memory_latency_us; dram_read_gbps, the rate of a stream that only reads), by steps of 1 %, kept to
//   3 significant digits; each but the latency only when some fitted point has a kernel that spends at least
//   half its time on its resource (else not_fitted).
// A rate the hardware bounds stays within that bound: the exp2 rate (sfu_per_s) at most the SFUs' issue rate, 16 a
// clock an SM at the clock the simulated GPU carries (kernels/sim/measured_ceilings.h, sfu_peak_per_s); a start
// above it starts at it (capped).
// The measured ceilings (copy, GEMM, FMA) are not fitted: they are measured.
struct CalibrationFit {
    kernels::SimCalibration cal;
    double objective = 0;  // the sum at cal
    int evaluations = 0;
    // Rates left as they started: no fitted point has a kernel that spends half its time on their resource.
    std::vector<double kernels::SimCalibration::*> not_fitted;
    // Rates that end at the hardware's bound (the fit would take them beyond it, or they started beyond it).
    std::vector<double kernels::SimCalibration::*> capped;
};
CalibrationFit fit_calibration(const std::vector<const SimPoint*>& training, const kernels::SimCalibration& start);

// Each point priced again (price_run, as the fit does) on its card's calibration in `cals`; cards
// not in `cals` keep their simulated time.
void reprice(std::vector<SimPoint>& points, const std::map<std::string, kernels::SimCalibration>& cals);

// =============================================================================================
// [SECTION] The study in one command
// =============================================================================================

// The whole held-out study, as `fusionlab info --sim-heldout` prints it, so that it can be run again
// on new recordings: the points of every recording in `recordings_folder` and of the bench tables
// under `repository` ("" : none); the error on the held-out points with the simulated GPUs' built-in
// constants (per card and workload: n, mean, median, worst, and the fitted points' mean), every
// held-out point outside 25 %; then fit_calibration per card on its fitted two thirds, each constant
// beside the built-in one (the lines to put in kernels/sim/sim_backend.cpp when any moved), and the
// held-out error with the fitted constants. With `points_csv`, every point (fitted and held out, superseded ones
// flagged) is written there as CSV with its simulated time on the built-in constants (write_points_csv); a file
// that cannot be written is said in *csv_error.
std::vector<std::string> heldout_study(const std::string& recordings_folder, const std::string& repository,
                                       const std::string& points_csv = "", std::string* csv_error = nullptr);
// The points as CSV: card, source, workload, variant, the tile and shape parameters scripts read (N, heads, d,
// causal, br, bc; empty where the workload has none), held_out, superseded, measured_ms, simulated_ms, the key.
// "" when written, else why not.
std::string write_points_csv(const std::vector<SimPoint>& points, const std::string& path);

}  // namespace app
