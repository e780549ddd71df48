// The skip-connection model: per kernel and buffer bytes against closed forms built from the
// attention model, model() == the schedule's sum, the epilogue's events in the paper's words,
// parameter checks and refusals, and the mapping from the app's flat Params.
#include "kernels/skip/skip.h"
#include "kernels/core/registry.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>

using namespace kernels;
using namespace kernels::skip;

namespace {

SkipParams make(int64_t bh, int64_t batch, int64_t N, int64_t d, DType t, bool causal, int Br = 64, int Bc = 64) {
    SkipParams p;
    p.attn.batch_heads = bh;
    p.attn.N = N;
    p.attn.d = d;
    p.attn.dtype = t;
    p.attn.causal = causal;
    p.attn.Br = Br;
    p.attn.Bc = Bc;
    p.batch = batch;
    p.sigma_d = 0.5;
    p.t = 2.0;
    return p;
}

const BufferTraffic* find_buffer(const KernelModel& k, const std::string& name) {
    for (const BufferTraffic& b : k.buffers)
        if (b.buffer == name) return &b;
    return nullptr;
}

uint64_t read_of(const KernelModel& k, const std::string& name) {
    const BufferTraffic* b = find_buffer(k, name);
    return b ? b->bytes_read : 0;
}
uint64_t written_of(const KernelModel& k, const std::string& name) {
    const BufferTraffic* b = find_buffer(k, name);
    return b ? b->bytes_written : 0;
}

const char* kAll[] = {"attention", "two_pass", "fused", "teaching_two_pass", "teaching_fused", "wgmma_two_pass", "wgmma_fused"};

}  // namespace

TEST_CASE("skip variants: names, kernels and base attention kernel", "[skip][model]") {
    std::vector<std::string> names;
    for (const VariantInfo& v : variants()) names.push_back(v.name);
    CHECK(names == std::vector<std::string>{"attention", "two_pass", "fused", "teaching_two_pass", "teaching_fused",
                                            "wgmma_two_pass", "wgmma_fused"});
    CHECK(base_variant("fused") == "flash_tc");
    CHECK(base_variant("teaching_fused") == "flash");
    CHECK(base_variant("wgmma_two_pass") == "flash_wgmma");
    CHECK(base_variant("wgmma_fused") == "flash_wgmma");
    CHECK(is_fused("wgmma_fused"));
    CHECK(is_two_pass("wgmma_two_pass"));
    CHECK_FALSE(is_fused("wgmma_two_pass"));
    const SkipParams p = make(8, 2, 256, 64, DType::f16, false);
    for (const VariantInfo& v : variants())
        CHECK(model(v.name, p).kernels.size() == static_cast<size_t>(v.kernels));
    REQUIRE(variants("skip").size() == 7);
    // Each fused variant improves on the two-pass variant of its own kernel.
    for (const VariantInfo& v : variants("skip")) {
        if (v.name == "fused") CHECK(v.improves_on == "two_pass");
        if (v.name == "teaching_fused") CHECK(v.improves_on == "teaching_two_pass");
        if (v.name == "wgmma_fused") CHECK(v.improves_on == "wgmma_two_pass");
    }
}

