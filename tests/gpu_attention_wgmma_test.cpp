// flash_wgmma (sm_90a) through the GPU backend's checked run against the float64 CPU reference:
// random inputs (never zeros), poisoned outputs, ragged N (rows past N come in as TMA's zero fill
// and must be masked), causal and not, d 64 and 128, fp16 and bf16, every tile offered (Br in
// {64, 128, 192}, Bc in {64, 128}, and 128 x 176 and 192 x 80 at d = 128). On a device that is not compute capability 9.0, or in a build
// without sm_90a code, the variant must be refused with the reason, nothing runs, and the cases that
// need it are skipped with that reason.
#include "kernels/attention/attention.h"
#include "tests/gpu_attention_check.h"
#include "tests/gpu_backend_fixture.h"
#include "tests/scoped_env.h"
#include "tests/test_skip.h"

#include <catch2/catch.hpp>

#include <string>

using kernels::DType;
using namespace kernels::attention;
using fl_test::check_on_gpu;
using fl_test::gpu_refusal;
using kernels::attention::testing::make;

namespace {

// True when this machine runs flash_wgmma; otherwise checks that it is refused with the reason (and
// that a job asking for it runs nothing), skips the calling test case with that reason and returns false.
bool wgmma_runs() {
    const kernels::DeviceInfo& dev = fl_test::gpu_device();
    const kernels::Params p = make(1, 64, 64, DType::f16, false, 64, 64, 1);
    const std::string why = gpu_refusal(p, "flash_wgmma");
    if (why.empty()) {
        REQUIRE((dev.cc_major == 9 && dev.cc_minor == 0));
        return true;
    }
    if (!(dev.cc_major == 9 && dev.cc_minor == 0)) CHECK_THAT(why, Catch::Contains("compute capability 9.0"));
    else CHECK_THAT(why, Catch::Contains("not in this build"));
    const kernels::Measurement m = fl_test::run_gpu_job(p, "flash_wgmma");
    CHECK_FALSE(m.ok);
    CHECK(m.refused);
    CHECK(m.error == why);
    fl_test::skip("flash_wgmma does not run here (refused as it must be: " + why + ")");
    return false;
}

}  // namespace

TEST_CASE("flash_wgmma matches the reference: every tile, d 64/128, fp16/bf16, ragged N, causal", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    uint64_t seed = 9000;
    for (DType t : {DType::f16, DType::bf16})
        for (int64_t d : {64, 128})
            for (int Br : kWgmmaRowTiles)
                for (int Bc : kWgmmaColTiles)
                    for (int64_t N : {1, 17, 64, 129, 200, 1000})
                        for (bool causal : {false, true}) {
                            const kernels::Params p = make(2, N, d, t, causal, Br, Bc, seed++);
                            if (wgmma_tile_built(Br, Bc, d)) check_on_gpu(p, "flash_wgmma");
                            else CHECK_THAT(gpu_refusal(p, "flash_wgmma"), Catch::Contains("registers"));
                        }
}

TEST_CASE("flash_wgmma: longer sequences and more heads, sampled rows", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    uint64_t seed = 9500;
    for (bool causal : {false, true})
        for (int64_t d : {64, 128}) {
            // 4097: one row past a multiple of every tile, so the last row block has one row and the
            // last key tile one key; 1000 with many heads covers the head coordinate of the maps.
            check_on_gpu(make(3, 4097, d, DType::f16, causal, 128, 128, seed++), "flash_wgmma");
            check_on_gpu(make(3, 4097, d, DType::bf16, causal, 64, 64, seed++), "flash_wgmma");
            check_on_gpu(make(40, 1000, d, DType::f16, causal, 128, 64, seed++), "flash_wgmma");
            // Three consumer warpgroups: 4097 = 21 x 192 + 65, so the last row block has 65 rows
            // (one warpgroup's 64 and one row of the next, the third's rows all past N).
            check_on_gpu(make(3, 4097, d, DType::f16, causal, 192, 64, seed++), "flash_wgmma");
            if (d == 64) check_on_gpu(make(40, 1000, d, DType::bf16, causal, 192, 128, seed++), "flash_wgmma");
            // v11's 128 x 176 at d = 128: 4097 = 23 x 176 + 49, so the last key tile holds 49 keys.
            if (d == 128) check_on_gpu(make(3, 4097, d, causal ? DType::bf16 : DType::f16, causal, 128, 176, seed++), "flash_wgmma");
            // 192 x 80 at d = 128: 4097 = 51 x 80 + 17 keys, 21 x 192 + 65 rows.
            if (d == 128) check_on_gpu(make(3, 4097, d, causal ? DType::f16 : DType::bf16, causal, 192, 80, seed++), "flash_wgmma");
        }
}

