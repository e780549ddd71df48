// The attention model's byte and FLOP totals (summed from the tile schedule) against closed forms,
// parameter checks, and the shared-memory refusal message.
#include "kernels/attention/attention.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"
#include "tests/scoped_env.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

using namespace kernels;
using namespace kernels::attention;

namespace {

AttentionParams make(int64_t bh, int64_t N, int64_t d, DType t, bool causal, int Br = 64, int Bc = 64) {
    AttentionParams p;
    p.batch_heads = bh;
    p.N = N;
    p.d = d;
    p.dtype = t;
    p.causal = causal;
    p.Br = Br;
    p.Bc = Bc;
    return p;
}

uint64_t sum_event_bytes(const Schedule& s, EventKind kind, const std::string& buffer = "") {
    uint64_t b = 0;
    for (const TileEvent& e : s.events)
        if (e.kind == kind && (buffer.empty() || e.buffer == buffer)) b += e.bytes * e.repeat;
    return b;
}

double sum_event_flops(const Schedule& s) {
    double f = 0;
    for (const TileEvent& e : s.events) f += e.flops * static_cast<double>(e.repeat);
    return f;
}

// Independent count of what a flash kernel with tile (Br, Bc) visits: for every row block i and
// every key tile j it does not skip, its rows x the tile's (whole) columns.
struct Visit {
    uint64_t kv_rows = 0;  // K rows loaded (= V rows loaded), summed over blocks
    double mults = 0;      // rows x cols x d summed over visited tiles
};
Visit brute_force_visits(int64_t N, int64_t d, int64_t Br, int64_t Bc, bool causal) {
    Visit v;
    for (int64_t i0 = 0; i0 < N; i0 += Br) {
        const int64_t rows = std::min(Br, N - i0);
        for (int64_t j0 = 0; j0 < N; j0 += Bc) {
            if (causal && j0 > i0 + rows - 1) break;  // the whole tile lies above the diagonal
            const int64_t cols = std::min(Bc, N - j0);
            v.kv_rows += static_cast<uint64_t>(cols);
            v.mults += static_cast<double>(rows * cols * d);
        }
    }
    return v;
}

// Keys visited by a block that walks `tiles` key tiles of Bc (the last ragged at N).
double d_keys(int64_t N, int64_t Bc, int tiles) {
    double k = 0;
    for (int j = 0; j < tiles; ++j) k += static_cast<double>(std::min<int64_t>(Bc, N - j * Bc));
    return k;
}

}  // namespace

TEST_CASE("naive attention bytes and FLOPs match the closed form", "[attention][model]") {
    for (DType t : kAllDTypes)
        for (bool causal : {false, true})
            for (auto [bh, N, d] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {3, 17, 32}, {64, 4096, 64}, {2, 1000, 128}}) {
                const AttentionParams p = make(bh, N, d, t, causal);
                const uint64_t es = static_cast<uint64_t>(dtype_bytes(t));
                const uint64_t n = static_cast<uint64_t>(N), dd = static_cast<uint64_t>(d), h = static_cast<uint64_t>(bh);
                CAPTURE(to_string(t), causal, bh, N, d);
                const Model m = model("naive", p);
                REQUIRE(m.kernels.size() == 3);
                CHECK(m.kernels[0].name == "gemm_qk");
                CHECK(m.kernels[1].name == "softmax");
                CHECK(m.kernels[2].name == "gemm_pv");
                // Q, K, S | S | P, V
                CHECK(m.bytes_read() == h * (3 * n * dd + 2 * n * n) * es);
                // S | P | O
                CHECK(m.bytes_written() == h * (2 * n * n + n * dd) * es);
                CHECK(m.kernels[1].bytes_read() == h * n * n * es);
                CHECK(m.kernels[1].bytes_written() == h * n * n * es);
                // cuBLAS computes the whole S, masked or not.
                CHECK(m.flops() == Approx(4.0 * static_cast<double>(h * n * n * dd)));
                CHECK(naive_scratch_bytes(p) == 2 * h * n * n * es);
            }
}

TEST_CASE("flash non-causal: K and V are read once per row block (Tr times)", "[attention][model]") {
    for (DType t : kAllDTypes)
        for (int Br : kTileSizes)
            for (int Bc : {16, 128})
                for (int64_t N : {int64_t{1}, int64_t{100}, int64_t{1024}}) {
                    const AttentionParams p = make(5, N, 64, t, false, Br, Bc);
                    const uint64_t es = static_cast<uint64_t>(dtype_bytes(t)), n = static_cast<uint64_t>(N);
                    const uint64_t Tr = (n + static_cast<uint64_t>(Br) - 1) / static_cast<uint64_t>(Br);
                    CAPTURE(to_string(t), Br, Bc, N);
                    const Model m = model("flash", p);
                    REQUIRE(m.kernels.size() == 1);
                    CHECK(m.bytes_read() == 5 * (n * 64 + 2 * Tr * n * 64) * es);  // Q once, K and V Tr times
                    CHECK(m.bytes_written() == 5 * n * 64 * es);                    // O once; m, l stay on chip
                    CHECK(m.flops() == Approx(5 * 4.0 * static_cast<double>(n * n) * 64));
                    CHECK(m.flops() == Approx(nominal_flops(p)));
                }
}

