// [SECTION] Arithmetic
// [SECTION] Roofs of a device
// [SECTION] Measured vs modeled DRAM bytes
#include "viz/model/roofline.h"

#include "kernels/sim/sim_backend.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace kernels {

// ---------------------------------------------------------------------------------------------
// [SECTION] Arithmetic
// ---------------------------------------------------------------------------------------------
double arithmetic_intensity(double flops, double bytes) { return bytes > 0 ? flops / bytes : 0.0; }

double attainable_flops(double intensity, double peak_flops, double bytes_per_s) {
    return std::min(peak_flops, intensity * bytes_per_s);
}

double ridge_point(double peak_flops, double bytes_per_s) { return bytes_per_s > 0 ? peak_flops / bytes_per_s : 0.0; }

Bound bound_by(double intensity, double peak_flops, double bytes_per_s) {
    return intensity < ridge_point(peak_flops, bytes_per_s) ? Bound::memory : Bound::compute;
}

const char* to_string(Bound b) { return b == Bound::memory ? "memory" : "compute"; }

// ---------------------------------------------------------------------------------------------
// [SECTION] Roofs of a device
// ---------------------------------------------------------------------------------------------
namespace {

std::string tflops_text(double tflops) {
    char text[48];
    std::snprintf(text, sizeof text, "%.1f TFLOP/s", tflops);
    return text;
}

// A simulated GPU's roofs: "calibrated" where the simulator was fitted on measurements of that model
// (H100, H200), "datasheet-scaled" where it only scales the datasheet by the H100's measured-to-datasheet
// ratios (A100, RTX 4090, V100: sim_backend.cpp's calibration says so in its source). A roof is never
// called calibrated for a card nobody measured.
std::string simulated_roof_kind(const SimCalibration& c) {
    return c.source.rfind("datasheet", 0) == 0 ? "datasheet-scaled" : "calibrated";
}

Roof tensor_roof(const DeviceInfo& d, DType dtype) {
    Roof r;
    const std::optional<double>* gemm = nullptr;
    std::string which;
    if (dtype == DType::f16) {
        gemm = &d.measured_fp16_gemm_tflops;
        which = "fp16";
    } else if (dtype == DType::bf16) {
        gemm = &d.measured_bf16_gemm_tflops;
        which = "bf16";
    } else {
        // fp32 data: the app's tensor-core kernels take fp16/bf16 only; show the faster matrix roof.
        const double f16 = d.measured_fp16_gemm_tflops.value_or(0), b16 = d.measured_bf16_gemm_tflops.value_or(0);
        gemm = f16 >= b16 ? &d.measured_fp16_gemm_tflops : &d.measured_bf16_gemm_tflops;
        which = f16 >= b16 ? "fp16" : "bf16";
    }
    if (*gemm && **gemm > 0) {
        r.name = "tensor GEMM " + which;
        r.flops_per_s = **gemm * 1e12;
        r.measured = true;
        r.kind = "measured";
        r.source = "measured: cuBLAS " + which + " GEMM, fp32 accumulate (" + tflops_text(**gemm) + ")";
    } else if (d.simulated) {
        const SimCalibration c = calibration_for(d);
        const bool bf16 = dtype == DType::bf16 || (dtype == DType::f32 && c.gemm_bf16_tflops > c.gemm_tflops);
        const double tflops = bf16 ? c.gemm_bf16_tflops : c.gemm_tflops;
        which = bf16 ? "bf16" : "fp16";
        r.name = "tensor GEMM " + which;
        r.flops_per_s = tflops * 1e12;
        r.kind = simulated_roof_kind(c);
        r.source = r.kind + ": cuBLAS " + which + " GEMM (" + tflops_text(tflops) + "), " + c.source;
    } else {
        r.name = "tensor fp16/bf16";
        r.flops_per_s = d.peak_tensor_tflops * 1e12;
        r.kind = "theoretical";
        r.source = "theoretical (clocks x SMs), dense fp16/bf16 (" + tflops_text(d.peak_tensor_tflops) + ")";
    }
    return r;
}

Roof fp32_roof(const DeviceInfo& d) {
    Roof r;
    r.name = "FP32 FMA";
    if (d.measured_fp32_fma_tflops && *d.measured_fp32_fma_tflops > 0) {
        r.flops_per_s = *d.measured_fp32_fma_tflops * 1e12;
        r.measured = true;
        r.kind = "measured";
        r.source = "measured: FMA-chain kernel (" + tflops_text(*d.measured_fp32_fma_tflops) + ")";
    } else if (d.simulated) {
        const SimCalibration c = calibration_for(d);
        r.flops_per_s = c.fp32_tflops * 1e12;
        r.kind = simulated_roof_kind(c);
        r.source = r.kind + ": FMA-chain kernel (" + tflops_text(c.fp32_tflops) + "), " + c.source;
    } else {
        r.flops_per_s = d.peak_fp32_tflops * 1e12;
        r.kind = "theoretical";
        r.source = "theoretical (clocks x SMs x FP32 lanes) (" + tflops_text(d.peak_fp32_tflops) + ")";
    }
    return r;
}

}  // namespace

