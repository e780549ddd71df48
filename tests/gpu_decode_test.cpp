// Every decode variant on the GPU against the float64 CPU reference: random caches (never zeros),
// out and the intermediates poisoned (NaN) before each run, kv_len neither a multiple of the key tile,
// of a split nor of a page, pages in random order, GQA ratios 1, 4, 6 and 8, d 64 and 128, fp16 and
// bf16; split_kv_fused run again on the same buffers (its counters reset); refusals; the GPU backend
// checks and times each variant per kernel like the model.
#include "kernels/core/backend.h"
#include "kernels/core/output_check.h"
#include "kernels/core/registry.h"
#include "kernels/gpu/sanitizer_run.h"
#include "kernels/decode/decode.h"
#include "kernels/decode/decode_gpu.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using kernels::DType;
using namespace kernels::decode;

namespace {

DecodeParams make(int64_t batch, int64_t kv_len, int64_t heads, int64_t kv_heads, int64_t d, DType t, int64_t page = 0,
                  int64_t splits = 0, uint64_t seed = 1) {
    DecodeParams p;
    p.batch = batch;
    p.kv_len = kv_len;
    p.heads = heads;
    p.kv_heads = kv_heads;
    p.d = d;
    p.dtype = t;
    p.page = page;
    p.splits = splits;
    p.seed = seed;
    return p;
}

const char* kAll[] = {"naive", "flash", "split_kv", "split_kv_fused"};

// Runs the variant and compares the rows the backend's check compares (every row when cheap).
void check_variant(const std::string& variant, const DecodeParams& p, int runs = 1) {
    INFO(variant << ": batch " << p.batch << ", kv_len " << p.kv_len << ", heads " << p.heads << "/" << p.kv_heads << ", d "
                 << p.d << ", " << kernels::to_string(p.dtype) << ", page " << p.page << ", splits " << p.splits);
    const gpu::Output r = gpu::run_once(variant, p, runs);
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(r.nonfinite == 0);
    kernels::ErrorSum e;
    std::vector<double> want(static_cast<size_t>(p.d));
    for (const RowRef& row : rows_to_check(p, kernels::kQuickCheck.max_mults)) {
        reference_row(p, row.b, row.h, want.data());
        e.add(&r.out[static_cast<size_t>((row.b * p.heads + row.h) * p.d)], want.data(), static_cast<size_t>(p.d));
    }
    INFO("rel_l2 " << e.rel_l2() << ", max_abs " << e.max_abs << ", splits run " << r.splits);
    CHECK(kernels::output_matches(p.dtype, e.rel_l2(), e.max_abs));
    if (p.kv_len > 1) CHECK(e.rel_l2() > 0);  // rounded to the dtype: zero would mean nothing was compared (one key gives V exactly)
}

}  // namespace

TEST_CASE("decode variants match the reference: GQA 1, 4, 6, 8, d 64/128, fp16/bf16, ragged kv_len, pages in random order",
          "[gpu][decode]") {
    const bool sanitizer = kernels::sanitizer_run();
    for (DType t : {DType::f16, DType::bf16})
        for (int64_t d : {64, 128})
            for (int64_t page : {0, 16, 64}) {
                // kv_len 1000 and 3001: not a multiple of the key tile (32 or 64), of the chunk or of the page.
                check_variant("naive", make(2, 1000, 8, 8, d, t, page));
                for (const char* v : {"flash", "split_kv", "split_kv_fused"}) {
                    check_variant(v, make(2, 1000, 8, 8, d, t, page));     // multi-head
                    check_variant(v, make(3, 3001, 16, 4, d, t, page));    // GQA 4:1
                    if (sanitizer) continue;
                    check_variant(v, make(1, 3001, 32, 4, d, t, page));    // GQA 8:1: 2 passes of 4
                    check_variant(v, make(2, 777, 12, 2, d, t, page));     // a group of 6: passes of 2 heads
                    check_variant(v, make(2, 300, 16, 1, d, t, page));     // multi-query: 4 passes of 4
                }
            }
}

