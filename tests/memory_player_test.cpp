// The animation's counters are the model: after the last step, the bytes read and written per
// tensor equal model()'s per-buffer totals at every level (L2<->SM, DRAM from the reuse model,
// shared memory), for every workload and variant (ragged and causal attention included); the
// counters only grow; a tile of flash's K crosses DRAM once and L2 once per row block;
// shared-memory parts sum to the kernel's allocation.
#include "kernels/attention/attention.h"
#include "viz/model/memory_player.h"
#include "kernels/core/registry.h"
#include "kernels/sim/sim_backend.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <map>

namespace {

using kernels::MemoryPlayer;
using kernels::Params;

struct Totals {
    uint64_t read = 0, written = 0, dram_read = 0, dram_written = 0;
};

std::map<std::string, Totals> model_totals(const std::string& variant, const Params& p) {
    std::map<std::string, Totals> out;
    for (const kernels::KernelModel& k : kernels::model(variant, p).kernels)
        for (const kernels::BufferTraffic& b : k.buffers) {
            out[b.buffer].read += b.bytes_read;
            out[b.buffer].written += b.bytes_written;
            out[b.buffer].dram_read += b.dram_read;
            out[b.buffer].dram_written += b.dram_written;
        }
    return out;
}

void check_totals(const std::string& variant, const Params& p) {
    INFO(kernels::describe(p, variant));
    const MemoryPlayer player(variant, p);
    const size_t last = player.step_count();
    REQUIRE(last > 0);
    const auto expected = model_totals(variant, p);
    const kernels::Model model = kernels::model(variant, p);
    size_t hbm_tensors = 0;
    for (size_t t = 0; t < player.tensors().size(); ++t) {
        const auto& name = player.tensors()[t].name;
        if (player.tensors()[t].local) {  // register spills: the model's local traffic, apart from HBM
            CHECK(name == kernels::kLocalBuffer);
            uint64_t local_read = 0, local_written = 0;
            for (const kernels::KernelModel& k : model.kernels) {
                local_read += k.local_read;
                local_written += k.local_written;
            }
            CHECK(player.read_after(last, t) == local_read);
            CHECK(player.written_after(last, t) == local_written);
            CHECK(player.local_read_after(last) == local_read);
            CHECK(player.local_written_after(last) == local_written);
            CHECK(player.tensors()[t].stack_bytes_per_thread > 0);
            continue;
        }
        ++hbm_tensors;
        REQUIRE(expected.count(name) == 1);
        CHECK(player.read_after(last, t) == expected.at(name).read);
        CHECK(player.written_after(last, t) == expected.at(name).written);
        CHECK(player.dram_read_after(last, t) == expected.at(name).dram_read);
        CHECK(player.dram_written_after(last, t) == expected.at(name).dram_written);
        CHECK(player.read_after(0, t) == 0);
        CHECK(player.written_after(0, t) == 0);
        CHECK(player.dram_read_after(0, t) == 0);
    }
    CHECK(hbm_tensors == expected.size());
    const kernels::Model& m = model;
    CHECK(player.total_read_after(last) == m.bytes_read());
    CHECK(player.total_written_after(last) == m.bytes_written());
    CHECK(player.total_dram_read_after(last) == m.dram_read());
    CHECK(player.total_dram_written_after(last) == m.dram_written());
    CHECK(player.shared_after(last) == m.shared_bytes());
    CHECK(player.flops_after(last) == Approx(m.flops()));
    for (size_t s = 1; s <= last; ++s) {
        CHECK(player.total_read_after(s) >= player.total_read_after(s - 1));
        CHECK(player.total_written_after(s) >= player.total_written_after(s - 1));
        CHECK(player.total_dram_read_after(s) >= player.total_dram_read_after(s - 1));
        CHECK(player.total_dram_written_after(s) >= player.total_dram_written_after(s - 1));
        CHECK(player.shared_after(s) >= player.shared_after(s - 1));
        // An event never takes more from DRAM than it moves between L2 and the SMs.
        CHECK(player.event_dram_bytes(s) <= player.event_l2_bytes(s));
    }
}

Params chain_params(int64_t rows, int64_t hidden) {
    Params p;
    p.workload = "chain";
    p.set("rows", rows);
    p.set("hidden", hidden);
    p.dtype = kernels::DType::bf16;
    return p;
}

Params attention_params(int64_t N, int64_t br, int64_t bc, bool causal, kernels::DType t) {
    Params p;
    p.workload = "attention";
    p.set("heads", 3);
    p.set("N", N);
    p.set("d", 64);
    p.set("br", br);
    p.set("bc", bc);
    p.set("causal", causal);
    p.dtype = t;
    return p;
}

}  // namespace

