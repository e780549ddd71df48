// The runner: a worker thread that owns the backends (and so the CUDA context and streams).
// The UI thread submits jobs and polls results; it never waits on the GPU. Submitting a new batch
// makes every older job stale: the worker drops stale queued jobs and running backends poll the
// cancel token between repetitions.
#pragma once

#include "kernels/common/backend.h"
#include "kernels/common/types.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace app {

class Runner {
public:
    // Probes for a GPU on the worker thread; until that finishes gpu_available() is false and
    // gpu_status() says "probing".
    Runner();
    ~Runner();
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;

    // Replaces everything pending with this batch (one job per variant, say). Returns the id of
    // the batch's first job; ids increase by one per job. Older jobs become stale.
    uint64_t submit(std::vector<kernels::Job> batch);

    // Results finished since the last call, stale ones already dropped. Non-blocking.
    std::vector<kernels::Measurement> take_results();

    // Blocks until every job of the latest batch has a result (CLI, shot and tests use this).
    std::vector<kernels::Measurement> run_blocking(std::vector<kernels::Job> batch);

    bool busy() const;                 // a job is queued or running
    bool gpu_probed() const;           // the GPU probe has finished
    bool gpu_available() const;
    std::string gpu_status() const;    // device name, or why there is no GPU backend
    kernels::DeviceInfo gpu_device() const;  // valid when gpu_available()

private:
    void worker();
    kernels::Backend* backend_for(const kernels::Job& job, std::string* error);

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    std::deque<kernels::Job> queue_;
    std::vector<kernels::Measurement> results_;
    std::atomic<uint64_t> next_id_{1};
    std::atomic<uint64_t> batch_first_{0};  // jobs with id < this are stale
    std::atomic<uint64_t> latest_id_{0};    // id of the newest job submitted
    bool running_job_ = false;
    bool stop_ = false;
    bool probed_ = false;
    std::string gpu_status_ = "probing for a CUDA device...";
    std::unique_ptr<kernels::Backend> gpu_;
    std::vector<std::unique_ptr<kernels::Backend>> sims_;  // one per sim_gpus() entry, lazily
    std::thread thread_;
};

}  // namespace app
