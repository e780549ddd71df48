// Traffic at three levels (docs/DESIGN.md): L2<->SM bytes summed from the schedule's events, DRAM bytes
// from the L2 reuse model (kernels/core/schedule.h apply_l2_reuse), shared-memory bytes and SFU
// operations on chip, each against a closed form. (The simulator's limiters: sim_backend_test.cpp.)
#include "kernels/core/registry.h"

#include "tests/workload_params.h"

#include <catch2/catch.hpp>

using namespace kernels;

namespace {

constexpr uint64_t kL2 = 50ull << 20;  // the H100's

using test_params::attention;
using test_params::chain;
using test_params::launch;

}  // namespace

TEST_CASE("levels: flash_tc reads K and V from L2 once per row block, from DRAM once", "[levels][attention]") {
    const uint64_t heads = 64, N = 4096, d = 64, es = 2, T = heads * N * d * es;  // one tensor: 32 MiB
    // Tile 64 x 64: 4 warps of 16 rows (attention_model_test checks every tile's shared bytes).
    const Model m = model("flash_tc", attention(heads, N, d, 64, 64), kL2);
    const uint64_t Tr = N / 64, tiles = heads * Tr * (N / 64);
    // L2 <-> SM: Q once, K and V once per row block (Tr times), O once.
    CHECK(m.bytes() == T + 2 * Tr * T + T);
    // DRAM: the row blocks of a head run together, so K and V come from DRAM once (rule 1).
    CHECK(m.dram_read() == 3 * T);
    CHECK(m.dram_written() == T);
    for (const BufferTraffic& b : m.kernels[0].buffers)
        if (b.buffer == "K" || b.buffer == "V") CHECK_THAT(b.dram_rule, Catch::Contains("concurrent blocks"));
    // On chip: per (row block, key tile), cp.async stores Kj and Vj once and each of the 4 warps
    // (16 rows each) reads both through ldmatrix: (4 x 2 + 2) x 64 x d x 2 B.
    CHECK(m.shared_bytes() == tiles * (4 * 2 + 2) * 64 * d * es);
    // exp2 of every score, plus one rescale per row and key tile.
    CHECK(m.sfu_ops() == Approx(double(heads * N * N + heads * N * (N / 64))));
    CHECK(m.kernels[0].mma_sync);
    CHECK_THAT(m.l2_note, Catch::Contains("50.0 MiB L2"));
}

TEST_CASE("levels: the teaching kernel's shared-memory wavefronts, tile by tile", "[levels][attention]") {
    const uint64_t heads = 4, N = 1024, d = 64, B = 64;
    const Model m = model("flash", attention(heads, N, d), kL2);
    const uint64_t tiles = heads * (N / B) * (N / B), warp_iters = B * B / 32;
    // Kj, Vj stored; Sij: Qi (broadcast) and Kj per term and one store; row update: 3 per score;
    // Oi: Pij and Vj per key, plus rescale and Oi in and out. 128 B each.
    const uint64_t per_tile = (2 * B * d / 32 + warp_iters * (2 * d + 1) + warp_iters * 3 + (B * d / 32) * (2 * B + 3)) * 128;
    CHECK(m.shared_bytes() == tiles * per_tile);
    CHECK_FALSE(m.kernels[0].mma_sync);
}

TEST_CASE("levels: intermediates that fit in half the L2 do not reach DRAM, larger ones do", "[levels][chain]") {
    // rows x hidden = 1024 x 1024 bf16: h1, h2, h3 are 2 MiB each, below half of 50 MiB.
    const uint64_t n = 1024 * 1024, H = 1024;
    const Model small = model("unfused", chain(1024, 1024), kL2);
    CHECK(small.bytes() == (9 * n + 2 * H) * 2);  // L2 <-> SM: unchanged
    // DRAM: x, residual, gamma, beta read; h1, h2, h3 and out written (each dirty line reaches DRAM).
    CHECK(small.dram_read() == (2 * n + 2 * H) * 2);
    CHECK(small.dram_written() == 4 * n * 2);
    // 8192 x 8192: each intermediate is 128 MiB and makes the round trip.
    const Model big = model("unfused", chain(8192, 8192), kL2);
    CHECK(big.dram_bytes() == big.bytes());
}

