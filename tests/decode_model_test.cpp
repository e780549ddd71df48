// The decode model: bytes per buffer and level against closed forms (the cache read once at L2->SM
// by the grouped variants, G times by naive; DRAM once by all; the partials' round trip), L2->SM >=
// DRAM, the split count, the page table, refusals with their numbers, and the mapping from Params.
#include "kernels/core/registry.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/decode/decode.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <set>

using namespace kernels;
using namespace kernels::decode;

namespace {

DecodeParams make(int64_t batch, int64_t kv_len, int64_t heads, int64_t kv_heads, int64_t d = 128, int64_t page = 0,
                  DType t = DType::f16) {
    DecodeParams p;
    p.batch = batch;
    p.kv_len = kv_len;
    p.heads = heads;
    p.kv_heads = kv_heads;
    p.d = d;
    p.page = page;
    p.dtype = t;
    return p;
}

uint64_t read_of(const Model& m, const std::string& buffer, bool dram = false) {
    uint64_t sum = 0;
    for (const KernelModel& k : m.kernels)
        for (const BufferTraffic& b : k.buffers)
            if (b.buffer == buffer) sum += dram ? b.dram_read : b.bytes_read;
    return sum;
}
uint64_t written_of(const Model& m, const std::string& buffer) {
    uint64_t sum = 0;
    for (const KernelModel& k : m.kernels)
        for (const BufferTraffic& b : k.buffers)
            if (b.buffer == buffer) sum += b.bytes_written;
    return sum;
}

const char* kAll[] = {"naive", "flash", "split_kv", "split_kv_fused"};

}  // namespace

TEST_CASE("decode: the grouped variants read the cache once a pass of heads at L2->SM - naive once per query head", "[decode][model]") {
    for (const DecodeParams& p : {make(1, 32768, 32, 32), make(8, 8000, 32, 4), make(3, 1000, 12, 3, 64), make(2, 5000, 64, 8, 128, 16),
                                  make(4, 777, 16, 1, 64, 64, DType::bf16)}) {
        const uint64_t half = cache_bytes(p) / 2, G = static_cast<uint64_t>(group_size(p));
        INFO("batch " << p.batch << " kv_len " << p.kv_len << " heads " << p.heads << "/" << p.kv_heads << " page " << p.page);
        for (const char* v : {"flash", "split_kv", "split_kv_fused"}) {
            INFO(v);
            const Model m = model(v, p);
            // Once per pass of up to kMmaRows heads: once at GQA 4:1, 8:1 and multi-head, more past 16.
            const uint64_t passes = static_cast<uint64_t>(head_passes(p));
            CHECK(passes * static_cast<uint64_t>(pass_heads(p)) == G);
            CHECK(read_of(m, "K") == passes * half);
            CHECK(read_of(m, "V") == passes * half);
            CHECK(written_of(m, "out") == q_bytes(p));
            const int64_t S = split_of(v, p).splits;
            CHECK(read_of(m, "q") == q_bytes(p) * static_cast<uint64_t>(S));
            CHECK(m.flops() >= nominal_flops(p));
            if (std::string(v) != "flash") {
                const uint64_t partial = static_cast<uint64_t>(p.batch * p.heads * S * p.d) * 4;
                CHECK(written_of(m, "O_split") == partial);
                CHECK(read_of(m, "O_split") == partial);  // every partial read back once
                CHECK(read_of(m, "m_l") == static_cast<uint64_t>(p.batch * p.heads * S) * 8);
            }
        }
        const Model naive = model("naive", p);
        CHECK(read_of(naive, "K") == G * half);
        CHECK(read_of(naive, "V") == G * half);
        CHECK(written_of(naive, "S") == scores_bytes(p));
        CHECK(read_of(naive, "S") == 2 * scores_bytes(p));
        CHECK(written_of(naive, "P") == scores_bytes(p));
        CHECK(read_of(naive, "P") == scores_bytes(p));
        CHECK(naive.flops() == Approx(nominal_flops(p)));
        // Paged: the table is read, each block its pages' entries.
        if (p.page > 0) CHECK(read_of(model("flash", p), "pages") >= table_bytes(p));
        else CHECK(read_of(model("flash", p), "pages") == 0);
    }
}

