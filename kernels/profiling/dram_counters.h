// Measured DRAM bytes through the CUPTI range profiler (dram__bytes_read.sum, dram__bytes_write.sum).
// One DramCounters per device, used on the thread that owns the device's CUDA context (the runner's
// worker). The availability check is lazy and happens once: a failure that cannot go away while the
// process runs (no permission, unsupported device, built without CUPTI) is cached and returned as a
// message on every later call, so jobs never retry an impossible init. With FUSIONLAB_CUPTI_DETACH=1
// the profiler's CUPTI objects live for one measurement only, so CUPTI can be detached between jobs
// (cupti_detach.h); otherwise they are kept. Nothing here throws; failures are "unavailable: <why>".
//
// dram_counters.cu holds the CUPTI implementation (CUDA builds); dram_counters.cpp holds the text
// helpers below and, in simulated-only builds, a DramCounters that says "built without CUDA".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

struct CUstream_st;  // cudaStream_t without the CUDA headers: this header is included by plain C++

namespace kernels {

// The metrics read for each measurement, in this order.
inline constexpr const char* kDramReadMetric = "dram__bytes_read.sum";
inline constexpr const char* kDramWriteMetric = "dram__bytes_write.sum";

struct DramBytes {
    bool ok = false;
    uint64_t read = 0, written = 0;
    int passes = 0;         // replay passes the counters needed (1 for these two metrics on Hopper)
    int ranges = 0;         // the run's kernels profiled (auto range: one range per kernel launch)
    // Of `written`: the lines the run left dirty in L2, written back by the read pass after it (a
    // range of its own). Nsight Compute counts a kernel's writes without them.
    uint64_t written_after = 0;
    bool flushed_in_session = false;  // false: FUSIONLAB_COUNTER_FLUSH=read, the old flush
    bool truncated = false;           // the run had more kernels than the profiler's ranges: the first `ranges` counted
    std::string error;      // "unavailable: <why>" when !ok
    uint64_t total() const { return read + written; }
};

class DramCounters {
public:
    explicit DramCounters(int device);
    ~DramCounters();
    DramCounters(const DramCounters&) = delete;
    DramCounters& operator=(const DramCounters&) = delete;

    // "" once the counters are readable on this device, else "unavailable: <why>". Initialises on
    // the first call (the calling thread must have the device's context current, e.g. after
    // cudaSetDevice). Cached: later calls cost nothing.
    const std::string& availability();

    // Measures one run of `launch`, which enqueues kernels on `stream` and does not synchronise.
    // In each replay pass, a read pass over a scratch buffer of 4x the L2 size runs inside the
    // profiling session before the run (its range is dropped: lines left by earlier work, and by the
    // profiler's start, neither hide reads nor add writebacks) and another after it (only its writes
    // count: the lines the run left dirty).
    // `launch` may run more than once (one run per replay pass); it must be safe to repeat.
    // `kernels`: how many kernels one run launches (the profiler keeps a range for each, plus two).
    DramBytes measure(const std::function<void()>& launch, CUstream_st* stream, size_t kernels = 1);

private:
    struct State;
    std::unique_ptr<State> state_;
};

// ---------------------------------------------------------------------------------------------
// Text helpers (pure; tested on the CPU)
// ---------------------------------------------------------------------------------------------
// The value of RmProfilingAdminOnly in /proc/driver/nvidia/params text; nullopt when absent.
std::optional<bool> profiling_admin_only(const std::string& nvidia_params_text);

// "unavailable: ..." for a CUPTI error code returned by `call`. code_name is the CUPTI enum name
// ("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), code_text its description. admin_only is what
// /proc/driver/nvidia/params says (nullopt when unreadable). Privilege and busy errors say what to do.
std::string describe_cupti_failure(const std::string& call, int code, const std::string& code_name,
                                   const std::string& code_text, std::optional<bool> admin_only);

// True for failures that cannot go away while the process runs (cache them); false for the
// transient CUPTI_ERROR_HARDWARE_BUSY (another profiler holds the counters now).
bool cupti_failure_is_permanent(int code);

// The Measurement note for a successful measurement (how it was measured; the bytes are fields).
std::string measured_bytes_note(const DramBytes& d);

// "1.50 GiB (1.00x model)"; without the ratio when modeled is 0.
std::string measured_vs_modeled(uint64_t measured, uint64_t modeled);

// Tries the counters on `device` for real (initialisation and one small measured kernel), for
// `fusionlab info`: "" when readable, else "unavailable: <why>". Call it from a thread where the
// device's context may be made current (it calls cudaSetDevice).
std::string probe_hardware_counters(int device);

// "hardware counters" line of `fusionlab info`: "readable (CUPTI range profiler: ...)" or the reason.
std::string counters_status_line(const std::string& availability);

}  // namespace kernels