TEST_CASE("levels: an intermediate between half the L2 and all of it is read partly from L2", "[levels][attention]") {
    // naive at 16 heads, N = 1024, bf16: S and P are 16 x 1024^2 x 2 B = 32 MiB each, between 25 and
    // 45 MiB (0.9 of the L2): the last 45 - 32 = 13 MiB of each are still in L2 when the next kernel
    // reads it.
    Params p;
    p.workload = "attention";
    p.dtype = DType::bf16;
    p.set("heads", 16).set("N", 1024).set("d", 64);
    const uint64_t S = 16ull * 1024 * 1024 * 2, qkvo = 16ull * 1024 * 64 * 2;
    const uint64_t kept = kL2 / 10 * 9;
    const Model m = model("naive", p, kL2);
    REQUIRE(m.kernels.size() == 3);
    CHECK(m.kernels[1].dram_read() == S - (kept - S));                 // softmax reads S
    CHECK(m.kernels[2].dram_read() == (S - (kept - S)) + qkvo);        // gemm_pv reads P and V
    CHECK(m.dram_bytes() == 2 * qkvo + 2 * S + 2 * (S - (kept - S)) + 2 * qkvo);
    // The H200's 60 MiB L2 keeps 54 - 32 = 22 MiB of each.
    const uint64_t l2_h200 = 60ull << 20;
    CHECK(model("naive", p, l2_h200).kernels[1].dram_read() == S - (l2_h200 / 10 * 9 - S));
    // At N = 2048 (128 MiB each) nothing is left: the round trip.
    p.set("N", 2048);
    CHECK(model("naive", p, kL2).kernels[1].dram_read() == 4 * S);
}

TEST_CASE("levels: a vector rewritten in L2 by K kernels reaches DRAM once", "[levels][launch]") {
    const Model small = model("stream", launch(10, 65536), kL2);
    CHECK(small.bytes() == 10 * 2 * 65536 * 4);
    CHECK(small.dram_read() == 65536 * 4);     // x, by the first kernel
    CHECK(small.dram_written() == 65536 * 4);  // y, once, at the last write
    CHECK(small.kernels.front().dram_written() == 0);
    CHECK(small.kernels.back().dram_written() == 65536 * 4);
    const Model big = model("stream", launch(10, 16 << 20), kL2);  // 64 MiB: no room in L2
    CHECK(big.dram_bytes() == big.bytes());
}

TEST_CASE("levels: a schedule that says nothing new gets DRAM = L2 bytes, and rule 1 from footprints", "[levels]") {
    // A workload written against the old API: events without a level, no footprint known.
    Schedule s;
    s.kernels.push_back({"k", 4, 128, false});
    s.events.push_back({EventKind::load, 0, "a", 1000, 0, 4, "load a"});
    s.events.push_back({EventKind::compute, 0, "", 0, 10, 4, "compute"});
    s.events.push_back({EventKind::store, 0, "b", 500, 0, 4, "store b"});
    Model m = model_from_schedule(s);
    CHECK(m.dram_read() == 4000);
    CHECK(m.dram_written() == 2000);
    CHECK(m.shared_bytes() == 0);
    apply_l2_reuse(m, kL2, nullptr);
    CHECK(m.dram_bytes() == m.bytes());
    // With footprints: the four blocks re-read one 1000-byte `a`, so DRAM reads it once.
    apply_l2_reuse(m, kL2, [](const std::string& b) { return b == "a" ? uint64_t{1000} : uint64_t{2000}; });
    CHECK(m.dram_read() == 1000);
    CHECK(m.dram_written() == 2000);
    // Shared-memory events count on chip, not at L2.
    s.events.push_back({EventKind::load, 0, "tile", 256, 0, 4, "read tile from shared memory", false, Level::shared});
    const Model with_shared = model_from_schedule(s);
    CHECK(with_shared.shared_bytes() == 1024);
    CHECK(with_shared.bytes() == m.bytes());
}