TEST_CASE("decode: DRAM reads the cache once whatever G - and L2->SM >= DRAM for every buffer", "[decode][model]") {
    const DecodeParams p = make(2, 4096, 32, 4, 128, 16);
    for (const char* v : kAll) {
        INFO(v);
        const Model m = kernels::model(v, to_params(p));
        CHECK(read_of(m, "K", true) == cache_bytes(p) / 2);
        CHECK(read_of(m, "V", true) == cache_bytes(p) / 2);
        for (const KernelModel& k : m.kernels)
            for (const BufferTraffic& b : k.buffers) {
                INFO(k.name << " " << b.buffer);
                CHECK(b.bytes_read >= b.dram_read);
                CHECK(b.bytes_written >= b.dram_written);
            }
        CHECK(m.bytes() >= m.dram_bytes());
        CHECK(m.dram_bytes() >= min_bytes(p) - table_bytes(p));
    }
    // split_kv_fused's partials come back from L2 (its l2_reuse); split_kv's by the intermediate rule.
    CHECK(read_of(kernels::model("split_kv_fused", to_params(p)), "O_split", true) == 0);
    CHECK(read_of(kernels::model("split_kv", to_params(p)), "O_split", true) == 0);
}

TEST_CASE("decode: splits fill one wave of the blocks a SM holds on 132 SMs - chunks of whole tiles - only the last ragged", "[decode][model]") {
    const DecodeParams one = make(1, 32768, 32, 32);
    CHECK(work_items(one) == 32);
    const Split s = split_of("split_kv", one);
    CHECK(s.splits * work_items(one) <= int64_t{kPlanSms} * kBlocksPerSmTarget);
    CHECK(2 * s.splits * work_items(one) > int64_t{kPlanSms} * kBlocksPerSmTarget);
    // GQA (the tensor-core loop): one wave of 2 blocks a SM at d = 128 (its 96 KiB rings), chunks of 64 keys.
    const DecodeParams gqa = make(8, 8192, 32, 4);
    REQUIRE(uses_mma(gqa));
    CHECK(blocks_per_sm(gqa) == 2);
    const Split gs = split_of("split_kv", gqa);
    CHECK(gs.splits * work_items(gqa) <= int64_t{kPlanSms} * 2);
    CHECK(2 * gs.splits * work_items(gqa) > int64_t{kPlanSms} * 2);
    CHECK(gs.chunk % key_tile(gqa) == 0);
    CHECK(key_tile(gqa) == 64);
    CHECK(loop_smem_bytes(gqa) == 96 * 1024);
    CHECK(loop_smem_bytes(make(8, 8192, 32, 4, 64)) == 48 * 1024);
    CHECK(s.chunk % kv_tile(128) == 0);
    CHECK(split_of("flash", one).splits == 1);
    // Large batch: one split (the blocks already fill the GPU).
    CHECK(split_of("split_kv", make(64, 8192, 32, 32)).splits == 1);
    // Short caches: chunks of at least kMinChunk keys.
    CHECK(split_of("split_kv", make(1, 1000, 8, 8)).splits <= 1000 / kMinChunk);
    // Asked splits: ragged last chunk.
    DecodeParams r = make(1, 1000, 8, 8);
    r.splits = 7;
    const Split rs = split_of("split_kv", r);
    CHECK(rs.chunk * (rs.splits - 1) < 1000);
    CHECK(rs.chunk * rs.splits >= 1000);
    // GQA: a pass serves the largest divisor of the group up to kMmaRows = 16 heads; multi-head one.
    CHECK(pass_heads(make(1, 64, 32, 8)) == 4);
    CHECK(pass_heads(make(1, 64, 32, 4)) == 8);
    CHECK(head_passes(make(1, 64, 32, 4)) == 1);
    CHECK(head_passes(make(1, 64, 64, 2)) == 2);
    CHECK(pass_heads(make(1, 64, 24, 1)) == 12);
    CHECK(pass_heads(make(1, 64, 12, 2)) == 6);
    CHECK(pass_heads(make(1, 64, 5, 1)) == 5);
    CHECK(pass_heads(make(1, 64, 8, 8)) == 1);
    CHECK_FALSE(uses_mma(make(1, 64, 8, 8)));
}

