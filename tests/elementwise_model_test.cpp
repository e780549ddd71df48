// The model's byte and FLOP totals (summed from the tile schedule) against closed forms.
#include "kernels/elementwise/elementwise.h"
#include "kernels/core/registry.h"

#include "tests/scoped_env.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <stdexcept>
#include <utility>

using namespace kernels;

namespace {

Params make(const std::string& w, int64_t rows, int64_t hidden, DType t) {
    Params p;
    p.workload = w;
    p.set("rows", rows);
    p.set("hidden", hidden);
    p.dtype = t;
    return p;
}

uint64_t sum_event_bytes(const Schedule& s, EventKind kind) {
    uint64_t b = 0;
    for (const TileEvent& e : s.events)
        if (e.kind == kind && !e.local) b += e.bytes * e.repeat;
    return b;
}

}  // namespace

TEST_CASE("chain model bytes match the closed form for every dtype and ragged size", "[model]") {
    for (DType t : kAllDTypes) {
        for (auto [rows, hidden] : {std::pair<int64_t, int64_t>{1, 1}, {7, 33}, {513, 1000}, {8192, 8192}, {3, 4097}}) {
            const Params p = make("chain", rows, hidden, t);
            const uint64_t es = static_cast<uint64_t>(dtype_bytes(t));
            const uint64_t n = static_cast<uint64_t>(rows * hidden), H = static_cast<uint64_t>(hidden);
            CAPTURE(to_string(t), rows, hidden);

            const Model unfused = model("unfused", p);
            REQUIRE(unfused.kernels.size() == 4);
            CHECK(unfused.bytes_read() == (5 * n + 2 * H) * es);   // x, h1, h2, h3, residual + gamma, beta
            CHECK(unfused.bytes_written() == 4 * n * es);          // h1, h2, h3, out
            CHECK(unfused.flops() == Approx(14.0 * static_cast<double>(n)));

            const Model fused = model("fused", p);
            REQUIRE(fused.kernels.size() == 1);
            CHECK(fused.bytes_read() == (2 * n + 2 * H) * es);
            CHECK(fused.bytes_written() == n * es);
            CHECK(fused.bytes() == min_bytes(p));
            CHECK(fused.flops() == Approx(unfused.flops()));
        }
    }
}

TEST_CASE("chain unfused model counts each kernel's own buffers", "[model]") {
    const Params p = make("chain", 100, 300, DType::bf16);
    const Model m = model("unfused", p);
    const uint64_t tensor = 100 * 300 * 2, vec = 300 * 2;
    REQUIRE(m.kernels[0].name == "layernorm");
    CHECK(m.kernels[0].bytes_read() == tensor + 2 * vec);
    CHECK(m.kernels[0].bytes_written() == tensor);
    CHECK(m.kernels[1].name == "gelu");
    CHECK(m.kernels[1].bytes_read() == tensor);
    CHECK(m.kernels[2].name == "dropout");
    CHECK(m.kernels[2].bytes_written() == tensor);
    REQUIRE(m.kernels[3].name == "add");
    CHECK(m.kernels[3].bytes_read() == 2 * tensor);  // h3 and residual
    CHECK(m.kernels[3].bytes_written() == tensor);
}

TEST_CASE("bias_gelu model bytes match the closed form", "[model]") {
    for (DType t : kAllDTypes) {
        for (auto [rows, hidden] : {std::pair<int64_t, int64_t>{1, 1}, {5, 4099}, {8192, 8192}}) {
            const Params p = make("bias_gelu", rows, hidden, t);
            const uint64_t es = static_cast<uint64_t>(dtype_bytes(t));
            const uint64_t n = static_cast<uint64_t>(rows * hidden), H = static_cast<uint64_t>(hidden);
            CAPTURE(to_string(t), rows, hidden);
            const Model unfused = model("unfused", p);
            REQUIRE(unfused.kernels.size() == 2);
            CHECK(unfused.bytes() == (4 * n + H) * es);
            const Model fused = model("fused", p);
            CHECK(fused.bytes() == (2 * n + H) * es);
            CHECK(fused.bytes() == min_bytes(p));
            CHECK(fused.flops() == Approx(6.0 * static_cast<double>(n)));
        }
    }
}

