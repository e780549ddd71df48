// The runner's worker thread: probes for a GPU, then runs queued jobs one at a time on the backend
// each job names. Only the worker touches the backends, so the CUDA context lives on one thread.
//
// Index:
//   [SECTION] Construction and shutdown
//   [SECTION] Submitting and collecting
//   [SECTION] GPU status
//   [SECTION] Worker
#include "app/core/runner.h"
#include "app/recordings/auto_pick.h"

#include "app/platform/platform.h"
#include "app/platform/platform_host.h"
#include "app/recordings/recorded_backend.h"
#include "app/recordings/recording_file.h"
#include "kernels/sim/sim_backend.h"

#include <algorithm>
#include <exception>
#include <utility>

namespace app {

// ---------------------------------------------------------------------------------------------
// [SECTION] Construction and shutdown
// ---------------------------------------------------------------------------------------------
Runner::Runner() : sims_(kernels::sim_gpus().size()) {
    if constexpr (platform::kWorkerThread) thread_ = std::thread([this] { worker(); });
}

Runner::~Runner() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
        queue_.clear();
        // Moving batch_first_ past every issued id makes a running job's token say "cancelled",
        // so a long GPU measurement stops at its next repetition instead of delaying exit.
        batch_first_.store(next_id_.load());
    }
    wake_.notify_all();
    done_.notify_all();
    if (thread_.joinable()) thread_.join();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Submitting and collecting
// ---------------------------------------------------------------------------------------------
uint64_t Runner::submit(std::vector<kernels::Job> batch) {
    uint64_t first = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        first = next_id_.fetch_add(batch.size());
        queue_.clear();
        for (size_t i = 0; i < batch.size(); ++i) {
            batch[i].id = first + i;
            queue_.push_back(std::move(batch[i]));
        }
        batch_first_.store(first);
        batch_submitted_ = std::chrono::steady_clock::now();
        // Results of older batches that nobody collected yet are stale now too.
        std::erase_if(results_, [first](const kernels::Measurement& m) { return m.job.id < first; });
    }
    wake_.notify_all();
    return first;
}

std::vector<kernels::Measurement> Runner::take_results() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<kernels::Measurement> out;
    out.swap(results_);
    return out;
}

std::vector<kernels::Measurement> Runner::run_blocking(std::vector<kernels::Job> batch) {
    const size_t count = batch.size();
    if (count == 0) return {};
    const uint64_t first = submit(std::move(batch));
    const uint64_t end = first + count;
    auto in_batch = [first, end](const kernels::Measurement& m) {
        return m.job.id >= first && m.job.id < end;
    };
    if constexpr (!platform::kWorkerThread)
        while (step()) {
        }

    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] {
        const bool superseded = batch_first_.load() != first;
        return stop_ || superseded ||
               static_cast<size_t>(std::count_if(results_.begin(), results_.end(), in_batch)) == count;
    });

    std::vector<kernels::Measurement> mine;
    std::vector<kernels::Measurement> others;
    for (auto& m : results_) (in_batch(m) ? mine : others).push_back(std::move(m));
    results_.swap(others);
    std::sort(mine.begin(), mine.end(),
              [](const kernels::Measurement& a, const kernels::Measurement& b) { return a.job.id < b.job.id; });
    return mine;
}

bool Runner::busy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_job_ || !queue_.empty();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] GPU status
// ---------------------------------------------------------------------------------------------
bool Runner::gpu_probed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return probed_;
}

void Runner::wait_until_probed() const {
    if constexpr (!platform::kWorkerThread)
        if (!gpu_probed()) const_cast<Runner*>(this)->probe_gpu();  // the probe is the caller's work here
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return probed_ || stop_; });
}

bool Runner::gpu_available() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return probed_ && gpu_ != nullptr;
}

std::string Runner::gpu_status() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return gpu_status_;
}