TEST_CASE("flash causal: tiles above the diagonal are skipped, exactly", "[attention][model]") {
    SECTION("closed form when N is a multiple of Br = Bc") {
        const AttentionParams p = make(4, 1024, 64, DType::f16, true, 64, 64);
        const uint64_t Tr = 16, B = 64, d = 64;
        const Model m = model("flash", p);
        const Schedule s = schedule("flash", p);
        // Block i visits tiles 0..i: sum (i + 1) = Tr (Tr + 1) / 2 tiles of B rows, K and V each.
        CHECK(sum_event_bytes(s, EventKind::load, "K") == 4 * Tr * (Tr + 1) / 2 * B * d * 2);
        CHECK(sum_event_bytes(s, EventKind::load, "V") == 4 * Tr * (Tr + 1) / 2 * B * d * 2);
        CHECK(sum_event_bytes(s, EventKind::load, "Q") == 4 * 1024 * d * 2);
        CHECK(m.flops() == Approx(4.0 * 4 * static_cast<double>(B * B * d) * Tr * (Tr + 1) / 2));
        // Diagonal tiles are computed whole: a little more than the nominal 2 N (N + 1) d.
        CHECK(m.flops() > nominal_flops(p));
        CHECK(m.flops() < 1.07 * nominal_flops(p));
    }
    SECTION("ragged N and unequal tiles against a brute-force count") {
        for (int Br : kTileSizes)
            for (int Bc : kTileSizes)
                for (int64_t N : {int64_t{1}, int64_t{17}, int64_t{100}, int64_t{257}}) {
                    const AttentionParams p = make(3, N, 48, DType::bf16, true, Br, Bc);
                    const Visit v = brute_force_visits(N, 48, Br, Bc, true);
                    CAPTURE(Br, Bc, N);
                    const Schedule s = schedule("flash", p);
                    CHECK(sum_event_bytes(s, EventKind::load, "K") == 3 * v.kv_rows * 48 * 2);
                    CHECK(sum_event_bytes(s, EventKind::load, "V") == 3 * v.kv_rows * 48 * 2);
                    CHECK(sum_event_flops(s) == Approx(3 * 4.0 * v.mults));
                    CHECK(sum_event_bytes(s, EventKind::store, "O") == 3 * static_cast<uint64_t>(N) * 48 * 2);
                }
    }
}

TEST_CASE("flash_tc takes the user's tile: its bytes and FLOPs are flash's with that tile", "[attention][model]") {
    for (int Br : kTileSizes)
        for (int Bc : kTcTileSizes)
            for (int64_t d : {int64_t{32}, int64_t{64}, int64_t{128}})
                for (bool causal : {false, true})
                    for (int64_t N : {int64_t{1}, int64_t{1000}, int64_t{4096}}) {
                        const AttentionParams p = make(3, N, d, DType::f16, causal, Br, Bc);
                        CAPTURE(Br, Bc, d, causal, N);
                        REQUIRE(validate("flash_tc", p).empty());
                        const Tile t = flash_tile("flash_tc", p);
                        CHECK((t.Br == Br && t.Bc == Bc));
                        // The same loop as flash: Qi once, Kj and Vj once per (block, visited tile), Oi once.
                        const Visit v = brute_force_visits(N, d, Br, Bc, causal);
                        const Schedule s = schedule("flash_tc", p);
                        CHECK(sum_event_bytes(s, EventKind::load, "Q") == 3 * static_cast<uint64_t>(N * d) * 2);
                        CHECK(sum_event_bytes(s, EventKind::load, "K") == 3 * v.kv_rows * static_cast<uint64_t>(d) * 2);
                        CHECK(sum_event_bytes(s, EventKind::load, "V") == 3 * v.kv_rows * static_cast<uint64_t>(d) * 2);
                        CHECK(sum_event_bytes(s, EventKind::store, "O") == 3 * static_cast<uint64_t>(N * d) * 2);
                        CHECK(sum_event_flops(s) == Approx(3 * 4.0 * v.mults));
                        // One block per Br rows; a warp per 16 rows, or per 32 at Br = 128 where both m16
                        // tiles' Sij and Oi fit in registers.
                        const int warp_rows = Br == 128 && tc_has_warp_rows_32(d, Bc) ? 32 : 16;
                        CHECK(flash_tc_warp_rows(Br, Bc, d) == warp_rows);
                        CHECK(s.kernels[0].threads_per_block == Br / warp_rows * 32);
                        CHECK(s.kernels[0].blocks == 3 * static_cast<uint64_t>((N + Br - 1) / Br));
                        CHECK(s.kernels[0].mma_sync);
                        // The register need of the instance that runs it, from ptxas (sm_90): every tile
                        // offered has one, and it is at most the 255 a thread may have.
                        const RegisterUse r = flash_tc_registers(p);
                        CHECK(r.registers > 0);
                        CHECK(r.registers <= 255);
                        CHECK(s.kernels[0].registers.registers == r.registers);
                        CHECK(flash_tc_registers(p, true).registers > 0);
                    }
    // Which instances have 32 rows per warp: Sij (Bc / 2) and Oi (d / 2) of two m16 tiles in registers.
    CHECK(tc_has_warp_rows_32(64, 64));
    CHECK(tc_has_warp_rows_32(64, 128));
    CHECK(tc_has_warp_rows_32(128, 64));
    CHECK_FALSE(tc_has_warp_rows_32(128, 128));
    CHECK_FALSE(tc_has_warp_rows_32(32, 64));
    // Bc is unrolled at compile time: 16 and 32 are refused with the reason, Br 16 and 32 are taken.
    CHECK_THAT(validate("flash_tc", make(1, 64, 64, DType::f16, false, 64, 32)), Catch::Contains("Bc = 32"));
    CHECK_THAT(validate("flash_tc", make(1, 64, 64, DType::f16, false, 64, 16)), Catch::Contains("Bc = 64 or 128"));
    CHECK(validate("flash_tc", make(1, 64, 64, DType::f16, false, 16, 64)).empty());
}

TEST_CASE("flash_tc's shared-memory reads per tile: every warp reads all of Kj and Vj", "[attention][model]") {
    // N = 4096, one head, d = 64, fp16, non-causal. Per (block, tile): cp.async stores Kj and Vj
    // (2 Bc d es); each warp reads Kj for Sij and Vj for Pij Vj (2 Bc d es per warp); with 32 rows per
    // warp the warp also reads its 32 rows of Qi again (Br d es per block).
    for (int Br : kTileSizes)
        for (int Bc : kTcTileSizes) {
            const AttentionParams p = make(1, 4096, 64, DType::f16, false, Br, Bc);
            CAPTURE(Br, Bc);
            const uint64_t blocks = 4096 / static_cast<uint64_t>(Br), tiles = 4096 / static_cast<uint64_t>(Bc);
            const uint64_t rows = static_cast<uint64_t>(flash_tc_warp_rows(Br, Bc, 64));
            const uint64_t warps = static_cast<uint64_t>(Br) / rows, tile = static_cast<uint64_t>(Bc) * 64 * 2;
            const uint64_t per_tile = 2 * tile + 2 * warps * tile + (rows == 32 ? static_cast<uint64_t>(Br) * 64 * 2 : 0);
            CHECK(model("flash_tc", p).shared_bytes() == blocks * tiles * per_tile);
        }
}

