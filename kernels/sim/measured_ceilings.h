#pragma once
// A calibration with the ceilings a real device measured put in place of its constants: the copy
// rate (narrow accesses scaled with it), cuBLAS's fp16 and bf16 GEMM rates, the FP32 FMA rate, each
// where the device carries it. calibration_for (sim_backend.cpp) prices a real GPU this way, and the
// held-out study (app/recordings/sim_heldout.cpp) prices every recorded point with its own machine's; and the
// hardware's bound on a rate the fit would otherwise take past it.
#include "kernels/sim/sim_backend.h"

namespace kernels {

SimCalibration with_measured_ceilings(SimCalibration c, const DeviceInfo& d);

// The SFUs' issue rate, the bound on exp2 results a second: 16 a clock an SM (CUDA C++ Programming Guide,
// "Arithmetic Instructions" throughput table, cc 7.0-9.0) x the SMs x the SM clock the device carries.
double sfu_peak_per_s(const DeviceInfo& d);

}  // namespace kernels