TEST_CASE("skip bytes per kernel and buffer: attention + 3T for two_pass, + T for fused", "[skip][model]") {
    for (DType t : {DType::f16, DType::bf16})
        for (bool causal : {false, true})
            for (int64_t N : {int64_t{4096}, int64_t{1000}, int64_t{77}}) {
                const SkipParams p = make(8, 4, N, 64, t, causal);
                INFO("N " << N << (causal ? " causal" : "") << " " << to_string(t));
                const uint64_t T = tensor_bytes(p);
                CHECK(T == 8u * static_cast<uint64_t>(N) * 64u * static_cast<uint64_t>(dtype_bytes(t)));
                const Model att = attention::model("flash_tc", p.attn);
                const Model base = model("attention", p), two = model("two_pass", p), fused = model("fused", p);
                // attention: the flash_tc kernel's exact traffic; O is named attn_out.
                CHECK(base.bytes() == att.bytes());
                CHECK(written_of(base.kernels[0], "attn_out") == T);
                CHECK(find_buffer(base.kernels[0], "O") == nullptr);
                // two_pass: the same first kernel, then skip reads attn_out and x and writes out.
                CHECK(two.kernels[0].bytes_read() == att.bytes_read());
                CHECK(written_of(two.kernels[0], "attn_out") == T);
                CHECK(two.kernels[1].name == "skip");
                CHECK(read_of(two.kernels[1], "attn_out") == T);
                CHECK(read_of(two.kernels[1], "x") == T);
                CHECK(written_of(two.kernels[1], "out") == T);
                CHECK(two.kernels[1].bytes_read() + two.kernels[1].bytes_written() == 3 * T);
                // fused: reads x once, writes out instead of attn_out; attn_out never appears.
                CHECK(read_of(fused.kernels[0], "x") == T);
                CHECK(written_of(fused.kernels[0], "out") == T);
                CHECK(find_buffer(fused.kernels[0], "attn_out") == nullptr);
                CHECK(fused.bytes() == att.bytes() + T);
                CHECK(two.bytes() == fused.bytes() + 2 * T);  // attn_out written and read back
                CHECK(two.bytes() - base.bytes() == extra_bytes_over_attention("two_pass", p));
                CHECK(fused.bytes() - base.bytes() == extra_bytes_over_attention("fused", p));
                // FLOPs: attention's plus 3 per output element (c_skip x + c_out O).
                const double elements = static_cast<double>(T / static_cast<uint64_t>(dtype_bytes(t)));
                CHECK(fused.flops() == Approx(att.flops() + 3 * elements));
                CHECK(two.flops() == Approx(att.flops() + 3 * elements));
                CHECK(base.flops() == Approx(att.flops()));
            }
}

TEST_CASE("teaching variants use the teaching kernel's tile (Br, Bc from the parameters)", "[skip][model]") {
    for (auto [br, bc] : {std::pair<int, int>{16, 128}, {128, 32}, {64, 64}}) {
        const SkipParams p = make(4, 2, 1000, 48, DType::f32, false, br, bc);
        const Model att = attention::model("flash", p.attn);
        CHECK(model("teaching_fused", p).bytes() == att.bytes() + tensor_bytes(p));
        CHECK(model("teaching_two_pass", p).bytes() == att.bytes() + 3 * tensor_bytes(p));
        CHECK(schedule("teaching_fused", p).kernels[0].blocks == attention::schedule("flash", p.attn).kernels[0].blocks);
    }
}

TEST_CASE("wgmma variants: flash_wgmma's own traffic + 3T for two_pass, + T for fused, at every tile it offers",
          "[skip][model]") {
    for (int64_t d : {64, 128})
        for (int br : attention::kWgmmaRowTiles)
            for (int bc : attention::kWgmmaColTiles)
                for (bool causal : {false, true})
                    for (int64_t N : {int64_t{4096}, int64_t{1000}, int64_t{77}}) {
                        const SkipParams p = make(8, 4, N, d, DType::f16, causal, br, bc);
                        INFO("d " << d << " tile " << br << "x" << bc << " N " << N << (causal ? " causal" : ""));
                        if (!attention::wgmma_tile_built(br, bc, d)) {  // a tile that would spill or has no instance: refused, saying why
                            CHECK_THAT(validate("wgmma_fused", p), Catch::Contains("registers"));
                            continue;
                        }
                        REQUIRE(validate("wgmma_fused", p) == "");
                        const uint64_t T = tensor_bytes(p);
                        const Model att = attention::model("flash_wgmma", p.attn);
                        const Model two = model("wgmma_two_pass", p), fused = model("wgmma_fused", p);
                        // The first kernel is flash_wgmma with its tile: the same blocks and bytes.
                        CHECK(two.kernels[0].name == "flash_wgmma");
                        CHECK(fused.kernels[0].name == "flash_wgmma");
                        CHECK(schedule("wgmma_fused", p).kernels[0].blocks ==
                              attention::schedule("flash_wgmma", p.attn).kernels[0].blocks);
                        CHECK(schedule("wgmma_fused", p).kernels[0].threads_per_block == attention::flash_wgmma_threads(br));
                        CHECK(two.kernels[0].bytes_read() == att.bytes_read());
                        CHECK(written_of(two.kernels[0], "attn_out") == T);
                        CHECK(two.kernels[1].name == "skip");
                        CHECK(two.kernels[1].bytes_read() + two.kernels[1].bytes_written() == 3 * T);
                        CHECK(read_of(fused.kernels[0], "x") == T);
                        CHECK(written_of(fused.kernels[0], "out") == T);
                        CHECK(find_buffer(fused.kernels[0], "attn_out") == nullptr);
                        CHECK(fused.bytes() == att.bytes() + T);
                        CHECK(two.bytes() == att.bytes() + 3 * T);
                        CHECK(extra_bytes_over_attention("wgmma_fused", p) == T);
                        CHECK(extra_bytes_over_attention("wgmma_two_pass", p) == 3 * T);
                        const double elements = static_cast<double>(T / 2);
                        CHECK(fused.flops() == Approx(att.flops() + 3 * elements));
                        CHECK(two.flops() == Approx(att.flops() + 3 * elements));
                        // x and out are Oi's shape: the tile's rows of one head, d columns.
                        CHECK(device_bytes("wgmma_fused", p) == 5 * T);
                        CHECK(device_bytes("wgmma_two_pass", p) == 6 * T);
                    }
}

