// Every attention variant through the GPU backend's checked run against the float64 CPU reference:
// random inputs (never zeros), poisoned outputs, ragged N, every tile offered (flash and flash_tc),
// causal and not, d in {32, 64, 128} (the teaching kernel also odd d), fp32 / fp16 / bf16; plus the
// refusals, the cuBLAS GEMM configurations and the timed median.
#include "kernels/attention/attention.h"
#include "kernels/gpu/gpu_memory_info.h"
#include "tests/gpu_attention_check.h"
#include "tests/gpu_backend_fixture.h"
#include "tests/test_skip.h"

#include <catch2/catch.hpp>

#include <string>

using kernels::DType;
using namespace kernels::attention;
using fl_test::check_on_gpu;
using fl_test::gpu_device;
using fl_test::gpu_refusal;
using fl_test::run_gpu_job;
using kernels::attention::testing::make;

namespace {

bool can_run(const std::string& variant, const kernels::Params& p) { return gpu_refusal(p, variant).empty(); }

bool tensor_cores() { return gpu_device().cc_major >= 8; }

}  // namespace

TEST_CASE("naive matches the reference: ragged N, causal and not, every dtype", "[gpu][attention]") {
    uint64_t seed = 100;
    for (DType t : kernels::kAllDTypes)
        for (int64_t d : {32, 64, 128})
            for (int64_t N : {1, 17, 100, 257})
                for (bool causal : {false, true}) check_on_gpu(make(3, N, d, t, causal, 64, 64, seed++), "naive");
}

TEST_CASE("naive's GEMM configurations are counted once each, when first issued", "[gpu][attention]") {
    // N = 301 is used by no other test case: its two GEMMs (S = Q K^T, O = P V) are new here.
    const kernels::Params p = make(2, 301, 64, DType::f16, false, 64, 64, 7);
    fl_test::gpu_backend();  // made first: its ceilings' GEMMs are not a workload's
    const int64_t before = kernels::cublas_gemm_configs_issued();
    REQUIRE(run_gpu_job(p, "naive").ok);
    CHECK(kernels::cublas_gemm_configs_issued() == before + 2);
    REQUIRE(run_gpu_job(p, "naive").ok);  // the same configurations again
    CHECK(kernels::cublas_gemm_configs_issued() == before + 2);
    kernels::Params other_heads = p;
    other_heads.set("heads", 3);  // the batch count is part of a configuration
    REQUIRE(run_gpu_job(other_heads, "naive").ok);
    CHECK(kernels::cublas_gemm_configs_issued() == before + 4);
    REQUIRE(run_gpu_job(p, "flash").ok);  // no cuBLAS
    CHECK(kernels::cublas_gemm_configs_issued() == before + 4);
}

TEST_CASE("flash matches the reference for every tile size that fits", "[gpu][attention]") {
    uint64_t seed = 200;
    for (DType t : kernels::kAllDTypes)
        for (int Br : kTileSizes)
            for (int Bc : kTileSizes)
                for (bool causal : {false, true}) check_on_gpu(make(2, 100, 64, t, causal, Br, Bc, seed++), "flash");
}

TEST_CASE("flash: ragged N, any d up to 128", "[gpu][attention]") {
    uint64_t seed = 300;
    for (DType t : kernels::kAllDTypes)
        for (int64_t d : {1, 32, 33, 64, 80, 128})
            for (int64_t N : {1, 17, 257})
                for (bool causal : {false, true}) {
                    kernels::Params p = make(2, N, d, t, causal, 32, 16, seed++);
                    if (!can_run("flash", p)) p.set("br", 16).set("bc", 16);
                    check_on_gpu(p, "flash");
                }
}

TEST_CASE("flash_tc matches the reference: every tile, fp16, bf16, d 32/64/128, ragged N, causal", "[gpu][attention]") {
    if (!tensor_cores()) {
        CHECK_THAT(gpu_refusal(make(1, 64, 64, DType::f16, false, 64, 64, 1), "flash_tc"),
                   Catch::Contains("compute capability 8.0"));
        fl_test::skip("flash_tc needs compute capability 8.0; this GPU refuses it (checked above)");
        return;
    }
    uint64_t seed = 400;
    // Every tile offered (Br any tile size: 16 or 32 rows per warp; Bc 64 or 128): N = 1 (one row,
    // one key), 17 and 100 (ragged inside the first tile), 129 and 257 (one row past 128 and 256:
    // the last row block and the last key tile hold one row).
    for (DType t : {DType::f16, DType::bf16})
        for (int64_t d : {32, 64, 128})
            for (int Br : kTileSizes)
                for (int Bc : kTcTileSizes)
                    for (int64_t N : {1, 17, 100, 129, 257})
                        for (bool causal : {false, true}) {
                            const kernels::Params p = make(2, N, d, t, causal, Br, Bc, seed++);
                            if (!can_run("flash_tc", p)) {  // shared memory of a smaller GPU
                                CHECK_THAT(gpu_refusal(p, "flash_tc"), Catch::Contains("bytes of shared memory"));
                                continue;
                            }
                            check_on_gpu(p, "flash_tc");
                        }
}

