// flash_wgmma (sm_90a) on the GPU against the float64 CPU reference: random inputs (never zeros),
// poisoned outputs, ragged N (rows past N come in as TMA's zero fill and must be masked), causal
// and not, d 64 and 128, fp16 and bf16, every tile offered (Br, Bc in {64, 128}). On a device that
// is not compute capability 9.0 the variant must be refused with the reason, and nothing runs.
#include "kernels/attention/attention.h"
#include "kernels/attention/attention_gpu.h"
#include "tests/gpu_attention_check.h"

#include <catch2/catch.hpp>

#include <string>

using kernels::DType;
using namespace kernels::attention;
using namespace kernels::attention::gpu;
using kernels::attention::testing::check_variant;
using kernels::attention::testing::make;

namespace {

bool is_hopper(const DeviceLimits& dev) { return dev.cc_major == 9 && dev.cc_minor == 0; }

// "" when this machine can run flash_wgmma at all; the test cases below check the refusal otherwise.
bool wgmma_available() {
    const DeviceLimits dev = device_limits();
    REQUIRE(dev.ok);
    const std::string why = why_not_runnable("flash_wgmma", make(1, 64, 64, DType::f16, false, 64, 64, 1));
    if (!is_hopper(dev)) {
        CHECK_THAT(why, Catch::Contains("compute capability 9.0"));
        const Output r = run_once("flash_wgmma", make(1, 64, 64, DType::f16, false, 64, 64, 1));
        CHECK_FALSE(r.ok);
        CHECK(r.error == why);
        return false;
    }
    if (why.find("not in this build") != std::string::npos) {
        WARN(why);
        return false;
    }
    REQUIRE(why == "");
    return true;
}

}  // namespace

TEST_CASE("flash_wgmma matches the reference: every tile, d 64/128, fp16/bf16, ragged N, causal", "[gpu][attention][wgmma]") {
    if (!wgmma_available()) return;
    uint64_t seed = 9000;
    for (DType t : {DType::f16, DType::bf16})
        for (int64_t d : {64, 128})
            for (int Br : kWgmmaRowTiles)
                for (int Bc : kWgmmaColTiles)
                    for (int64_t N : {1, 17, 64, 129, 200, 1000})
                        for (bool causal : {false, true})
                            if (wgmma_tile_built(Br, Bc, d)) check_variant("flash_wgmma", make(2, N, d, t, causal, Br, Bc, seed++));
}

TEST_CASE("flash_wgmma: longer sequences and more heads, sampled rows", "[gpu][attention][wgmma]") {
    if (!wgmma_available()) return;
    uint64_t seed = 9500;
    for (bool causal : {false, true})
        for (int64_t d : {64, 128}) {
            // 4097: one row past a multiple of every tile, so the last row block has one row and the
            // last key tile one key; 1000 with many heads covers the head coordinate of the maps.
            check_variant("flash_wgmma", make(3, 4097, d, DType::f16, causal, 128, 128, seed++));
            check_variant("flash_wgmma", make(3, 4097, d, DType::bf16, causal, 64, 64, seed++));
            check_variant("flash_wgmma", make(40, 1000, d, DType::f16, causal, 128, 64, seed++));
            // Three consumer warpgroups: 4097 = 21 x 192 + 65, so the last row block has 65 rows
            // (one warpgroup's 64 and one row of the next, the third's rows all past N).
            check_variant("flash_wgmma", make(3, 4097, d, DType::f16, causal, 192, 64, seed++));
            if (d == 64) check_variant("flash_wgmma", make(40, 1000, d, DType::bf16, causal, 192, 128, seed++));
        }
}

TEST_CASE("flash_wgmma refuses what it is not built for, with the reason", "[gpu][attention][wgmma]") {
    CHECK_THAT(why_not_runnable("flash_wgmma", make(1, 64, 64, DType::f32, false, 64, 64, 1)), Catch::Contains("fp16 or bf16"));
    CHECK_THAT(why_not_runnable("flash_wgmma", make(1, 64, 32, DType::f16, false, 64, 64, 1)), Catch::Contains("d = 32"));
    CHECK_THAT(why_not_runnable("flash_wgmma", make(1, 64, 64, DType::f16, false, 32, 64, 1)), Catch::Contains("Br = 32"));
    CHECK_THAT(why_not_runnable("flash_wgmma", make(1, 64, 64, DType::f16, false, 64, 16, 1)), Catch::Contains("Bc = 16"));
    CHECK_THAT(why_not_runnable("flash_wgmma", make(1, 64, 128, DType::f16, false, 192, 128, 1)), Catch::Contains("registers"));
    const Output r = run_once("flash_wgmma", make(1, 64, 80, DType::f16, false, 64, 64, 1));
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("d = 80"));
}

// A few small runs, one per tile and d, for compute-sanitizer (scripts/gpu_sanitize.sh --tests):
// ragged N = 129 (one row block and one key tile past a multiple of 64 and 128), causal and not.
TEST_CASE("flash_wgmma small: every tile once, for the sanitizers", "[gpu][attention][wgmma]") {
    if (!wgmma_available()) return;
    uint64_t seed = 9900;
    for (int64_t d : {64, 128})
        for (int Br : kWgmmaRowTiles)
            for (int Bc : kWgmmaColTiles)
                for (bool causal : {false, true})
                    if (wgmma_tile_built(Br, Bc, d))
                        check_variant("flash_wgmma", make(1, 129, d, causal ? DType::bf16 : DType::f16, causal, Br, Bc, seed++));
}
