// One GPU backend for the GPU test executable (it measures the copy ceiling when made, so the tests
// share it), and a job run on it without hardware counters.
#pragma once

#include "kernels/core/backend.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

namespace fl_test {

inline kernels::Backend& gpu_backend() {
    static std::unique_ptr<kernels::Backend> b = [] {
        std::string why;
        auto made = kernels::make_gpu_backend(&why);
        if (!made) FAIL("no GPU backend: " << why);
        return made;
    }();
    return *b;
}

inline kernels::Measurement run_gpu_job(const kernels::Params& p, const std::string& variant, int reps = 20) {
    kernels::Job job;
    job.params = p;
    job.variant = variant;
    job.backend = kernels::BackendKind::gpu;
    job.reps = reps;
    job.measure_counters = false;
    return gpu_backend().run(job, {});
}

}  // namespace fl_test
