#include "app/recordings/recorded_backend.h"

#include "kernels/core/registry.h"
#include "kernels/sim/sim_backend.h"

#include <algorithm>
#include <utility>

namespace app {

namespace {

class RecordedBackend final : public kernels::Backend {
public:
    RecordedBackend(std::shared_ptr<const Recording> r, std::unique_ptr<kernels::Backend> sim)
        : recording_(std::move(r)), sim_(std::move(sim)) {}

    // The GPU the recording was made on: its name, driver, clocks, memory and measured ceilings.
    const kernels::DeviceInfo& device() const override { return recording_->device; }

    // A recorded point ran on the GPU, so nothing refuses it; elsewhere the recorded GPU's limits
    // (shared memory per block, its whole memory) decide, as they would for a run on it.
    std::string unavailable_reason(const kernels::Job& job) const override {
        if (std::string why = kernels::validate(job.params); !why.empty()) return why;
        if (!kernels::has_variant(job.params.workload, job.variant))
            return kernels::unknown_variant_message(job.params.workload, job.variant);
        if (recording_->find(job.params, job.variant)) return "";
        return kernels::device_refusal(job.variant, job.params, kernels::total_memory_budget(recording_->device));
    }

    kernels::Measurement run(const kernels::Job& job, const kernels::CancelToken& cancel) override {
        const kernels::Measurement* found =
            kernels::validate(job.params).empty() ? recording_->find(job.params, job.variant) : nullptr;
        if (!found) {
            if (std::string why = unavailable_reason(job); !why.empty()) {
                kernels::Measurement m;
                m.job = job;
                m.device = recording_->device;
                m.error = why;
                m.refused = kernels::validate(job.params).empty();  // a device limit, not bad input
                return m;
            }
            kernels::Measurement m = sim_->run(job, cancel);
            m.job = job;
            m.timing_note = "not in the recording " + recording_->label() + " (" + recording_->path +
                            "): simulated on the calibrated " + recording_->card + "; " + m.timing_note;
            return m;
        }
        kernels::Measurement m = *found;
        m.job = job;
        m.device = recording_->device;
        m.recorded_date = recording_->date;
        // The modeled side (FLOPs, bytes at each level, minimum bytes, spills) from this build's model
        // for the recorded GPU, as a GPU run here would report it; the measured side is the recording's.
        const kernels::Model model =
            kernels::model(job.variant, job.params, static_cast<uint64_t>(std::max<int64_t>(m.device.l2_bytes, 0)));
        kernels::record_model(model, job.params, m.device, m);
        m.limiter.clear();
        m.timing_note = "recorded on " + m.device.name + ", " + recording_->date + " (" +
                        (recording_->path.empty() ? recording_->key : recording_->path) + "): " + m.timing_note;
        m.wall_ms = 0;
        return m;
    }

private:
    std::shared_ptr<const Recording> recording_;
    std::unique_ptr<kernels::Backend> sim_;
};

}  // namespace

std::unique_ptr<kernels::Backend> make_recorded_backend(std::shared_ptr<const Recording> recording,
                                                        std::string* why_not) {
    const kernels::SimGpu* gpu = recording ? kernels::find_sim_gpu(recording->card) : nullptr;
    if (!gpu) {
        if (why_not) *why_not = recording ? "no simulated " + recording->card + " in this build" : "no recording";
        return nullptr;
    }
    return std::make_unique<RecordedBackend>(std::move(recording), kernels::make_sim_backend(*gpu));
}

}  // namespace app