TEST_CASE("wgmma_fused's epilogue events: the producer's TMA brings x into Qi's place", "[skip][schedule]") {
    const SkipParams p = make(8, 2, 1000, 128, DType::bf16, false, 128, 128);
    const Schedule s = schedule("wgmma_fused", p);
    int x_loads = 0, computes = 0;
    for (size_t i = 0; i < s.events.size(); ++i) {
        const TileEvent& e = s.events[i];
        if (e.kind == EventKind::load && e.buffer == "x") {
            ++x_loads;
            CHECK_THAT(e.what, Catch::StartsWith("load x tile into SRAM: the producer warp's TMA copy, in Qi's place"));
            CHECK_THAT(e.what, Catch::Contains("(row block"));
            REQUIRE(i + 2 < s.events.size());
            CHECK_THAT(s.events[i + 1].what, Catch::Contains("in the consumer warpgroups' registers"));
            CHECK(s.events[i + 2].buffer == "out");
            ++computes;
        }
    }
    CHECK(x_loads == 2);  // 7 full row blocks of 128 and the ragged last one (104 rows)
    CHECK(computes == x_loads);
    for (const TileEvent& e : schedule("wgmma_two_pass", p).events)
        if (e.buffer == "attn_out" && e.kind == EventKind::store)
            CHECK_THAT(e.what, Catch::StartsWith("write attn_out tile Oi / l from the consumer warpgroups' registers (row block"));
}

TEST_CASE("every skip schedule sums to its model and names the epilogue in the paper's words", "[skip][schedule]") {
    for (const char* v : kAll)
        for (bool causal : {false, true})
            for (int64_t N : {int64_t{64}, int64_t{1000}, int64_t{16384}}) {
                const bool teaching = std::string(v).rfind("teaching", 0) == 0;
                const bool wgmma = std::string(v).rfind("wgmma", 0) == 0;
                const SkipParams p = make(6, 3, N, teaching ? 40 : 128, teaching ? DType::f32 : DType::bf16, causal,
                                          wgmma ? 128 : 32, 64);
                INFO(v << " N " << N);
                const Schedule s = schedule(v, p);
                const Model from_events = model_from_schedule(s);
                const Model m = model(v, p);
                CHECK(m.bytes_read() == from_events.bytes_read());
                CHECK(m.bytes_written() == from_events.bytes_written());
                CHECK(m.flops() == Approx(from_events.flops()));
                CHECK(model(v, to_params(p)).bytes() == m.bytes());  // through the app's flat Params
                bool x_load = false, out_store = false;
                for (const TileEvent& e : s.events) {
                    CHECK(!e.what.empty());
                    CHECK(e.buffer != "O");
                    if (e.kind == EventKind::load && e.buffer == "x") {
                        x_load = true;
                        CHECK(e.what.find(is_fused(v) ? "load x tile into SRAM" : "load x tile into registers") !=
                              std::string::npos);
                    }
                    if (e.kind == EventKind::store && e.buffer == "out") {
                        out_store = true;
                        CHECK(e.what.find("write out tile = c_skip*x + c_out*O") != std::string::npos);
                    }
                }
                CHECK(x_load == writes_out(v));
                CHECK(out_store == writes_out(v));
                // The skip kernel's blocks cover every element: full blocks plus a ragged tail.
                if (s.kernels.size() == 2) {
                    uint64_t blocks = 0;
                    for (const TileEvent& e : s.events)
                        if (e.kernel == 1 && e.kind == EventKind::store) blocks += e.repeat;
                    CHECK(blocks == s.kernels[1].blocks);
                    CHECK(s.kernels[1].blocks == skip_blocks(p));
                }
            }
}