TEST_CASE("flash_wgmma refuses what it is not built for, with the reason", "[gpu][attention][wgmma]") {
    CHECK_THAT(gpu_refusal(make(1, 64, 64, DType::f32, false, 64, 64, 1), "flash_wgmma"), Catch::Contains("fp16 or bf16"));
    CHECK_THAT(gpu_refusal(make(1, 64, 32, DType::f16, false, 64, 64, 1), "flash_wgmma"), Catch::Contains("d = 32"));
    CHECK_THAT(gpu_refusal(make(1, 64, 64, DType::f16, false, 32, 64, 1), "flash_wgmma"), Catch::Contains("Br = 32"));
    CHECK_THAT(gpu_refusal(make(1, 64, 64, DType::f16, false, 64, 16, 1), "flash_wgmma"), Catch::Contains("Bc = 16"));
    CHECK_THAT(gpu_refusal(make(1, 64, 128, DType::f16, false, 192, 128, 1), "flash_wgmma"), Catch::Contains("registers"));
    const kernels::Measurement m = fl_test::run_gpu_job(make(1, 64, 80, DType::f16, false, 64, 64, 1), "flash_wgmma");
    CHECK_FALSE(m.ok);
    CHECK(m.refused);
    CHECK_THAT(m.error, Catch::Contains("d = 80"));
}

// A few small runs, one per tile and d, for compute-sanitizer (scripts/gpu_sanitize.sh --tests):
// ragged N = 129 (one row block and one key tile past a multiple of 64 and 128), causal and not.
TEST_CASE("flash_wgmma small: every tile once, for the sanitizers", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    uint64_t seed = 9900;
    for (int64_t d : {64, 128})
        for (int Br : kWgmmaRowTiles)
            for (int Bc : kWgmmaColTiles)
                for (bool causal : {false, true})
                    if (wgmma_tile_built(Br, Bc, d))
                        check_on_gpu(make(1, 129, d, causal ? DType::bf16 : DType::f16, causal, Br, Bc, seed++), "flash_wgmma");
}

// The persistent grid (attention_wgmma.cu v5): more row blocks than SM slots, so each block walks
// several (head, row block) items with the ring and the warpgroups' turns running on from one to the
// next; heads whose K and V fill more than half the L2 together, so the order has several L2 sections
// (the first one ragged since v9) and alternates direction; causal (longest row blocks first) and not.
TEST_CASE("flash_wgmma persistent grid: several row blocks a block and several L2 sections", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    REQUIRE(flash_wgmma_persistent());
    REQUIRE(flash_wgmma_ragged_section_first());
    const kernels::Params sections = make(16, 4097, 128, DType::f16, false, 128, 128, 1);
    const int64_t l2 = fl_test::gpu_device().l2_bytes;
    if (l2 > 0) CHECK(flash_wgmma_section_heads(to_attention(sections), l2) < 16);  // at least two sections
    uint64_t seed = 9700;
    for (bool causal : {false, true}) {
        check_on_gpu(make(16, 4097, 128, DType::f16, causal, 128, 128, seed++), "flash_wgmma");
        check_on_gpu(make(16, 4097, 128, DType::bf16, causal, 128, 176, seed++), "flash_wgmma");
        check_on_gpu(make(16, 4097, 128, DType::f16, causal, 192, 80, seed++), "flash_wgmma");
        check_on_gpu(make(16, 4097, 64, DType::bf16, causal, 192, 128, seed++), "flash_wgmma");
        check_on_gpu(make(300, 200, 64, DType::f16, causal, 64, 64, seed++), "flash_wgmma");
        check_on_gpu(make(300, 200, 128, DType::bf16, causal, 192, 64, seed++), "flash_wgmma");
    }
}

