// The runner: a worker thread that owns the backends (and so the CUDA context and streams).
// The UI thread submits jobs and polls results; it never waits on the GPU. Submitting a new batch
// makes every older job stale: the worker drops stale queued jobs and running backends poll the
// cancel token between repetitions. Cancellation is per batch: the token compares the first id
// of the job's batch with the first id of the newest batch (batch_first_), so the jobs of the
// current batch never cancel each other.
#pragma once

#include "kernels/sim/sim_backend.h"
#include "kernels/core/types.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
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

    // Submits `batch` and blocks until each of its jobs has a result; returns them in job order.
    // Returns early (with fewer results) if another batch supersedes it or the runner stops. The
    // CLI, shot and tests use it; don't call take_results() from another thread meanwhile.
    std::vector<kernels::Measurement> run_blocking(std::vector<kernels::Job> batch);

    // Builds without a worker thread (the browser, app/platform/platform_host.h): does the next piece of
    // the worker's work on the caller's thread, the GPU probe first, then one queued job, and
    // returns whether there was any. The frame loop calls it between frames so the page keeps
    // drawing; run_blocking and wait_until_probed call it themselves. With a thread: does nothing.
    bool step();

    bool busy() const;                 // a job is queued or running
    bool gpu_probed() const;           // the GPU probe has finished
    void wait_until_probed() const;    // blocks until the GPU probe has finished
    bool gpu_available() const;
    std::string gpu_status() const;    // device name, or why there is no GPU backend
    kernels::DeviceInfo gpu_device() const;  // valid when gpu_available(); a copy, refreshed per GPU job

private:
    void worker();
    void probe_gpu();
    // Takes the next queued job (false when none) and runs it; the lock is released meanwhile.
    bool run_next(std::unique_lock<std::mutex>& lock);
    kernels::Backend* backend_for(const kernels::Job& job, std::string* error);

    kernels::Measurement execute(const kernels::Job& job, const kernels::CancelToken& cancel);

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    mutable std::condition_variable done_;  // a result arrived or the probe finished
    std::deque<kernels::Job> queue_;
    std::vector<kernels::Measurement> results_;
    std::atomic<uint64_t> next_id_{1};
    std::atomic<uint64_t> batch_first_{0};  // jobs with id < this are stale; the cancel token reads it
    std::chrono::steady_clock::time_point batch_submitted_{};  // when the newest batch arrived (wall_ms)
    bool running_job_ = false;
    bool stop_ = false;
    bool probed_ = false;
    std::string gpu_status_ = "probing for a CUDA device...";
    std::unique_ptr<kernels::Backend> gpu_;
    kernels::DeviceInfo gpu_info_;  // copy for other threads: backends may refine theirs per run
    std::vector<std::unique_ptr<kernels::Backend>> sims_;  // one per sim_gpus() entry, lazily
    std::map<std::string, std::unique_ptr<kernels::Backend>> recorded_;  // by recording key, lazily
    std::thread thread_;  // not started where platform::kWorkerThread is false
};

}  // namespace app