TEST_CASE("the schedule's events sum to the model and cover every block", "[model][schedule]") {
    for (const char* w : {"chain", "bias_gelu"}) {
        for (const VariantInfo& v : variants(w)) {
            const Params p = make(w, 37, 1001, DType::f16);
            const Schedule s = schedule(v.name, p);
            const Model m = model_from_schedule(s);
            CAPTURE(w, v.name);
            CHECK(static_cast<int>(s.kernels.size()) == v.kernels);
            CHECK(sum_event_bytes(s, EventKind::load) == m.bytes_read());
            CHECK(sum_event_bytes(s, EventKind::store) == m.bytes_written());
            // Every output element is stored exactly once per kernel.
            for (size_t k = 0; k < s.kernels.size(); ++k) {
                uint64_t stored = 0, store_blocks = 0;
                for (const TileEvent& e : s.events)
                    if (e.kernel == static_cast<int>(k) && e.kind == EventKind::store && !e.local) {
                        stored += e.bytes * e.repeat;
                        store_blocks += e.repeat;
                    }
                CHECK(stored == 37u * 1001u * 2u);
                CHECK(store_blocks == s.kernels[k].blocks);
                CHECK(s.kernels[k].threads_per_block > 0);
            }
            for (const TileEvent& e : s.events) CHECK_FALSE(e.what.empty());
        }
    }
}

TEST_CASE("fused_spill: the fused kernel's HBM bytes, plus ptxas's spill bytes x threads as local traffic", "[model]") {
    for (DType t : kAllDTypes)
        for (auto [rows, hidden] : {std::pair<int64_t, int64_t>{8192, 8192}, {37, 1001}, {100, 4096}, {3, 12000}}) {
            const Params p = make("chain", rows, hidden, t);
            CAPTURE(to_string(t), rows, hidden);
            const Model fused = model("fused", p), spill = model("fused_spill", p);
            REQUIRE(spill.kernels.size() == 1);
            CHECK(spill.kernels[0].name == "fused_chain_spill");
            CHECK(spill.bytes_read() == fused.bytes_read());
            CHECK(spill.bytes_written() == fused.bytes_written());
            CHECK(spill.flops() == Approx(fused.flops()));
            const RegisterUse r = elementwise::row_kernel_registers("fused_chain_spill", elementwise::to_elementwise(p));
            // 32 registers cannot hold 64 bytes of x and 64 of residual per thread: every instance spills.
            CHECK(r.registers == 32);
            REQUIRE(r.spills());
            CHECK(r.source.find("ptxas") != std::string::npos);
            // every thread of every block runs the spill code once (the spilling kernel keeps its
            // measured layout: one block per row)
            const elementwise::LaunchShape shape =
                elementwise::row_kernel_shape(elementwise::to_elementwise(p), elementwise::RowKernel::spill);
            const uint64_t threads = shape.blocks * static_cast<uint64_t>(shape.threads);
            CHECK(spill.kernels[0].local_written == threads * static_cast<uint64_t>(r.spill_store_bytes));
            CHECK(spill.kernels[0].local_read == threads * static_cast<uint64_t>(r.spill_load_bytes));
            CHECK(spill.local_bytes() == spill.kernels[0].local_bytes());
        }
    // The measured case (bf16 8192 x 8192: 256 threads of 4 chunks): ptxas's numbers for sm_90.
    const Params big = make("chain", 8192, 8192, DType::bf16);
    const RegisterUse r = elementwise::row_kernel_registers("fused_chain_spill", elementwise::to_elementwise(big));
    CHECK(r.stack_bytes > 128);
    CHECK(model("fused_spill", big).local_bytes() > model("fused", big).bytes());
    // The unfused kernels keep their rows in registers.
    CHECK(model("unfused", big).local_bytes() == 0);
}