TEST_CASE("flash_tc's tiles against shared memory: what fits an H100, an A100 and an RTX 3090", "[attention][smem]") {
    // Qi, then two stages of Kj and Vj, rows padded by 8 elements: (Br + 4 Bc) (d + 8) es.
    auto need = [](int Br, int Bc, int64_t d) {
        return static_cast<uint64_t>(Br + 4 * Bc) * static_cast<uint64_t>(d + 8) * 2;
    };
    CHECK(flash_smem_bytes("flash_tc", make(1, 64, 128, DType::f16, false, 128, 128)) == need(128, 128, 128));
    CHECK(need(128, 128, 128) == 174080);
    DeviceInfo dev;
    dev.cc_major = 9;
    dev.name = "H100";
    dev.smem_per_block = 49152;
    dev.smem_per_block_optin = 232448;
    for (int Br : kTileSizes)
        for (int Bc : kTcTileSizes)
            for (int64_t d : {int64_t{32}, int64_t{64}, int64_t{128}}) {
                const AttentionParams p = make(1, 1024, d, DType::bf16, false, Br, Bc);
                CAPTURE(Br, Bc, d);
                CHECK(flash_smem_bytes("flash_tc", p) == need(Br, Bc, d));
                CHECK(device_refusal("flash_tc", p, DeviceBudget{dev, uint64_t{80} << 30, "total"}).empty());
                uint64_t parts = 0;
                for (const SramPart& part : flash_sram_parts("flash_tc", p, "Qi", "")) parts += part.bytes;
                CHECK(parts == need(Br, Bc, d));
            }
    // The A100 (163 KiB per block with opt-in) refuses the largest tile at d = 128, with the numbers.
    dev.cc_major = 8;
    dev.name = "A100";
    dev.smem_per_block_optin = 166912;
    const AttentionParams big = make(1, 1024, 128, DType::f16, false, 128, 128);
    const std::string why = device_refusal("flash_tc", big, DeviceBudget{dev, uint64_t{80} << 30, "total"});
    CHECK_THAT(why, Catch::Contains("Br=128, Bc=128, d=128") && Catch::Contains("needs 174080 bytes") &&
                        Catch::Contains("166912 with opt-in"));
    CHECK(device_refusal("flash_tc", make(1, 1024, 128, DType::f16, false, 64, 128), DeviceBudget{dev, uint64_t{80} << 30, "total"})
              .empty());
    // An RTX 3090 (sm_86: 99 KiB with opt-in) refuses Bc = 128 at d = 128 whatever Br is.
    dev.cc_minor = 6;
    dev.smem_per_block_optin = 101376;
    for (int Br : kTileSizes)
        CHECK_FALSE(device_refusal("flash_tc", make(1, 1024, 128, DType::f16, false, Br, 128),
                                   DeviceBudget{dev, uint64_t{24} << 30, "total"})
                        .empty());
}

// The tile 192 x Bc is flash_wgmma's alone (the teaching kernel refuses Br = 192): its bytes are
// compared with flash's at the tiles both take. (Under its old name, with a semicolon, this case
// never ran under ctest and compared flash at Br = 192, which flash refuses.)
// Its FLOPs are whole tiles (attention_wgmma.cu: rows and keys past N are zero-filled and computed, masked at the store
// and by -inf), so at a ragged N (1000 here) more than flash's, which stops at N: Br rows a row block, whole key tiles.
TEST_CASE("flash_wgmma takes Br in {64, 128, 192}, Bc in {64, 80, 128, 176} - its bytes are flash's where flash takes the tile", "[attention][model]") {
    for (int Br : {64, 128, 192})
        for (int Bc : {64, 80, 128, 176})
            for (bool causal : {false, true}) {
                if ((Bc == 176 && Br != 128) || (Bc == 80 && Br != 192)) continue;  // d = 128 only: the refusals below
                const AttentionParams p = make(8, 1000, Br == 192 && Bc == 128 ? 64 : 128, DType::f16, causal, Br, Bc);
                CAPTURE(Br, Bc, causal);
                REQUIRE(validate("flash_wgmma", p).empty());
                const Tile t = flash_tile("flash_wgmma", p);
                CHECK((t.Br == Br && t.Bc == Bc));
                const Model w = model("flash_wgmma", p);
                double whole_tiles = 0;
                for (int64_t row0 = 0; row0 < p.N; row0 += Br) {
                    const int64_t kv_end = causal ? std::min<int64_t>(p.N, row0 + Br) : p.N;
                    whole_tiles += 4.0 * Br * static_cast<double>((kv_end + Bc - 1) / Bc * Bc) * static_cast<double>(p.d);
                }
                CHECK(w.flops() == Approx(whole_tiles * static_cast<double>(p.batch_heads)));
                if (Br != 192 && Bc != 176 && Bc != 80) {
                    const Model f = model("flash", p);
                    CHECK(w.bytes_read() == f.bytes_read());
                    CHECK(w.bytes_written() == f.bytes_written());
                    CHECK(w.flops() > f.flops());  // N = 1000: the last row block and key tile are ragged
                }
                const Schedule s = schedule("flash_wgmma", p);
                CHECK(s.kernels[0].threads_per_block == 128 * (Br / 64 + 1));  // producer + consumer warpgroups
                CHECK(s.kernels[0].tensor_cores);
                const bool ring = std::any_of(s.events.begin(), s.events.end(), [](const TileEvent& e) {
                    return e.what.find("filling the ring") != std::string::npos;
                });
                CHECK(ring);
            }
    AttentionParams p = make(1, 64, 64, DType::f16, false, 32, 64);
    CHECK_THAT(validate("flash_wgmma", p), Catch::Contains("Br = 32"));
    // Br = 192 is flash_wgmma's alone; at d = 128 only with Bc = 64 (192 x 128 would spill).
    p = make(1, 64, 128, DType::f16, false, 192, 128);
    CHECK_THAT(validate("flash_wgmma", p), Catch::Contains("registers") && Catch::Contains("Bc = 64"));
    p.Bc = 64;
    CHECK(validate("flash_wgmma", p).empty());
    CHECK_THAT(validate("flash_tc", p), Catch::Contains("Br = 192") && Catch::Contains("flash_wgmma"));
    CHECK_THAT(validate("flash", p), Catch::Contains("Br = 192") && Catch::Contains("flash_wgmma"));
    CHECK(validate("naive", p).empty());  // naive has no tile
    p = make(1, 64, 64, DType::f16, false, 64, 16);
    CHECK_THAT(validate("flash_wgmma", p), Catch::Contains("Bc = 16"));
    // Bc = 176 (v11, FlashAttention-3's d = 128 tile) is flash_wgmma's alone, at d = 128 with Br = 128 only.
    p = make(1, 4096, 128, DType::f16, true, 128, 176);
    CHECK(validate("flash_wgmma", p).empty());
    CHECK(wgmma_tile_built(128, 176, 128));
    CHECK_THAT(validate("flash_tc", p), Catch::Contains("Bc = 64 or 128"));
    CHECK_THAT(validate("flash", p), Catch::Contains("Bc = 176") && Catch::Contains("flash_wgmma"));
    CHECK(validate("naive", p).empty());
    for (const auto& [Br, d] : {std::pair<int, int64_t>{64, 128}, {192, 128}, {128, 64}, {64, 64}, {192, 64}}) {
        CAPTURE(Br, d);
        p = make(1, 4096, d, DType::f16, false, Br, 176);
        CHECK_FALSE(wgmma_tile_built(Br, 176, d));
        CHECK_THAT(validate("flash_wgmma", p), Catch::Contains("Bc = 176 at d = 128 with Br = 128 only") && Catch::Contains("registers"));
    }
    // Bc = 80 (v11: three consumer warpgroups at d = 128) at d = 128 with Br = 192 only.
    p = make(1, 4096, 128, DType::bf16, false, 192, 80);
    CHECK(validate("flash_wgmma", p).empty());
    CHECK(flash_wgmma_stages(192, 80, 128, 2) == 4);
    CHECK_THAT(validate("flash_tc", p), Catch::Contains("Br = 192"));
    CHECK_THAT(validate("flash", p), Catch::Contains("Br = 192"));
    p.Br = 128;
    CHECK_THAT(validate("flash", p), Catch::Contains("Bc = 80") && Catch::Contains("flash_wgmma"));
    for (const auto& [Br, d] : {std::pair<int, int64_t>{64, 128}, {128, 128}, {192, 64}, {128, 64}}) {
        CAPTURE(Br, d);
        p = make(1, 4096, d, DType::f16, false, Br, 80);
        CHECK_FALSE(wgmma_tile_built(Br, 80, d));
        CHECK_THAT(validate("flash_wgmma", p), Catch::Contains("Bc = 80 at d = 128 with Br = 192 only") && Catch::Contains("registers"));
    }
    p = make(1, 64, 96, DType::f16, false, 64, 64);
    CHECK_THAT(validate("flash_wgmma", p), Catch::Contains("d = 96"));
    p = make(1, 64, 64, DType::f32, false, 64, 64);
    CHECK_THAT(validate("flash_wgmma", p), Catch::Contains("fp16 or bf16"));
}