TEST_CASE("decode: FUSIONLAB_DECODE_GRID=persistent - GQA split variants walk units on one block per SM slot and the model follows",
          "[decode][model]") {
    const DecodeParams gqa = make(8, 8192, 32, 4), mh = make(8, 8192, 32, 32);
    CHECK_FALSE(uses_persistent("split_kv_fused", gqa));  // the default: waves, one block a unit
    CHECK(loop_blocks("split_kv_fused", gqa) == loop_units("split_kv_fused", gqa));
    ::setenv("FUSIONLAB_DECODE_GRID", "persistent", 1);
    struct Unset {
        ~Unset() { ::unsetenv("FUSIONLAB_DECODE_GRID"); }
    } unset;
    CHECK(uses_persistent("split_kv_fused", gqa));
    CHECK(uses_persistent("split_kv", gqa));
    CHECK_FALSE(uses_persistent("flash", gqa));            // one block a (sequence, KV head): nothing to walk
    CHECK_FALSE(uses_persistent("split_kv_fused", mh));    // the CUDA-core loop keeps its waves
    // About kPersistentUnitsPerSlot units a slot: batch 8 x 8k GQA 8:1, 32 items, 264 slots: 16 splits, 512 units.
    CHECK(split_of("split_kv_fused", gqa).splits == 16);
    CHECK(loop_units("split_kv_fused", gqa) == 512);
    CHECK(loop_blocks("split_kv_fused", gqa) == int64_t{kPlanSms} * 2);
    // Batch 1: the wave's count already gives one unit a slot (more splits would lengthen the merge).
    CHECK(split_of("split_kv_fused", make(1, 32768, 32, 4)).splits == 64);
    CHECK(split_of("split_kv_fused", make(1, 32768, 32, 4)).splits <= kMaxAutoSplits);
    // The schedule: the units as blocks (the simulator prices them in waves), the grid said, the ramp once a block.
    const Schedule sc = schedule("split_kv_fused", gqa);
    REQUIRE(!sc.kernels.empty());
    CHECK(sc.kernels[0].blocks == 512);
    CHECK(sc.kernels[0].block.persistent);
    CHECK_THAT(sc.kernels[0].blocks_are, Catch::Contains("persistent grid of 264 blocks"));
    CHECK(sc.kernels[0].block.pipelined_steps == 2 * sc.kernels[0].block.serial_steps);
    CHECK_THAT(describe(to_params(gqa), "split_kv_fused"), Catch::Contains("512 units of 8 query heads on a persistent grid of 264 blocks"));
}

TEST_CASE("decode: the page table is a permutation of the pool - in random order", "[decode][model]") {
    const DecodeParams p = make(3, 1000, 8, 2, 128, 16);
    const std::vector<int32_t> t = page_table(p);
    REQUIRE(t.size() == static_cast<size_t>(3 * 63));
    std::vector<int32_t> sorted = t;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int32_t> iota(t.size());
    std::iota(iota.begin(), iota.end(), 0);
    CHECK(sorted == iota);
    int in_place = 0;
    for (size_t i = 0; i < t.size(); ++i) in_place += t[i] == static_cast<int32_t>(i);
    CHECK(in_place < 10);
    DecodeParams other = p;
    other.seed = 99;
    CHECK(page_table(other) != t);
    CHECK(page_table(make(1, 64, 1, 1)).empty());
}