kernels::DeviceInfo Runner::gpu_device() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return gpu_info_;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Worker
// ---------------------------------------------------------------------------------------------
kernels::Backend* Runner::backend_for(const kernels::Job& job, std::string* error) {
    if (job.backend == kernels::BackendKind::gpu) {
        if (!gpu_) *error = "no GPU backend: " + gpu_status();
        return gpu_.get();
    }
    if (job.backend == kernels::BackendKind::recorded) {
        const std::shared_ptr<const Recording> r = find_recording(job.recording);
        if (!r) {
            *error = "no recording '" + job.recording + "' (fusionlab info lists the recordings it found)";
            return nullptr;
        }
        auto& slot = recorded_[r->key];
        if (!slot) slot = make_recorded_backend(r, error);
        return slot.get();
    }
    const auto& gpus = kernels::sim_gpus();
    const kernels::SimGpu* gpu = kernels::find_sim_gpu(job.sim_gpu);
    if (!gpu) {
        *error = "unknown simulated GPU '" + job.sim_gpu + "'";
        return nullptr;
    }
    const auto index = static_cast<size_t>(gpu - gpus.data());
    if (!sims_[index]) sims_[index] = kernels::make_sim_backend(*gpu);
    return sims_[index].get();
}

kernels::Measurement Runner::execute(const kernels::Job& job, const kernels::CancelToken& cancel) {
    kernels::Measurement m;
    std::string error;
    kernels::Backend* backend = backend_for(job, &error);
    if (!backend) {
        m.ok = false;
        m.error = error;
    } else {
        // Backends promise not to throw; a bug or a bad_alloc must still not take the app down.
        try {
            // Parameters left at auto run as the pick for this variant on this backend's device
            // (app/recordings/auto_pick.h); the result says what ran and why.
            m = run_resolved(*backend, job, cancel);
        } catch (const std::exception& e) {
            m = kernels::Measurement{};
            m.ok = false;
            m.error = std::string("backend failed: ") + e.what();
        } catch (...) {
            m = kernels::Measurement{};
            m.ok = false;
            m.error = "backend failed with an unknown exception";
        }
        if (m.device.name.empty()) m.device = backend->device();
    }
    m.job = job;  // results always carry the job that asked for them, whatever the backend did
    if (m.build_type.empty()) m.build_type = kernels::build_type();
    return m;
}

void Runner::probe_gpu() {
    std::string why_not;
    std::unique_ptr<kernels::Backend> gpu = kernels::make_gpu_backend(&why_not);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        gpu_ = std::move(gpu);
        if (gpu_) {
            gpu_info_ = gpu_->device();
            gpu_status_ = gpu_info_.name;
        } else {
            gpu_status_ = why_not.empty() ? "no usable CUDA device" : why_not;
        }
        probed_ = true;
    }
    done_.notify_all();
}

bool Runner::run_next(std::unique_lock<std::mutex>& lock) {
    if (queue_.empty()) return false;
    kernels::Job job = std::move(queue_.front());
    queue_.pop_front();
    running_job_ = true;
    // The queue only ever holds the newest batch, so this job's batch starts at batch_first_.
    kernels::CancelToken cancel;
    cancel.latest = &batch_first_;
    cancel.job_id = batch_first_.load();
    const std::chrono::steady_clock::time_point submitted = batch_submitted_;
    lock.unlock();

    kernels::Measurement m = execute(job, cancel);
    platform::release_free_heap();  // the job's host buffers, freed on this and the reference thread
    // What the user waits for this result: from the batch's submission, through the batch's
    // earlier jobs, to now.
    m.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - submitted).count();

    lock.lock();
    running_job_ = false;
    if (job.backend == kernels::BackendKind::gpu && gpu_ && m.ok) gpu_info_ = m.device;
    if (job.id >= batch_first_.load()) results_.push_back(std::move(m));
    lock.unlock();
    done_.notify_all();
    lock.lock();
    return true;
}

bool Runner::step() {
    if constexpr (platform::kWorkerThread) return false;
    if (!gpu_probed()) {
        probe_gpu();
        return true;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    return !stop_ && run_next(lock);
}

void Runner::worker() {
    probe_gpu();
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (stop_) break;
        run_next(lock);
    }
}

}  // namespace app
