// The model's byte and FLOP totals (summed from the tile schedule) against closed forms.
#include "kernels/elementwise/elementwise.h"
#include "kernels/workload.h"

#include <catch2/catch.hpp>

using namespace kernels;

namespace {

Params make(Workload w, int64_t rows, int64_t hidden, DType t) {
    Params p;
    p.workload = w;
    p.rows = rows;
    p.hidden = hidden;
    p.dtype = t;
    return p;
}

uint64_t sum_event_bytes(const Schedule& s, EventKind kind) {
    uint64_t b = 0;
    for (const TileEvent& e : s.events)
        if (e.kind == kind) b += e.bytes * e.repeat;
    return b;
}

}  // namespace

TEST_CASE("chain model bytes match the closed form for every dtype and ragged size", "[model]") {
    for (DType t : kAllDTypes) {
        for (auto [rows, hidden] : {std::pair<int64_t, int64_t>{1, 1}, {7, 33}, {513, 1000}, {8192, 8192}, {3, 4097}}) {
            const Params p = make(Workload::chain, rows, hidden, t);
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
    const Params p = make(Workload::chain, 100, 300, DType::bf16);
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
            const Params p = make(Workload::bias_gelu, rows, hidden, t);
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
    for (Workload w : elementwise::kWorkloads) {
        for (const VariantInfo& v : variants(w)) {
            const Params p = make(w, 37, 1001, DType::f16);
            const Schedule s = schedule(v.name, p);
            const Model m = model_from_schedule(s);
            CAPTURE(to_string(w), v.name);
            CHECK(static_cast<int>(s.kernels.size()) == v.kernels);
            CHECK(sum_event_bytes(s, EventKind::load) == m.bytes_read());
            CHECK(sum_event_bytes(s, EventKind::store) == m.bytes_written());
            // Every output element is stored exactly once per kernel.
            for (size_t k = 0; k < s.kernels.size(); ++k) {
                uint64_t stored = 0, store_blocks = 0;
                for (const TileEvent& e : s.events)
                    if (e.kernel == static_cast<int>(k) && e.kind == EventKind::store) {
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

TEST_CASE("unknown variants are refused", "[model]") {
    const Params p = make(Workload::chain, 4, 4, DType::f32);
    CHECK_THROWS_WITH(model("flash", p), Catch::Contains("unknown variant"));
}

TEST_CASE("chain_flops names every kernel of the model", "[model]") {
    const Params p = make(Workload::chain, 3, 5, DType::f32);
    for (const char* variant : {"unfused", "fused"})
        for (const KernelModel& k : model(variant, p).kernels)
            CHECK(elementwise::chain_flops(k.name, p) == Approx(k.flops));
}