TEST_CASE("flash_wgmma's ring: as many stages as fit in 227 KiB, at most 4, and the bytes add up", "[attention][smem]") {
    // d = 128, Bc = 128: a stage (Kj + Vj) is 64 KiB, so 3 fit beside Qi; smaller tiles get 4.
    CHECK(flash_wgmma_stages(128, 128, 128, 2) == 3);
    CHECK(flash_wgmma_stages(64, 128, 128, 2) == 3);
    CHECK(flash_wgmma_stages(128, 64, 128, 2) == 4);
    CHECK(flash_wgmma_stages(128, 128, 64, 2) == 4);
    CHECK(flash_wgmma_stages(128, 176, 128, 2) == 2);  // v11: Qi 32 KiB + 2 x 88 KiB
    CHECK(flash_smem_bytes("flash_wgmma", make(1, 4096, 128, DType::f16, false, 128, 176)) == (128 + 2 * 2 * 176) * 128 * 2 + 1152);
    const AttentionParams p = make(1, 4096, 128, DType::f16, false, 128, 128);
    CHECK(flash_smem_bytes("flash_wgmma", p) == (128 + 2 * 3 * 128) * 128 * 2 + 1152);
    CHECK(flash_smem_bytes("flash_wgmma", p) <= 232448);
    uint64_t parts = 0;
    for (const SramPart& part : flash_sram_parts("flash_wgmma", p, "Qi", "")) parts += part.bytes;
    CHECK(parts == flash_smem_bytes("flash_wgmma", p));
}

// What ptxas made of every flash_wgmma instance (kernels/attention/flash_wgmma_registers.inc, written by
// scripts/kernel_registers.py from `nvcc -Xptxas -v` for sm_90a; ctest kernel_registers_current keeps it
// equal to the compiler). Until v13 every two- and three-warpgroup instance spilled 8-32 bytes a thread: the
// producer's loop, compiled within the 24 registers setmaxnreg left it. Since v13 (the producer keeps 40 with
// two consumer warpgroups, 32 with three) no instance without the skip epilogue spills; v12's split (24) is
// still built for the comparison (FUSIONLAB_FLASH_WGMMA_REGS=v12, fp16 without the epilogue). The bounds are
// the table's own when it was first tracked (2026-11-28), so a change that spills more fails here and has to
// say why (kernels/PERF.md, "flash_wgmma's spills").
namespace {
struct FlashWgmmaRegisters {
    DType dtype;
    int d, Bc, Br, stages;
    bool skip, v6, v14;
    int producer_registers, registers, stack_bytes, spill_store_bytes, spill_load_bytes;
};
#include "kernels/attention/flash_wgmma_registers.inc"

// The producer's registers after setmaxnreg.dec (attention_wgmma.cu, v13_producer_regs).
int v13_producer_registers(int Br, int Bc, bool skip) {
    if (Br == 128) return skip && Bc == 176 ? 24 : 40;
    if (Br == 192) return 32;
    return 24;  // one consumer warpgroup: no setmaxnreg
}
// Where Oi's rescale runs by default (attention_wgmma.cu, v14_order): inside the turn (v14) at every tile but
// three consumer warpgroups at d = 64, which measured faster with v13's order.
bool v14_order(int Br, int64_t d) { return !(Br == 192 && d == 64); }
}  // namespace