TEST_CASE("memory player: counters at the last step equal the model, elementwise", "[memory_player]") {
    for (const char* w : {"chain", "bias_gelu"})
        for (const auto& v : kernels::variants(w))
            for (auto [rows, hidden] : {std::pair<int64_t, int64_t>{4096, 4096}, {7, 1000}, {333, 777}}) {
                Params p;
                p.workload = w;
                p.set("rows", rows);
                p.set("hidden", hidden);
                check_totals(v.name, p);
            }
}

TEST_CASE("memory player: counters at the last step equal the model, attention", "[memory_player]") {
    for (const auto& v : kernels::variants("attention"))
        for (bool causal : {false, true})
            for (int64_t N : {int64_t{1024}, int64_t{1000}, int64_t{77}, int64_t{16384}})
                for (auto [br, bc] : {std::pair<int64_t, int64_t>{64, 64}, {16, 128}, {128, 32}, {128, 128}}) {
                    const Params p = attention_params(N, br, bc, causal, kernels::DType::f16);
                    // flash_wgmma offers Br, Bc in {64, 128} only, flash_tc Bc in {64, 128}: the others
                    // are refused, not drawn.
                    if (!kernels::attention::validate(v.name, kernels::attention::to_attention(p)).empty()) continue;
                    check_totals(v.name, p);
                }
}

TEST_CASE("memory player: tensors and on-chip working set", "[memory_player]") {
    const Params p = attention_params(1000, 64, 32, false, kernels::DType::f32);
    const MemoryPlayer naive("naive", p), flash("flash", p);
    // naive creates S and P (N x N each); flash never does.
    CHECK(naive.tensor_index("S") >= 0);
    CHECK(naive.tensor_index("P") >= 0);
    CHECK(flash.tensor_index("S") < 0);
    CHECK(flash.tensor_index("P") < 0);
    const auto& S = naive.tensors()[static_cast<size_t>(naive.tensor_index("S"))];
    CHECK(S.bytes == 3u * 1000u * 1000u * 4u);
    CHECK_FALSE(S.input);
    CHECK(flash.tensors()[static_cast<size_t>(flash.tensor_index("Q"))].input);
    // The drawn shared-memory parts are exactly what the kernel allocates.
    const auto a = kernels::attention::to_attention(p);
    CHECK(flash.on_chip(0) == kernels::OnChip::shared_memory);
    CHECK(flash.sram_bytes(0) == kernels::attention::flash_smem_bytes("flash", a));
    Params tc = attention_params(1000, 64, 64, true, kernels::DType::bf16);
    for (int64_t d : {32, 64, 128}) {
        tc.set("d", d);
        const MemoryPlayer player("flash_tc", tc);
        CHECK(player.sram_bytes(0) == kernels::attention::flash_smem_bytes("flash_tc", kernels::attention::to_attention(tc)));
    }
    CHECK(naive.on_chip(0) == kernels::OnChip::library);
    CHECK(naive.on_chip(1) == kernels::OnChip::registers);
    CHECK(naive.sram_parts(0).empty());
    // Bad input: validate()'s message, not a crash.
    Params bad = p;
    bad.set("br", 48);
    CHECK_THROWS_WITH(MemoryPlayer("flash", bad), Catch::Contains("br = 48"));
    CHECK_THROWS_WITH(MemoryPlayer("fused", p), Catch::Contains("unknown variant"));
}

TEST_CASE("memory player: non-causal flash shows every Kj, Vj iteration as its own steps", "[memory_player]") {
    const Params p = attention_params(1024, 64, 64, false, kernels::DType::f16);
    const MemoryPlayer player("flash", p);
    // load Qi, 16 tiles x (load Kj, load Vj, Sij, m and l, Oi), store Oi.
    CHECK(player.step_count() == 1 + 16 * 5 + 1);
    const kernels::TileEvent* e = player.current_event(40);  // the example step
    REQUIRE(e != nullptr);
    CHECK(e->what.find("j = 7") != std::string::npos);
    CHECK(e->what.find("tiles, one after another") == std::string::npos);
    check_totals("flash", p);
    // Causal runs still fold the middle of long loops (a block class per row block).
    const MemoryPlayer causal("flash", attention_params(1024, 64, 64, true, kernels::DType::f16));
    bool folded = false;
    for (size_t s = 1; s <= causal.step_count(); ++s)
        folded = folded || causal.current_event(s)->what.find("tiles, one after another") != std::string::npos;
    CHECK(folded);
}

