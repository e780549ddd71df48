// One interface, two backends: real kernels on a CUDA GPU, or the model on a datasheet GPU.
// The runner owns backends on its worker thread; nothing here touches the GUI.
#pragma once

#include "kernels/core/types.h"

#include <atomic>
#include <memory>
#include <string>

namespace kernels {

// Set by the runner when the job is stale; backends poll it between repetitions.
// The runner compares batches, not jobs: `latest` holds the first job id of the newest submitted
// batch and `job_id` the first job id of this job's batch, so a job of the current batch never
// looks cancelled because a later job of the same batch has a larger id.
struct CancelToken {
    const std::atomic<uint64_t>* latest = nullptr;  // first job id of the newest submitted batch
    uint64_t job_id = 0;                            // first job id of this job's batch
    bool cancelled() const { return latest && latest->load(std::memory_order_relaxed) != job_id; }
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual const DeviceInfo& device() const = 0;
    // Runs (or estimates) one variant. Never throws: failures come back as ok == false + error.
    virtual Measurement run(const Job& job, const CancelToken& cancel) = 0;
    // "" when this device can run job's variant with job's parameters; else why not, with the
    // numbers (a tile too large for shared memory, naive's S and P larger than GPU memory,
    // flash_tc below sm_80, invalid parameters). Cheap: the GUI asks it every frame a parameter
    // changes, to show a variant disabled with its reason instead of hiding it. run() refuses
    // such a job with the same message.
    virtual std::string unavailable_reason(const Job& job) const = 0;
};

// ---------------------------------------------------------------------------------------------
// GPU backend (kernels/gpu/gpu_backend.cu when built with CUDA; otherwise it reports why not).
// ---------------------------------------------------------------------------------------------
// Returns nullptr and fills why_not when there is no usable CUDA device: built without CUDA,
// no driver (cudaGetDeviceCount gives error 35 there, not "no device"), or zero devices.
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not);
// True when this binary contains CUDA kernels.
bool built_with_cuda();

// Build type compiled into this binary ("Release", "Debug", ...).
const char* build_type();

}  // namespace kernels
