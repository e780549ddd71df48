// The simulated backend estimates from the model and labels itself.
#include "kernels/common/backend.h"
#include "kernels/workload.h"

#include <catch2/catch.hpp>

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

TEST_CASE("simulated run: fused chain beats unfused by its byte ratio, and says it is simulated", "[sim]") {
    auto backend = make_sim_backend(*find_sim_gpu("H200"));
    Job job;
    job.params.rows = 8192;
    job.params.hidden = 8192;
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
    CHECK_FALSE(u.checked);
    CHECK_THAT(u.check_note, Catch::Contains("simulated"));
    CHECK(u.time.median_ms / f.time.median_ms == Approx(3.0).epsilon(0.05));  // 9n vs 3n bytes
    CHECK(f.bytes() == min_bytes(job.params));
    CHECK(f.achieved_gbps() < 4800);
    CHECK(f.job.variant == "fused");
}

TEST_CASE("simulated run refuses invalid parameters with the validation message", "[sim]") {
    auto backend = make_sim_backend(*find_sim_gpu("A100"));
    Job job;
    job.params.rows = 0;
    job.variant = "fused";
    const Measurement m = backend->run(job, {});
    CHECK_FALSE(m.ok);
    CHECK_THAT(m.error, Catch::Contains("rows = 0"));
    job.params.rows = 4;
    job.variant = "flash";
    CHECK_THAT(backend->run(job, {}).error, Catch::Contains("unknown variant"));
}

TEST_CASE("a simulated-only build explains why there is no GPU backend", "[sim]") {
    std::string why;
    auto gpu = make_gpu_backend(&why);
    if (!gpu) CHECK_FALSE(why.empty());
}