// v4, one block per row block in waves, kept for comparison (FUSIONLAB_FLASH_WGMMA_GRID=waves): still right.
TEST_CASE("flash_wgmma waves grid (FUSIONLAB_FLASH_WGMMA_GRID=waves) matches the reference", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    ScopedEnv waves("FUSIONLAB_FLASH_WGMMA_GRID", "waves");
    REQUIRE_FALSE(flash_wgmma_persistent());
    uint64_t seed = 9800;
    for (bool causal : {false, true})
        for (int64_t d : {64, 128}) {
            check_on_gpu(make(3, 1000, d, DType::f16, causal, 128, 128, seed++), "flash_wgmma");
            if (d == 128) check_on_gpu(make(3, 1000, d, DType::bf16, causal, 128, 176, seed++), "flash_wgmma");
            check_on_gpu(make(40, 129, d, DType::bf16, causal, 192, 64, seed++), "flash_wgmma");
        }
}

// The persistent grid under the sanitizers: 300 heads of N = 129 at every Br, so each block walks
// several items (its Qi reloaded, the ring's slots and parities carried over); small enough for racecheck.
TEST_CASE("flash_wgmma small persistent: several items a block, for the sanitizers", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    uint64_t seed = 9950;
    for (int64_t d : {64, 128})
        for (int Br : kWgmmaRowTiles)
            for (bool causal : {false, true})
                check_on_gpu(make(300, 129, d, causal ? DType::bf16 : DType::f16, causal, Br, 64, seed++), "flash_wgmma");
    // v11's 128 x 176 and 192 x 80 at d = 128: N = 400 is three key tiles of 176 (the last 48 keys), five of
    // 80, and two or three row blocks, several items a block.
    for (bool causal : {false, true}) {
        check_on_gpu(make(300, 400, 128, causal ? DType::f16 : DType::bf16, causal, 128, 176, seed++), "flash_wgmma");
        check_on_gpu(make(300, 400, 128, causal ? DType::bf16 : DType::f16, causal, 192, 80, seed++), "flash_wgmma");
    }
}

// The d = 128 tiles of v11 (128 x 176 with v12's separate Kj and Vj barriers, and 192 x 80) alone, for
// racecheck, which does not finish the every-tile case above in its time: ragged N (129: one key tile of
// 129 keys at 176, two at 80), several items a block (300 heads), causal and not, fp16 and bf16.
TEST_CASE("flash_wgmma small d = 128 tiles of v11 and v12, for the sanitizers", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    uint64_t seed = 9970;
    for (bool causal : {false, true}) {
        check_on_gpu(make(2, 129, 128, causal ? DType::bf16 : DType::f16, causal, 128, 176, seed++), "flash_wgmma");
        check_on_gpu(make(2, 129, 128, causal ? DType::f16 : DType::bf16, causal, 192, 80, seed++), "flash_wgmma");
        check_on_gpu(make(300, 400, 128, DType::f16, causal, 128, 176, seed++), "flash_wgmma");
    }
}

// v4's waves at the 64-row tiles (FUSIONLAB_FLASH_WGMMA_GRID=waves; v10 made them the default at 64 x 64
// and was dropped, kernels/PERF.md), with the ring's four stages and ragged N, against the reference.
TEST_CASE("flash_wgmma small 64-row tiles in waves, for the sanitizers", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    ScopedEnv waves("FUSIONLAB_FLASH_WGMMA_GRID", "waves");
    REQUIRE_FALSE(flash_wgmma_persistent());
    uint64_t seed = 9960;
    for (int64_t d : {64, 128})
        for (int Bc : {64, 128})
            for (bool causal : {false, true})
                check_on_gpu(make(40, 129, d, causal ? DType::bf16 : DType::f16, causal, 64, Bc, seed++), "flash_wgmma");
}

