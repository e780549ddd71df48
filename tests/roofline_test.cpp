// Roofline arithmetic is exact (intensity, attainable, ridge point, which roof bounds a point); the
// roofs come from measured ceilings when present and datasheet values otherwise; the explanation
// of measured vs modeled DRAM bytes names the reason with computed numbers.
#include "kernels/sim/sim_backend.h"
#include "viz/model/roofline.h"
#include "kernels/core/registry.h"

#include <catch2/catch.hpp>

#include <string>

using namespace kernels;

TEST_CASE("roofline: intensity is FLOPs per byte, 0 without bytes", "[roofline]") {
    CHECK(arithmetic_intensity(1024, 256) == 4.0);
    CHECK(arithmetic_intensity(3, 12) == 0.25);
    CHECK(arithmetic_intensity(0, 100) == 0.0);
    CHECK(arithmetic_intensity(100, 0) == 0.0);
}

TEST_CASE("roofline: attainable is min(peak, intensity x bandwidth) - ridge = peak / bandwidth", "[roofline]") {
    const double peak = 1000e12, bw = 4000e9;  // 1000 TFLOP/s, 4 TB/s
    CHECK(ridge_point(peak, bw) == 250.0);
    CHECK(attainable_flops(1.0, peak, bw) == 4000e9);   // memory roof
    CHECK(attainable_flops(250.0, peak, bw) == peak);   // the ridge: both roofs meet
    CHECK(attainable_flops(1000.0, peak, bw) == peak);  // compute roof
    CHECK(ridge_point(peak, 0) == 0.0);
    CHECK(bound_by(249.0, peak, bw) == Bound::memory);
    CHECK(bound_by(250.0, peak, bw) == Bound::compute);
    CHECK(bound_by(1e6, peak, bw) == Bound::compute);
    CHECK(std::string(to_string(Bound::memory)) == "memory");
}

TEST_CASE("roofline: simulated roofs are the calibration's rates, measured ceilings win on a GPU", "[roofline]") {
    // The simulated H100 and H200 draw what their cards measured (copy, cuBLAS GEMM, FMA chain),
    // the same rates the simulator prices kernels at, so a kernel at the copy ceiling sits on the roof.
    const DeviceInfo& h100 = find_sim_gpu("H100")->info;
    RoofSet r = roofs_for(h100, DType::bf16);
    CHECK(r.bytes_per_s == 2986e9);
    CHECK(r.bytes_per_s == calibration_for(h100).dram_gbps * 1e9);
    CHECK_FALSE(r.memory_measured);
    CHECK(r.memory_kind == "calibrated");
    CHECK(r.tensor.flops_per_s == Approx(804.8e12));
    CHECK(roofs_for(h100, DType::f16).tensor.flops_per_s == Approx(770.7e12));
    CHECK(r.fp32.flops_per_s == Approx(65.1e12));
    CHECK_FALSE(r.tensor.measured);
    CHECK(r.tensor.kind == "calibrated");
    CHECK(r.tensor.source.find("H100") != std::string::npos);
    CHECK(roofs_for(find_sim_gpu("H200")->info, DType::bf16).bytes_per_s == 4050e9);  // the recorded H200's copy rate
    // A simulated GPU nobody measured: the datasheet times the H100's measured-to-datasheet ratios.
    const DeviceInfo& a100 = find_sim_gpu("A100")->info;
    CHECK(roofs_for(a100, DType::bf16).bytes_per_s == Approx(0.891 * 2039e9));
    CHECK(calibration_for(a100).source.find("not measured on this GPU") != std::string::npos);
    // ... and its roofs say so: "datasheet-scaled", never "calibrated" (issue 28: the A100's roofs
    // were labelled "(calibrated)" while `fusionlab info` said "not measured on this GPU").
    const RoofSet a = roofs_for(a100, DType::bf16);
    CHECK(a.memory_kind == "datasheet-scaled");
    CHECK(a.tensor.kind == "datasheet-scaled");
    CHECK(a.fp32.kind == "datasheet-scaled");
    CHECK(a.memory_source.rfind("datasheet-scaled: ", 0) == 0);
    CHECK(roofs_for(find_sim_gpu("H200")->info, DType::bf16).memory_kind == "calibrated");

    DeviceInfo gpu = h100;
    gpu.simulated = false;
    gpu.measured_copy_gbps = 3000.0;
    gpu.measured_fp16_gemm_tflops = 700.0;
    gpu.measured_bf16_gemm_tflops = 650.0;
    gpu.measured_fp32_fma_tflops = 50.0;
    r = roofs_for(gpu, DType::bf16);
    CHECK(r.bytes_per_s == 3000e9);
    CHECK(r.memory_measured);
    CHECK(r.tensor.flops_per_s == 650e12);
    CHECK(r.tensor.name == "tensor GEMM bf16");
    CHECK(r.fp32.flops_per_s == 50e12);
    CHECK(roofs_for(gpu, DType::f16).tensor.flops_per_s == 700e12);
    CHECK(roofs_for(gpu, DType::f32).tensor.flops_per_s == 700e12);  // the faster one for fp32 data
}

