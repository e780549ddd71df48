// The sweep: one size parameter of the current workload over a range in log (x2) steps, every
// selected variant at each size, through the runner as one batch (a progress count, cancel by
// superseding the batch). No ImGui: the sweep view (app/gui/panel_sweep.cpp) draws it, `fusionlab
// shot --view sweep` runs it blocking, lesson steps start it through AppState::sweep_requested.
#pragma once

#include "app/core/runner.h"
#include "app/core/settings.h"
#include "kernels/core/types.h"
#include "kernels/core/registry.h"

#include <string>
#include <vector>

namespace app {

struct ResolvedBackend;  // app/core/jobs.h

struct SweepState {
    // What to sweep (the GUI's controls). from/to = 0: the defaults for the parameter.
    std::string param = "N";
    double from = 0, to = 0;
    // Requests from the panel (or a lesson step), serviced by service_sweep() each frame.
    bool start_requested = false;
    bool cancel_requested = false;
    // The run in flight or finished.
    bool running = false;
    bool cancelled = false;
    uint64_t first_id = 0;
    size_t total = 0;
    std::string workload = "attention";
    std::string swept = "N";
    std::vector<double> values;       // the sizes, ascending
    std::vector<std::string> skipped; // sizes left out and why (too large for the size limit)
    std::vector<kernels::Measurement> results;
    std::string message;              // export result or why the sweep could not start
    bool message_error = false;
    // Where only one chart is readable (projector fonts on a short screen): the bytes chart, not time.
    bool bytes_chart_alone = false;
};

// The size parameters a sweep can vary for w (integer, log-scaled sliders), the main one first:
// attention N, then d, batch x heads; chain / bias_gelu rows, then hidden.
std::vector<std::string> sweepable_params(const std::string& w);
// The range offered by default: N 256..8192, rows 256..16384, hidden 256..16384, ... (inside the spec).
void default_sweep_range(const std::string& w, const std::string& id, double& from, double& to);
// from, 2 from, 4 from, ... up to to (inclusive when a power-of-two multiple); from <= to.
std::vector<double> sweep_values(double from, double to);

// Checks the range and builds the batch (sizes x selected variants) into state; "" or why not.
std::string prepare_sweep(SweepState& state, const Settings& s, const ResolvedBackend& backend,
                          std::vector<kernels::Job>& batch);
// Moves the results that belong to the running sweep out of `fresh` into state.results; the
// sweep ends when every job has answered.
void take_sweep_results(SweepState& state, std::vector<kernels::Measurement>& fresh);
// Starts or cancels as requested. Returns true when it submitted (or cancelled) this frame.
bool service_sweep(SweepState& state, const Settings& s, const ResolvedBackend& backend, Runner& runner);
// Runs the whole sweep and waits (shot). Returns "" or why it could not run.
std::string run_sweep_blocking(SweepState& state, const Settings& s, const ResolvedBackend& backend, Runner& runner);
// 0..1
double sweep_progress(const SweepState& state);
// Writes the sweep's measurements as CSV or JSON ("csv" / "json") beside the other exports;
// returns "saved PATH" or the error in state.message.
void export_sweep(SweepState& state, const Settings& s, const std::string& extension);

}  // namespace app