TEST_CASE("memory player: flash's K tile crosses DRAM -> L2 once, then each row block of its head hits L2",
          "[memory_player][levels]") {
    // 3 heads, N = 1024, 64 x 64 tiles: 16 row blocks per head share each K tile.
    const Params p = attention_params(1024, 64, 64, false, kernels::DType::f16);
    const MemoryPlayer player("flash", p);
    const int k = player.tensor_index("K");
    REQUIRE(k >= 0);
    size_t loads = 0;
    for (size_t s = 1; s <= player.step_count(); ++s) {
        const kernels::TileEvent* e = player.current_event(s);
        if (e->buffer != "K" || e->kind != kernels::EventKind::load) continue;
        ++loads;
        CHECK(player.event_l2_bytes(s) == 3u * 16u * 64u * 64u * 2u);  // every block's tile, through L2
        CHECK(player.event_dram_bytes(s) == 3u * 64u * 64u * 2u);       // one tile per head from DRAM
        CHECK_FALSE(player.event_dram_rule(s).empty());
    }
    CHECK(loads == 16);
    const uint64_t k_bytes = player.tensors()[static_cast<size_t>(k)].bytes;
    CHECK(player.dram_read_after(player.step_count(), static_cast<size_t>(k)) == k_bytes);
    CHECK(player.read_after(player.step_count(), static_cast<size_t>(k)) == 16 * k_bytes);
    // The teaching kernel stages its tiles in shared memory: the on-chip counter grows with them.
    CHECK(player.shared_after(player.step_count()) > 0);
    // The kernel wants Q, K, V and O in L2; naive's softmax wants S and P.
    CHECK(player.kernel_tensors(0).size() == 4);
    const MemoryPlayer naive("naive", p);
    std::vector<std::string> softmax;
    for (size_t t : naive.kernel_tensors(1)) softmax.push_back(naive.tensors()[t].name);
    CHECK(softmax == std::vector<std::string>{"S", "P"});
}

TEST_CASE("memory player: a smaller L2 sends an intermediate through DRAM", "[memory_player][levels]") {
    const Params p = chain_params(1024, 1024);
    // h1 is 2 MiB: it fits in half of a 50 MiB L2 and is read back from there, not in half of 2 MiB.
    const MemoryPlayer big("unfused", p, 50ull << 20), small("unfused", p, 2ull << 20);
    const auto h1 = static_cast<size_t>(big.tensor_index("h1"));
    CHECK(big.dram_read_after(big.step_count(), h1) == 0);
    CHECK(small.dram_read_after(small.step_count(), h1) == small.read_after(small.step_count(), h1));
    CHECK(small.l2_bytes() == 2ull << 20);
}

TEST_CASE("memory player: a kernel that spills has a local-memory tensor, apart from HBM", "[memory_player]") {
    const Params p = chain_params(8192, 8192);
    const MemoryPlayer spill("fused_spill", p), fused("fused", p);
    int local = -1;
    for (size_t t = 0; t < spill.tensors().size(); ++t)
        if (spill.tensors()[t].local) local = static_cast<int>(t);
    REQUIRE(local >= 0);
    CHECK_FALSE(spill.tensors()[static_cast<size_t>(local)].input);
    // The same HBM bytes as the fused kernel, plus spill traffic that is counted apart.
    CHECK(spill.total_read_after(spill.step_count()) == fused.total_read_after(fused.step_count()));
    CHECK(spill.total_written_after(spill.step_count()) == fused.total_written_after(fused.step_count()));
    CHECK(spill.local_written_after(spill.step_count()) > 0);
    CHECK(spill.local_read_after(spill.step_count()) > 0);
    CHECK(spill.on_chip_note(0).find("local memory") != std::string::npos);
    for (const kernels::SramPart& part : spill.sram_parts(0)) CHECK(part.name != kernels::kLocalBuffer);
    check_totals("fused_spill", p);
}

