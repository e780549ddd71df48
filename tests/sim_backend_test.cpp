// The simulated backend estimates from the model and labels itself.
#include "kernels/attention/attention.h"
#include "kernels/common/backend.h"
#include "kernels/common/registry.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>

using namespace kernels;

TEST_CASE("simulated GPUs include the datasheet parts DESIGN.md names", "[sim]") {
    for (const char* key : {"V100", "A100", "H100", "H200", "RTX4090"}) {
        const SimGpu* g = find_sim_gpu(key);
        REQUIRE(g);
        CHECK(g->info.simulated);
        CHECK(g->info.peak_bw_gbps > 0);
        CHECK(g->info.launch_overhead_us > 0);
    }
    CHECK(find_sim_gpu("h100") == find_sim_gpu("H100"));
    CHECK(find_sim_gpu("XYZ") == nullptr);
}

TEST_CASE("sim_kernel_ms is max(bytes/bw, flops/peak) plus launch cost", "[sim]") {
    const DeviceInfo& h100 = find_sim_gpu("H100")->info;
    const double launch_ms = h100.launch_overhead_us * 1e-3;
    CHECK(sim_kernel_ms(h100, 0, 3'350'000'000'000ull, false) == Approx(1000 + launch_ms));    // 1 s of bytes
    CHECK(sim_kernel_ms(h100, 67e12, 1, false) == Approx(1000 + launch_ms));               // 1 s of fp32
    CHECK(sim_kernel_ms(h100, 989e12, 1, true) == Approx(1000 + launch_ms));               // tensor cores
    CHECK(sim_kernel_ms(h100, 0, 0, false) == Approx(launch_ms));
}

TEST_CASE("simulated run: fused chain beats unfused, bound by instruction issue, and says it is simulated", "[sim]") {
    auto backend = make_sim_backend(*find_sim_gpu("H200"));
    Job job;
    job.params.set("rows", 8192);
    job.params.set("hidden", 8192);
    job.params.dtype = DType::bf16;
    job.variant = "unfused";
    const Measurement u = backend->run(job, {});
    job.variant = "fused";
    const Measurement f = backend->run(job, {});
    REQUIRE(u.ok);
    REQUIRE(f.ok);
    CHECK(u.device.simulated);
    CHECK(u.kernels.size() == 4);
    CHECK(f.kernels.size() == 1);
    // No kernel ran; the arithmetic did, on the CPU: the quick check's 32 rows (256 would take ~0.6 s).
    CHECK(u.checked);
    CHECK_THAT(u.check_note, Catch::StartsWith("computed on the CPU (emulated bf16 arithmetic, 32 sampled rows): "));
    // 9n against 3n DRAM bytes, but the fused chain's ~54 instructions per element bind before its
    // bytes on the H200 (PERF.md: 0.1409 ms measured against 0.3092 for unfused, 2.19x).
    CHECK_THAT(u.limiter, Catch::StartsWith("bound by DRAM bandwidth"));
    CHECK_THAT(f.limiter, Catch::StartsWith("bound by instruction issue"));
    CHECK(u.time.median_ms / f.time.median_ms == Approx(0.3092 / 0.1409).epsilon(0.1));
    CHECK(f.bytes() == min_bytes(job.params));
    CHECK(f.achieved_gbps() < 4800);
    CHECK(f.job.variant == "fused");
}

TEST_CASE("simulated run refuses invalid parameters with the validation message", "[sim]") {
    auto backend = make_sim_backend(*find_sim_gpu("A100"));
    Job job;
    job.params.set("rows", 0);
    job.variant = "fused";
    const Measurement m = backend->run(job, {});
    CHECK_FALSE(m.ok);
    CHECK_THAT(m.error, Catch::Contains("rows = 0"));
    job.params.set("rows", 4);
    job.variant = "flash";
    CHECK_THAT(backend->run(job, {}).error, Catch::Contains("unknown variant"));
}

