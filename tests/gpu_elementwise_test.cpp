// Every elementwise workload x variant x dtype through the GPU backend's checked run against the
// float64 CPU reference: random inputs (several seeds, never zeros), ragged sizes, poisoned outputs,
// the whole output compared; every layout the picker can choose (row_config, flat_config), forced
// one by one. The inputs bit for bit and the register table through the workload's GpuWorkload (its
// buffers, its register note); the dropout mask and fused_spill against fused through the checked
// run's error sums; the backend's run() end to end.
#include "kernels/core/backend.h"
#include "kernels/core/output_check.h"
#include "kernels/gpu/gpu_workload.h"
#include "kernels/gpu/sanitizer_run.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/core/registry.h"
#include "tests/gpu_backend_fixture.h"
#include "tests/test_skip.h"

#include "tests/scoped_env.h"

#include <catch2/catch.hpp>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using kernels::DType;
// The elementwise parameters the tests read field by field; kernels::Params where the app's
// entry points take them (elementwise::to_params).
using Params = kernels::elementwise::ElementwiseParams;
using kernels::elementwise::to_params;

namespace {

// Through the backend's checked run: the check users see, with the tolerance rule of
// kernels/core/output_check.h (relative L2, with an absolute floor for a tiny output that cancels).
void check_variant(const Params& p, const std::string& variant) { fl_test::check_on_gpu(to_params(p), variant); }

Params make(const std::string& w, DType t, int64_t rows, int64_t hidden, uint64_t seed, double p = 0.1) {
    Params q;
    q.chain = w == "chain";
    q.dtype = t;
    q.rows = rows;
    q.hidden = hidden;
    q.seed = seed;
    q.dropout_p = p;
    return q;
}

}  // namespace

namespace {

// The stored bits of v in dtype t (v is already rounded to t, as x_value() returns it).
uint32_t dtype_bits(DType t, float v) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    if (t == DType::bf16) return bits >> 16;
    if (t == DType::f16) {
        const __half h = __float2half_rn(v);
        uint16_t u = 0;
        std::memcpy(&u, &h, sizeof u);
        return u;
    }
    return bits;
}

}  // namespace