TEST_CASE("the row kernel instance follows the launcher's rule", "[model]") {
    CHECK(elementwise::row_kernel_instance(elementwise::to_elementwise(make("chain", 1, 8192, DType::bf16))).chunks_per_thread == 4);
    CHECK(elementwise::row_kernel_instance(elementwise::to_elementwise(make("chain", 1, 4096, DType::bf16))).chunks_per_thread == 4);
    CHECK(elementwise::row_kernel_instance(elementwise::to_elementwise(make("chain", 1, 256, DType::bf16))).chunks_per_thread == 2);
    CHECK(elementwise::row_kernel_instance(elementwise::to_elementwise(make("chain", 1, 8192, DType::f32))).chunks_per_thread == 2);
    CHECK(elementwise::row_kernel_instance(elementwise::to_elementwise(make("chain", 1, 16384, DType::f32))).chunks_per_thread == 4);
    CHECK(elementwise::row_kernel_instance(elementwise::to_elementwise(make("chain", 1, 1001, DType::f16))).vector == false);
    CHECK(elementwise::row_kernel_instance(elementwise::to_elementwise(make("chain", 1, 1000, DType::f16))).vector == true);
    // Every instance the launcher can pick has a row in ptxas's table.
    for (DType t : kAllDTypes)
        for (int64_t hidden : {8, 768, 1001, 4096, 8192, 16384, 20000, 65536})
            for (const char* k : {"layernorm", "fused_chain", "fused_chain_spill"}) {
                CAPTURE(to_string(t), hidden, k);
                if (std::string(k) == "fused_chain_spill" && hidden > elementwise::kSpillMaxHidden) {
                    // refused (one block per row): no instance, an empty register use
                    CHECK(elementwise::row_kernel_registers(k, elementwise::to_elementwise(make("chain", 2, hidden, t))).registers == 0);
                    continue;
                }
                CHECK(elementwise::row_kernel_registers(k, elementwise::to_elementwise(make("chain", 2, hidden, t))).registers > 0);
            }
}

TEST_CASE("spill estimate: what L1 cannot hold of the resident threads' stack frames leaves the SM", "[model]") {
    DeviceInfo h100;
    h100.cc_major = 9;
    h100.cc_minor = 0;
    KernelModel k;
    k.threads_per_block = 256;
    k.registers = RegisterUse{32, 232, 456, 440, "test"};
    k.local_written = 1000000;
    k.local_read = 1000000;
    // 32 registers: 8 blocks of 256 threads (2048, the SM's limit); 2048 x 232 B = 464 KiB > 256 KiB.
    SpillEstimate e = spill_estimate(k, h100);
    CHECK(e.resident_threads_per_sm == 2048);
    CHECK(e.footprint_per_sm == 2048u * 232u);
    CHECK(e.l1_bytes == 256u * 1024u);
    CHECK(e.beyond_l1 == Approx(1.0 - 256.0 * 1024.0 / (2048.0 * 232.0)));
    CHECK(e.beyond_l1_bytes == static_cast<uint64_t>(e.beyond_l1 * 2000000.0));
    CHECK(e.note.find("2048 resident threads") != std::string::npos);
    // 64 registers and 32 B of stack (the fused kernel): 4 blocks, 32 KiB, all in L1.
    k.registers = RegisterUse{64, 32, 28, 28, "test"};
    e = spill_estimate(k, h100);
    CHECK(e.resident_threads_per_sm == 1024);
    CHECK(e.beyond_l1 == 0.0);
    CHECK(e.beyond_l1_bytes == 0u);
    // No spill traffic: nothing to estimate.
    k.local_written = k.local_read = 0;
    CHECK(spill_estimate(k, h100).note.empty());
}

TEST_CASE("unknown variants are refused", "[model]") {
    const Params p = make("chain", 4, 4, DType::f32);
    CHECK_THROWS_WITH(model("flash", p), Catch::Contains("unknown variant"));
}

TEST_CASE("chain_flops names every kernel of the model", "[model]") {
    const Params p = make("chain", 3, 5, DType::f32);
    for (const char* variant : {"unfused", "fused", "fused_spill"})
        for (const KernelModel& k : model(variant, p).kernels)
            CHECK(elementwise::chain_flops(k.name, elementwise::to_elementwise(p)) == Approx(k.flops));
}

namespace {

elementwise::RowConfig row_config_of(int64_t hidden, DType t) {
    return elementwise::row_config(elementwise::to_elementwise(make("chain", 4, hidden, t)));
}


}  // namespace