TEST_CASE("flash_wgmma's ptxas table covers every built tile and its spills stay within the tracked bounds", "[attention][registers]") {
    CHECK(std::string(kFlashWgmmaRegistersSource).find("sm_90a") != std::string::npos);
    size_t expected = 0;
    const auto find = [](DType t, int64_t d, int Br, int Bc, bool skip, bool v6, bool v14, int producer) {
        return std::find_if(std::begin(kFlashWgmmaRegisters), std::end(kFlashWgmmaRegisters), [&](const FlashWgmmaRegisters& r) {
            return r.dtype == t && r.d == d && r.Br == Br && r.Bc == Bc && r.skip == skip && r.v6 == v6 && r.v14 == v14 &&
                   r.producer_registers == producer;
        });
    };
    for (DType t : {DType::f16, DType::bf16})
        for (int64_t d : {64, 128})
            for (int Br : kWgmmaRowTiles)
                for (int Bc : kWgmmaColTiles) {
                    if (!wgmma_tile_built(Br, Bc, d)) continue;
                    const int threads = flash_wgmma_threads(Br);
                    for (bool skip : {false, true}) {
                        // fp16 without the epilogue also has v6's softmax and, where v13 moved it, v12's split (both
                        // on v13's order of Oi's rescale), and the other order than the tile's default.
                        const int producer = v13_producer_registers(Br, Bc, skip);
                        const bool default_v14 = v14_order(Br, d);
                        struct Build {
                            bool v6, v14;
                            int regs;
                        };
                        std::vector<Build> builds{{false, default_v14, producer}};
                        if (!skip && t == DType::f16) {
                            builds.push_back({true, false, producer});
                            builds.push_back({false, !default_v14, producer});
                            if (producer != 24) builds.push_back({false, false, 24});
                        }
                        for (const auto& [v6, v14, regs] : builds) {
                            ++expected;
                            INFO(to_string(t) << " d = " << d << " " << Br << " x " << Bc << " skip " << skip << " v6 " << v6
                                              << " v14 " << v14 << " producer " << regs);
                            const auto row = find(t, d, Br, Bc, skip, v6, v14, regs);
                            REQUIRE(row != std::end(kFlashWgmmaRegisters));
                            CHECK(row->stages == flash_wgmma_stages(Br, Bc, d, 2));
                            if (Br > 64) {
                                // __launch_bounds__(threads, 1): ptxas holds the launch to the register file's share.
                                CHECK(row->registers == 65536 / threads / 8 * 8);
                            } else {
                                CHECK(row->registers <= 255);
                            }
                            if (regs == producer && !skip) {
                                // Since v13 no instance without the epilogue spills.
                                CHECK(row->spill_store_bytes == 0);
                                CHECK(row->spill_load_bytes == 0);
                            } else if (!skip) {
                                // v12's split, kept for the comparison: the producer's 8-32 bytes.
                                CHECK(row->spill_store_bytes <= 32);
                                CHECK(row->spill_load_bytes <= 32);
                            } else {
                                CHECK(row->spill_store_bytes <= 176);
                                CHECK(row->spill_load_bytes <= 200);
                            }
                        }
                    }
                }
    CHECK(std::size(kFlashWgmmaRegisters) == expected);
}

TEST_CASE("flash_wgmma's grid: persistent - or v4's waves when set - and the model prices the one that runs", "[attention][schedule]") {
    const auto persistent_blocks = [](int Br, int Bc, int64_t d) {
        return schedule("flash_wgmma", make(16, 4096, d, DType::f16, false, Br, Bc)).kernels.at(0).block.persistent;
    };
    CHECK(flash_wgmma_persistent());
    CHECK(persistent_blocks(64, 64, 64));  // v10 (waves for 64 x 64) measured level and was dropped
    CHECK(persistent_blocks(128, 176, 128));
    ScopedEnv waves("FUSIONLAB_FLASH_WGMMA_GRID", "waves");
    CHECK_FALSE(flash_wgmma_persistent());
    CHECK_FALSE(persistent_blocks(192, 128, 64));
}

// Every FUSIONLAB_FLASH_WGMMA_* switch refuses a value it does not take (a typo used to run the default without a
// word), naming the values it takes; validate() refuses flash_wgmma with it, and the values it takes pass.
TEST_CASE("flash_wgmma's switches refuse an unknown value with the values they take", "[attention]") {
    const AttentionParams p = make(16, 1024, 64, DType::f16, false, 128, 128);
    CHECK(validate(Variant::flash_wgmma, p).empty());
    const std::vector<std::pair<const char*, const char*>> typos = {
        {"FUSIONLAB_FLASH_WGMMA_GRID", "wave"},           {"FUSIONLAB_FLASH_WGMMA_SOFTMAX", "V6"},
        {"FUSIONLAB_FLASH_WGMMA_RELEASE", "threads"},     {"FUSIONLAB_FLASH_WGMMA_CLAIM", "ahed"},
        {"FUSIONLAB_FLASH_WGMMA_SECTIONS", "last"},       {"FUSIONLAB_FLASH_WGMMA_RESCALE", "inturn"},
        {"FUSIONLAB_FLASH_WGMMA_REGS", "12"},             {"FUSIONLAB_FLASH_WGMMA_STALE_MAX", ""}};
    for (const auto& [name, value] : typos) {
        ScopedEnv typo(name, value);
        INFO(name << "='" << value << "'");
        const std::string why = validate(Variant::flash_wgmma, p);
        CHECK_THAT(why, Catch::Contains(std::string(name) + "='" + value + "' is not a value it takes"));
        CHECK_THAT(why, Catch::Contains("(the default)"));
        CHECK(validate(Variant::flash_tc, p).empty());  // flash_wgmma's switches are flash_wgmma's alone
    }
    {
        ScopedEnv grid("FUSIONLAB_FLASH_WGMMA_GRID", "wave");
        CHECK_THAT(validate(Variant::flash_wgmma, p), Catch::Contains("persistent (the default) or waves"));
    }
    {
        ScopedEnv rescale("FUSIONLAB_FLASH_WGMMA_RESCALE", "inturn");
        CHECK_THAT(validate(Variant::flash_wgmma, p), Catch::Contains("auto (the default), in_turn or after_wait"));
    }
    const std::vector<std::pair<const char*, const char*>> taken = {
        {"FUSIONLAB_FLASH_WGMMA_GRID", "persistent"}, {"FUSIONLAB_FLASH_WGMMA_GRID", "waves"},
        {"FUSIONLAB_FLASH_WGMMA_SOFTMAX", "v5"},      {"FUSIONLAB_FLASH_WGMMA_RESCALE", "auto"},
        {"FUSIONLAB_FLASH_WGMMA_REGS", "v13"},        {"FUSIONLAB_FLASH_WGMMA_STALE_MAX", "8"},
        {"FUSIONLAB_FLASH_WGMMA_RELEASE", "warp"},    {"FUSIONLAB_FLASH_WGMMA_SECTIONS", "ragged_first"}};
    for (const auto& [name, value] : taken) {
        ScopedEnv ok(name, value);
        INFO(name << "='" << value << "'");
        CHECK(validate(Variant::flash_wgmma, p).empty());
    }
}