TEST_CASE("decode: tiny and odd caches, asked split counts, one key", "[gpu][decode]") {
    for (const char* v : kAll) {
        check_variant(v, make(1, 1, 4, 2, 128, DType::f16));
        check_variant(v, make(2, 5, 4, 1, 64, DType::bf16, 16));
        check_variant(v, make(1, 257, 8, 8, 128, DType::f16, 256));
    }
    for (int64_t splits : {1, 3, 7, 64, 1024}) {
        check_variant("split_kv", make(2, 1000, 8, 2, 128, DType::f16, 32, splits));
        check_variant("split_kv_fused", make(2, 1000, 8, 2, 64, DType::bf16, 0, splits));
    }
}

TEST_CASE("decode small: each variant once, for the sanitizers", "[gpu][decode][sanitize]") {
    for (const char* v : kAll) {
        check_variant(v, make(2, 200, 8, 2, 128, DType::f16, 16, 3));
        check_variant(v, make(1, 100, 4, 4, 64, DType::bf16, 0, 2));
    }
}

TEST_CASE("decode split_kv_fused: run again on the same buffers, the counters come back to 0", "[gpu][decode]") {
    check_variant("split_kv_fused", make(2, 4000, 16, 2, 128, DType::f16, 16), 3);
    check_variant("split_kv_fused", make(1, 5000, 32, 32, 64, DType::bf16), 4);
}

TEST_CASE("decode: long caches, sampled rows, split_kv against flash", "[gpu][decode]") {
    if (kernels::sanitizer_run()) return;  // the code paths are those of the shorter caches
    for (const char* v : {"flash", "split_kv", "split_kv_fused"}) {
        check_variant(v, make(1, 32768, 32, 32, 128, DType::f16));
        check_variant(v, make(4, 131072, 32, 4, 128, DType::bf16, 64));
    }
    check_variant("naive", make(1, 32768, 32, 8, 128, DType::f16, 16));
}

TEST_CASE("decode refusals name the reason, and nothing runs", "[gpu][decode]") {
    const gpu::Output a = gpu::run_once("flash", make(1, 64, 32, 5, 128, DType::f16));
    CHECK_FALSE(a.ok);
    CHECK_THAT(a.error, Catch::Contains("kv_heads = 5 does not divide heads = 32"));
    const gpu::Output b = gpu::run_once("split_kv", make(1, 64, 32, 8, 128, DType::f16, 48));
    CHECK_FALSE(b.ok);
    CHECK_THAT(b.error, Catch::Contains("page = 48 is not offered"));
    const std::string big = gpu::why_not_runnable("flash", make(256, 131072, 128, 128, 128, DType::f16));
    CHECK_THAT(big, Catch::Contains("the KV cache"));
    CHECK_THAT(big, Catch::Contains("free"));
}

TEST_CASE("GPU backend runs decode: checked, timed per kernel like the model", "[gpu][decode]") {
    std::string why;
    auto backend = kernels::make_gpu_backend(&why);
    REQUIRE(backend != nullptr);
    for (const char* v : kAll) {
        kernels::Job job;
        job.backend = kernels::BackendKind::gpu;
        job.variant = v;
        job.params = to_params(make(2, 4000, 16, 4, 128, DType::f16, 16));
        job.reps = kernels::sanitizer_run() ? 2 : 20;
        job.measure_counters = false;
        REQUIRE(backend->unavailable_reason(job).empty());
        const kernels::Measurement m = backend->run(job, {});
        INFO(v << ": " << m.error);
        REQUIRE(m.ok);
        CHECK(m.checked);
        CHECK(kernels::output_matches(DType::f16, m.rel_l2_error, m.max_abs_error));
        const kernels::Model model = kernels::model(v, job.params);
        REQUIRE(m.kernels.size() == model.kernels.size());
        for (size_t k = 0; k < model.kernels.size(); ++k) CHECK(m.kernels[k].name == model.kernels[k].name);
        CHECK(m.l2_bytes_read + m.l2_bytes_written == model.bytes());
    }
}
