// Every attention variant on the GPU against the float64 CPU reference: random inputs (never
// zeros), poisoned outputs, ragged N, every tile offered (flash and flash_tc), causal and not, d in {32, 64, 128}
// (the teaching kernel also odd d), fp32 / fp16 / bf16; plus the refusals.
#include "kernels/attention/attention.h"
#include "kernels/attention/attention_gpu.h"
#include "kernels/gpu/gpu_memory_info.h"
#include "tests/gpu_attention_check.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using kernels::DType;
using namespace kernels::attention;
using namespace kernels::attention::gpu;

namespace {

using kernels::attention::testing::check_variant;
using kernels::attention::testing::make;

bool can_run(const std::string& variant, const AttentionParams& p) { return why_not_runnable(variant, p).empty(); }

}  // namespace

TEST_CASE("naive matches the reference: ragged N, causal and not, every dtype", "[gpu][attention]") {
    uint64_t seed = 100;
    for (DType t : kernels::kAllDTypes)
        for (int64_t d : {32, 64, 128})
            for (int64_t N : {1, 17, 100, 257})
                for (bool causal : {false, true}) check_variant("naive", make(3, N, d, t, causal, 64, 64, seed++));
}

TEST_CASE("naive's GEMM configurations are counted once each, when first issued", "[gpu][attention]") {
    // N = 301 is used by no other test case: its two GEMMs (S = Q K^T, O = P V) are new here.
    const AttentionParams p = make(2, 301, 64, DType::f16, false, 64, 64, 7);
    const int64_t before = kernels::cublas_gemm_configs_issued();
    REQUIRE(run_once("naive", p).ok);
    CHECK(kernels::cublas_gemm_configs_issued() == before + 2);
    REQUIRE(run_once("naive", p).ok);  // the same configurations again
    CHECK(kernels::cublas_gemm_configs_issued() == before + 2);
    AttentionParams other_heads = p;
    other_heads.batch_heads = 3;  // the batch count is part of a configuration
    REQUIRE(run_once("naive", other_heads).ok);
    CHECK(kernels::cublas_gemm_configs_issued() == before + 4);
    REQUIRE(run_once("flash", p).ok);  // no cuBLAS
    CHECK(kernels::cublas_gemm_configs_issued() == before + 4);
}

TEST_CASE("flash matches the reference for every tile size that fits", "[gpu][attention]") {
    uint64_t seed = 200;
    for (DType t : kernels::kAllDTypes)
        for (int Br : kTileSizes)
            for (int Bc : kTileSizes)
                for (bool causal : {false, true}) {
                    const AttentionParams p = make(2, 100, 64, t, causal, Br, Bc, seed++);
                    check_variant("flash", p);
                }
}

TEST_CASE("flash: ragged N, any d up to 128", "[gpu][attention]") {
    uint64_t seed = 300;
    for (DType t : kernels::kAllDTypes)
        for (int64_t d : {1, 32, 33, 64, 80, 128})
            for (int64_t N : {1, 17, 257})
                for (bool causal : {false, true}) {
                    AttentionParams p = make(2, N, d, t, causal, 32, 16, seed++);
                    if (!can_run("flash", p)) p.Bc = p.Br = 16;
                    check_variant("flash", p);
                }
}

TEST_CASE("flash_tc matches the reference: every tile, fp16, bf16, d 32/64/128, ragged N, causal", "[gpu][attention]") {
    const DeviceLimits dev = device_limits();
    REQUIRE(dev.ok);
    if (dev.cc_major < 8) {
        CHECK_THAT(why_not_runnable("flash_tc", make(1, 64, 64, DType::f16, false, 64, 64, 1)),
                   Catch::Contains("compute capability 8.0"));
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
                            const AttentionParams p = make(2, N, d, t, causal, Br, Bc, seed++);
                            if (!can_run("flash_tc", p)) {  // shared memory of a smaller GPU
                                CHECK_THAT(why_not_runnable("flash_tc", p), Catch::Contains("bytes of shared memory"));
                                continue;
                            }
                            check_variant("flash_tc", p);
                        }
}

