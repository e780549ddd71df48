// Every decode variant through the GPU backend's checked run (tests/gpu_backend_fixture.h: the check
// users see, against the float64 CPU reference, with out and the intermediates poisoned before the
// run and all of out scanned for poison): random caches (never zeros), kv_len neither a multiple of
// the key tile, of a split nor of a page, pages in random order, GQA ratios 1 (the CUDA-core loop)
// and 2, 3, 4, 5, 6, 8, 16, 24, 32 (the tensor-core loop: one pass of up to 16 heads, or passes of
// the largest divisor up to 16), d 64 and 128, fp16 and bf16; split_kv_fused run again on the same
// buffers (its counters reset by its last blocks); refusals name the reason; the backend times each
// variant per kernel like the model.
#include "kernels/core/backend.h"
#include "kernels/core/output_check.h"
#include "kernels/core/registry.h"
#include "kernels/decode/decode.h"
#include "kernels/gpu/sanitizer_run.h"
#include "tests/gpu_backend_fixture.h"

#include <catch2/catch.hpp>

#include <algorithm>
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

// The backend's checked run (fl_test::check_on_gpu), and an error that cannot be zero: rounded to the
// dtype, a zero error would mean nothing was compared (one key gives V exactly).
kernels::Measurement check_variant(const std::string& variant, const DecodeParams& p) {
    INFO(variant << ": batch " << p.batch << ", kv_len " << p.kv_len << ", heads " << p.heads << "/" << p.kv_heads << ", d "
                 << p.d << ", " << kernels::to_string(p.dtype) << ", page " << p.page << ", splits " << p.splits
                 << (uses_mma(p) ? " (tensor-core loop, " + std::to_string(pass_heads(p)) + " heads a block)" : std::string()));
    const kernels::Measurement m = fl_test::check_on_gpu(to_params(p), variant);
    if (p.kv_len > 1) CHECK(m.rel_l2_error > 0);
    return m;
}

}  // namespace

// Under a sanitizer (FUSIONLAB_SANITIZER_RUN) every launch costs milliseconds per block, so the cases below
// keep every code path (each group size, pass count, page size, dtype and d) and shorten the caches to
// at most `kSanitizedKeys` keys, still ragged (not a multiple of the key tile, chunk or page). The split and
// merge paths at asked split counts run in "decode: tiny and odd caches", which is not shortened.
constexpr int64_t kSanitizedKeys = 301;
int64_t keys(int64_t kv_len) { return kernels::sanitizer_run() ? std::min(kv_len, kSanitizedKeys) : kv_len; }

TEST_CASE("decode variants match the reference: GQA 1 to 8 - d 64 and 128 - fp16 and bf16 - ragged kv_len - pages in random order",
          "[gpu][decode]") {
    for (DType t : {DType::f16, DType::bf16})
        for (int64_t d : {64, 128})
            for (int64_t page : {0, 16, 64}) {
                // kv_len 1000 and 3001: not a multiple of the key tile (32, 64), of the chunk or of the page.
                check_variant("naive", make(2, keys(1000), 8, 8, d, t, page));
                for (const char* v : {"flash", "split_kv", "split_kv_fused"}) {
                    check_variant(v, make(2, keys(1000), 8, 8, d, t, page));     // multi-head: CUDA cores
                    check_variant(v, make(3, keys(3001), 16, 4, d, t, page));    // GQA 4:1: tensor cores, 4 of 16 rows
                    check_variant(v, make(1, keys(3001), 32, 4, d, t, page));    // GQA 8:1: 8 of 16 rows
                    check_variant(v, make(2, keys(777), 12, 2, d, t, page));     // a group of 6
                    check_variant(v, make(2, keys(300), 16, 1, d, t, page));     // multi-query: 16 rows, all used
                }
            }
}

TEST_CASE("decode GQA on tensor cores: groups of 2 3 5 16 24 32 and passes", "[gpu][decode]") {
    for (const char* v : {"flash", "split_kv", "split_kv_fused"})
        for (int64_t d : {64, 128}) {
            check_variant(v, make(2, keys(1500), 8, 4, d, DType::f16, 16));    // 2 heads a block
            check_variant(v, make(1, keys(2049), 12, 4, d, DType::bf16, 64));  // 3
            check_variant(v, make(3, keys(999), 5, 1, d, DType::f16));         // 5: a prime group
            check_variant(v, make(1, keys(4097), 32, 2, d, DType::bf16, 32));  // 16: every row of the mma
            check_variant(v, make(2, keys(1234), 24, 1, d, DType::f16, 128));  // 24: 2 passes of 12
            check_variant(v, make(1, keys(2000), 64, 2, d, DType::f16, 256));  // 32: 2 passes of 16
        }
}