TEST_CASE("decode: refusals name the parameter and the numbers", "[decode][model]") {
    CHECK_THAT(validate(make(1, 64, 32, 5)), Catch::Contains("kv_heads = 5 does not divide heads = 32"));
    CHECK_THAT(validate(make(1, 64, 32, 8, 128, 48)), Catch::Contains("page = 48 is not offered"));
    CHECK_THAT(validate(make(1, 64, 32, 8, 96)), Catch::Contains("d = 96 is not offered"));
    CHECK_THAT(validate(make(1, 64, 32, 8, 128, 0, DType::f32)), Catch::Contains("fp32 is not offered"));
    CHECK_THAT(validate(make(1, 200000, 32, 8)), Catch::Contains("kv_len = 200000 is out of range"));
    CHECK_THAT(validate(make(300, 64, 32, 8)), Catch::Contains("batch = 300"));
    CHECK(validate(make(256, 131072, 128, 128)).empty());
    const SimGpu* h100 = find_sim_gpu("H100");
    REQUIRE(h100);
    const DecodeParams big = make(256, 131072, 128, 128);
    const std::string why = device_refusal("flash", big, total_memory_budget(h100->info));
    CHECK_THAT(why, Catch::Contains("the KV cache"));
    CHECK_THAT(why, Catch::Contains("2048.00 GiB"));
    CHECK_THAT(why, Catch::Contains("in total"));
    CHECK(device_refusal("flash", make(8, 8192, 32, 8), total_memory_budget(h100->info)).empty());
    // naive's S and P (1 GiB here) can refuse where the others fit.
    const DecodeParams s_and_p = make(64, 131072, 32, 8, 128);
    const DeviceBudget tight{h100->info, device_bytes("split_kv", s_and_p) + (uint64_t{1} << 29), "free"};
    CHECK(device_refusal("flash", s_and_p, tight).empty());
    CHECK(device_refusal("split_kv", s_and_p, tight).empty());
    CHECK_THAT(device_refusal("naive", s_and_p, tight), Catch::Contains("S and P 1.00 GiB"));
    // A real GPU below compute capability 8.0 has no tensor-core GQA loop: refused with the reason; multi-head
    // and naive still run there, and a simulated GPU of that age is priced, not refused.
    DeviceInfo turing = h100->info;
    turing.name = "Tesla T4";
    turing.simulated = false;
    turing.cc_major = 7;
    turing.cc_minor = 5;
    const DeviceBudget t4{turing, uint64_t{16} << 30, "free"};
    CHECK_THAT(device_refusal("split_kv_fused", make(8, 8192, 32, 8), t4), Catch::Contains("compute capability 8.0 or newer; Tesla T4 is 7.5"));
    CHECK_THAT(device_refusal("flash", make(8, 8192, 32, 8), t4), Catch::Contains("kv_heads 8 < heads 32"));
    CHECK(device_refusal("naive", make(8, 8192, 32, 8), t4).empty());
    CHECK(device_refusal("split_kv", make(8, 8192, 32, 32), t4).empty());
    turing.simulated = true;
    CHECK(device_refusal("split_kv", make(8, 8192, 32, 8), DeviceBudget{turing, uint64_t{16} << 30, "in total"}).empty());
    // Through the registry: the same message for Params.
    CHECK_THAT(kernels::validate(to_params(make(1, 64, 32, 5))), Catch::Contains("does not divide"));
}

TEST_CASE("decode: Params round trip and the registry's description", "[decode][model]") {
    DecodeParams p = make(4, 3000, 16, 4, 64, 32, DType::bf16);
    p.splits = 5;
    p.seed = 77;
    CHECK(to_decode(to_params(p)) == p);
    const Params d = default_params("decode");
    CHECK(kernels::validate(d).empty());
    const std::string text = describe(to_params(make(1, 32768, 32, 32)), "split_kv");
    CHECK_THAT(text, Catch::Contains("splits of"));
    CHECK_THAT(text, Catch::Contains("blocks"));
    for (const char* v : kAll) CHECK(!schedule(v, to_params(make(1, 100, 8, 2, 128, 16))).events.empty());
}