TEST_CASE("a simulated-only build explains why there is no GPU backend", "[sim]") {
    std::string why;
    auto gpu = make_gpu_backend(&why);
#if defined(FUSIONLAB_HAVE_CUDA)
    CHECK(built_with_cuda());
    if (gpu) {
        // A GPU machine: the backend is the real device, with the driver's numbers, not a datasheet.
        const DeviceInfo& d = gpu->device();
        CHECK_FALSE(d.simulated);
        CHECK_FALSE(d.name.empty());
        CHECK(d.cc_major >= 7);  // the oldest architecture built is sm_75
        CHECK(d.sm_count > 0);
        CHECK(d.global_mem_bytes > 0);
        CHECK(d.peak_bw_gbps > 0);
    } else {
        CHECK_FALSE(why.empty());  // no driver, no device: said, not silent
    }
#else
    // No CUDA kernels in this build: never a GPU backend, and the reason says how to get one.
    CHECK_FALSE(built_with_cuda());
    REQUIRE_FALSE(gpu);
    CHECK_THAT(why, Catch::Contains("no CUDA kernels") && Catch::Contains("install the CUDA toolkit"));
#endif
}

namespace {

Job attention_job(const std::string& variant, int64_t N, DType t) {
    Job job;
    job.variant = variant;
    job.params.workload = "attention";
    job.params.set("N", N);
    job.params.set("d", 64);
    job.params.set("heads", 64);
    job.params.dtype = t;
    return job;
}

}  // namespace

TEST_CASE("simulated attention: every variant estimated from the model", "[sim][attention]") {
    const DeviceInfo& gpu = find_sim_gpu("H100")->info;
    auto backend = make_sim_backend(*find_sim_gpu("H100"));
    for (const char* variant : {"naive", "flash", "flash_tc"}) {
        const Job job = attention_job(variant, 4096, DType::f16);
        const Measurement m = backend->run(job, {});
        INFO(variant << ": " << m.error);
        REQUIRE(m.ok);
        const Model model = kernels::model(variant, job.params);
        REQUIRE(m.kernels.size() == model.kernels.size());
        double total = 0;
        const SimCalibration& c = find_sim_gpu("H100")->cal;
        for (size_t k = 0; k < model.kernels.size(); ++k) {
            const KernelModel& km = model.kernels[k];
            // Each kernel: its slowest resource, plus a queued kernel's start-up.
            const KernelPrice price = price_kernel(c, km, gpu);
            const double want = price.busy_ms + c.gpu_gap_us * 1e-3;
            CHECK(price.busy_ms == Approx(std::max({price.dram_ms, price.l2_ms, price.shared_ms, price.tensor_ms,
                                                    price.fp32_ms, price.sfu_ms, price.issue_ms})));
            CHECK(m.kernels[k].name == km.name);
            CHECK(m.kernels[k].time.median_ms == Approx(want));
            total += want;
        }
        CHECK(m.time.median_ms == Approx(total));
        CHECK(m.flops == model.flops());
        // "HBM bytes" are DRAM bytes: the L2 reuse model's, with the L2<->SM bytes beside them.
        CHECK(m.bytes() == model.dram_bytes());
        CHECK(m.l2_bytes_read + m.l2_bytes_written == model.bytes());
        CHECK_THAT(m.limiter, Catch::StartsWith("bound by "));
        CHECK(m.min_bytes == min_bytes(job.params));
    }
}

TEST_CASE("simulated attention: flash_tc beats naive at N = 4096 fp16, and flash (FP32 pipes) is slowest", "[sim][attention]") {
    auto backend = make_sim_backend(*find_sim_gpu("H200"));
    const Measurement naive = backend->run(attention_job("naive", 4096, DType::f16), {});
    const Measurement flash = backend->run(attention_job("flash", 4096, DType::f16), {});
    const Measurement tc = backend->run(attention_job("flash_tc", 4096, DType::f16), {});
    REQUIRE((naive.ok && flash.ok && tc.ok));
    CHECK(tc.time.median_ms < naive.time.median_ms);
    CHECK(tc.bytes() < naive.bytes());
    CHECK(flash.time.median_ms > tc.time.median_ms);
}

