// The one GPU path of the GPU tests: jobs through the GPU backend, as the app runs them. One backend
// for the GPU test executable (it measures the copy ceiling when made, so the tests share it); a
// job's checked run is the check users see (the workload's GpuWorkload against its float64
// reference, the rule of kernels/core/output_check.h, the backend's one error sum).
#pragma once

#include "kernels/core/backend.h"
#include "kernels/core/output_check.h"
#include "kernels/core/registry.h"
#include "kernels/gpu/sanitizer_run.h"

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

// The device the backend runs on (compute capability, shared memory, SMs).
inline const kernels::DeviceInfo& gpu_device() { return gpu_backend().device(); }

// Under compute-sanitizer (scripts/gpu_sanitize.sh) a run checks memory accesses, not times: one rep.
inline kernels::Job gpu_job(const kernels::Params& p, const std::string& variant, int reps = 20, bool quick = false) {
    kernels::Job job;
    job.params = p;
    job.variant = variant;
    job.backend = kernels::BackendKind::gpu;
    job.reps = kernels::sanitizer_run() ? 1 : reps;
    job.measure_counters = false;
    job.quick = quick;
    return job;
}

// A job run on the backend without hardware counters.
inline kernels::Measurement run_gpu_job(const kernels::Params& p, const std::string& variant, int reps = 20) {
    return gpu_backend().run(gpu_job(p, variant, reps), {});
}

// "" when the backend would run variant on p; else its refusal, with the numbers.
inline std::string gpu_refusal(const kernels::Params& p, const std::string& variant) {
    return gpu_backend().unavailable_reason(gpu_job(p, variant));
}

// Runs variant on p through the backend's checked run and requires what a user's result requires:
// it ran, its output was compared (every element written: the backend fails a run that left
// poison), and the error is within the tolerance rule. Returns the measurement for further checks.
// A quick job, as the GUI's first pass while a slider moves: the same checked run and rule on the
// quick pass's rows (kQuickCheck: all rows of these tests' small problems, sampled rows of the long
// ones), a few timed reps and no timeline, so hundreds of configurations fit in a test run; the
// full jobs (timing, timeline) have their own test cases.
inline kernels::Measurement check_on_gpu(const kernels::Params& p, const std::string& variant) {
    const kernels::Measurement m = gpu_backend().run(gpu_job(p, variant, kernels::kQuickReps, true), {});
    INFO(kernels::describe(p, variant) << " seed " << p.get_int("seed") << ": " << m.error);
    INFO("rel L2 " << m.rel_l2_error << ", max abs " << m.max_abs_error << " over " << m.checked_elements
                   << " elements (" << m.check_note << ")");
    REQUIRE(m.ok);
    CHECK(m.checked);
    CHECK(m.checked_elements > 0);
    CHECK(kernels::output_matches(p.dtype, m.rel_l2_error, m.max_abs_error));
    return m;
}

}  // namespace fl_test