TEST_CASE("the skip kernel's tail block is ragged when the elements do not fill it", "[skip][schedule]") {
    const SkipParams p = make(1, 1, 77, 8, DType::f16, false);  // 616 elements, 2048 per block
    const Schedule s = schedule("teaching_two_pass", p);
    REQUIRE(s.kernels.size() == 2);
    CHECK(s.kernels[1].blocks == 1);
    bool ragged = false;
    for (const TileEvent& e : s.events)
        if (e.kernel == 1 && e.kind == EventKind::store) {
            ragged = e.what.find("ragged: 616 of 2048") != std::string::npos;
            CHECK(e.bytes == 616u * 2u);
        }
    CHECK(ragged);
    CHECK(skip_vector_width(make(1, 1, 77, 7, DType::f32, false)) == 1);
}

TEST_CASE("skip parameters: batch divides batch x heads, sigma_d and t are checked", "[skip][validate]") {
    SkipParams p = make(16, 4, 256, 64, DType::f16, false);
    CHECK(validate("fused", p) == "");
    CHECK(heads_per_batch(p) == 4);
    p.batch = 3;
    CHECK(validate(p).find("batch = 3 does not divide batch x heads = 16") != std::string::npos);
    p.batch = 0;
    CHECK(validate(p).find("batch = 0 is out of range") != std::string::npos);
    p = make(16, 4, 256, 64, DType::f16, false);
    p.sigma_d = 0.7;
    CHECK(validate(p).find("sigma_d = 0.7 is not one of the choices: it must be 0.5 or 1") != std::string::npos);
    p.sigma_d = 1;
    p.t = -1;
    CHECK(validate(p).find("t = -1 is out of range") != std::string::npos);
    p.t = 0;
    CHECK(validate(p) == "");
    // flash_tc's own limits come through with the variant named.
    p.attn.dtype = DType::f32;
    CHECK(validate("fused", p).find("fused runs flash_tc, on tensor cores in fp16 or bf16 only") != std::string::npos);
    CHECK(validate("fused", p).find("for fp32 use teaching_two_pass or teaching_fused") != std::string::npos);
    CHECK(validate("teaching_fused", p) == "");
    p.attn.dtype = DType::f16;
    p.attn.d = 48;
    CHECK(validate("two_pass", p).find("two_pass runs flash_tc, built for d = 32, 64 or 128, not d = 48") !=
          std::string::npos);
    CHECK(validate("teaching_two_pass", p) == "");
    CHECK(validate("nope", p).find("unknown skip variant 'nope'") != std::string::npos);
    CHECK(validate("nope", p).find("wgmma_two_pass or wgmma_fused") != std::string::npos);
    // flash_wgmma's limits, with the variants that lift them.
    p = make(16, 4, 256, 64, DType::f32, false);
    CHECK(validate("wgmma_fused", p).find("wgmma_fused runs flash_wgmma, on tensor cores in fp16 or bf16 only") !=
          std::string::npos);
    p.attn.dtype = DType::bf16;
    p.attn.d = 32;
    CHECK(validate("wgmma_two_pass", p).find("wgmma_two_pass runs flash_wgmma, built for d = 64 or 128, not d = 32") !=
          std::string::npos);
    CHECK(validate("two_pass", p) == "");
    p.attn.d = 64;
    p.attn.Br = 32;
    CHECK(validate("wgmma_fused", p).find("wgmma_fused runs flash_wgmma: flash_wgmma takes Br = 64, 128 or 192") !=
          std::string::npos);
    p.attn.Br = 128;
    p.attn.Bc = 16;
    CHECK(validate("wgmma_fused", p).find("flash_wgmma takes Bc = 64, 80, 128 or 176") != std::string::npos);
    p.attn.Bc = 128;
    CHECK(validate("wgmma_fused", p) == "");
    // Through the app: the flat Params' validate() and the CLI-facing specs.
    Params app = to_params(make(16, 4, 256, 64, DType::f16, false));
    CHECK(kernels::validate(app) == "");
    app.set("batch", 5);
    CHECK(kernels::validate(app).find("batch = 5 does not divide") != std::string::npos);
    app.set("batch", 4);
    app.set("sigma_d", 2);
    CHECK(kernels::validate(app).find("sigma_d = 2 is not one of the choices: it must be 0.5 or 1") != std::string::npos);
    const ParamSpec* t = find_param_spec("skip", "t");
    REQUIRE(t != nullptr);
    CHECK(std::string(t->name) == "t");
    CHECK(find_param_spec("skip", "N") != nullptr);
    CHECK(find_param_spec("skip", "rows") == nullptr);
}