TEST_CASE("simulated attention: refusals with the datasheet's numbers", "[sim][attention]") {
    const SimGpu& h100 = *find_sim_gpu("H100");
    auto backend = make_sim_backend(h100);
    // A tile that does not fit shared memory.
    Job big_tile = attention_job("flash", 1024, DType::f32);
    big_tile.params.set("d", 128);
    big_tile.params.set("br", 128);
    big_tile.params.set("bc", 128);
    const std::string reason = backend->unavailable_reason(big_tile);
    CHECK_THAT(reason, Catch::Contains("shared memory") &&
                           Catch::Contains(std::to_string(h100.info.smem_per_block_optin)) &&
                           Catch::Contains(std::to_string(attention::flash_smem_bytes(
                               "flash", attention::to_attention(big_tile.params)))));
    const Measurement m = backend->run(big_tile, {});
    CHECK_FALSE(m.ok);
    CHECK(m.refused);
    CHECK(m.error == reason);
    // naive's S and P larger than the 80 GB: refused; flash runs the same shape.
    Job naive = attention_job("naive", 65536, DType::f16);
    const Measurement n = backend->run(naive, {});
    CHECK_FALSE(n.ok);
    CHECK(n.refused);
    CHECK_THAT(n.error, Catch::Contains("for S and P") && Catch::Contains("flash needs only"));
    naive.variant = "flash";
    CHECK(backend->unavailable_reason(naive).empty());
    CHECK(backend->run(naive, {}).ok);
    // flash_tc needs sm_80: the V100 refuses it; fp32 is refused everywhere.
    auto v100 = make_sim_backend(*find_sim_gpu("V100"));
    CHECK_THAT(v100->unavailable_reason(attention_job("flash_tc", 1024, DType::f16)), Catch::Contains("8.0"));
    CHECK_THAT(backend->unavailable_reason(attention_job("flash_tc", 1024, DType::f32)), Catch::Contains("fp16 or bf16"));
    // Elementwise: nothing refused.
    Job chain;
    chain.variant = "fused";
    CHECK(backend->unavailable_reason(chain).empty());
}

TEST_CASE("simulated skip: every variant estimated from the model, fused between attention and two_pass", "[sim][skip]") {
    auto backend = make_sim_backend(*find_sim_gpu("H100"));
    std::map<std::string, Measurement> by_variant;
    for (const auto& v : kernels::variants("skip")) {
        Job job = attention_job(v.name, 4096, DType::f16);
        job.params.workload = "skip";
        job.params.set("heads", 16);
        job.params.set("batch", 4);
        const Measurement m = backend->run(job, {});
        INFO(v.name << ": " << m.error);
        REQUIRE(m.ok);
        const Model model = kernels::model(v.name, job.params);
        REQUIRE(m.kernels.size() == model.kernels.size());
        CHECK(m.bytes() == model.dram_bytes());
        CHECK(m.device.simulated);
        by_variant[v.name] = m;
    }
    CHECK(by_variant["fused"].time.median_ms >= by_variant["attention"].time.median_ms);
    CHECK(by_variant["two_pass"].time.median_ms > by_variant["fused"].time.median_ms);
    CHECK(by_variant["two_pass"].kernels.size() == 2);
    CHECK(by_variant["wgmma_two_pass"].time.median_ms > by_variant["wgmma_fused"].time.median_ms);
    CHECK(by_variant["wgmma_fused"].time.median_ms < by_variant["fused"].time.median_ms);  // wgmma beats mma.sync
}

TEST_CASE("simulated run: the error is computed on the CPU where that is quick, else it says why not", "[sim][emulate]") {
    auto backend = make_sim_backend(*find_sim_gpu("H100"));
    Job job;
    job.params = default_params("attention");
    job.params.dtype = DType::f16;
    job.params.set("N", 256).set("d", 64).set("heads", 2);  // ~0.06 s: far from the limit on a busy CPU
    job.variant = "flash";
    const Measurement m = backend->run(job, {});
    REQUIRE(m.ok);
    CHECK(m.checked);
    CHECK(m.checked_elements == 2 * 256 * 64);
    CHECK(m.rel_l2_error > 1e-4);
    CHECK(m.rel_l2_error < 3e-4);
    CHECK_THAT(m.check_note, Catch::StartsWith("computed on the CPU (emulated fp16 arithmetic, all 512 rows): all 512 "
                                               "rows of O vs the float64 CPU reference; "));
    job.params.set("N", 65536).set("heads", 64);
    const Measurement big = backend->run(job, {});
    REQUIRE(big.ok);
    CHECK_FALSE(big.checked);
    CHECK_THAT(big.check_note, Catch::StartsWith("not emulated: ~") && Catch::Contains("s on the CPU at this size"));
}
