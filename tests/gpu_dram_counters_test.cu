// Measured DRAM bytes through the CUPTI range profiler, on a real GPU: a copy of known size, and
// the backend's fused chain against its model. Where the counters cannot be read for a reason
// outside this program (no permission, another profiler holds them) the tests warn and pass; any
// other failure fails.
#include "kernels/common/backend.h"
#include "kernels/common/cupti_detach.h"
#include "kernels/common/dram_counters.h"
#include "kernels/common/registry.h"

#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cstdlib>
#include <string>

namespace {

__global__ void copy_kernel(const float4* __restrict__ src, float4* __restrict__ dst, int64_t n) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

// True when the counters cannot be read because of the machine, not this program.
bool blocked_by_machine(const std::string& why) {
    return why.find("no permission") != std::string::npos || why.find("busy") != std::string::npos;
}

}  // namespace

TEST_CASE("DRAM counters: a 256 MiB copy reads its size and writes about its size", "[gpu][counters]") {
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    // Detaching CUPTI between measurements (opt-in, cupti_detach.h) is exercised here too.
    ::setenv("FUSIONLAB_CUPTI_DETACH", "1", 1);
    struct Unset {
        ~Unset() { ::unsetenv("FUSIONLAB_CUPTI_DETACH"); }
    } unset;
    kernels::DramCounters counters(0);
    if (const std::string why = counters.availability(); !why.empty()) {
        if (blocked_by_machine(why)) {
            WARN("hardware counters not readable here: " << why);
            return;
        }
        FAIL(why);
    }
    constexpr size_t kBytes = size_t{256} << 20;
    float4 *src = nullptr, *dst = nullptr;
    REQUIRE(cudaMalloc(&src, kBytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&dst, kBytes) == cudaSuccess);
    REQUIRE(cudaMemset(src, 1, kBytes) == cudaSuccess);
    REQUIRE(cudaMemset(dst, 0, kBytes) == cudaSuccess);
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    const int64_t vectors = static_cast<int64_t>(kBytes / sizeof(float4));

    // Three times: the second sets the profiler up again on the same context, the third after
    // CUPTI was detached (as the GPU backend does after every job): all must read and agree.
    const auto copy = [&] { copy_kernel<<<1024, 256, 0, stream>>>(src, dst, vectors); };
    const kernels::DramBytes first = counters.measure(copy, stream);
    REQUIRE(kernels::detach_cupti() == "");
    const kernels::DramBytes after_detach = counters.measure(copy, stream);
    const kernels::DramBytes d = counters.measure(copy, stream);
    INFO(first.error);
    REQUIRE(first.ok);
    INFO(after_detach.error);
    REQUIRE(after_detach.ok);
    CHECK(static_cast<double>(first.read) == Approx(static_cast<double>(d.read)).epsilon(0.02));
    CHECK(static_cast<double>(after_detach.read) == Approx(static_cast<double>(d.read)).epsilon(0.02));
    (void)cudaStreamDestroy(stream);
    (void)cudaFree(src);
    (void)cudaFree(dst);
    INFO(d.error);
    REQUIRE(d.ok);
    INFO("read " << d.read << " B, written " << d.written << " B, copy of " << kBytes << " B");
    CHECK(d.ranges == 1);
    CHECK(d.passes >= 1);
    CHECK(static_cast<double>(d.read) == Approx(static_cast<double>(kBytes)).epsilon(0.05));
    // Writes read low by up to ~7% on an H200: lines still dirty in its 60 MiB L2 when the kernel
    // ends are written back after the range closes (NOTES.md: 0.935x). Not an error.
    CHECK(static_cast<double>(d.written) == Approx(static_cast<double>(kBytes)).epsilon(0.10));
}

TEST_CASE("DRAM counters through the backend: fused chain bf16 8192x8192 moves about its modeled bytes",
          "[gpu][counters]") {
    std::string why;
    auto backend = kernels::make_gpu_backend(&why);
    REQUIRE(backend != nullptr);
    kernels::Job job;
    job.backend = kernels::BackendKind::gpu;
    job.variant = "fused";
    job.params.workload = "chain";
    job.params.dtype = kernels::DType::bf16;
    job.params.set("rows", 8192);
    job.params.set("hidden", 8192);
    job.reps = 20;
    const kernels::Measurement m = backend->run(job, kernels::CancelToken{});
    INFO(m.error);
    REQUIRE(m.ok);
    if (!m.measured_bytes) {
        if (blocked_by_machine(m.measured_bytes_note)) {
            WARN("hardware counters not readable here: " << m.measured_bytes_note);
            return;
        }
        FAIL(m.measured_bytes_note);
    }
    INFO("measured " << *m.measured_bytes << " B, modeled " << m.bytes() << " B; " << m.measured_bytes_note);
    REQUIRE(m.measured_bytes_read.has_value());
    REQUIRE(m.measured_bytes_written.has_value());
    CHECK(*m.measured_bytes == *m.measured_bytes_read + *m.measured_bytes_written);
    CHECK(static_cast<double>(*m.measured_bytes) == Approx(static_cast<double>(m.bytes())).epsilon(0.15));

    // A second measured job on the same backend (the profiler enabled again): unfused moves more.
    kernels::Job unfused = job;
    unfused.variant = "unfused";
    const kernels::Measurement u = backend->run(unfused, kernels::CancelToken{});
    INFO(u.error << " / " << u.measured_bytes_note);
    REQUIRE(u.ok);
    REQUIRE(u.measured_bytes.has_value());
    CHECK(*u.measured_bytes > *m.measured_bytes);

    // A job that does not ask for counters gets none, and says so.
    job.measure_counters = false;
    const kernels::Measurement quiet = backend->run(job, kernels::CancelToken{});
    REQUIRE(quiet.ok);
    CHECK_FALSE(quiet.measured_bytes.has_value());
    CHECK(quiet.measured_bytes_note.find("not measured") != std::string::npos);
}