// flash_wgmma's turn (attention_model.cpp, flash_wgmma_sfu_hidden_share): the exposed share of a tile's exp2 time is
// 1 + 33 / Bc (the softmax's fixed steps a key tile) less 0.35 of each partner warpgroup's products, T / X = 4 d / 185,
// plus the rescale of Oi, 0.2 exp2s' worth of each of its d elements a row every key tile, which no partner hides.
TEST_CASE("flash_wgmma's turn: the softmax's fixed steps a key tile, and what the partners' products hide", "[attention][schedule]") {
    const auto exposed = [](int Br, int Bc, int64_t d) { return 1.0 - flash_wgmma_sfu_hidden_share(Br, Bc, d); };
    const auto rescale = [](int Bc, int64_t d) { return 0.20 * static_cast<double>(d) / Bc; };
    // One warpgroup hides nothing and pays its fixed steps and its rescale: more of both at the shorter key tile.
    CHECK(exposed(64, 64, 64) == Approx(1.0 + 33.0 / 64 + rescale(64, 64)));
    CHECK(exposed(64, 128, 128) == Approx(1.0 + 33.0 / 128 + rescale(128, 128)));
    // Each partner hides 0.35 of its turn: two partners twice one, and a longer turn (d = 128) twice d = 64.
    const double turn64 = 4.0 * 64 / 185;
    CHECK(exposed(128, 128, 64) == Approx(1.0 + 33.0 / 128 - 0.35 * turn64 + rescale(128, 64)));
    CHECK(exposed(192, 128, 64) == Approx(1.0 + 33.0 / 128 - 2 * 0.35 * turn64 + rescale(128, 64)));
    // Where the partners hide the whole softmax (three warpgroups at d = 128), the rescale is what stays exposed.
    CHECK(exposed(192, 80, 128) == Approx(rescale(80, 128)));
    CHECK(exposed(192, 64, 64) > exposed(192, 128, 64));  // 192 x 64 pays its fixed steps twice as often
    CHECK(exposed(128, 176, 128) < exposed(128, 128, 128));  // 128 x 176 less often: no special case for it
    // The rescale grows with d: at d = 128 three warpgroups no longer hide 80 % of the exp2 time (the seventh pass's
    // two constants did, and priced 192 x 80 13 % faster than 128 x 128 where v14 measured them level).
    CHECK(1.0 - exposed(192, 80, 128) < 0.8);
    // Never negative: what hides cannot exceed the softmax.
    CHECK(exposed(192, 176, 256) >= 0.0);
    // The fit script's candidates replace the constants; a malformed value fails the job that prices it, naming the
    // variable (the runner shows the message: `bench` prints "FAILED: backend failed: FUSIONLAB_SIM_WGMMA_TURN=...").
    {
        ScopedEnv turn("FUSIONLAB_SIM_WGMMA_TURN", "0 0 0");
        CHECK(exposed(192, 128, 64) == Approx(1.0));
    }
    {
        ScopedEnv turn("FUSIONLAB_SIM_WGMMA_TURN", "0 0 1");
        CHECK(exposed(192, 128, 64) == Approx(1.0 + 64.0 / 128));
    }
    for (const char* malformed : {"36,0.18", "36 0.18", "36 0.18 0.25 1", "36 -1 0.25"}) {
        ScopedEnv bad("FUSIONLAB_SIM_WGMMA_TURN", malformed);
        CHECK_THROWS_WITH(schedule("flash_wgmma", make(16, 4096, 64, DType::f16, false, 128, 128)),
                          Catch::Contains(std::string("FUSIONLAB_SIM_WGMMA_TURN='") + malformed + "'") &&
                              Catch::Contains("three numbers"));
    }
}

TEST_CASE("flash_wgmma runs on compute capability 9.0 only, and says so", "[attention][refusal]") {
    const AttentionParams p = make(1, 1024, 64, DType::f16, false, 128, 128);
    DeviceInfo dev;
    dev.name = "A100";
    dev.cc_major = 8;
    dev.smem_per_block = 49152;
    dev.smem_per_block_optin = 232448;
    const DeviceBudget a100{dev, uint64_t{80} << 30, "total"};
    CHECK_THAT(device_refusal("flash_wgmma", p, a100), Catch::Contains("compute capability 9.0") && Catch::Contains("A100 is 8.0"));
    dev.name = "B200";
    dev.cc_major = 10;
    CHECK_THAT(device_refusal("flash_wgmma", p, DeviceBudget{dev, uint64_t{80} << 30, "total"}), Catch::Contains("10.0"));
    dev.name = "H100";
    dev.cc_major = 9;
    CHECK(device_refusal("flash_wgmma", p, DeviceBudget{dev, uint64_t{80} << 30, "total"}).empty());
}