TEST_CASE("row_config: the per-shape rule", "[model][config]") {
    // 768: 96 chunks, 3 per thread fill one warp exactly; 4 rows per block (128 threads)
    elementwise::RowConfig c = row_config_of(768, DType::bf16);
    CHECK(c.chunks_per_thread == 3);
    CHECK(c.threads_per_row == 32);
    CHECK(c.rows_per_block == 4);
    CHECK(c.ctas_per_row == 1);
    // 8192 bf16: 64 B of x per thread, 256 threads, one row per block (the measured case)
    c = row_config_of(8192, DType::bf16);
    CHECK(c.chunks_per_thread == 4);
    CHECK(c.threads_per_row == 256);
    CHECK(c.rows_per_block == 1);
    // 7168 fp16: 224 threads cover 896 chunks exactly
    CHECK(row_config_of(7168, DType::f16).threads_per_row == 224);
    // 16-bit past one block: clusters of at most 8 blocks, 256 threads when 8 suffice
    c = row_config_of(65536, DType::bf16);
    CHECK_FALSE(c.staged);
    CHECK(c.ctas_per_row == 8);
    CHECK(c.threads_per_row == 256);
    CHECK(c.chunks_per_thread == 4);
    // fp32 past one staged block (v7): a register cluster of 8 blocks of 256 threads, 4 chunks each
    c = row_config_of(65536, DType::f32);
    CHECK_FALSE(c.staged);
    CHECK(c.ctas_per_row == 8);
    CHECK(c.threads_per_row == 256);
    CHECK(c.chunks_per_thread == 4);
    c = row_config_of(40000, DType::f32);  // 5000 chunks: 8 blocks of 160 threads x 4 chunks (5120)
    CHECK_FALSE(c.staged);
    CHECK(c.ctas_per_row == 8);
    CHECK(c.threads_per_row == 160);
    c = row_config_of(32768, DType::f32);  // 128 KiB of x: still one staged block
    CHECK(c.staged);
    CHECK(c.ctas_per_row == 1);
    c = row_config_of(20000, DType::f32);  // 80 KiB of x: one block; x and residual would be 160 KiB
    CHECK(c.staged);
    CHECK_FALSE(c.stage_residual);
    CHECK(c.ctas_per_row == 1);
    CHECK(c.staged_bytes(DType::f32) == 512 * 5 * 32);
    {
        const ScopedEnv env("FUSIONLAB_ROW_CONFIG", "smem=1");  // 16-bit 20000 forced staged: both fit
        c = row_config_of(20000, DType::bf16);
        CHECK(c.stage_residual);
        CHECK(c.staged_bytes(DType::bf16) == 2 * 512 * 5 * 16);
    }
    CHECK_FALSE(row_config_of(16384, DType::bf16).staged);
    c = row_config_of(16384, DType::f32);  // one block of 512 threads x 4 chunks
    CHECK(c.ctas_per_row == 1);
    CHECK(c.chunks_per_thread == 4);
    // every width up to the largest holds its row in one config
    for (DType t : kAllDTypes)
        for (int64_t hidden = 1; hidden <= elementwise::kMaxHidden; hidden = hidden * 3 / 2 + 1) {
            const elementwise::RowConfig r = row_config_of(hidden, t);
            CAPTURE(to_string(t), hidden, elementwise::config_text(r));
            CHECK(int64_t{r.ctas_per_row} * r.threads_per_row * r.chunks_per_thread * 8 >= hidden);
            CHECK(r.threads_per_block() <= elementwise::kRowMaxThreads);
            CHECK(r.threads_per_row % 32 == 0);
            CHECK(r.ctas_per_row <= elementwise::kRowMaxClusterCtas);
            CHECK(r.vector == (hidden % 8 == 0));
            CHECK(!r.why.empty());
            CHECK(r.staged_bytes(t) <= elementwise::kStageMaxBytes * (r.stage_residual ? 2 : 1));
            if (r.stage_residual) CHECK(r.staged_bytes(t) <= elementwise::kStageMaxBytes);
        }
}