TEST_CASE("skip refusals: flash_tc below sm_80, shared memory, and this variant's buffers vs memory", "[skip][refusal]") {
    DeviceInfo old_gpu;
    old_gpu.name = "Old GPU";
    old_gpu.cc_major = 7;
    old_gpu.cc_minor = 5;
    old_gpu.smem_per_block = 49152;
    old_gpu.smem_per_block_optin = 65536;
    DeviceBudget dev{old_gpu, uint64_t{16} << 30, "in total"};
    const SkipParams p = make(16, 4, 1024, 64, DType::f16, false);
    CHECK(device_refusal("fused", p, dev).find("fused runs flash_tc: flash_tc needs compute capability 8.0") !=
          std::string::npos);
    CHECK(device_refusal("teaching_fused", p, dev) == "");
    // Memory: two_pass holds 6 tensors, fused 5, attention 4.
    CHECK(device_bytes("two_pass", p) == 6 * tensor_bytes(p));
    CHECK(device_bytes("fused", p) == 5 * tensor_bytes(p));
    CHECK(device_bytes("attention", p) == 4 * tensor_bytes(p));
    old_gpu.cc_major = 9;
    dev.memory_bytes = 5 * tensor_bytes(p);
    CHECK(device_refusal("fused", p, dev) == "");
    CHECK(device_refusal("two_pass", p, dev).find("two_pass needs " + std::to_string(6 * tensor_bytes(p))) !=
          std::string::npos);
    // Through the workload registry with a DeviceInfo.
    DeviceInfo info;
    info.name = "Old GPU";
    info.cc_major = 7;
    info.smem_per_block = 49152;
    info.smem_per_block_optin = 65536;
    info.global_mem_bytes = int64_t{16} << 30;
    CHECK(kernels::device_refusal("two_pass", to_params(p), DeviceBudget{info, uint64_t{16} << 30, "in total"})
              .find("compute capability 8.0") != std::string::npos);
}

TEST_CASE("skip refusals: the wgmma variants run on compute capability 9.0 alone, and say so", "[skip][refusal]") {
    const SkipParams p = make(16, 4, 1024, 128, DType::f16, false, 128, 128);
    DeviceInfo gpu;
    gpu.smem_per_block = 49152;
    gpu.smem_per_block_optin = 232448;
    for (auto [major, minor, name] : {std::tuple<int, int, const char*>{8, 0, "A100"}, {8, 9, "L40S"}, {10, 0, "B200"}}) {
        gpu.name = name;
        gpu.cc_major = major;
        gpu.cc_minor = minor;
        const std::string why = device_refusal("wgmma_fused", p, DeviceBudget{gpu, uint64_t{80} << 30, "free"});
        INFO(name << ": " << why);
        CHECK_THAT(why, Catch::StartsWith("wgmma_fused runs flash_wgmma: flash_wgmma needs compute capability 9.0"));
        CHECK_THAT(why, Catch::Contains(name));
        CHECK(device_refusal("fused", p, DeviceBudget{gpu, uint64_t{80} << 30, "free"}) == "");  // flash_tc takes 8.0 and newer
    }
    gpu.name = "H100";
    gpu.cc_major = 9;
    gpu.cc_minor = 0;
    CHECK(device_refusal("wgmma_fused", p, DeviceBudget{gpu, uint64_t{80} << 30, "free"}) == "");
    CHECK(device_refusal("wgmma_two_pass", p, DeviceBudget{gpu, 5 * tensor_bytes(p), "free"})
              .find("wgmma_two_pass needs " + std::to_string(6 * tensor_bytes(p))) != std::string::npos);
    CHECK(device_refusal("wgmma_fused", p, DeviceBudget{gpu, 5 * tensor_bytes(p), "free"}) == "");
}

TEST_CASE("min bytes: q, k, v, x read once and out written once", "[skip][model]") {
    const SkipParams p = make(8, 2, 512, 64, DType::bf16, false);
    CHECK(min_bytes(p) == 5 * tensor_bytes(p));
    CHECK(kernels::min_bytes(to_params(p)) == min_bytes(p));
    CHECK(model("fused", p).bytes() >= min_bytes(p));
}
