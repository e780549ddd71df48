// Compute ceilings of a GPU, measured once per device, driver and clocks and cached on disk:
//   tensor: cuBLAS GEMM (cublasGemmEx), fp16 and bf16 inputs, fp32 accumulation, n = 8192
//   FP32:   a kernel of independent chains of dependent FMAs (kernels/profiling/ceilings.cu)
// The memory ceiling (a copy kernel) is measured by the GPU backend at start (gpu_backend.cu).
// The cache is a JSON object keyed by device + driver + clocks; a file that cannot be read or
// parsed is ignored with a note (and rewritten), never a crash.
#pragma once

#include "kernels/core/types.h"

#include <optional>
#include <string>

namespace kernels {

struct ComputeCeilings {
    std::optional<double> fp16_gemm_tflops;
    std::optional<double> bf16_gemm_tflops;
    std::optional<double> fp32_fma_tflops;
    std::string how;  // what was measured and how (sizes, reps), or why not
};

// $FUSIONLAB_CACHE_DIR, else $XDG_CACHE_HOME/fusionlab, else $HOME/.cache/fusionlab, else
// %LOCALAPPDATA%/fusionlab; + "/ceilings.json". "" when none of these is set.
std::string ceilings_cache_path();
// "NVIDIA H100 80GB HBM3 | CUDA 13.0 driver | SM 1980 MHz, memory 2619 MHz"
std::string ceilings_cache_key(const DeviceInfo& d);

struct CacheLookup {
    bool found = false;
    ComputeCeilings ceilings;
    std::string note;  // "" when found or simply absent; else why the file was ignored
};
CacheLookup load_cached_ceilings(const std::string& path, const std::string& key);
// Adds or replaces `key`, keeping other devices' entries (a corrupt file is replaced). Atomic:
// a temporary file renamed over the target. Returns "" or the error.
std::string save_cached_ceilings(const std::string& path, const std::string& key, const ComputeCeilings& c);

// Copies the ceilings into d's measured_* fields, with `note` as compute_ceiling_note.
void apply_compute_ceilings(DeviceInfo& d, const ComputeCeilings& c, const std::string& note);

// GPU builds only (ceilings.cu): measures on the current device. Never throws: failures are in
// `how` with the fields left empty.
ComputeCeilings measure_compute_ceilings();
// Cache first (by ceilings_cache_key(d)), else measure and save; fills d. GPU builds only.
void load_or_measure_compute_ceilings(DeviceInfo& d);

}  // namespace kernels
