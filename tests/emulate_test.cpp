// The driver of the CPU emulations and the GPU arithmetic it stands on (kernels/sim/emulate.*):
// the warp butterfly's order, the GEMM accumulation, fp32 FMA, the fallback to the quick check's
// rows, the shared reference, cancellation, and the label the simulated backend shows.
#include "kernels/attention/attention.h"
#include "kernels/sim/emulate.h"
#include "kernels/core/registry.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

using namespace kernels;

namespace {

Job attention_job(const std::string& variant, int64_t N, int64_t heads, bool quick = false) {
    Job job;
    job.params = default_params("attention");
    job.params.dtype = DType::f16;
    job.params.set("N", N).set("d", 64).set("heads", heads);
    job.variant = variant;
    job.quick = quick;
    return job;
}

}  // namespace

TEST_CASE("a warp's butterfly sum adds in its own order, not lane after lane", "[emulate]") {
    float lanes[32];
    for (float& v : lanes) v = 1.0f;
    lanes[0] = 1e8f;
    lanes[16] = -1e8f;
    // Lane by lane, the 15 ones after 1e8 vanish (its ulp is 8); the butterfly first adds lanes 0 and
    // 16 (offset 16), so every one survives.
    float sequential = 0;
    for (float v : lanes) sequential += v;
    CHECK(sequential == 15.0f);
    CHECK(emu::butterfly_sum(lanes) == 30.0f);
}

TEST_CASE("fp32 FMA rounds to nearest, a tensor-core k-step toward zero - GEMM rows match GEMM dots bit for bit", "[emulate]") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    int differ = 0;
    for (int i = 0; i < 100000; ++i) {
        const float a = u(rng), b = u(rng), c = u(rng) * 1e-3f;
        differ += emu::fma32(a, b, c) != std::fma(a, b, c);
    }
    CHECK(differ == 0);  // a double-rounding tie is a 2^-29 event

    // A tensor-core k-step truncates its fp32 sum (round toward zero), where an FFMA rounds to nearest.
    CHECK(emu::mma_step(1.0f, 0x1.8p-24) == 1.0f);
    CHECK(emu::mma_step(-1.0f, -0x1.8p-24) == -1.0f);
    CHECK(emu::fma32(1.0f, 1.0f, 0x1.8p-24f) == 1.0f + 0x1p-23f);
    CHECK(emu::mma_step(1.0f, 0x1p-23) == 1.0f + 0x1p-23f);  // exact sums stay exact

    const int64_t K = 70, N = 9;  // a ragged last k-step of 6
    std::vector<float> a(K), B(K * N), row(N);
    for (float& v : a) v = round_to_dtype(u(rng), DType::f16);
    for (float& v : B) v = round_to_dtype(u(rng), DType::f16);
    for (DType t : {DType::f32, DType::f16}) {
        emu::gemm_row(t, a.data(), B.data(), K, N, row.data());
        for (int64_t n = 0; n < N; ++n) CHECK(row[n] == emu::gemm_dot(t, a.data(), B.data() + n, K, N));
    }
    // The two accumulations differ: k-steps of 16 products summed exactly, or one FMA chain.
    int64_t same = 0;
    std::vector<float> row32(N);
    emu::gemm_row(DType::f32, a.data(), B.data(), K, N, row32.data());
    emu::gemm_row(DType::f16, a.data(), B.data(), K, N, row.data());
    for (int64_t n = 0; n < N; ++n) same += row[n] == row32[n];
    CHECK(same < N);
}

TEST_CASE("emulate_check: the GPU check's rows, else its quick pass's - quick jobs take the quick rows", "[emulate]") {
    const Job full = attention_job("flash_tc", 2048, 64);
    const attention::AttentionParams a = attention::to_attention(full.params);
    // 1524 rows of 2 N d multiply-adds would take ~0.8 s: the quick check's 75 rows instead.
    const EmulatedCheck e = emulate_check(full, {});
    REQUIRE(e.computed);
    CHECK(e.rows == static_cast<int64_t>(attention::rows_to_check(a, kQuickCheck.max_mults).size()));
    CHECK(e.rows < static_cast<int64_t>(attention::rows_to_check(a, kFullCheck.max_mults).size()));
    const EmulatedCheck q = emulate_check(attention_job("flash_tc", 2048, 64, true), {});
    CHECK(q.rows == e.rows);
    // Every variant on the same rows, whichever alone would fit the full check (flash_tc would here).
    for (const char* v : {"naive", "flash", "flash_tc"}) CHECK(emulate_check(attention_job(v, 1024, 16), {}).rows == 150);
    // Neither fits: the reason, with the estimate.
    const EmulatedCheck no = emulate_check(attention_job("naive", 65536, 64), {});
    CHECK_FALSE(no.computed);
    CHECK_THAT(no.why_not, Catch::StartsWith("not emulated: ~"));
}

TEST_CASE("the reference rows are computed once for every variant of a parameter set", "[emulate]") {
    Job flash = attention_job("flash", 256, 2);
    flash.params.set("seed", 4242);  // parameters no other test uses: nothing shared yet
    Job naive = flash;
    naive.variant = "naive";
    const EmulatedCheck first = emulate_check(flash, {});
    const EmulatedCheck second = emulate_check(naive, {});
    REQUIRE(first.computed);
    REQUIRE(second.computed);
    CHECK(second.estimated_s < first.estimated_s);  // no reference to compute
    CHECK(second.rows == first.rows);
    Job other = flash;
    other.params.set("seed", 4243);
    CHECK(emulate_check(other, {}).estimated_s == Approx(first.estimated_s));
}

TEST_CASE("an emulation stops when its job goes stale", "[emulate]") {
    const EmulatedCheck e = emulate_check(attention_job("flash", 256, 2), [] { return true; });
    CHECK_FALSE(e.computed);
    CHECK_THAT(e.why_not, Catch::Contains("cancelled"));
}

TEST_CASE("record_emulated_check: the label says computed on the CPU, the dtype and the rows", "[emulate]") {
    EmulatedCheck e;
    e.computed = true;
    e.rows = 36;
    e.all_rows = 65536;
    e.elements = 36 * 64;
    e.rel_l2 = 2e-4;
    e.max_abs = 1e-5;
    e.note = "36 of 65536 rows of O (...) vs the float64 CPU reference; 0.04 s on the CPU";
    Measurement m;
    record_emulated_check(e, DType::f16, m);
    CHECK(m.checked);
    CHECK(m.rel_l2_error == 2e-4);
    CHECK(m.checked_elements == 36 * 64);
    CHECK(m.check_note == "computed on the CPU (emulated fp16 arithmetic, 36 sampled rows): " + e.note);
    e.rows = e.all_rows = 512;
    record_emulated_check(e, DType::bf16, m);
    CHECK_THAT(m.check_note, Catch::StartsWith("computed on the CPU (emulated bf16 arithmetic, all 512 rows): "));
    EmulatedCheck no;
    no.why_not = "not emulated: ~3.0 s on the CPU at this size (762 sampled rows; the limit is 0.50 s)";
    record_emulated_check(no, DType::f16, m);
    CHECK_FALSE(m.checked);
    CHECK(m.check_note == no.why_not);
}