// v6's softmax (attention_wgmma.cu; FUSIONLAB_FLASH_WGMMA_SOFTMAX=v6, fp16 without the epilogue) keeps a
// row's m until its max has grown by 2^8; with these inputs (uniform in [-1, 1]) that never happens after
// the first tile, so FUSIONLAB_FLASH_WGMMA_STALE_MAX=0 moves m whenever the max grows: some rows of a warp
// then rescale Oi and others not, every tile.
TEST_CASE("flash_wgmma v6 softmax with m moved at every growth matches the reference", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    ScopedEnv v6("FUSIONLAB_FLASH_WGMMA_SOFTMAX", "v6");
    ScopedEnv moved("FUSIONLAB_FLASH_WGMMA_STALE_MAX", "0");
    uint64_t seed = 9600;
    for (int64_t d : {64, 128})
        for (int Br : kWgmmaRowTiles)
            for (int Bc : kWgmmaColTiles)
                for (bool causal : {false, true})
                    if (wgmma_tile_built(Br, Bc, d)) {
                        check_on_gpu(make(2, 1000, d, DType::f16, causal, Br, Bc, seed++), "flash_wgmma");
                        check_on_gpu(make(3, 129, d, DType::f16, causal, Br, Bc, seed++), "flash_wgmma");
                    }
}

// v6's softmax with its own threshold (m moved past 2^8): right in fp16 at every tile, and refused with
// the reason where it is not built (bf16, the skip epilogue).
TEST_CASE("flash_wgmma v6 softmax (FUSIONLAB_FLASH_WGMMA_SOFTMAX=v6) matches the reference in fp16", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    ScopedEnv v6("FUSIONLAB_FLASH_WGMMA_SOFTMAX", "v6");
    REQUIRE(flash_wgmma_softmax_v6());
    uint64_t seed = 9650;
    for (int64_t d : {64, 128})
        for (int Br : kWgmmaRowTiles)
            for (int Bc : kWgmmaColTiles)
                for (bool causal : {false, true})
                    if (wgmma_tile_built(Br, Bc, d)) check_on_gpu(make(3, 1000, d, DType::f16, causal, Br, Bc, seed++), "flash_wgmma");
    const kernels::Measurement m = fl_test::run_gpu_job(make(1, 64, 64, DType::bf16, false, 64, 64, 1), "flash_wgmma");
    CHECK_FALSE(m.ok);
    CHECK_THAT(m.error, Catch::Contains("FUSIONLAB_FLASH_WGMMA_SOFTMAX=v6"));
}

// The same under the sanitizers: v6's softmax with m moved at every growth, every tile once at N = 129.
TEST_CASE("flash_wgmma small moved max: every tile once, for the sanitizers", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    ScopedEnv v6("FUSIONLAB_FLASH_WGMMA_SOFTMAX", "v6");
    ScopedEnv moved("FUSIONLAB_FLASH_WGMMA_STALE_MAX", "0");
    uint64_t seed = 9980;
    for (int64_t d : {64, 128})
        for (int Br : kWgmmaRowTiles)
            for (int Bc : kWgmmaColTiles)
                if (wgmma_tile_built(Br, Bc, d)) check_on_gpu(make(40, 129, d, DType::f16, Bc == 64, Br, Bc, seed++), "flash_wgmma");
}

// v6's slot release, one arrival per consumer thread, kept for comparison (FUSIONLAB_FLASH_WGMMA_RELEASE=thread;
// v7, one per warp, is the default every other case runs): still right, persistent grid and ragged N.
TEST_CASE("flash_wgmma slots released by every thread matches the reference", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    ScopedEnv per_thread("FUSIONLAB_FLASH_WGMMA_RELEASE", "thread");
    REQUIRE_FALSE(flash_wgmma_release_per_warp());
    uint64_t seed = 9990;
    for (bool causal : {false, true})
        for (int64_t d : {64, 128}) {
            check_on_gpu(make(40, 1000, d, DType::f16, causal, 128, 128, seed++), "flash_wgmma");
            check_on_gpu(make(300, 129, d, DType::bf16, causal, 192, 64, seed++), "flash_wgmma");
        }
}

