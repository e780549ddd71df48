// One interface, two backends: real kernels on a CUDA GPU, or the model on a datasheet GPU.
// The runner owns backends on its worker thread; nothing here touches the GUI.
#pragma once

#include "kernels/common/types.h"
#include "kernels/common/registry.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

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
// GPU backend (kernels/common/gpu_backend.cu when built with CUDA; otherwise it reports why not).
// ---------------------------------------------------------------------------------------------
// Returns nullptr and fills why_not when there is no usable CUDA device: built without CUDA,
// no driver (cudaGetDeviceCount gives error 35 there, not "no device"), or zero devices.
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not);
// True when this binary contains CUDA kernels.
bool built_with_cuda();

// ---------------------------------------------------------------------------------------------
// Simulated backend: datasheet GPUs, time = sum over kernels of
// max(bytes / bandwidth, FLOPs / peak) + launch overhead.
// ---------------------------------------------------------------------------------------------
struct SimGpu {
    std::string key;          // "H100" (CLI --sim value)
    DeviceInfo info;          // datasheet numbers, simulated = true
};

const std::vector<SimGpu>& sim_gpus();
const SimGpu* find_sim_gpu(const std::string& key);  // case-insensitive; nullptr if unknown
std::unique_ptr<Backend> make_sim_backend(const SimGpu& gpu);

// The estimate the simulated backend reports for one kernel (exposed for tests and lessons).
double sim_kernel_ms(const DeviceInfo& gpu, double flops, uint64_t bytes, bool tensor_cores);
// The same for one kernel of a model: its HBM bytes plus the share of its spill traffic that
// leaves the SM (spill_estimate), charged at HBM bandwidth.
double sim_kernel_ms(const DeviceInfo& gpu, const KernelModel& k);

// Build type compiled into this binary ("Release", "Debug", ...).
const char* build_type();

}  // namespace kernels