TEST_CASE("roofline: the L2 roof is the calibration's L2 bandwidth, above the DRAM roof, and says it is not measured",
          "[roofline][levels]") {
    for (const char* key : {"H100", "H200", "A100"}) {
        const DeviceInfo& d = find_sim_gpu(key)->info;
        const RoofSet r = roofs_for(d, DType::bf16);
        CHECK(r.l2_bytes_per_s == calibration_for(d).l2_gbps * 1e9);
        CHECK(r.l2_bytes_per_s > r.bytes_per_s);
        CHECK(r.l2_source.find("not measured") != std::string::npos);
    }
}

TEST_CASE("roofline: tensor-core variants meet the tensor roof, others the FP32 roof", "[roofline]") {
    const RoofSet r = roofs_for(find_sim_gpu("H100")->info, DType::f16);
    Params p;
    p.workload = "attention";
    p.dtype = DType::f16;
    CHECK(&roof_for_variant(r, "flash_tc", p) == &r.tensor);
    CHECK(&roof_for_variant(r, "flash", p) == &r.fp32);
    Params e;  // chain
    CHECK(&roof_for_variant(r, "fused", e) == &r.fp32);
    p.dtype = DType::f32;  // flash_tc refuses fp32: no crash, the FP32 roof
    CHECK(&roof_for_variant(r, "flash_tc", p) == &r.fp32);
}

namespace {

Measurement attention_measurement(const std::string& variant, double measured_fraction) {
    Params p;
    p.workload = "attention";
    p.dtype = DType::f16;
    p.set("N", 8192);
    p.set("d", 64);
    p.set("heads", 16);
    Measurement m;
    m.ok = true;
    m.job.params = p;
    m.job.variant = variant;
    m.device = find_sim_gpu("H200")->info;
    const Model mod = model(variant, p);
    m.flops = mod.flops();
    m.bytes_read = mod.bytes_read();
    m.bytes_written = mod.bytes_written();
    m.measured_bytes_read = static_cast<uint64_t>(double(m.bytes_read) * measured_fraction);
    m.measured_bytes_written = m.bytes_written;
    m.measured_bytes = *m.measured_bytes_read + *m.measured_bytes_written;
    return m;
}

}  // namespace

TEST_CASE("roofline: the flash gap is explained with K, V of one head against the L2", "[roofline]") {
    const Measurement m = attention_measurement("flash", 0.02);
    const std::string why = explain_traffic_gap(m);
    // K and V of one head: 2 x 8192 x 64 x 2 B = 2 MiB, H200 L2 = 60 MiB, Tr = 8192 / 64 = 128.
    CHECK(why.find("K and V of one head = 2.00 MiB fit in the 60.0 MiB L2") != std::string::npos);
    CHECK(why.find("Tr = 128") != std::string::npos);
    CHECK(why.find("less than the model") != std::string::npos);
}

TEST_CASE("roofline: agreement within 15 percent needs no reason - no counters gives nothing", "[roofline]") {
    const Measurement close = attention_measurement("naive", 0.95);
    const std::string why = explain_traffic_gap(close);
    CHECK(why.find("Within 15%") != std::string::npos);
    CHECK(why.find("L2") == std::string::npos);
    Measurement none = close;
    none.measured_bytes.reset();
    CHECK(explain_traffic_gap(none).empty());
    const Measurement more = attention_measurement("naive", 1.5);
    CHECK(explain_traffic_gap(more).find("more than the model") != std::string::npos);
}

TEST_CASE("roofline: extra writes beyond the model are named with both numbers", "[roofline]") {
    Measurement m = attention_measurement("flash", 0.02);
    m.measured_bytes_written = m.bytes_written * 5 / 3;  // O: 16 MiB modeled, 26.7 measured (H200 ratio)
    m.measured_bytes = *m.measured_bytes_read + *m.measured_bytes_written;
    const std::string why = explain_traffic_gap(m);
    CHECK(why.find("Writes: 26.7 MiB reached DRAM against 16.0 MiB modeled") != std::string::npos);
}

TEST_CASE("roofline: an unfused chain's intermediates that fit in L2 are named", "[roofline]") {
    Params p;  // chain 4096 x 4096 bf16: each intermediate 32 MiB, fits in the H200's 60 MiB L2
    Measurement m;
    m.job.params = p;
    m.job.variant = "unfused";
    m.device = find_sim_gpu("H200")->info;
    const Model mod = model("unfused", p);
    m.bytes_read = mod.bytes_read();
    m.bytes_written = mod.bytes_written();
    m.measured_bytes = m.bytes() / 2;
    const std::string why = explain_traffic_gap(m);
    CHECK(why.find("fit in the 60.0 MiB L2") != std::string::npos);
    CHECK(why.find("32.0 MiB") != std::string::npos);
}