TEST_CASE("decode: tiny and odd caches - asked split counts - one key", "[gpu][decode]") {
    for (const char* v : kAll) {
        check_variant(v, make(1, 1, 4, 2, 128, DType::f16));
        check_variant(v, make(2, 5, 4, 1, 64, DType::bf16, 16));
        check_variant(v, make(1, 257, 8, 8, 128, DType::f16, 256));
        check_variant(v, make(1, 70, 16, 2, 128, DType::bf16));  // one block step and 6 keys: 3 warps idle at the end
    }
    for (int64_t splits : {1, 3, 7, 64, 1024}) {
        check_variant("split_kv", make(2, 1000, 8, 2, 128, DType::f16, 32, splits));
        check_variant("split_kv_fused", make(2, 1000, 8, 2, 64, DType::bf16, 0, splits));
        check_variant("split_kv_fused", make(2, 1000, 8, 8, 64, DType::f16, 16, splits));
    }
}

TEST_CASE("decode small: each variant once for the sanitizers", "[gpu][decode][sanitize]") {
    for (const char* v : kAll) {
        check_variant(v, make(2, 200, 8, 2, 128, DType::f16, 16, 3));
        check_variant(v, make(1, 100, 4, 4, 64, DType::bf16, 0, 2));
        check_variant(v, make(1, 300, 16, 1, 64, DType::bf16, 64, 2));
    }
}

// The backend keeps a workload's buffers from one job to the next of the same parameters, and the
// counters are zeroed only when allocated: the second job's checked run comes after the first job's
// timed reps, so a last block that did not reset its counter leaves out poisoned and fails the check.
TEST_CASE("decode split_kv_fused: run again on the same buffers - the counters come back to 0", "[gpu][decode]") {
    for (const DecodeParams& p : {make(2, 4000, 16, 2, 128, DType::f16, 16), make(1, 5000, 32, 32, 64, DType::bf16)})
        for (int job = 0; job < 3; ++job) check_variant("split_kv_fused", p);
}

TEST_CASE("decode: long caches - sampled rows", "[gpu][decode]") {
    if (kernels::sanitizer_run()) return;  // the code paths are those of the shorter caches
    for (const char* v : {"flash", "split_kv", "split_kv_fused"}) {
        check_variant(v, make(1, 32768, 32, 32, 128, DType::f16));
        check_variant(v, make(4, 131072, 32, 4, 128, DType::bf16, 64));
    }
    check_variant("naive", make(1, 32768, 32, 8, 128, DType::f16, 16));
}

TEST_CASE("decode refusals name the reason - and nothing runs", "[gpu][decode]") {
    const kernels::Params bad_heads = to_params(make(1, 64, 32, 5, 128, DType::f16));
    CHECK_THAT(fl_test::gpu_refusal(bad_heads, "flash"), Catch::Contains("kv_heads = 5 does not divide heads = 32"));
    const kernels::Measurement a = fl_test::run_gpu_job(bad_heads, "flash");
    CHECK_FALSE(a.ok);
    CHECK_THAT(a.error, Catch::Contains("kv_heads = 5 does not divide heads = 32"));
    CHECK_THAT(fl_test::gpu_refusal(to_params(make(1, 64, 32, 8, 128, DType::f16, 48)), "split_kv"),
               Catch::Contains("page = 48 is not one of the choices"));
    const kernels::Params big = to_params(make(256, 131072, 128, 128, 128, DType::f16));
    const std::string why = fl_test::gpu_refusal(big, "flash");
    CHECK_THAT(why, Catch::Contains("the KV cache"));
    CHECK_THAT(why, Catch::Contains("free"));
    const kernels::Measurement b = fl_test::run_gpu_job(big, "flash");
    CHECK_FALSE(b.ok);
    CHECK(b.refused);
}

TEST_CASE("GPU backend runs decode: checked and timed per kernel like the model", "[gpu][decode]") {
    for (const DecodeParams& p : {make(2, 4000, 16, 4, 128, DType::f16, 16), make(2, 4000, 16, 16, 128, DType::f16, 16)})
        for (const char* v : kAll) {
            const kernels::Params params = to_params(p);
            const kernels::Measurement m = fl_test::run_gpu_job(params, v);
            INFO(v << " heads " << p.heads << "/" << p.kv_heads << ": " << m.error);
            REQUIRE(m.ok);
            CHECK(m.checked);
            CHECK(kernels::output_matches(DType::f16, m.rel_l2_error, m.max_abs_error));
            const kernels::Model model = kernels::model(v, params);
            REQUIRE(m.kernels.size() == model.kernels.size());
            for (size_t k = 0; k < model.kernels.size(); ++k) CHECK(m.kernels[k].name == model.kernels[k].name);
            CHECK(m.l2_bytes_read + m.l2_bytes_written == model.bytes());
        }
}