TEST_CASE("GPU inputs are bit-identical to the host's x_value, gamma_value, ...", "[gpu][inputs]") {
    // The workload's own GpuWorkload fills its buffers (as the backend's runs do); its buffers are
    // read back by name (student_argument: the device pointer the exercises get).
    cudaStream_t s = nullptr;
    REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
    for (DType t : kernels::kAllDTypes) {
        for (const char* w : {"chain", "bias_gelu"}) {
            const Params p = make(w, t, 7, 1000, 99);
            auto gpu = kernels::workload_def(w).make_gpu();
            REQUIRE(gpu != nullptr);
            gpu->prepare("fused", to_params(p), 1, s);
            gpu->fill_inputs(s);
            REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
            const size_t es = static_cast<size_t>(kernels::dtype_bytes(t));
            int tensors = 0;
            for (const std::string name : {"x", "residual", "gamma", "beta", "bias"}) {
                const std::optional<kernels::StudentArgument> arg = gpu->student_argument(name);
                if (!arg) continue;  // not a buffer of this workload
                ++tensors;
                const void* device = nullptr;
                REQUIRE(arg->bytes.size() == sizeof device);
                std::memcpy(&device, arg->bytes.data(), sizeof device);
                const bool per_row = name == "x" || name == "residual";
                const size_t n = static_cast<size_t>(per_row ? p.rows * p.hidden : p.hidden);
                std::vector<unsigned char> bits(n * es);
                REQUIRE(cudaMemcpy(bits.data(), device, bits.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
                INFO("tensor " << name << " dtype " << kernels::to_string(t));
                int64_t mismatches = 0, zeros = 0;
                namespace ew = kernels::elementwise;
                for (size_t i = 0; i < n; ++i) {
                    const int64_t row = static_cast<int64_t>(i) / p.hidden, col = static_cast<int64_t>(i) % p.hidden;
                    float want = 0;
                    if (name == "x") want = ew::x_value(p, row, col);
                    else if (name == "residual") want = ew::residual_value(p, row, col);
                    else if (name == "gamma") want = ew::gamma_value(p, static_cast<int64_t>(i));
                    else if (name == "beta") want = ew::beta_value(p, static_cast<int64_t>(i));
                    else want = ew::bias_value(p, static_cast<int64_t>(i));
                    uint32_t got = 0;
                    std::memcpy(&got, &bits[i * es], es);
                    mismatches += got != dtype_bits(t, want);
                    zeros += want == 0.0f;
                }
                CHECK(mismatches == 0);
                CHECK(zeros < static_cast<int64_t>(n) / 100 + 1);  // random data, not zeros
            }
            CHECK(tensors == (p.chain ? 4 : 2));
            gpu->release();
        }
    }
    cudaStreamDestroy(s);
}

TEST_CASE("every variant and dtype matches the CPU reference on ragged sizes", "[gpu][elementwise]") {
    const int64_t hiddens[] = {1, 33, 1000, 4097, 8192 + 8};
    const int64_t rows_list[] = {1, 7, 513};
    uint64_t seed = 11;
    for (const char* w : {"chain", "bias_gelu"})
        for (DType t : kernels::kAllDTypes)
            for (int64_t hidden : hiddens)
                for (int64_t rows : rows_list) {
                    if (rows * hidden > 513 * 1000 && rows == 513) continue;  // keep the float64 reference quick
                    const Params p = make(w, t, rows, hidden, seed++);
                    for (const kernels::VariantInfo& v : kernels::variants(w)) check_variant(p, v.name);
                }
}

TEST_CASE("vectorised sizes: hidden a multiple of 8, both row-kernel widths", "[gpu][elementwise]") {
    const int64_t hiddens[] = {8, 768, 4096, 8192, 16384};
    uint64_t seed = 501;
    for (const char* w : {"chain", "bias_gelu"})
        for (DType t : kernels::kAllDTypes)
            for (int64_t hidden : hiddens) {
                const Params p = make(w, t, hidden >= 8192 ? 64 : 257, hidden, seed++);
                for (const kernels::VariantInfo& v : kernels::variants(w)) check_variant(p, v.name);
            }
}

TEST_CASE("dropout edge cases: p = 0 keeps everything, p near 1 drops almost everything", "[gpu][dropout]") {
    for (DType t : kernels::kAllDTypes) {
        for (double dp : {0.0, 0.99}) {
            for (int64_t hidden : {int64_t{1000}, int64_t{1027}}) {
                const Params p = make("chain", t, 33, hidden, 7 + static_cast<uint64_t>(hidden), dp);
                check_variant(p, "unfused");
                check_variant(p, "fused");
            }
        }
    }
}

TEST_CASE("unfused and fused chain drop exactly the same elements", "[gpu][dropout]") {
    // fp32 with p = 0.5: the float64 reference drops the elements Philox(seed, index) drops, and a
    // kept element differs from a dropped one by 2 GELU(h) (about 0.3 on average here), so a variant
    // whose mask differed anywhere would have a maximum error far above fp32's ~1e-6.
    const Params p = make("chain", DType::f32, 65, 1536, 4242, 0.5);
    for (const char* v : {"unfused", "fused"}) {
        const kernels::Measurement m = fl_test::check_on_gpu(to_params(p), v);
        INFO(v);
        CHECK(m.checked_elements == p.rows * p.hidden);
        CHECK(m.max_abs_error < 1e-4);
    }
}

TEST_CASE("fused_spill computes what fused computes to a rounding (the spills change where and not what)", "[gpu][spill]") {
    // Both through the checked run on the same inputs and rows: equal outputs would give equal error
    // sums to the last bit. fused_spill is the kernel as it was recorded (kept verbatim for its spills);
    // fused rounds GELU's last multiply and subtraction once (v5, kernels/core/gelu_fast.h) and dropout's
    // scale and the residual add once (v6) where fused_spill rounds them apart, and in 16-bit (v6) takes
    // the statistics in one shifted pass and normalises with one FMA, and (v7) takes GELU in the logistic form
    // with the dropout scale folded in (|GELU error| <= 2.6e-5, far below a 16-bit rounding); ptxas contracts
    // the ragged fp32 rows' sums differently (measured on an H100, 2026-11-28). So the error sums agree to a rounding of the
    // output, not to the bit: a different mask, a wrong statistic or a lost element moves them by orders
    // of magnitude more.
    for (DType t : {DType::f32, DType::f16, DType::bf16})
        for (int64_t hidden : {int64_t{8192}, int64_t{1001}, int64_t{256}}) {
            const Params p = make("chain", t, 33, hidden, 99, 0.2);
            INFO(kernels::to_string(t) << " hidden " << hidden);
            const kernels::Measurement a = fl_test::check_on_gpu(to_params(p), "fused");
            const kernels::Measurement b = fl_test::check_on_gpu(to_params(p), "fused_spill");
            REQUIRE(a.checked_elements == b.checked_elements);
            // one rounding of an output of magnitude up to ~4: fp32's 2^-22, or one ulp of the dtype
            const double ulp = t == DType::f32 ? 1e-6 : (t == DType::f16 ? 4.0 / 1024 : 4.0 / 128);
            CHECK(std::fabs(a.max_abs_error - b.max_abs_error) <= ulp);
            // fp32's error sum is itself a few fp32 roundings (~1e-7): one rounding more or fewer per
            // element moves it by up to ~1.2e-7 (2^-23), more than 1 % of it (H200, 2026-11-28: 3.3e-9
            // against 9e-10 allowed); a wrong mask or statistic moves it by 1e-3 and more
            const double rounding = t == DType::f32 ? 0x1p-23 : 0.0;
            CHECK(std::fabs(a.rel_l2_error - b.rel_l2_error) <= 0.01 * b.rel_l2_error + rounding);
        }
}

TEST_CASE("the register table (ptxas, sm_90) is what this device's binary holds", "[gpu][spill]") {
    const kernels::DeviceInfo& d = fl_test::gpu_device();
    if (d.cc_major != 9 || d.cc_minor != 0) {
        fl_test::skip("the table is for sm_90; this device is sm_" + std::to_string(d.cc_major) +
                      std::to_string(d.cc_minor) + ": nothing to compare it with");
        return;
    }
    // The workload's register note (what a measurement shows) is empty exactly when the runtime's
    // registers and stack frame of every row kernel that runs equal the table's.
    auto gpu = kernels::workload_def("chain").make_gpu();
    REQUIRE(gpu != nullptr);
    int compared = 0;
    for (DType t : {DType::f32, DType::f16, DType::bf16})
        for (int64_t hidden : {int64_t{8192}, int64_t{16384}, int64_t{1001}, int64_t{256}, int64_t{768}, int64_t{65536},
                               int64_t{20000}})
            for (const char* v : {"unfused", "fused", "fused_spill"}) {
                if (std::string(v) == "fused_spill" && hidden > kernels::elementwise::kSpillMaxHidden) continue;
                const kernels::Params p = to_params(make("chain", t, 4, hidden, 1));
                INFO(v << " " << kernels::to_string(t) << " hidden " << hidden);
                const kernels::Model model = kernels::model(v, p);
                for (const kernels::KernelModel& k : model.kernels) compared += k.registers.registers > 0;
                CHECK(gpu->register_note(model, p) == "");
            }
    CHECK(compared == 3 * 7 * 2 + 3 * 5);  // every row kernel that runs had a table entry to compare
    // v8's rows in sequence (row_sequence_kernel: not picked, FUSIONLAB_ROW_CONFIG=seq=N runs it)
    const ScopedEnv sequence("FUSIONLAB_ROW_CONFIG", "seq=4");
    int compared_in_sequence = 0;
    for (DType t : {DType::f32, DType::f16, DType::bf16})
        for (int64_t hidden : {int64_t{8192}, int64_t{16384}, int64_t{65536}})
            for (const char* v : {"unfused", "fused"}) {
                const kernels::Params p = to_params(make("chain", t, 64, hidden, 1));
                INFO(v << " " << kernels::to_string(t) << " hidden " << hidden << " seq=4");
                const kernels::Model model = kernels::model(v, p);
                for (const kernels::KernelModel& k : model.kernels) compared_in_sequence += k.registers.registers > 0;
                CHECK(gpu->register_note(model, p) == "");
            }
    CHECK(compared_in_sequence == 3 * 3 * 2);
}

TEST_CASE("the backend's run() fills a checked, timed measurement", "[gpu][backend]") {
    std::string why;
    auto backend = kernels::make_gpu_backend(&why);
    REQUIRE(backend != nullptr);
    const kernels::DeviceInfo& d = backend->device();
    CHECK(!d.name.empty());
    CHECK(d.sm_count > 0);
    CHECK(d.l2_bytes > 0);
    CHECK(d.peak_bw_gbps > 0);
    if (kernels::sanitizer_run()) {  // ceilings are not measured under compute-sanitizer
        CHECK_FALSE(d.measured_copy_gbps.has_value());
        CHECK(d.ceiling_note.find("not measured") != std::string::npos);
    } else {
        REQUIRE(d.measured_copy_gbps.has_value());
        CHECK(*d.measured_copy_gbps > 0);
    }
    std::atomic<uint64_t> latest{1};
    const kernels::CancelToken token{&latest, 1};
    for (const char* w : {"chain", "bias_gelu"}) {
        for (const kernels::VariantInfo& v : kernels::variants(w)) {
            kernels::Job job;
            job.id = 1;
            job.backend = kernels::BackendKind::gpu;
            job.variant = v.name;
            job.params = to_params(make(w, DType::bf16, 1024, 1024, 77));
            job.reps = 5;  // the backend raises this to 20 (not in a sanitizer run: reps as asked)
            const kernels::Measurement m = backend->run(job, token);
            INFO(v.name << ": " << m.error);
            REQUIRE(m.ok);
            CHECK(m.checked);
            CHECK(m.checked_elements == 1024 * 1024);
            CHECK(kernels::output_matches(m.job.params.dtype, m.rel_l2_error, m.max_abs_error));
            CHECK(m.time.reps == (kernels::sanitizer_run() ? 5 : 20));
            CHECK(m.time.median_ms > 0);
            CHECK(m.time.min_ms <= m.time.median_ms);
            CHECK(m.time.median_ms <= m.time.max_ms);
            REQUIRE(m.kernels.size() == static_cast<size_t>(v.kernels));
            const kernels::Model model = kernels::model(v.name, job.params);
            for (size_t k = 0; k < m.kernels.size(); ++k) {
                CHECK(m.kernels[k].name == model.kernels[k].name);
                CHECK(m.kernels[k].time.median_ms > 0);
            }
            // The measurement carries the model at both levels: DRAM (the L2 reuse model for this
            // device's L2) as its bytes, and what the kernels' loads and stores ask for.
            CHECK(m.bytes() == kernels::model(v.name, job.params, static_cast<uint64_t>(m.device.l2_bytes)).dram_bytes());
            CHECK(m.l2_bytes_read + m.l2_bytes_written == model.bytes());
            CHECK(m.min_bytes == kernels::min_bytes(job.params));
            CHECK(m.flops > 0);
            CHECK(!m.timing_note.empty());
            CHECK(!m.build_type.empty());
            CHECK(m.device.name == d.name);
        }
    }
    SECTION("a cancelled job stops with 'cancelled'") {
        kernels::Job job;
        job.variant = "fused";
        job.params = to_params(make("chain", DType::bf16, 256, 1024, 5));
        std::atomic<uint64_t> newer{2};
        const kernels::Measurement m = backend->run(job, kernels::CancelToken{&newer, 1});
        CHECK_FALSE(m.ok);
        CHECK(m.error == "cancelled");
    }
    SECTION("invalid parameters give a message, and the backend stays usable") {
        kernels::Job job;
        job.variant = "fused";
        job.params = to_params(make("chain", DType::bf16, 0, 1024, 5));
        const kernels::Measurement bad = backend->run(job, token);
        CHECK_FALSE(bad.ok);
        CHECK(!bad.error.empty());
        job.params.set("rows", 64);
        CHECK(backend->run(job, token).ok);
    }
}


TEST_CASE("the picked row configuration at every width matches the reference: clusters and rows per block",
          "[gpu][elementwise][config]") {
    // 768: 3 chunks x 32 threads and 4 rows per block (67 rows: a last block with 3); 20000: a
    // ragged row over a cluster of 4; 32768 and 65536: clusters of 4 and 8 (16-bit) or 8 (fp32).
    struct Shape {
        int64_t rows, hidden;
    };
    const Shape shapes[] = {{67, 768}, {67, 1024}, {9, 3072}, {5, 7168}, {3, 16384}, {3, 20000}, {2, 32768}, {2, 65536}};
    uint64_t seed = 901;
    for (DType t : kernels::kAllDTypes)
        for (const Shape& s : shapes) {
            const Params p = make("chain", t, s.rows, s.hidden, seed++);
            INFO("config " << kernels::elementwise::config_text(kernels::elementwise::row_config(p)));
            for (const kernels::VariantInfo& v : kernels::variants("chain")) {
                if (v.name == "fused_spill" && s.hidden > kernels::elementwise::kSpillMaxHidden) {
                    // the lesson's spilling kernel holds a row in one block: refused with the reason
                    const kernels::Measurement r = fl_test::run_gpu_job(to_params(p), v.name, 1);
                    CHECK_FALSE(r.ok);
                    CHECK(r.error.find("fused_spill holds a row in one block") != std::string::npos);
                    continue;
                }
                check_variant(p, v.name);
            }
            check_variant(make("bias_gelu", t, s.rows, s.hidden, seed++), "fused");
        }
}

TEST_CASE("every forced row configuration computes the same function", "[gpu][elementwise][config]") {
    // Forced layouts the sweep of kernels/PERF.md compares, on whole-vector rows (8192, 1000) and a
    // ragged one (1001, the scalar path); 37 rows so a block of several rows is partly empty.
    const char* configs[] = {"cpt=2", "cpt=3", "ctas=2", "cpt=4,tpr=128,ctas=2", "cpt=2,ctas=4", "cpt=2,tpr=128,ctas=8",
                             "rpb=2", "cpt=4,tpr=64,rpb=3", "cpt=2,tpr=512", "cs=1", "smem=1", "smem=1,tpr=128",
                             "smem=1,tpr=64,ctas=2,cs=1", "smem=1,tpr=32,ctas=8"};
    uint64_t seed = 1201;
    for (const char* config : configs)
        for (DType t : kernels::kAllDTypes)
            for (int64_t hidden : {int64_t{8192}, int64_t{1000}, int64_t{1001}}) {
                const Params p = make("chain", t, 37, hidden, seed++, 0.3);
                const ScopedEnv env("FUSIONLAB_ROW_CONFIG", config);
                kernels::elementwise::RowConfig c;
                try {
                    c = kernels::elementwise::row_config(p);
                } catch (const std::invalid_argument&) {
                    continue;  // the layout cannot hold this row (e.g. 64 threads x 4 chunks < 8192): refused
                }
                INFO("FUSIONLAB_ROW_CONFIG=" << config << ": " << kernels::elementwise::config_text(c));
                for (const kernels::VariantInfo& v : kernels::variants("chain")) check_variant(p, v.name);
            }
}

TEST_CASE("clusters that push their partial sums compute the bits of clusters that pull them", "[gpu][elementwise][config]") {
    // v6's push (st.async into the peers' shared memory, an mbarrier per reduction) adds the same partials
    // in the same rank order as v4's pull (FUSIONLAB_CLUSTER_REDUCTION=pull): equal outputs give equal
    // error sums to the last bit; a lost, doubled or misordered partial moves them. Register clusters of
    // 2, 4 and 8 (ragged 20000 too; forced where the picker would take one block) and a staged cluster of 2.
    struct Case {
        int64_t hidden;
        const char* config;  // FUSIONLAB_ROW_CONFIG, or "" for the picked layout
    };
    const kernels::DeviceInfo& d = fl_test::gpu_device();
    if (d.cc_major < 9) {
        fl_test::skip("clusters need compute capability 9.0; this device is sm_" + std::to_string(d.cc_major) +
                      std::to_string(d.cc_minor));
        return;
    }
    const Case cases[] = {{65536, ""},
                          {32768, "cpt=4,tpr=256,ctas=4"},
                          {20000, "cpt=4,tpr=160,ctas=4"},
                          {8192, "cpt=4,tpr=128,ctas=2"},
                          {8192, "smem=1,tpr=64,ctas=2"}};
    uint64_t seed = 1701;
    for (DType t : kernels::kAllDTypes)
        for (const Case& c : cases) {
            const Params p = make("chain", t, 5, c.hidden, seed++, 0.2);
            const ScopedEnv config("FUSIONLAB_ROW_CONFIG", c.config);
            INFO(kernels::to_string(t) << " hidden " << c.hidden << " " << kernels::elementwise::config_text(kernels::elementwise::row_config(p)));
            REQUIRE(kernels::elementwise::row_config(p).ctas_per_row > 1);
            const kernels::Measurement push = fl_test::check_on_gpu(to_params(p), "fused");
            kernels::Measurement pull;
            {
                const ScopedEnv reduction("FUSIONLAB_CLUSTER_REDUCTION", "pull");
                pull = fl_test::check_on_gpu(to_params(p), "fused");
            }
            REQUIRE(push.checked_elements == pull.checked_elements);
            CHECK(push.max_abs_error == pull.max_abs_error);
            CHECK(push.rel_l2_error == pull.rel_l2_error);
        }
}

TEST_CASE("the leader warp's reduction computes the bits of every warp's reduction", "[gpu][elementwise][config]") {
    // v9: the row's first warp alone adds the warps' partials (and, in a cluster, pushes and adds the blocks'),
    // in row_sum's and cluster_sum's order, and hands the totals to the row's other warps through named
    // barriers; FUSIONLAB_ROW_REDUCTION=every_warp is v8's form, every warp adding them itself. The same sums
    // in the same order: every variant's error sums equal to the last bit. A lost partial, a total read before
    // the leader wrote it, or one overwritten by the next reduction (fp32 rows reduce twice) moves them.
    // Rows of 2 (several a block, the last block short), 3, 7, 8 and 16 warps, ragged rows (the scalar path),
    // clusters of 2, 4 and 8 (ragged 20000 too); 16-bit rows reduce once (two sums), fp32 rows twice.
    struct Case {
        int64_t rows, hidden;
        const char* config;  // FUSIONLAB_ROW_CONFIG, or "" for the picked layout
        bool cluster;
    };
    const Case cases[] = {{37, 2048, "", false},
                          {37, 1000, "cpt=4,tpr=64,rpb=3", false},
                          {13, 3072, "", false},
                          {11, 7168, "", false},
                          {9, 7169, "", false},
                          {9, 8192, "", false},
                          {5, 16384, "", false},
                          {3, 16383, "", false},
                          {5, 65536, "", true},
                          {3, 20000, "", true},
                          {7, 8192, "cpt=4,tpr=128,ctas=2", true},
                          {4, 32768, "cpt=4,tpr=256,ctas=4", true}};
    const bool clusters = fl_test::gpu_device().cc_major >= 9;
    uint64_t seed = 2301;
    for (DType t : kernels::kAllDTypes)
        for (const Case& c : cases) {
            if (c.cluster && !clusters) continue;  // clusters need compute capability 9.0 (the other cases still run)
            const Params p = make("chain", t, c.rows, c.hidden, seed++, 0.2);
            const ScopedEnv config("FUSIONLAB_ROW_CONFIG", c.config);
            const kernels::elementwise::RowConfig rc = kernels::elementwise::row_config(p);
            INFO(kernels::to_string(t) << " " << c.rows << " x " << c.hidden << " " << kernels::elementwise::config_text(rc));
            REQUIRE((rc.threads_per_row > 32 || rc.ctas_per_row > 1));  // a row of one warp has no partials to hand over
            for (const char* variant : {"fused", "unfused"}) {
                INFO(variant);
                kernels::Measurement leader, every;
                {
                    const ScopedEnv reduction("FUSIONLAB_ROW_REDUCTION", "leader");
                    leader = fl_test::check_on_gpu(to_params(p), variant);
                }
                {
                    const ScopedEnv reduction("FUSIONLAB_ROW_REDUCTION", "every_warp");
                    every = fl_test::check_on_gpu(to_params(p), variant);
                }
                REQUIRE(leader.checked_elements == every.checked_elements);
                CHECK(leader.max_abs_error == every.max_abs_error);
                CHECK(leader.rel_l2_error == every.rel_l2_error);
            }
        }
}

TEST_CASE("an unknown FUSIONLAB_ROW_REDUCTION is refused with the reason", "[gpu][elementwise][config]") {
    const Params p = make("chain", DType::bf16, 4, 8192, 3);
    const ScopedEnv env("FUSIONLAB_ROW_REDUCTION", "leaders");
    const kernels::Measurement r = fl_test::run_gpu_job(to_params(p), "fused", 1);
    INFO(r.error);
    CHECK_FALSE(r.ok);
    CHECK(r.error.find("FUSIONLAB_ROW_REDUCTION=leaders") != std::string::npos);
}

TEST_CASE("rows in sequence compute the bits of one row per block", "[gpu][elementwise][config]") {
    // v8: a block (or cluster) runs seq rows in turn, the next row's x prefetched into shared memory (cp.async),
    // its reductions alternating two scratch sets (clusters: two sets of slots and mbarriers, re-armed per use).
    // The arithmetic of a row is unchanged, so every variant's error sums equal seq=1's to the last bit; a stale
    // prefetch, a reused slot or a lost push moves them. Row counts leave the last block (cluster) short; the
    // clusters run pushed and pulled.
    struct Case {
        int64_t rows, hidden;
        const char* config;    // FUSIONLAB_ROW_CONFIG with seq > 1
        const char* baseline;  // the same layout, one row at a time
        bool cluster;
    };
    const Case cases[] = {{9, 16384, "seq=4", "seq=1", false},
                          {37, 1024, "seq=3", "seq=1", false},
                          {38, 768, "cpt=3,tpr=32,rpb=4,seq=4", "cpt=3,tpr=32,rpb=4,seq=1", false},
                          {7, 8192, "cpt=2,tpr=512,seq=2", "cpt=2,tpr=512,seq=1", false},
                          {5, 65536, "seq=4", "seq=1", true},
                          {11, 8192, "cpt=4,tpr=128,ctas=2,seq=2", "cpt=4,tpr=128,ctas=2,seq=1", true},
                          {6, 32768, "cpt=4,tpr=256,ctas=4,seq=5", "cpt=4,tpr=256,ctas=4,seq=1", true}};
    const bool clusters = fl_test::gpu_device().cc_major >= 9;
    uint64_t seed = 2101;
    for (DType t : kernels::kAllDTypes)
        for (const Case& c : cases) {
            if (c.cluster && !clusters) continue;  // clusters need compute capability 9.0 (the other cases still run)
            const Params p = make("chain", t, c.rows, c.hidden, seed++, 0.2);
            for (const char* reduction : {"", "pull"}) {
                if (*reduction != '\0' && !c.cluster) continue;
                const ScopedEnv pulled("FUSIONLAB_CLUSTER_REDUCTION", reduction);
                for (const char* variant : {"fused", "unfused"}) {
                    kernels::Measurement one, seq;
                    {
                        const ScopedEnv config("FUSIONLAB_ROW_CONFIG", c.baseline);
                        one = fl_test::check_on_gpu(to_params(p), variant);
                    }
                    {
                        const ScopedEnv config("FUSIONLAB_ROW_CONFIG", c.config);
                        const kernels::elementwise::RowConfig rc = kernels::elementwise::row_config(p);
                        INFO(kernels::to_string(t) << " " << c.rows << " x " << c.hidden << " " << variant << " "
                                                   << kernels::elementwise::config_text(rc) << " " << reduction);
                        REQUIRE(rc.rows_in_sequence > 1);
                        seq = fl_test::check_on_gpu(to_params(p), variant);
                    }
                    INFO(kernels::to_string(t) << " " << c.rows << " x " << c.hidden << " " << variant << " " << c.config);
                    REQUIRE(seq.checked_elements == one.checked_elements);
                    CHECK(seq.max_abs_error == one.max_abs_error);
                    CHECK(seq.rel_l2_error == one.rel_l2_error);
                }
            }
        }
}

TEST_CASE("a forced row configuration that cannot hold the row is refused with the reason", "[gpu][elementwise][config]") {
    const Params p = make("chain", DType::bf16, 4, 8192, 3);
    for (const char* bad : {"cpt=4,tpr=64", "ctas=3", "cpt=5", "tpr=100", "rpb=4,tpr=256", "threads=2", "cpt"}) {
        const ScopedEnv env("FUSIONLAB_ROW_CONFIG", bad);
        const kernels::Measurement r = fl_test::run_gpu_job(to_params(p), "fused", 1);
        INFO(bad << " -> " << r.error);
        CHECK_FALSE(r.ok);
        CHECK(r.error.find("FUSIONLAB_ROW_CONFIG") != std::string::npos);
    }
}

TEST_CASE("every flat configuration computes the same function", "[gpu][elementwise][config]") {
    uint64_t seed = 1501;
    for (const char* config : {"threads=128,bytes=32", "threads=512,bytes=64", "threads=512,bytes=32", "threads=128", "cs=1",
                               "threads=512,bytes=64,cs=1"})
        for (DType t : kernels::kAllDTypes)
            for (int64_t hidden : {int64_t{4096}, int64_t{1001}}) {
                const ScopedEnv env("FUSIONLAB_FLAT_CONFIG", config);
                INFO("FUSIONLAB_FLAT_CONFIG=" << config);
                for (const kernels::VariantInfo& v : kernels::variants("bias_gelu"))
                    check_variant(make("bias_gelu", t, 37, hidden, seed++), v.name);
                check_variant(make("chain", t, 37, hidden, seed++), "unfused");
            }
}