MemoryRoof memory_roof(const DeviceInfo& d) {
    MemoryRoof r;
    if (d.measured_copy_gbps && *d.measured_copy_gbps > 0) {
        r.bytes_per_s = *d.measured_copy_gbps * 1e9;
        r.kind = "measured";
        r.source = "measured: device-to-device copy (" + format_gbps(*d.measured_copy_gbps) + ")";
    } else if (d.simulated) {
        // The copy rate the simulator prices DRAM traffic at: a kernel at the copy ceiling sits on this roof.
        const SimCalibration c = calibration_for(d);
        r.bytes_per_s = c.dram_gbps * 1e9;
        r.kind = simulated_roof_kind(c);
        r.source = r.kind + ": device-to-device copy (" + format_gbps(c.dram_gbps) + "), " + c.source;
    } else {
        r.bytes_per_s = d.peak_bw_gbps * 1e9;
        r.kind = "theoretical";
        r.source = "theoretical (clocks x bus width) (" + format_gbps(d.peak_bw_gbps) + ")";
    }
    return r;
}

RoofSet roofs_for(const DeviceInfo& d, DType dtype) {
    RoofSet s;
    const MemoryRoof memory = memory_roof(d);
    s.bytes_per_s = memory.bytes_per_s;
    s.memory_measured = memory.kind == "measured";
    s.memory_kind = memory.kind;
    s.memory_source = memory.source;
    s.tensor = tensor_roof(d, dtype);
    s.fp32 = fp32_roof(d);
    const SimCalibration cal = calibration_for(d);
    if (cal.l2_gbps > 0) {
        s.l2_bytes_per_s = cal.l2_gbps * 1e9;
        s.l2_source = "the simulator's calibration (" + format_gbps(cal.l2_gbps) +
                      ", scaled from the DRAM bandwidth: an estimate, not measured; kernels/sim/sim_backend.cpp)";
    }
    return s;
}

