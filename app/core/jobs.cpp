// [SECTION] Backend choice
// [SECTION] Batches
// [SECTION] Export paths
#include "app/core/jobs.h"

#include "app/recordings/recording_file.h"

#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <system_error>

namespace app {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// [SECTION] Backend choice
// ---------------------------------------------------------------------------------------------

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

std::string backend_setting(const std::string& word, std::string* why_not) {
    std::string w = word;
    while (!w.empty() && w.front() == ' ') w.erase(w.begin());
    while (!w.empty() && w.back() == ' ') w.pop_back();
    if (w == "gpu" || w == "GPU") return "gpu";
    const bool sim_prefix = starts_with(w, "sim:");
    const bool recorded_prefix = starts_with(w, kRecordedBackendPrefix);
    if (!recorded_prefix)
        if (const kernels::SimGpu* gpu = kernels::find_sim_gpu(sim_prefix ? w.substr(4) : w)) return gpu->key;
    if (!sim_prefix) {
        const std::string name = recorded_prefix ? w.substr(std::string(kRecordedBackendPrefix).size()) : w;
        const std::shared_ptr<const Recording> r = find_recording(name);
        // A bare card ("H100") names the simulated GPU (above); a recording by card needs the prefix.
        if (r && (recorded_prefix || name != r->card)) return kRecordedBackendPrefix + r->key;
    }
    if (why_not) *why_not = "is not a backend (legal: " + backend_names_text() + ")";
    return "";
}

std::string backend_names_text() {
    std::string out = "gpu";
    for (const kernels::SimGpu& g : kernels::sim_gpus()) out += ", " + g.key;
    for (const auto& r : recordings()->recordings) out += ", " + r->key;
    return out;
}

std::string backend_setting_label(const std::string& setting) {
    if (setting.empty() || setting == "gpu") return "GPU";
    if (starts_with(setting, kRecordedBackendPrefix)) {
        const auto r = find_recording(setting.substr(std::string(kRecordedBackendPrefix).size()));
        return r ? r->label() : setting;
    }
    return "simulated " + setting;
}

ResolvedBackend resolve_backend(const Settings& s, const Runner& runner) {
    ResolvedBackend r;
    if (starts_with(s.backend, kRecordedBackendPrefix)) {
        // A recording that is gone (a file removed since the settings were saved) falls through to
        // the automatic choice below.
        if (const auto rec = find_recording(s.backend.substr(std::string(kRecordedBackendPrefix).size()))) {
            r.ready = true;
            r.kind = kernels::BackendKind::recorded;
            r.sim_key = rec->card;
            r.device = rec->device;
            r.recording = rec->key;
            r.recording_date = rec->date;
            return r;
        }
    }
    const kernels::SimGpu* chosen_sim = s.backend.empty() || s.backend == "gpu" ? nullptr
                                                                                : kernels::find_sim_gpu(s.backend);
    if (!chosen_sim) {
        // "gpu" or automatic: the real device once the probe says there is one.
        if (!runner.gpu_probed()) return r;
        if (runner.gpu_available()) {
            r.ready = true;
            r.kind = kernels::BackendKind::gpu;
            r.device = runner.gpu_device();
            return r;
        }
        chosen_sim = kernels::find_sim_gpu(kDefaultSimGpu);
        if (!chosen_sim) chosen_sim = &kernels::sim_gpus().front();
    }
    r.ready = true;
    r.kind = kernels::BackendKind::simulated;
    r.sim_key = chosen_sim->key;
    r.device = chosen_sim->info;
    return r;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Batches
// ---------------------------------------------------------------------------------------------

std::vector<kernels::Job> make_batch(const Settings& s, const ResolvedBackend& backend) {
    std::vector<kernels::Job> batch;
    for (const std::string& variant : selected_variants(s)) {
        kernels::Job job;
        job.params = s.params;
        job.variant = variant;
        job.backend = backend.kind;
        if (backend.kind != kernels::BackendKind::gpu) job.sim_gpu = backend.sim_key;
        if (backend.kind == kernels::BackendKind::recorded) job.recording = backend.recording;
        job.reps = s.reps;
        batch.push_back(job);
    }
    return batch;
}

std::vector<kernels::Job> make_quick_batch(const Settings& s, const ResolvedBackend& backend) {
    std::vector<kernels::Job> batch = make_batch(s, backend);
    for (kernels::Job& job : batch) {
        job.quick = true;
        job.reps = std::min(s.reps, kQuickReps);
        job.warmup = 1;
        job.measure_counters = false;
    }
    return batch;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Export paths
// ---------------------------------------------------------------------------------------------

std::string export_path(const Settings& s, const std::string& extension) {
    char stamp[32] = "";
    const std::time_t now = std::time(nullptr);
    if (const std::tm* local = std::localtime(&now)) std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", local);
    const fs::path folder = s.export_dir.empty() ? fs::path(".") : fs::path(s.export_dir);
    const std::string stem = std::string("fusionlab-") + s.params.workload + "-" + stamp;
    // Two exports in the same second get distinct names instead of overwriting each other.
    std::error_code ec;
    fs::path candidate = folder / (stem + "." + extension);
    for (int n = 2; fs::exists(candidate, ec) && n < 1000; ++n)
        candidate = folder / (stem + "-" + std::to_string(n) + "." + extension);
    const fs::path absolute = fs::absolute(candidate, ec);
    return (ec ? candidate : absolute).lexically_normal().string();
}

}  // namespace app