TEST_CASE("memory player: stays small at N = 16384 (folded loops, counted blocks)", "[memory_player]") {
    Params p = attention_params(16384, 16, 64, true, kernels::DType::f16);
    p.set("heads", 64);
    const auto start = std::chrono::steady_clock::now();
    const MemoryPlayer player("flash", p);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("memory player: flash causal N=16384 Br=16: %zu steps built in %.1f ms\n", player.step_count(), ms);
    CHECK(player.step_count() < 40000);
    check_totals("flash", p);
}

TEST_CASE("memory player: counters at the last step equal the model, skip connection", "[memory_player][skip]") {
    for (const auto& v : kernels::variants("skip"))
        for (bool causal : {false, true})
            for (int64_t N : {int64_t{1024}, int64_t{77}}) {
                // flash_wgmma's variants take Br = 64, 128 or 192 (its consumer warpgroups), the others 32 here.
                const int br = v.name.rfind("wgmma", 0) == 0 ? 64 : 32;
                Params p = attention_params(N, br, 64, causal, kernels::DType::f16);
                p.workload = "skip";
                p.set("heads", 4);
                p.set("batch", 2);
                check_totals(v.name, p);
            }
}

TEST_CASE("memory player: fused skip never creates attn_out - two_pass writes and reads it back", "[memory_player][skip]") {
    Params p = attention_params(1000, 64, 64, false, kernels::DType::f16);
    p.workload = "skip";
    p.set("heads", 4);
    p.set("batch", 2);
    const MemoryPlayer fused("fused", p), two("two_pass", p);
    CHECK(fused.tensor_index("attn_out") < 0);
    CHECK(fused.tensor_index("x") >= 0);
    CHECK(fused.tensor_index("out") >= 0);
    const int attn_out = two.tensor_index("attn_out");
    REQUIRE(attn_out >= 0);
    const size_t last = two.step_count();
    CHECK(two.written_after(last, static_cast<size_t>(attn_out)) == two.read_after(last, static_cast<size_t>(attn_out)));
    CHECK(two.total_read_after(last) + two.total_written_after(last) >
          fused.total_read_after(fused.step_count()) + fused.total_written_after(fused.step_count()));
    // The attention kernel tiles in shared memory (the x tile reuses Qi's space); the skip kernel does not.
    CHECK(fused.on_chip(0) == kernels::OnChip::shared_memory);
    CHECK(two.on_chip(1) == kernels::OnChip::registers);
    CHECK(fused.sram_bytes(0) == kernels::attention::flash_smem_bytes("flash_tc", kernels::attention::to_attention(p)));
}

// The animation's clock side by side is the simulated backend's time: the player prices the run
// with the function the backend times a job with, so the memory view's "modeled" line and the
// results table's simulated time are one number, and the last step ends at it.
TEST_CASE("memory player clock: modeled time ends where the simulated backend's run ends", "[memory_player]") {
    const kernels::SimGpu& h100 = *kernels::find_sim_gpu("H100");
    auto backend = kernels::make_sim_backend(h100);
    for (const char* variant : {"naive", "flash"}) {
        kernels::Job job;
        job.params.workload = "attention";
        job.variant = variant;
        job.emulate = false;
        const kernels::Measurement m = backend->run(job, {});
        REQUIRE(m.ok);
        const kernels::MemoryPlayer player(variant, job.params, static_cast<uint64_t>(h100.info.l2_bytes));
        const kernels::PlayerClock modeled = player.clock(h100.info, true);
        CHECK(modeled.modeled_time);
        CHECK(modeled.modeled_ms == Approx(m.time.median_ms));
        CHECK(modeled.ends.back() == Approx(modeled.modeled_ms));
        CHECK(modeled.modeled_bytes == player.model().dram_bytes());
        for (size_t s = 1; s < modeled.ends.size(); ++s) CHECK(modeled.ends[s] >= modeled.ends[s - 1]);
        // Alone, the clock counts steps; the modeled time is the same.
        const kernels::PlayerClock steps = player.clock(h100.info, false);
        CHECK_FALSE(steps.modeled_time);
        CHECK(steps.ends.back() == Approx(static_cast<double>(player.step_count())));
        CHECK(steps.modeled_ms == Approx(m.time.median_ms));
    }
}