TEST_CASE("flash_tc: one tile over many key tiles and row blocks, every tile", "[gpu][attention]") {
    if (device_limits().cc_major < 8) return;
    uint64_t seed = 450;
    for (int Br : kTileSizes)
        for (int Bc : kTcTileSizes)
            for (int64_t d : {64, 128})
                for (bool causal : {false, true}) {
                    const AttentionParams p = make(3, 1000, d, causal ? DType::bf16 : DType::f16, causal, Br, Bc, seed++);
                    if (can_run("flash_tc", p)) check_variant("flash_tc", p);
                }
}

TEST_CASE("longer sequences: all variants agree with the reference on sampled rows", "[gpu][attention]") {
    uint64_t seed = 500;
    for (bool causal : {false, true}) {
        check_variant("naive", make(4, 2048, 64, DType::f16, causal, 64, 64, seed++));
        check_variant("flash", make(2, 1030, 64, DType::bf16, causal, 64, 32, seed++));
        if (device_limits().cc_major >= 8) {
            check_variant("flash_tc", make(4, 2048, 128, DType::bf16, causal, 64, 64, seed++));
            check_variant("flash_tc", make(4, 4097, 64, DType::f16, causal, 64, 64, seed++));
            check_variant("flash_tc", make(4, 4097, 64, DType::f16, causal, 128, 128, seed++));
            check_variant("flash_tc", make(4, 4097, 128, DType::bf16, causal, 128, 64, seed++));
        }
    }
}

TEST_CASE("refusals say why, with the numbers, and nothing runs", "[gpu][attention]") {
    const DeviceLimits dev = device_limits();
    REQUIRE(dev.ok);
    SECTION("a flash tile that does not fit in shared memory") {
        const AttentionParams p = make(1, 256, 128, DType::f32, false, 128, 128, 1);
        const std::string why = why_not_runnable("flash", p);
        if (flash_smem_bytes("flash", p) > static_cast<uint64_t>(dev.smem_per_block_optin)) {
            CHECK_THAT(why, Catch::Contains(std::to_string(flash_smem_bytes("flash", p))));
            CHECK_THAT(why, Catch::Contains(std::to_string(dev.smem_per_block_optin)));
            const Output r = run_once("flash", p);
            CHECK_FALSE(r.ok);
            CHECK(r.error == why);
        }
    }
    SECTION("naive's S and P larger than GPU memory: naive refused, flash still runs") {
        // 2 x 256 x 65536² x 2 bytes = 4 TiB of S and P; Q, K, V, O are 256 MiB.
        const AttentionParams p = make(256, 65536, 2, DType::f16, false, 64, 64, 1);
        const std::string why = why_not_runnable("naive", p);
        CHECK_THAT(why, Catch::Contains("for S and P") && Catch::Contains("flash needs only"));
        CHECK(why_not_runnable("flash", p).empty());
    }
    SECTION("flash_tc: fp32 and odd d are refused") {
        CHECK_THAT(why_not_runnable("flash_tc", make(1, 64, 64, DType::f32, false, 64, 64, 1)),
                   Catch::Contains("fp16 or bf16"));
        CHECK_THAT(why_not_runnable("flash_tc", make(1, 64, 96, DType::f16, false, 64, 64, 1)),
                   Catch::Contains("d = 96"));
        CHECK_THAT(why_not_runnable("flash_tc", make(1, 64, 64, DType::f16, false, 64, 32, 1)),
                   Catch::Contains("Bc = 32"));
        const Output r = run_once("flash_tc", make(1, 64, 64, DType::f16, false, 64, 16, 1));
        CHECK_FALSE(r.ok);
        CHECK_THAT(r.error, Catch::Contains("Bc = 16"));
    }
    SECTION("bad parameters") {
        const Output r = run_once("flash", make(1, 0, 64, DType::f16, false, 64, 64, 1));
        CHECK_FALSE(r.ok);
        CHECK_THAT(r.error, Catch::Contains("N = 0"));
    }
}

TEST_CASE("timing entry returns a median of at least 20 runs", "[gpu][attention][timing]") {
    const AttentionParams p = make(8, 512, 64, DType::f16, false, 64, 64, 9);
    for (const char* v : {"naive", "flash", "flash_tc", "flash_wgmma"}) {
        if (!can_run(v, p)) continue;
        const Timing t = time_variant(v, p, 2, 5);
        INFO(v << ": " << t.error);
        REQUIRE(t.ok);
        CHECK(t.time.reps >= 20);
        CHECK(t.time.median_ms > 0);
        CHECK(t.time.min_ms <= t.time.median_ms);
    }
}