TEST_CASE("flash_tc: one tile over many key tiles and row blocks, every tile", "[gpu][attention]") {
    if (!tensor_cores()) {
        fl_test::skip("flash_tc needs compute capability 8.0");
        return;
    }
    uint64_t seed = 450;
    for (int Br : kTileSizes)
        for (int Bc : kTcTileSizes)
            for (int64_t d : {64, 128})
                for (bool causal : {false, true}) {
                    const kernels::Params p = make(3, 1000, d, causal ? DType::bf16 : DType::f16, causal, Br, Bc, seed++);
                    if (can_run("flash_tc", p)) check_on_gpu(p, "flash_tc");
                    else CHECK_THAT(gpu_refusal(p, "flash_tc"), Catch::Contains("bytes of shared memory"));
                }
}

TEST_CASE("longer sequences: all variants agree with the reference on sampled rows", "[gpu][attention]") {
    uint64_t seed = 500;
    for (bool causal : {false, true}) {
        check_on_gpu(make(4, 2048, 64, DType::f16, causal, 64, 64, seed++), "naive");
        check_on_gpu(make(2, 1030, 64, DType::bf16, causal, 64, 32, seed++), "flash");
        if (tensor_cores()) {
            check_on_gpu(make(4, 2048, 128, DType::bf16, causal, 64, 64, seed++), "flash_tc");
            check_on_gpu(make(4, 4097, 64, DType::f16, causal, 64, 64, seed++), "flash_tc");
            check_on_gpu(make(4, 4097, 64, DType::f16, causal, 128, 128, seed++), "flash_tc");
            check_on_gpu(make(4, 4097, 128, DType::bf16, causal, 128, 64, seed++), "flash_tc");
        }
    }
}

TEST_CASE("refusals say why, with the numbers, and nothing runs", "[gpu][attention]") {
    const kernels::DeviceInfo& dev = gpu_device();
    SECTION("a flash tile that does not fit in shared memory") {
        const kernels::Params p = make(1, 256, 128, DType::f32, false, 128, 128, 1);
        const uint64_t need = flash_smem_bytes("flash", to_attention(p));
        // 128 x 128 fp32 tiles at d = 128: Qi, Kj, Vj and Sij of 64 KiB each, beyond a Hopper's 227 KiB.
        if (need <= static_cast<uint64_t>(dev.smem_per_block_optin)) {
            fl_test::skip("this GPU's shared memory per block (" + std::to_string(dev.smem_per_block_optin) +
                          " bytes) holds the tile (" + std::to_string(need) + " bytes): nothing to refuse");
            return;
        }
        const std::string why = gpu_refusal(p, "flash");
        CHECK_THAT(why, Catch::Contains(std::to_string(need)));
        CHECK_THAT(why, Catch::Contains(std::to_string(dev.smem_per_block_optin)));
        const kernels::Measurement m = run_gpu_job(p, "flash");
        CHECK_FALSE(m.ok);
        CHECK(m.refused);
        CHECK(m.error == why);
    }
    SECTION("naive's S and P larger than GPU memory: naive refused, flash still runs") {
        // 2 x 256 x 65536² x 2 bytes = 4 TiB of S and P; Q, K, V, O are 256 MiB.
        const kernels::Params p = make(256, 65536, 2, DType::f16, false, 64, 64, 1);
        CHECK_THAT(gpu_refusal(p, "naive"), Catch::Contains("for S and P") && Catch::Contains("flash needs only"));
        CHECK(gpu_refusal(p, "flash").empty());
    }
    SECTION("flash_tc: fp32 and odd d are refused") {
        CHECK_THAT(gpu_refusal(make(1, 64, 64, DType::f32, false, 64, 64, 1), "flash_tc"), Catch::Contains("fp16 or bf16"));
        CHECK_THAT(gpu_refusal(make(1, 64, 96, DType::f16, false, 64, 64, 1), "flash_tc"), Catch::Contains("d = 96"));
        CHECK_THAT(gpu_refusal(make(1, 64, 64, DType::f16, false, 64, 32, 1), "flash_tc"), Catch::Contains("Bc = 32"));
        const kernels::Measurement m = run_gpu_job(make(1, 64, 64, DType::f16, false, 64, 16, 1), "flash_tc");
        CHECK_FALSE(m.ok);
        CHECK(m.refused);
        CHECK_THAT(m.error, Catch::Contains("Bc = 16"));
    }
    SECTION("bad parameters") {
        const kernels::Measurement m = run_gpu_job(make(1, 0, 64, DType::f16, false, 64, 64, 1), "flash");
        CHECK_FALSE(m.ok);
        CHECK_FALSE(m.refused);  // not a device's limit: the parameters are wrong
        CHECK_THAT(m.error, Catch::Contains("N = 0"));
    }
}

TEST_CASE("the backend times every attention variant: a median of at least 20 reps", "[gpu][attention][timing]") {
    const kernels::Params p = make(8, 512, 64, DType::f16, false, 64, 64, 9);
    int timed = 0;
    for (const char* v : {"naive", "flash", "flash_tc", "flash_wgmma"}) {
        if (!can_run(v, p)) continue;
        const kernels::Measurement m = run_gpu_job(p, v);  // a full job: at least 20 timed reps
        INFO(v << ": " << m.error);
        REQUIRE(m.ok);
        CHECK(m.checked);
        CHECK(kernels::output_matches(p.dtype, m.rel_l2_error, m.max_abs_error));
        ++timed;
        CHECK(m.time.reps >= 20);
        CHECK(m.time.min_ms <= m.time.median_ms);
        CHECK(m.time.median_ms <= m.time.max_ms);
        CHECK(m.time.median_ms > 0);
    }
    CHECK(timed >= 2);  // naive and flash run on every CUDA GPU
}