TEST_CASE("row_config: FUSIONLAB_ROW_CONFIG forces a layout - one that cannot hold the row is refused", "[model][config]") {
    {
        const ScopedEnv env("FUSIONLAB_ROW_CONFIG", "ctas=2");
        const elementwise::RowConfig c = row_config_of(8192, DType::bf16);
        CHECK(c.ctas_per_row == 2);
        CHECK(c.threads_per_row == 128);  // derived: 1024 chunks over 2 blocks x 4 chunks
        CHECK(c.rows_per_block == 1);
        CHECK(c.why.find("FUSIONLAB_ROW_CONFIG") != std::string::npos);
        const elementwise::LaunchShape shape = elementwise::row_kernel_shape(elementwise::to_elementwise(make("chain", 37, 8192, DType::bf16)));
        CHECK(shape.blocks == 74);
        CHECK(shape.threads == 128);
    }
    {
        const ScopedEnv env("FUSIONLAB_ROW_CONFIG", "cpt=4,tpr=64,rpb=3");
        const elementwise::LaunchShape shape = elementwise::row_kernel_shape(elementwise::to_elementwise(make("chain", 37, 2048, DType::bf16)));
        CHECK(shape.blocks == 13);  // 12 blocks of 3 rows and one of 1
        CHECK(shape.threads == 192);
    }
    {
        const ScopedEnv env("FUSIONLAB_ROW_CONFIG", "smem=1,tpr=128,cs=1");
        const elementwise::RowConfig c = row_config_of(8192, DType::bf16);
        CHECK(c.staged);
        CHECK(c.streaming);
        CHECK(c.threads_per_row == 128);
        CHECK(c.chunks_per_thread == 8);  // 1024 chunks over 128 threads
        CHECK(c.stage_residual);
        CHECK(elementwise::config_text(c).find("staged in shared memory") != std::string::npos);
    }
    {
        const ScopedEnv env("FUSIONLAB_ROW_CONFIG", "cs=1");  // the hint alone keeps the picked layout
        const elementwise::RowConfig c = row_config_of(20000, DType::f32);
        CHECK(c.staged);
        CHECK(c.streaming);
        CHECK(c.chunks_per_thread == 5);
    }
    for (const char* bad : {"cpt=4,tpr=64", "ctas=3", "cpt=5", "tpr=100", "rpb=4,tpr=256", "threads=2", "cpt", "cpt=x",
                            "smem=2", "smem=1,cpt=4", "smem=1,rpb=2", "smem=1,tpr=100", "cs=3"}) {
        const ScopedEnv env("FUSIONLAB_ROW_CONFIG", bad);
        CAPTURE(bad);
        CHECK_THROWS_AS(row_config_of(8192, DType::bf16), std::invalid_argument);
    }
    {
        const ScopedEnv env("FUSIONLAB_FLAT_CONFIG", "threads=512,bytes=32");
        const elementwise::LaunchShape shape = elementwise::flat_kernel_shape(elementwise::to_elementwise(make("bias_gelu", 4, 4096, DType::bf16)));
        CHECK(shape.threads == 512);
        CHECK(shape.elements_per_block == 512 * 16);
        CHECK(shape.blocks == 2);
    }
    for (const char* bad : {"threads=64", "bytes=16", "rows=2", "cs=2"}) {
        const ScopedEnv env("FUSIONLAB_FLAT_CONFIG", bad);
        CAPTURE(bad);
        CHECK_THROWS_AS(elementwise::flat_config(elementwise::to_elementwise(make("bias_gelu", 4, 4096, DType::bf16))),
                        std::invalid_argument);
    }
}

TEST_CASE("row_config: rows in sequence only when forced - and what forcing them needs", "[model][config]") {
    // v8's rows in sequence measured slower on an H200 wherever they ran (kernels/PERF.md): the rule keeps one
    // row a block (cluster) at every shape; FUSIONLAB_ROW_CONFIG=seq=N runs them
    for (DType t : kAllDTypes)
        for (auto [rows, hidden] : {std::pair<int64_t, int64_t>{8192, 16384}, {4096, 65536}, {65536, 1024}, {8192, 8192}}) {
            const elementwise::ElementwiseParams e = elementwise::to_elementwise(make("chain", rows, hidden, t));
            CHECK(elementwise::row_config(e).rows_in_sequence == 1);
            CHECK_FALSE(elementwise::row_kernel_instance(e).in_sequence);
        }
    {
        // 37 rows of 2048 bf16: 64 threads a row, 2 rows a block, 4 steps: blocks of 8 rows, the last with 5
        const ScopedEnv env("FUSIONLAB_ROW_CONFIG", "seq=4");
        const elementwise::ElementwiseParams e = elementwise::to_elementwise(make("chain", 37, 2048, DType::bf16));
        const elementwise::RowConfig c = elementwise::row_config(e);
        CHECK(c.rows_in_sequence == 4);
        CHECK(elementwise::row_kernel_shape(e).blocks == 5);
        CHECK(elementwise::config_text(c).find("4 rows in sequence") != std::string::npos);
        // two buffers of x and one of the residual: 128 threads x 4 chunks x 16 B each
        CHECK(c.prefetch_bytes(DType::bf16, true) == 3 * 128 * 4 * 16);
        CHECK(schedule("fused", make("chain", 37, 2048, DType::bf16)).kernels[0].block.shared_bytes == 3 * 128 * 4 * 16);
        CHECK(elementwise::row_kernel_instance(e).in_sequence);
    }
    for (const char* bad : {"seq=0", "seq=9", "smem=1,seq=2"}) {
        const ScopedEnv env("FUSIONLAB_ROW_CONFIG", bad);
        CHECK_THROWS_WITH(row_config_of(8192, DType::bf16), Catch::Contains("FUSIONLAB_ROW_CONFIG"));
    }
    const ScopedEnv env("FUSIONLAB_ROW_CONFIG", "seq=2");
    CHECK_THROWS_WITH(row_config_of(1001, DType::bf16), Catch::Contains("hidden a multiple of 8"));
}

