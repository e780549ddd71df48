// [SECTION] Backend choice
// [SECTION] Batches
// [SECTION] Export paths
#include "app/core/jobs.h"

#include "kernels/common/backend.h"
#include "kernels/common/registry.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <system_error>

namespace app {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// [SECTION] Backend choice
// ---------------------------------------------------------------------------------------------

std::string plain_device_name(const kernels::DeviceInfo& d) {
    const std::string suffix = " (simulated)";
    const std::string& n = d.name;
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
        return n.substr(0, n.size() - suffix.size());
    return n;
}

ResolvedBackend resolve_backend(const Settings& s, const Runner& runner) {
    ResolvedBackend r;
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
        if (backend.kind == kernels::BackendKind::simulated) job.sim_gpu = backend.sim_key;
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