TEST_CASE("every schedule's events sum to its model, cover every block, and are named", "[attention][schedule]") {
    for (const VariantInfo& v : variants())
        for (bool causal : {false, true})
            for (int64_t N : {int64_t{1}, int64_t{257}, int64_t{5000}}) {
                // flash_wgmma takes only its own tiles (64 or 128), flash_tc Bc = 64 or 128.
                const AttentionParams p = v.name == "flash_wgmma" ? make(2, N, 64, DType::bf16, causal, 128, 64)
                                          : v.name == "flash_tc"  ? make(2, N, 64, DType::bf16, causal, 32, 64)
                                                                  : make(2, N, 64, DType::bf16, causal, 32, 16);
                CAPTURE(v.name, causal, N);
                const Schedule s = schedule(v.name, p);
                const Model m = model(v.name, p);
                CHECK(static_cast<int>(s.kernels.size()) == v.kernels);
                CHECK(sum_event_bytes(s, EventKind::load) == m.bytes_read());
                CHECK(sum_event_bytes(s, EventKind::store) == m.bytes_written());
                CHECK(sum_event_flops(s) == Approx(m.flops()));
                // O is stored exactly once, by as many blocks as were launched (flash) or heads (naive).
                CHECK(sum_event_bytes(s, EventKind::store, "O") == 2 * static_cast<uint64_t>(N) * 64 * 2);
                const ScheduleKernel& last = s.kernels.back();
                uint64_t store_blocks = 0;
                for (const TileEvent& e : s.events)
                    if (e.kind == EventKind::store && e.kernel == static_cast<int>(s.kernels.size()) - 1) store_blocks += e.repeat;
                CHECK(store_blocks == last.blocks);
                for (const TileEvent& e : s.events) CHECK_FALSE(e.what.empty());
                if (v.name != "naive") {
                    // The paper's words, each step at least once.
                    for (const char* step : {"load Qi into SRAM", "load Kj, Vj into SRAM", "compute Sij = Qi Kj",
                                             "update m, l", "accumulate Oi", "store Oi"}) {
                        const bool found = std::any_of(s.events.begin(), s.events.end(), [&](const TileEvent& e) {
                            return e.what.find(step) != std::string::npos;
                        });
                        CHECK(found);
                    }
                }
            }
}

TEST_CASE("long loops are folded, so a big causal schedule stays small and exact", "[attention][schedule]") {
    const AttentionParams p = make(64, 16384, 128, DType::f16, true, 16, 16);
    const Schedule s = schedule("flash", p);
    CHECK(s.events.size() < 1024 * 30);  // Tr = 1024 block classes, at most 27 events each
    const Visit v = brute_force_visits(16384, 128, 16, 16, true);
    CHECK(sum_event_bytes(s, EventKind::load, "K") == 64 * v.kv_rows * 128 * 2);
    CHECK(sum_event_flops(s) == Approx(64 * 4.0 * v.mults));
}

TEST_CASE("min bytes and nominal FLOPs", "[attention][model]") {
    const AttentionParams p = make(64, 4096, 64, DType::f16, false);
    CHECK(min_bytes(p) == 4ull * 64 * 4096 * 64 * 2);
    CHECK(nominal_flops(p) == Approx(4.0 * 64 * 4096.0 * 4096.0 * 64));
    AttentionParams c = p;
    c.causal = true;
    CHECK(nominal_flops(c) == Approx(2.0 * 64 * 4096.0 * 4097.0 * 64));
    // flash moves fewer bytes than naive (no N x N matrices), although as its loop reads them K and
    // V cross from HBM Tr = N / Br times: per head (2 + 2 N / Br) N d es against (4 N² + 4 N d) es,
    // 2.0x fewer at Br = 64, 3.9x at Br = 128 (N = 4096, d = 64).
    CHECK(model("flash", p).bytes() * 19 < model("naive", p).bytes() * 10);
    c = p;
    c.Br = 128;
    CHECK(model("flash", c).bytes() * 7 < model("naive", c).bytes() * 2);
}

TEST_CASE("the flash shared-memory need and the refusal message carry the numbers", "[attention][smem]") {
    // Br = Bc = 128, d = 128, fp32: tiles (128 + 2*128) rows x 129 (padded) x 4 B = 198144,
    // Sij 128 x 129 x 4 = 66048, Oi 128 x 128 x 4 = 65536, m, l, rescale 3 x 128 x 4 = 1536.
    AttentionParams p = make(1, 1024, 128, DType::f32, false, 128, 128);
    CHECK(flash_smem_bytes("flash", p) == 331264);
    const std::string msg = flash_smem_refusal(Variant::flash, p, 49152, 232448);
    CHECK_THAT(msg, Catch::Contains("needs 331264 bytes"));
    CHECK_THAT(msg, Catch::Contains("49152 per block by default"));
    CHECK_THAT(msg, Catch::Contains("232448 with opt-in"));
    CHECK_THAT(msg, Catch::Contains("Br=128, Bc=128, d=128, fp32"));
    // Same tile in fp16: tiles are half the bytes (rows padded to 130 elements = 65 words).
    p.dtype = DType::f16;
    CHECK(flash_smem_bytes("flash", p) == 384 * 130 * 2 + 66048 + 65536 + 1536);
    p.Bc = 64;
    CHECK(flash_smem_refusal(Variant::flash, p, 49152, 232448).empty());
    // Small tiles fit the default 48 KB without opt-in.
    p.Br = p.Bc = 16;
    CHECK(flash_smem_bytes("flash", p) <= 49152);
    // flash_tc: Qi plus two stages of Kj, Vj, in fp16.
    p.Bc = 64;
    CHECK(flash_smem_bytes("flash_tc", p) == static_cast<uint64_t>(16 + 4 * 64) * (128 + 8) * 2);
}

TEST_CASE("the teaching kernel's tile rows are an odd number of words", "[attention][smem]") {
    for (DType t : kAllDTypes)
        for (int64_t d = 1; d <= 128; ++d) {
            const int64_t ld = flash_tile_row_stride(d, t);
            CHECK(ld >= d);
            CHECK((ld * dtype_bytes(t)) % 4 == 0);
            CHECK(((ld * dtype_bytes(t)) / 4) % 2 == 1);
        }
}