TEST_CASE("the schedule follows the row configuration: rows per block and cluster slices", "[model][schedule][config]") {
    for (const char* forced : {"", "ctas=2", "cpt=2,ctas=4", "cpt=4,tpr=64,rpb=3", "rpb=2", "smem=1", "smem=1,ctas=2,tpr=64",
                               "seq=4", "ctas=2,seq=3", "rpb=2,seq=2"}) {
        const ScopedEnv env("FUSIONLAB_ROW_CONFIG", forced);
        for (DType t : kAllDTypes)
            for (auto [rows, hidden] : {std::pair<int64_t, int64_t>{37, 1001}, {37, 2048}, {5, 20000}, {3, 65536}}) {
                const Params p = make("chain", rows, hidden, t);
                elementwise::RowConfig c;
                try {
                    c = elementwise::row_config(elementwise::to_elementwise(p));
                } catch (const std::invalid_argument&) {
                    continue;
                }
                CAPTURE(forced, to_string(t), rows, hidden, elementwise::config_text(c));
                for (const char* v : {"fused", "unfused"}) {
                    const Schedule s = schedule(v, p);
                    const Model m = model_from_schedule(s);
                    const uint64_t es = static_cast<uint64_t>(dtype_bytes(t)), n = static_cast<uint64_t>(rows * hidden);
                    uint64_t stored = 0, store_blocks = 0;
                    for (const TileEvent& e : s.events)
                        if (e.kernel == 0 && e.kind == EventKind::store && !e.local) {
                            stored += e.bytes * e.repeat;
                            store_blocks += e.repeat;
                        }
                    CHECK(stored == n * es);
                    CHECK(store_blocks == s.kernels[0].blocks);
                    CHECK(s.kernels[0].threads_per_block == c.threads_per_block());
                    CHECK(m.bytes_read() == sum_event_bytes(s, EventKind::load));
                }
            }
    }
}

TEST_CASE("chain device refusals: fused_spill past one block and clusters before compute capability 9.0", "[model][config]") {
    DeviceInfo hopper;
    hopper.name = "test H100";
    hopper.cc_major = 9;
    DeviceInfo ampere = hopper;
    ampere.name = "test A100";
    ampere.cc_major = 8;
    const DeviceBudget on_hopper{hopper, uint64_t{80} << 30, "free"}, on_ampere{ampere, uint64_t{80} << 30, "free"};
    const Params wide = make("chain", 256, 65536, DType::bf16), narrow = make("chain", 256, 8192, DType::bf16);
    CHECK(device_refusal("fused", wide, on_hopper).empty());
    CHECK_THAT(device_refusal("fused", wide, on_ampere), Catch::Contains("cluster of 8") && Catch::Contains("9.0"));
    // a staged row needs its slice of shared memory per block: 128 KiB of fp32 x and residual at 32768
    DeviceInfo small = hopper;
    small.name = "test GPU with 99 KiB per block";
    small.cc_major = 8;
    small.smem_per_block_optin = 99 * 1024;
    const Params wide32 = make("chain", 256, 32768, DType::f32);
    CHECK_THAT(device_refusal("fused", wide32, DeviceBudget{small, uint64_t{80} << 30, "free"}),
               Catch::Contains("128 KiB") && Catch::Contains("99 KiB per block"));
    small.smem_per_block_optin = 163 * 1024;  // an A100: no cluster needed, the slice fits
    CHECK(device_refusal("fused", wide32, DeviceBudget{small, uint64_t{80} << 30, "free"}).empty());
    CHECK_THAT(device_refusal("fused_spill", wide, on_hopper), Catch::Contains("fused_spill holds a row in one block"));
    for (const char* v : {"unfused", "fused", "fused_spill"}) {
        CHECK(device_refusal(v, narrow, on_ampere).empty());
        CHECK(device_refusal(v, narrow, on_hopper).empty());
    }
    // the spilling kernel keeps the layout it was measured with: one block per row
    const elementwise::RowConfig spill = elementwise::row_config(elementwise::to_elementwise(narrow), elementwise::RowKernel::spill);
    CHECK(spill.threads_per_row == 256);
    CHECK(spill.chunks_per_thread == 4);
    CHECK(elementwise::row_config(elementwise::to_elementwise(make("chain", 4, 768, DType::bf16)), elementwise::RowKernel::spill)
              .rows_per_block == 1);
}
