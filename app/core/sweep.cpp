// [SECTION] Parameters and values
// [SECTION] Running
// [SECTION] Export
#include "app/core/sweep.h"

#include "app/files/export.h"
#include "app/core/jobs.h"

#include <algorithm>
#include <cmath>

namespace app {

// ---------------------------------------------------------------------------------------------
// [SECTION] Parameters and values
// ---------------------------------------------------------------------------------------------
// The workload's integer, log-scaled size parameters, in its table's order (N, d, heads; rows, hidden).
std::vector<std::string> sweepable_params(const std::string& w) {
    std::vector<std::string> out;
    for (const kernels::ParamSpec& spec : kernels::param_specs(w))
        if (spec.kind == kernels::ParamKind::number && spec.integer && spec.log_scale) out.push_back(spec.name);
    return out;
}

void default_sweep_range(const std::string& w, const std::string& id, double& from, double& to) {
    from = 256, to = 16384;
    if (const kernels::ParamSpec* spec = kernels::find_param_spec(w, id)) {
        if (spec->sweep_to > 0) from = spec->sweep_from, to = spec->sweep_to;
        from = std::clamp(from, spec->min, spec->max);
        to = std::clamp(to, spec->min, spec->max);
    }
}

std::vector<double> sweep_values(double from, double to) {
    std::vector<double> v;
    if (!(from > 0) || !(to >= from)) return v;
    for (double x = from; x <= to * (1 + 1e-12) && v.size() < 64; x *= 2) v.push_back(std::round(x));
    return v;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Running
// ---------------------------------------------------------------------------------------------
std::string prepare_sweep(SweepState& state, const Settings& s, const ResolvedBackend& backend,
                          std::vector<kernels::Job>& batch) {
    if (!backend.ready) return "the GPU probe has not answered yet";
    const std::string w = s.params.workload;
    const auto allowed = sweepable_params(w);
    if (allowed.empty()) return std::string("workload ") + w + " has no size parameter to sweep";
    if (std::find(allowed.begin(), allowed.end(), state.param) == allowed.end()) {
        state.param = allowed.front();
        state.from = state.to = 0;
    }
    if (state.from <= 0 || state.to <= 0) default_sweep_range(w, state.param, state.from, state.to);
    const kernels::ParamSpec* spec = kernels::find_param_spec(w, state.param);
    if (state.from < spec->min || state.to > spec->max || state.from > state.to)
        return std::string(spec->name) + " from " + std::to_string(static_cast<int64_t>(state.from)) + " to " +
               std::to_string(static_cast<int64_t>(state.to)) + " is not a range inside " +
               kernels::legal_values_text(*spec);
    state.workload = w;
    state.swept = state.param;
    state.values.clear();
    state.skipped.clear();
    state.results.clear();
    state.cancelled = false;
    const std::vector<kernels::Job> one = make_batch(s, backend);
    if (one.empty()) return "no variant selected";
    for (double v : sweep_values(state.from, state.to)) {
        kernels::Params p = s.params;
        p.set(state.param, v);
        if (std::string why = kernels::validate(p); !why.empty()) {
            state.skipped.push_back(why);
            continue;
        }
        state.values.push_back(v);
        for (kernels::Job job : one) {
            job.params = p;
            job.emulate = false;  // a simulated sweep draws times and bytes, no errors: no CPU arithmetic
            batch.push_back(job);
        }
    }
    if (batch.empty()) return "no size in the range is valid: " + (state.skipped.empty() ? "" : state.skipped.front());
    state.total = batch.size();
    return "";
}

void take_sweep_results(SweepState& state, std::vector<kernels::Measurement>& fresh) {
    if (!state.running) return;
    auto mine = [&](const kernels::Measurement& m) {
        return m.job.id >= state.first_id && m.job.id < state.first_id + state.total;
    };
    for (kernels::Measurement& m : fresh)
        if (mine(m)) state.results.push_back(std::move(m));
    fresh.erase(std::remove_if(fresh.begin(), fresh.end(), mine), fresh.end());
    if (state.results.size() >= state.total) state.running = false;
}

bool service_sweep(SweepState& state, const Settings& s, const ResolvedBackend& backend, Runner& runner) {
    if (state.cancel_requested) {
        state.cancel_requested = false;
        if (state.running) {
            runner.submit({});  // an empty batch makes every queued and running job stale
            state.running = false;
            state.cancelled = true;
            state.message = "sweep cancelled after " + std::to_string(state.results.size()) + " of " +
                            std::to_string(state.total) + " runs";
            state.message_error = false;
            return true;
        }
    }
    if (!state.start_requested || !backend.ready) return false;
    state.start_requested = false;
    std::vector<kernels::Job> batch;
    if (std::string why = prepare_sweep(state, s, backend, batch); !why.empty()) {
        state.message = "sweep not started: " + why;
        state.message_error = true;
        return false;
    }
    state.message.clear();
    state.running = true;
    state.first_id = runner.submit(std::move(batch));
    return true;
}

std::string run_sweep_blocking(SweepState& state, const Settings& s, const ResolvedBackend& backend, Runner& runner) {
    std::vector<kernels::Job> batch;
    if (std::string why = prepare_sweep(state, s, backend, batch); !why.empty()) return why;
    state.results = runner.run_blocking(std::move(batch));
    state.running = false;
    return "";
}

double sweep_progress(const SweepState& state) {
    return state.total ? static_cast<double>(state.results.size()) / static_cast<double>(state.total) : 0.0;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Export
// ---------------------------------------------------------------------------------------------
void export_sweep(SweepState& state, const Settings& s, const std::string& extension) {
    if (state.results.empty()) {
        state.message = "nothing to export: run a sweep first";
        state.message_error = true;
        return;
    }
    std::string path = export_path(s, extension);
    // fusionlab-attention-20261122-031500.csv -> fusionlab-attention-sweep-20261122-031500.csv
    const std::string stem = std::string("fusionlab-") + s.params.workload + "-";
    if (const size_t at = path.rfind(stem); at != std::string::npos) path.insert(at + stem.size(), "sweep-");
    const std::string error = extension == "json" ? export_json(path, state.results) : export_csv(path, state.results);
    state.message = error.empty() ? "saved " + path : error;
    state.message_error = !error.empty();
}

}  // namespace app
