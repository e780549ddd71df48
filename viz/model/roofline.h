// Roofline arithmetic (Williams, Waterman & Patterson's model), no GUI:
//   arithmetic intensity I = FLOPs / bytes moved to and from DRAM        [FLOP/byte]
//   attainable FLOP/s      = min(peak FLOP/s, I x bandwidth)
//   ridge point            = peak / bandwidth: below it the memory roof bounds a kernel
// The roofs come from the device: measured ceilings on a GPU (copy kernel, cuBLAS GEMM, FMA
// kernel), datasheet values on a simulated GPU, each labelled with where it came from. A second
// memory roof, L2 <-> SM bandwidth, comes from the simulated backend's calibration: with it a
// kernel is a point per level (a hierarchical roofline, as Nsight Compute draws): FLOPs / DRAM
// bytes against the DRAM roof, FLOPs / L2 <-> SM bytes against the L2 roof.
// Also here: why measured DRAM bytes differ from the model (computed from the model's buffers,
// the L2 size and the counters), for the roofline hover and the results table.
#pragma once

#include "kernels/core/types.h"

#include <string>
#include <vector>

namespace kernels {

// ---------------------------------------------------------------------------------------------
// Arithmetic
// ---------------------------------------------------------------------------------------------
// FLOPs / bytes; 0 when bytes is 0 (no traffic: no point on a roofline).
double arithmetic_intensity(double flops, double bytes);
// min(peak, intensity x bandwidth), FLOP/s. Units: FLOP/s, FLOP/byte, bytes/s.
double attainable_flops(double intensity, double peak_flops, double bytes_per_s);
// peak / bandwidth, FLOP/byte; 0 when the bandwidth is 0.
double ridge_point(double peak_flops, double bytes_per_s);

enum class Bound { memory, compute };
// memory when intensity < ridge point (the sloped roof is the lower one there), else compute.
Bound bound_by(double intensity, double peak_flops, double bytes_per_s);
const char* to_string(Bound b);

// ---------------------------------------------------------------------------------------------
// Roofs of a device
// ---------------------------------------------------------------------------------------------
struct Roof {
    std::string name;         // "tensor GEMM bf16", "FP32 FMA"
    double flops_per_s = 0;   // 0: unknown
    bool measured = false;    // false: calibrated / datasheet / theoretical
    std::string kind;         // "measured", "calibrated" (a simulated GPU fitted on measurements of that model), "datasheet-scaled" (a simulated GPU scaled from its datasheet), "datasheet", "theoretical"
    std::string source;       // "measured: cuBLAS bf16 GEMM 8192^3" / "datasheet"
};

struct RoofSet {
    double bytes_per_s = 0;   // memory roof: DRAM
    bool memory_measured = false;
    std::string memory_kind;  // as Roof::kind
    std::string memory_source;
    double l2_bytes_per_s = 0;  // L2 <-> SM roof (0: unknown)
    std::string l2_source;
    Roof tensor;              // matrix units (fp16/bf16 in, fp32 accumulate)
    Roof fp32;                // FP32 FMA pipes
};

// Measured ceilings where the device has them; on a simulated GPU its calibration (copy, cuBLAS
// GEMM and FMA rates measured on a card of that model, kernels/sim/sim_backend.cpp), so the
// roofs are the ones its simulated times obey; datasheet / theoretical values otherwise. The tensor
// roof is the GEMM of `dtype` (fp32 data: the faster of fp16 and bf16, labelled so). The L2 roof is
// the calibration's L2 bandwidth (calibration_for in kernels/sim/sim_backend.h), which no kernel here
// measures: its source says so.
RoofSet roofs_for(const DeviceInfo& d, DType dtype);

// The DRAM (copy) roof alone, as roofs_for draws it and the results' "% of ceiling" divides by.
struct MemoryRoof {
    double bytes_per_s = 0;
    std::string kind;    // "measured", "calibrated" or "datasheet-scaled" (a simulated GPU), "theoretical"
    std::string source;  // "measured: device-to-device copy (2986 GB/s)", ...
};
MemoryRoof memory_roof(const DeviceInfo& d);

// The compute roof a variant is held to: tensor when any of its kernels runs on tensor cores
// (cuBLAS fp16/bf16 GEMMs, flash_tc), FP32 otherwise.
const Roof& roof_for_variant(const RoofSet& roofs, const std::string& variant, const Params& p);

// ---------------------------------------------------------------------------------------------
// Measured vs modeled DRAM bytes
// ---------------------------------------------------------------------------------------------
// Fraction by which measured and modeled bytes may differ before the difference needs a reason.
inline constexpr double kTrafficAgreement = 0.15;

// "" when the measurement has no counter bytes. Otherwise one paragraph: how far measured is from
// the model and, beyond kTrafficAgreement, why, with numbers computed from the model's buffers,
// the device's L2 and the counters (K and V of one head fit in L2, so flash's Tr re-reads hit
// L2; an intermediate fits in L2, so the next kernel reads it from there; written lines still in
// L2 when the run ended).
std::string explain_traffic_gap(const Measurement& m);

}  // namespace kernels
