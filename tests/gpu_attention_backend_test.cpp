// The GPU backend running attention jobs: every variant checked against the float64 reference
// before its time is shown, per-kernel times named as the model names its kernels, and refusals
// (a tile too large for shared memory, naive's S and P too large for GPU memory) as ok == false
// with the numbers.
#include "kernels/attention/attention.h"
#include "kernels/core/backend.h"
#include "kernels/core/output_check.h"
#include "kernels/gpu/sanitizer_run.h"
#include "kernels/core/registry.h"

#include <catch2/catch.hpp>

#include <string>

namespace {

kernels::Job attention_job(const std::string& variant, kernels::DType t, int64_t N, int64_t d, bool causal) {
    kernels::Job job;
    job.backend = kernels::BackendKind::gpu;
    job.variant = variant;
    job.params.workload = "attention";
    job.params.dtype = t;
    job.params.set("N", N);
    job.params.set("d", d);
    job.params.set("heads", 4);
    job.params.set("causal", causal);
    // Under compute-sanitizer a run checks memory accesses, not times: two reps (each one is slow there).
    job.reps = kernels::sanitizer_run() ? 2 : 20;
    return job;
}

}  // namespace

TEST_CASE("GPU backend runs attention: checked, timed per kernel like the model", "[gpu][attention]") {
    std::string why;
    auto backend = kernels::make_gpu_backend(&why);
    REQUIRE(backend != nullptr);
    for (const char* variant : {"naive", "flash", "flash_tc"})
        for (bool causal : {false, true}) DYNAMIC_SECTION(variant << (causal ? " causal" : "")) {
            // N = 1000: not a multiple of any tile, so ragged tiles are exercised too.
            const kernels::Job job = attention_job(variant, kernels::DType::f16, 1000, 64, causal);
            REQUIRE(backend->unavailable_reason(job).empty());
            const kernels::Measurement m = backend->run(job, {});
            INFO(variant << (causal ? " causal" : "") << ": " << m.error);
            REQUIRE(m.ok);
            CHECK_FALSE(m.refused);
            CHECK(m.checked);
            CHECK(m.checked_elements > 0);
            CHECK(kernels::output_matches(m.job.params.dtype, m.rel_l2_error, m.max_abs_error));
            CHECK(m.time.reps >= job.reps);
            CHECK(m.time.median_ms > 0);
            const kernels::Model model = kernels::model(variant, job.params);
            REQUIRE(m.kernels.size() == model.kernels.size());
            for (size_t k = 0; k < model.kernels.size(); ++k) {
                CHECK(m.kernels[k].name == model.kernels[k].name);
                CHECK(m.kernels[k].time.reps == m.time.reps);
            }
            // The measurement carries the model at both levels: DRAM (the L2 reuse model for this
            // device's L2) as its bytes, and what the kernels' loads and stores ask for.
            CHECK(m.bytes() == kernels::model(variant, job.params, static_cast<uint64_t>(m.device.l2_bytes)).dram_bytes());
            CHECK(m.l2_bytes_read + m.l2_bytes_written == model.bytes());
            CHECK(m.flops == model.flops());
            CHECK(m.min_bytes == kernels::min_bytes(job.params));
        }
    // fp32 through the teaching kernel and cuBLAS.
    for (const char* variant : {"naive", "flash"}) DYNAMIC_SECTION(variant << " fp32") {
        const kernels::Measurement m = backend->run(attention_job(variant, kernels::DType::f32, 257, 48, false), {});
        INFO(variant << ": " << m.error);
        REQUIRE(m.ok);
        CHECK(kernels::output_matches(m.job.params.dtype, m.rel_l2_error, m.max_abs_error));
    }
}