// v5's claim, one item ahead, kept for comparison (FUSIONLAB_FLASH_WGMMA_CLAIM=ahead; v8, claimed as an
// item's last tile is issued, is the default every other case runs): still right with several items a
// block, one-tile items (N = 129 at Bc = 128 causal) included.
TEST_CASE("flash_wgmma items claimed one ahead matches the reference", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    ScopedEnv ahead("FUSIONLAB_FLASH_WGMMA_CLAIM", "ahead");
    uint64_t seed = 9995;
    for (bool causal : {false, true})
        for (int64_t d : {64, 128}) {
            check_on_gpu(make(16, 4097, d, DType::f16, causal, 128, 128, seed++), "flash_wgmma");
            check_on_gpu(make(300, 129, d, DType::bf16, causal, 128, 128, seed++), "flash_wgmma");
        }
}

// v5's causal order, the ragged L2 section last (FUSIONLAB_FLASH_WGMMA_SECTIONS=ragged_last; v9's, ragged
// first, is the default the persistent-grid case above runs): right with several sections, the last ragged
// (16 heads of N = 4097, d = 128: 2 MiB of K and V a head, so sections of 11-15 heads on a 50-60 MB L2).
TEST_CASE("flash_wgmma ragged L2 section last (v5's order) matches the reference", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    ScopedEnv last("FUSIONLAB_FLASH_WGMMA_SECTIONS", "ragged_last");
    REQUIRE_FALSE(flash_wgmma_ragged_section_first());
    uint64_t seed = 9997;
    for (int64_t d : {64, 128}) {
        check_on_gpu(make(16, 4097, d, DType::f16, true, 128, 128, seed++), "flash_wgmma");
        check_on_gpu(make(300, 200, d, DType::bf16, true, 192, 64, seed++), "flash_wgmma");
    }
}

// v12's register split, the producer at 24 (FUSIONLAB_FLASH_WGMMA_REGS=v12; v13's 40 or 32 is the default every
// other case runs), built for fp16 without the epilogue: still right at every two- and three-warpgroup tile,
// several items a block, ragged N; and refused, with the reason, where it is not built.
TEST_CASE("flash_wgmma v12's register split (FUSIONLAB_FLASH_WGMMA_REGS=v12) matches the reference in fp16", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    ScopedEnv v12("FUSIONLAB_FLASH_WGMMA_REGS", "v12");
    uint64_t seed = 9890;
    for (bool causal : {false, true})
        for (int64_t d : {64, 128})
            for (int Br : {128, 192})
                for (int Bc : kWgmmaColTiles)
                    if (wgmma_tile_built(Br, Bc, d)) check_on_gpu(make(40, 1000, d, DType::f16, causal, Br, Bc, seed++), "flash_wgmma");
    const kernels::Measurement m = fl_test::run_gpu_job(make(2, 129, 64, DType::bf16, false, 128, 128, seed++), "flash_wgmma");
    CHECK_FALSE(m.ok);
    CHECK_THAT(m.error, Catch::Contains("FUSIONLAB_FLASH_WGMMA_REGS=v12"));
}

