// Compute ceilings on a real GPU: the cuBLAS GEMMs and the FMA-chain kernel give numbers that are
// positive and below the device's theoretical peaks (a ceiling above the peak means the FLOPs are
// miscounted), and not absurdly far below them (a broken measurement). The GPU backend fills the
// DeviceInfo fields, from the cache on a second start. Under compute-sanitizer (FUSIONLAB_SANITIZER_RUN)
// the kernels still run, for the sanitizer's verdict, but instrumented they are far below the peaks
// and the backend measures nothing at start: the ranges are not judged and the case says so (skipped).
#include "kernels/core/backend.h"
#include "kernels/gpu/sanitizer_run.h"
#include "kernels/profiling/ceilings.h"
#include "tests/test_skip.h"

#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <string>

TEST_CASE("ceilings: GEMM and FMA ceilings lie between 30% and 105% of the theoretical peaks", "[gpu][ceilings]") {
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    std::string why;
    auto backend = kernels::make_gpu_backend(&why);
    REQUIRE(backend != nullptr);
    const kernels::DeviceInfo& d = backend->device();
    const kernels::ComputeCeilings c = kernels::measure_compute_ceilings();
    INFO(c.how);
    if (kernels::sanitizer_run()) {
        CHECK_THAT(d.compute_ceiling_note, Catch::StartsWith("not measured"));
        fl_test::skip(std::string("ceilings measured for the sanitizer, not judged: ") + kernels::sanitizer_run_note());
        return;
    }
    REQUIRE(c.fp32_fma_tflops);
    CHECK(*c.fp32_fma_tflops <= 1.05 * d.peak_fp32_tflops);
    CHECK(*c.fp32_fma_tflops >= 0.3 * d.peak_fp32_tflops);
    if (d.peak_tensor_tflops > 0) {  // a part whose tensor peak the app knows (V100, A100, H100/H200)
        REQUIRE(c.fp16_gemm_tflops);
        REQUIRE(c.bf16_gemm_tflops);
        CHECK(*c.fp16_gemm_tflops <= 1.05 * d.peak_tensor_tflops);
        CHECK(*c.fp16_gemm_tflops >= 0.3 * d.peak_tensor_tflops);
        CHECK(*c.bf16_gemm_tflops <= 1.05 * d.peak_tensor_tflops);
        CHECK(*c.bf16_gemm_tflops >= 0.3 * d.peak_tensor_tflops);
    }
    // The backend measured (or loaded) its own at start.
    CHECK(d.measured_fp32_fma_tflops.has_value());
    CHECK_FALSE(d.compute_ceiling_note.empty());
}