TEST_CASE("bad attention parameters give a message naming the parameter and the range", "[attention][validate]") {
    AttentionParams p;
    CHECK(validate(p).empty());
    for (const VariantInfo& v : variants()) CHECK(validate(v.name, p).empty());
    p.N = 0;
    CHECK_THAT(validate(p), Catch::Contains("N = 0") && Catch::Contains("1 .. 65536"));
    p = AttentionParams{};
    p.d = 129;
    CHECK_THAT(validate(p), Catch::Contains("d = 129") && Catch::Contains("1 .. 128"));
    p = AttentionParams{};
    p.batch_heads = -3;
    CHECK_THAT(validate(p), Catch::Contains("batch_heads = -3"));
    p = AttentionParams{};
    p.Br = 48;
    CHECK_THAT(validate(p), Catch::Contains("Br = 48") && Catch::Contains("16, 32, 64, 128 or 192"));
    p = AttentionParams{};
    p.Bc = 256;
    CHECK_THAT(validate(p), Catch::Contains("Bc = 256") && Catch::Contains("16, 32, 64, 80, 128 or 176"));
    p = AttentionParams{};
    p.batch_heads = 4096;
    p.N = 65536;
    p.d = 128;
    CHECK_THAT(validate(p), Catch::Contains("too large"));
    p = AttentionParams{};
    p.dtype = DType::f32;
    CHECK_THAT(validate("flash_tc", p), Catch::Contains("fp16 or bf16"));
    CHECK(validate("flash", p).empty());
    p = AttentionParams{};
    p.d = 80;
    CHECK_THAT(validate("flash_tc", p), Catch::Contains("d = 80"));
    CHECK(validate("flash", p).empty());
    CHECK_THAT(validate("flash3", p), Catch::Contains("unknown attention variant 'flash3'"));
    CHECK_THROWS_WITH(schedule("flash3", p), Catch::Contains("unknown attention variant"));
}

TEST_CASE("one flash_wgmma block, lane by lane: the turns, the ring and the work add up", "[attention][schedule]") {
    const SimGpu* h100 = find_sim_gpu("H100");
    REQUIRE(h100 != nullptr);
    const DeviceInfo& dev = h100->info;
    const SimCalibration c = calibration_for(dev);
    for (int64_t d : {64, 128})
    for (int Br : kWgmmaRowTiles)
        for (int Bc : kWgmmaColTiles)
            for (bool causal : {false, true}) {
                if (!wgmma_tile_built(Br, Bc, d)) continue;  // refused (the validate cases below)
                const AttentionParams p = make(64, 4096, d, DType::f16, causal, Br, Bc);
                CAPTURE(d, Br, Bc, causal);
                const BlockTimeline t = flash_wgmma_block_timeline(p, dev);
                const int wgs = Br / 64;
                REQUIRE(t.lanes.size() == static_cast<size_t>(1 + 2 * wgs));  // producer, then wgmma and softmax per warpgroup
                CHECK(t.lanes[0].label == "producer: TMA");
                // Every lane's spans in order, none overlapping the next.
                for (const BlockLane& lane : t.lanes)
                    for (size_t i = 0; i + 1 < lane.spans.size(); ++i) {
                        CHECK(lane.spans[i].start_ms <= lane.spans[i].end_ms);
                        CHECK(lane.spans[i].end_ms <= lane.spans[i + 1].start_ms + 1e-12);
                    }
                // The tiles: the last full row block's (causal: up to its diagonal), one TMA copy each after Qi.
                const int64_t row0 = (4096 / Br - 1) * Br;
                const int tiles = static_cast<int>(((causal ? row0 + Br : 4096) + Bc - 1) / Bc);
                CHECK(t.lanes[0].spans.size() == static_cast<size_t>(1 + tiles));
                // One warpgroup's products at a time: the wgmma lanes never overlap each other.
                std::vector<KernelSpan> mma;
                for (int w = 0; w < wgs; ++w)
                    for (const KernelSpan& s : t.lanes[static_cast<size_t>(1 + 2 * w)].spans)
                        if (s.name.rfind("store", 0) != 0) mma.push_back(s);
                std::sort(mma.begin(), mma.end(), [](const KernelSpan& a, const KernelSpan& b) { return a.start_ms < b.start_ms; });
                double mma_ms = 0;
                for (size_t i = 0; i < mma.size(); ++i) {
                    mma_ms += mma[i].end_ms - mma[i].start_ms;
                    if (i + 1 < mma.size()) CHECK(mma[i].end_ms <= mma[i + 1].start_ms + 1e-12);
                }
                // Their time is the block's FLOPs at one SM's share of the GEMM rate: 2 products of
                // 2 x rows x keys x d each, over every visited (row, key) pair of the block.
                const double flops = 2.0 * 2.0 * Br * d_keys(4096, Bc, tiles) * static_cast<double>(d);
                CHECK(mma_ms == Approx(flops / (c.gemm_tflops * 1e12 / dev.sm_count) * 1e3).epsilon(1e-9));
                // A tile is used after its copy lands, and a slot is refilled only after every
                // warpgroup's Pij Vj of the tile it held.
                const int stages = flash_wgmma_stages(Br, Bc, d, 2);
                const std::vector<KernelSpan>& copies = t.lanes[0].spans;
                for (int j = 0; j < tiles; ++j) {
                    const double landed = copies[static_cast<size_t>(1 + j)].end_ms;
                    for (int w = 0; w < wgs; ++w)
                        CHECK(t.lanes[static_cast<size_t>(1 + 2 * w)].spans[static_cast<size_t>(j)].start_ms >= landed - 1e-12);
                    if (j >= stages)
                        for (int w = 0; w < wgs; ++w)  // Pij Vj of tile j - stages is issued at turn j - stages + 1
                            CHECK(copies[static_cast<size_t>(1 + j)].start_ms >=
                                  t.lanes[static_cast<size_t>(1 + 2 * w)].spans[static_cast<size_t>(j - stages + 1)].end_ms - 1e-12);
                }
                CHECK(t.tensor_busy > 0);
                CHECK(t.tensor_busy <= 1.0 + 1e-9);
                CHECK(t.block_ms > 0);
                // Two warpgroups: a softmax of one runs while the other's products run.
                if (wgs == 2) {
                    bool overlap = false;
                    for (const KernelSpan& sm : t.lanes[2].spans)
                        for (const KernelSpan& g : t.lanes[3].spans)
                            overlap = overlap || (sm.start_ms < g.end_ms && g.start_ms < sm.end_ms);
                    CHECK(overlap);
                }
            }
    // Only flash_wgmma has lanes; parameters it cannot take are refused.
    const Params params = to_params(make(4, 1024, 64, DType::f16, false, 128, 128));
    CHECK_FALSE(workload_def(params).block_timeline("flash_wgmma", params, dev).lanes.empty());
    CHECK(workload_def(params).block_timeline("flash_tc", params, dev).lanes.empty());
    CHECK_THROWS_WITH(flash_wgmma_block_timeline(make(1, 64, 64, DType::f16, false, 32, 64), dev), Catch::Contains("Br = 32"));
}