TEST_CASE("GPU backend refuses what the device cannot run, with the numbers", "[gpu][attention]") {
    std::string why;
    auto backend = kernels::make_gpu_backend(&why);
    REQUIRE(backend != nullptr);
    const kernels::DeviceInfo& dev = backend->device();

    // flash with Br = Bc = 128, d = 128 in fp32 needs far more than any GPU's shared memory per block.
    kernels::Job big_tile = attention_job("flash", kernels::DType::f32, 512, 128, false);
    big_tile.params.set("br", 128);
    big_tile.params.set("bc", 128);
    const std::string need = std::to_string(
        kernels::attention::flash_smem_bytes("flash", kernels::attention::to_attention(big_tile.params)));
    const std::string reason = backend->unavailable_reason(big_tile);
    CHECK_THAT(reason, Catch::Contains(need) && Catch::Contains(std::to_string(dev.smem_per_block_optin)));
    const kernels::Measurement m = backend->run(big_tile, {});
    CHECK_FALSE(m.ok);
    CHECK(m.refused);
    CHECK(m.error == reason);

    // naive's S and P at N = 65536, 64 heads, fp16: 2 x 64 x 2^32 x 2 bytes = 1 TiB.
    kernels::Job huge = attention_job("naive", kernels::DType::f16, 65536, 64, false);
    huge.params.set("heads", 64);
    const kernels::Measurement n = backend->run(huge, {});
    CHECK_FALSE(n.ok);
    CHECK(n.refused);
    CHECK_THAT(n.error, Catch::Contains("for S and P") && Catch::Contains("flash needs only"));

    // The backend still measures afterwards.
    const kernels::Measurement after = backend->run(attention_job("flash", kernels::DType::bf16, 256, 64, true), {});
    INFO(after.error);
    CHECK(after.ok);
}

TEST_CASE("quick pass: the checked run warms up, reps stop at the time budget, the check still runs",
          "[gpu][attention]") {
    std::string why;
    auto backend = kernels::make_gpu_backend(&why);
    REQUIRE(backend != nullptr);
    // A fast kernel keeps all its quick reps; the teaching kernel at N = 8192 over 16 heads (tens of
    // ms a run) gets fewer, at least one. Both variants share the parameters, so the second one
    // reuses the first one's reference rows.
    bool first_pass = true;
    // Under compute-sanitizer (which checks accesses, not the time budget) N = 1030 over 2 heads:
    // the same code paths, ragged last tile included; N = 8192 would only repeat them for an hour.
    const bool sanitized = kernels::sanitizer_run();
    // The first pass only loads the kernels (lazy module loading would lengthen its checked run).
    for (const char* variant : {"flash_tc", "flash_tc", "flash"}) {
        kernels::Job job = attention_job(variant, kernels::DType::f16, sanitized ? 1030 : 8192, 64, false);
        job.params.set("heads", sanitized ? 2 : 16);
        job.quick = true;
        job.reps = kernels::kQuickReps;
        job.measure_counters = false;
        const kernels::Measurement m = backend->run(job, {});
        INFO(variant << ": " << m.error << " | " << m.timing_note);
        REQUIRE(m.ok);
        if (first_pass) {
            first_pass = false;
            continue;
        }
        CHECK(m.checked);
        CHECK(m.checked_elements > 0);
        CHECK(kernels::output_matches(m.job.params.dtype, m.rel_l2_error, m.max_abs_error));
        CHECK(m.time.reps >= 1);
        CHECK(m.time.reps <= kernels::kQuickReps);
        // A sanitizer run (scripts/gpu_sanitize.sh) always takes one warm-up and the reps as asked:
        // the budget below is about timing, which such a run does not do.
        if (sanitized) continue;
        CHECK(m.timing_note.find("the checked run (as warm-up)") != std::string::npos);
        if (std::string(variant) == "flash") {
            CHECK(m.time.median_ms > 10);  // the teaching kernel: one block per Br rows, no tensor cores
            CHECK(m.time.reps < kernels::kQuickReps);
            CHECK(m.timing_note.find("budget") != std::string::npos);
        } else {
            CHECK(m.time.reps == kernels::kQuickReps);
        }
    }
}
