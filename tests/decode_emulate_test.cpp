// The decode variants' arithmetic on the CPU (kernels/decode/decode_emulate.cpp) and the float64
// reference (decode_reference.cpp): errors of the size the dtype's rounding makes and no smaller, a
// merge without the rescale caught, one key gives V exactly, the page size and a single split leave
// the arithmetic unchanged, the rows the GPU check compares, and the time limit.
#include "kernels/sim/emulate.h"
#include "kernels/core/output_check.h"
#include "kernels/decode/decode.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace kernels;
using namespace kernels::decode;

namespace {

DecodeParams make(int64_t batch, int64_t kv_len, int64_t heads, int64_t kv_heads, int64_t d, DType t, int64_t page = 0) {
    DecodeParams p;
    p.batch = batch;
    p.kv_len = kv_len;
    p.heads = heads;
    p.kv_heads = kv_heads;
    p.d = d;
    p.dtype = t;
    p.page = page;
    return p;
}

EmulationBudget generous() { return EmulationBudget{kFullCheck, 30.0, {}}; }

const char* kAll[] = {"naive", "flash", "split_kv", "split_kv_fused"};

}  // namespace

TEST_CASE("decode emulation: every variant's error is rounding-sized - and bf16's larger than fp16's", "[decode][emulate]") {
    for (int64_t d : {64, 128}) {
        // kv_len 1000: neither a multiple of the key tile nor of a split; GQA 4:1.
        const DecodeParams h = make(1, 1000, 8, 2, d, DType::f16), b = make(1, 1000, 8, 2, d, DType::bf16);
        for (const char* v : kAll) {
            INFO(v << " d " << d);
            const EmulatedCheck eh = emulate(v, h, generous()), eb = emulate(v, b, generous());
            REQUIRE(eh.computed);
            REQUIRE(eb.computed);
            CHECK(eh.rows == 8);
            CHECK(output_matches(DType::f16, eh.rel_l2, eh.max_abs));
            CHECK(output_matches(DType::bf16, eb.rel_l2, eb.max_abs));
            CHECK(eh.rel_l2 > 1e-5);  // out is rounded to fp16: never exact
            CHECK(eb.rel_l2 > eh.rel_l2);
            CHECK(eb.rel_l2 < 1e-2);
        }
    }
}

TEST_CASE("decode emulation: a merge that leaves out the last split is caught", "[decode][emulate]") {
    // The softmax over the first 3 of 4 splits of 512 keys, exact: the off-by-one a combine loop can
    // have. (Random inputs give near-uniform softmaxes, so even a merge that forgot the rescale
    // 2^(m_s - M) would err by less than fp16's tolerance: the emulation's order is checked against the
    // reference instead, and the GPU's against both.)
    const DecodeParams p = make(1, 2048, 1, 1, 64, DType::f16);
    const GroupInputs& in = group_inputs(p, 0, 0);
    std::vector<double> q(64), o(64, 0.0), want(64);
    for (int c = 0; c < 64; ++c) q[static_cast<size_t>(c)] = q_value(p, 0, 0, c);
    double l = 0;
    for (int t = 0; t < 3 * 512; ++t) {
        double dot = 0;
        for (int c = 0; c < 64; ++c) dot += q[static_cast<size_t>(c)] * in.K[static_cast<size_t>(t * 64 + c)];
        const double w = std::exp(dot / 8.0);
        l += w;
        for (int c = 0; c < 64; ++c) o[static_cast<size_t>(c)] += w * in.V[static_cast<size_t>(t * 64 + c)];
    }
    reference_row(p, 0, 0, want.data());
    ErrorSum wrong;
    std::vector<float> got(64);
    for (int c = 0; c < 64; ++c) got[static_cast<size_t>(c)] = static_cast<float>(o[static_cast<size_t>(c)] / l);
    wrong.add(got.data(), want.data(), 64);
    CHECK_FALSE(output_matches(DType::f16, wrong.rel_l2(), wrong.max_abs));
    // The emulated split_kv on the same row passes.
    emulate_row("split_kv", p, 0, 0, got.data());
    ErrorSum right;
    right.add(got.data(), want.data(), 64);
    CHECK(output_matches(DType::f16, right.rel_l2(), right.max_abs));
}

TEST_CASE("decode reference: one key gives V - and the emulation stores it exactly", "[decode][emulate]") {
    const DecodeParams p = make(2, 1, 4, 2, 128, DType::bf16);
    std::vector<double> want(128);
    std::vector<float> got(128);
    reference_row(p, 1, 3, want.data());
    const GroupInputs& in = group_inputs(p, 1, 1);
    for (int c = 0; c < 128; ++c) CHECK(want[static_cast<size_t>(c)] == static_cast<double>(in.V[static_cast<size_t>(c)]));
    for (const char* v : kAll) {
        emulate_row(v, p, 1, 3, got.data());
        for (int c = 0; c < 128; ++c) CHECK(got[static_cast<size_t>(c)] == in.V[static_cast<size_t>(c)]);
    }
}

TEST_CASE("decode emulation: the page size and a single split leave the arithmetic unchanged", "[decode][emulate]") {
    const DecodeParams flat = make(64, 700, 8, 8, 64, DType::f16), paged = make(64, 700, 8, 8, 64, DType::f16, 32);
    REQUIRE(split_of("split_kv", flat).splits == 1);
    std::vector<float> a(64), b(64), c(64);
    emulate_row("flash", flat, 5, 3, a.data());
    emulate_row("flash", paged, 5, 3, b.data());
    emulate_row("split_kv_fused", flat, 5, 3, c.data());
    CHECK(a == b);
    CHECK(a == c);
    // With several splits the merge adds roundings: still within the dtype's.
    const DecodeParams one = make(1, 4096, 8, 8, 64, DType::f16);
    REQUIRE(split_of("split_kv", one).splits > 1);
}

TEST_CASE("decode check rows: every row when cheap - whole groups otherwise - the time limit", "[decode][emulate]") {
    CHECK(rows_to_check(make(2, 100, 8, 2, 64, DType::f16), kFullCheck.max_mults).size() == 16);
    const DecodeParams big = make(64, 131072, 32, 4, 128, DType::f16);
    const std::vector<RowRef> rows = rows_to_check(big, kFullCheck.max_mults);
    REQUIRE(!rows.empty());
    CHECK(rows.size() >= 3);
    CHECK(rows.front().b == 0);
    for (const RowRef& r : rows) CHECK(r.h / group_size(big) == rows.front().h / group_size(big));
    EmulationBudget tight{kFullCheck, 0.01, {}};
    const EmulatedCheck e = emulate("split_kv", big, tight);
    CHECK_FALSE(e.computed);
    CHECK_THAT(e.why_not, Catch::Contains("not emulated"));
    CHECK_THAT(emulate("flash", make(1, 64, 6, 4, 64, DType::f16), generous()).why_not, Catch::Contains("does not divide"));
}