// v14 and v13's order of Oi's rescale (attention_wgmma.cu): the default is v14's (Oi rescaled inside the turn,
// between Sij's issue and Pij-1 Vj-1's, FlashAttention-3's order) at every tile but three consumer warpgroups at
// d = 64, v13's (after wait_group 0) there; every other case runs the defaults, bf16 and the skip epilogue
// included. The other order is built for fp16 without the epilogue: FUSIONLAB_FLASH_WGMMA_RESCALE=in_turn puts
// every tile on v14's, =after_wait on v13's. Both are right at every tile, causal and not, several items a block
// and ragged N (v5's softmax moves m whenever a row's max grows, so the rescale factor is not 1 on most tiles);
// refused, with the reason, where not built.
TEST_CASE("flash_wgmma Oi rescaled in the turn or after the wait (FUSIONLAB_FLASH_WGMMA_RESCALE) matches the reference in fp16", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    uint64_t seed = 9870;
    for (const char* order : {"in_turn", "after_wait"}) {
        ScopedEnv rescale("FUSIONLAB_FLASH_WGMMA_RESCALE", order);
        INFO("FUSIONLAB_FLASH_WGMMA_RESCALE=" << order);
        for (bool causal : {false, true})
            for (int64_t d : {64, 128})
                for (int Br : kWgmmaRowTiles)
                    for (int Bc : kWgmmaColTiles)
                        if (wgmma_tile_built(Br, Bc, d)) {
                            check_on_gpu(make(40, 1000, d, DType::f16, causal, Br, Bc, seed++), "flash_wgmma");
                            check_on_gpu(make(3, 129, d, DType::f16, causal, Br, Bc, seed++), "flash_wgmma");
                        }
        const kernels::Measurement bf16 = fl_test::run_gpu_job(make(2, 129, 64, DType::bf16, false, 128, 128, seed++), "flash_wgmma");
        CHECK_FALSE(bf16.ok);
        CHECK_THAT(bf16.error, Catch::Contains(std::string("FUSIONLAB_FLASH_WGMMA_RESCALE=") + order));
        ScopedEnv v6("FUSIONLAB_FLASH_WGMMA_SOFTMAX", "v6");
        const kernels::Measurement with_v6 = fl_test::run_gpu_job(make(2, 129, 64, DType::f16, false, 128, 128, seed++), "flash_wgmma");
        CHECK_FALSE(with_v6.ok);
        CHECK_THAT(with_v6.error, Catch::Contains(std::string("FUSIONLAB_FLASH_WGMMA_RESCALE=") + order));
    }
}

// The same under the sanitizers: each order at every tile once, N = 300 (a ragged key tile), causal at Bc = 64.
TEST_CASE("flash_wgmma small rescale orders: every tile once, for the sanitizers", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    uint64_t seed = 9880;
    for (const char* order : {"in_turn", "after_wait"}) {
        ScopedEnv rescale("FUSIONLAB_FLASH_WGMMA_RESCALE", order);
        for (int64_t d : {64, 128})
            for (int Br : kWgmmaRowTiles)
                for (int Bc : kWgmmaColTiles)
                    if (wgmma_tile_built(Br, Bc, d)) check_on_gpu(make(2, 300, d, DType::f16, Bc == 64, Br, Bc, seed++), "flash_wgmma");
    }
}

// Every FUSIONLAB_FLASH_WGMMA_* comparison switch refuses a value it does not take, naming the values it takes (a
// typo used to run the default without a word): the job is refused with that reason and nothing runs.
TEST_CASE("flash_wgmma switches: an unknown value is refused with the values it takes", "[gpu][attention][wgmma]") {
    if (!wgmma_runs()) return;
    for (const auto& [name, value] : {std::pair<const char*, const char*>{"FUSIONLAB_FLASH_WGMMA_GRID", "wave"},
                                      {"FUSIONLAB_FLASH_WGMMA_RESCALE", "in-turn"},
                                      {"FUSIONLAB_FLASH_WGMMA_SOFTMAX", "v7"}}) {
        ScopedEnv typo(name, value);
        const kernels::Params p = make(2, 1000, 64, DType::f16, false, 128, 128, 1);
        const std::string why = gpu_refusal(p, "flash_wgmma");
        CHECK_THAT(why, Catch::Contains(std::string(name) + "='" + value + "' is not a value it takes"));
        const kernels::Measurement m = fl_test::run_gpu_job(p, "flash_wgmma");
        CHECK_FALSE(m.ok);
        CHECK(m.refused);
        CHECK(m.error == why);
    }
    // The values each takes, the defaults' names included, still run and match the reference.
    ScopedEnv grid("FUSIONLAB_FLASH_WGMMA_GRID", "persistent");
    ScopedEnv rescale("FUSIONLAB_FLASH_WGMMA_RESCALE", "auto");
    check_on_gpu(make(3, 1000, 64, DType::f16, false, 128, 128, 9999), "flash_wgmma");
}