const Roof& roof_for_variant(const RoofSet& roofs, const std::string& variant, const Params& p) {
    if (!validate(p).empty() || !has_variant(p.workload, variant)) return roofs.fp32;
    try {
        for (const ScheduleKernel& k : schedule(variant, p).kernels)
            if (k.tensor_cores) return roofs.tensor;
    } catch (const std::exception&) {
        // A combination the variant refuses (flash_tc in fp32): it runs nothing, the FP32 roof is as good as any.
    }
    return roofs.fp32;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Measured vs modeled DRAM bytes
// ---------------------------------------------------------------------------------------------
namespace {

std::string bytes_text(double b) { return format_bytes(b); }

std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f%%", fraction * 100);
    return text;
}

// Buffers a variant writes and then reads again (intermediates between kernels) that the L2 reuse
// model still sends through DRAM (larger than half the L2) although they fit in the whole L2: the
// next kernel may find part of them there.
std::string intermediate_reason(const Measurement& m, uint64_t l2) {
    if (!validate(m.job.params).empty() || !has_variant(m.job.params.workload, m.job.variant)) return "";
    std::map<std::string, BufferTraffic> total;
    for (const KernelModel& k : model(m.job.variant, m.job.params, l2).kernels)
        for (const BufferTraffic& b : k.buffers) {
            BufferTraffic& t = total[b.buffer];
            t.bytes_read += b.dram_read;
            t.bytes_written += b.bytes_written;
        }
    std::string fits, too_big;
    for (const auto& [name, t] : total) {
        if (t.bytes_written == 0 || t.bytes_read == 0) continue;
        std::string& list = t.bytes_written <= l2 ? fits : too_big;
        list += (list.empty() ? "" : ", ") + name + " (" + bytes_text(double(t.bytes_written)) + ")";
    }
    std::string text;
    if (!fits.empty())
        text += "Intermediates written and read back: " + fits + " fit in the " + bytes_text(double(l2)) +
                " L2 (the model counts them from DRAM above half of it), so the next kernel may read them from L2. ";
    if (!too_big.empty())
        text += "Intermediates larger than L2: " + too_big + " make the round trip through DRAM. ";
    return text;
}

}  // namespace

std::string explain_traffic_gap(const Measurement& m) {
    if (!m.measured_bytes) return "";
    const double modeled = static_cast<double>(m.bytes());
    const double measured = static_cast<double>(*m.measured_bytes);
    if (modeled <= 0) return "measured " + bytes_text(measured) + " of DRAM traffic; the model counts none";
    const double ratio = measured / modeled;
    std::string text = "measured " + bytes_text(measured) + " = " + percent(ratio) + " of the modeled " +
                       bytes_text(modeled) + ". ";
    if (std::abs(ratio - 1) <= kTrafficAgreement)
        return text + "Within " + percent(kTrafficAgreement) + ": the model's byte count is what DRAM saw.";
    const uint64_t l2 = static_cast<uint64_t>(std::max<int64_t>(m.device.l2_bytes, 0));
    if (ratio < 1) {
        text += "DRAM saw " + bytes_text(modeled - measured) + " less than the model. ";
        if (const WorkloadDef* w = find_workload(m.job.params.workload); w && w->traffic_gap_reason)
            text += w->traffic_gap_reason(m, l2);
        const std::string inter = intermediate_reason(m, l2);
        if (!inter.empty()) text += (text.back() == ' ' ? "" : " ") + inter;
        if (m.measured_bytes_written && m.bytes_written > 0) {
            const double w = static_cast<double>(*m.measured_bytes_written), mw = static_cast<double>(m.bytes_written);
            if (w > (1 + kTrafficAgreement) * mw)
                text += (text.back() == ' ' ? "" : " ") + std::string("Writes: ") + bytes_text(w) + " reached DRAM against " +
                        bytes_text(mw) + " modeled; the extra (partial 32-byte sectors, evicted write-allocated lines) "
                        "is not in the model.";
            else if (w < 0.95 * mw)
                text += (text.back() == ' ' ? "" : " ") + std::string("Writes: ") + bytes_text(w) + " of " +
                        bytes_text(mw) + " reached DRAM; up to " + bytes_text(double(l2)) +
                        " of written lines can still sit in L2 when the run ends (written back later, uncounted).";
        }
    } else {
        text += "DRAM saw " + bytes_text(measured - modeled) + " more than the model: data evicted from the " +
                bytes_text(double(l2)) +
                " L2 before its last use is fetched again (the model assumes each tile is loaded once per block), "
                "and partial 32-byte sectors move whole.";
    }
    return text;
}

}  // namespace kernels
