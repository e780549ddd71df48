// `auto` parameters resolved with the recordings (auto_pick.h).
#include "app/recordings/auto_pick.h"

#include "app/recordings/recording_file.h"

namespace app {

kernels::AutoPick pick_auto_for(const std::string& variant, const kernels::Params& p, const kernels::DeviceInfo& device,
                                const std::string& recording_key) {
    if (!kernels::has_auto(p)) return kernels::pick_auto(variant, p, device);
    std::shared_ptr<const Recording> r =
        !recording_key.empty() ? find_recording(recording_key) : find_recording(card_of_device(device.name));
    if (!r || card_of_device(r->device.name) != card_of_device(device.name)) r = nullptr;
    if (!r) return kernels::pick_auto(variant, p, device);
    const kernels::RecordedTime recorded = [r](const kernels::Params& c, const std::string& v) -> std::optional<double> {
        const kernels::Measurement* m = r->find(c, v);
        if (m && m->ok && m->time.median_ms > 0) return m->time.median_ms;
        return std::nullopt;
    };
    return kernels::pick_auto(variant, p, device, recorded, r->key, !recording_key.empty());
}

kernels::Measurement run_resolved(kernels::Backend& backend, const kernels::Job& job, const kernels::CancelToken& cancel) {
    kernels::Job run_job = job;
    const kernels::AutoPick pick = pick_auto_for(job.variant, job.params, backend.device(),
                                                 job.backend == kernels::BackendKind::recorded ? job.recording : std::string());
    if (pick.resolved) run_job.params = pick.params;
    kernels::Measurement m = backend.run(run_job, cancel);
    m.job = job;
    if (pick.resolved) {
        m.auto_params = pick.params;
        m.auto_choice = pick.why;
    }
    return m;
}

}  // namespace app
