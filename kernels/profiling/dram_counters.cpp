// Text helpers for the DRAM counters (every build) and, in simulated-only builds, the DramCounters
// that explains why nothing can be measured. The CUPTI implementation is dram_counters.cu.
#include "kernels/profiling/dram_counters.h"

#include "kernels/core/format.h"

#include <cstdio>
#include <sstream>

namespace kernels {

namespace {
// CUptiResult values (cupti_result.h); spelled out so this file builds without the CUDA toolkit.
constexpr int kCuptiHardwareBusy = 26;
constexpr int kCuptiInsufficientPrivileges = 35;
constexpr int kCuptiVirtualizedInsufficientPrivileges = 40;
}  // namespace

std::optional<bool> profiling_admin_only(const std::string& nvidia_params_text) {
    std::istringstream lines(nvidia_params_text);
    std::string line;
    const std::string key = "RmProfilingAdminOnly:";
    while (std::getline(lines, line)) {
        if (line.rfind(key, 0) != 0) continue;
        std::istringstream value(line.substr(key.size()));
        int v = 0;
        if (value >> v) return v != 0;
        return std::nullopt;
    }
    return std::nullopt;
}

std::string describe_cupti_failure(const std::string& call, int code, const std::string& code_name,
                                   const std::string& code_text, std::optional<bool> admin_only) {
    const std::string where = " (" + code_name + " from " + call + ")";
    if (code == kCuptiInsufficientPrivileges || code == kCuptiVirtualizedInsufficientPrivileges) {
        std::string s = "unavailable: no permission to read GPU performance counters" + where + ". ";
        if (admin_only.has_value() && *admin_only)
            s += "The driver restricts them to administrators (RmProfilingAdminOnly: 1 in "
                 "/proc/driver/nvidia/params). ";
        s += "Run fusionlab as root/administrator, or let every user profile: set the nvidia module option "
             "NVreg_RestrictProfilingToAdminUsers=0 (e.g. 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' "
             "in /etc/modprobe.d/, then reload the driver or reboot)";
        if (code == kCuptiVirtualizedInsufficientPrivileges)
            s += "; on a virtual GPU the host must also enable profiling for this VM";
        return s;
    }
    if (code == kCuptiHardwareBusy)
        return "unavailable: the performance counters are busy: another profiler (Nsight Compute, Nsight Systems "
               "GPU metrics, DCGM profiling) holds them" + where + ". Stop it and run again";
    return "unavailable: " + call + " failed with " + code_name + (code_text.empty() ? "" : ": " + code_text);
}

bool cupti_failure_is_permanent(int code) { return code != kCuptiHardwareBusy; }

std::string measured_bytes_note(const DramBytes& d) {
    const std::string passes = std::to_string(d.passes) + (d.passes == 1 ? " pass" : " passes");
    if (!d.flushed_in_session)
        return std::string("CUPTI range profiler, ") + kDramReadMetric + " + " + kDramWriteMetric +
               ", one run after an L2 flush (a 4x L2 read outside the profiled range, FUSIONLAB_COUNTER_FLUSH=read); " +
               passes + ". Writes include about 20 MiB of lines the profiler's start left dirty (kernels/PERF.md)";
    if (d.truncated)
        return std::string("CUPTI range profiler, ") + kDramReadMetric + " + " + kDramWriteMetric +
               ": only the first " + std::to_string(d.ranges) + " kernels of the run (the profiler's ranges ran out), "
               "after an L2 flush in the profiled session; " + passes;
    return std::string("CUPTI range profiler, ") + kDramReadMetric + " + " + kDramWriteMetric +
           ", one run between two L2 flushes in the profiled session (the first's range dropped); " + passes +
           ". Writes include " + format_bytes(static_cast<double>(d.written_after)) +
           " the run left dirty in L2, written back by the flush after it (Nsight Compute counts a kernel's writes "
           "without them). Reads below the model mean L2 hits. The counters are the whole GPU's: another process "
           "running on this GPU meanwhile adds its bytes (kernels/PERF.md: the teaching flash kernel measured 20x "
           "its model beside a streaming process, 1.0x alone)";
}

std::string measured_vs_modeled(uint64_t measured, uint64_t modeled) {
    std::string s = format_bytes(static_cast<double>(measured));
    if (modeled > 0) {
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, " (%.2fx model)", static_cast<double>(measured) / static_cast<double>(modeled));
        s += ratio;
    }
    return s;
}

std::string counters_status_line(const std::string& availability) {
    if (availability.empty())
        return std::string("readable (CUPTI range profiler: ") + kDramReadMetric + ", " + kDramWriteMetric + ")";
    return availability;
}

#if !FUSIONLAB_HAVE_CUDA || !FUSIONLAB_HAVE_CUPTI
// No counters in this build: every measurement answers why (dram_counters.cu holds the real one).
struct DramCounters::State {};

DramCounters::DramCounters(int) {}
DramCounters::~DramCounters() = default;

const std::string& DramCounters::availability() {
#if !FUSIONLAB_HAVE_CUDA
    static const std::string why = "unavailable: built without CUDA";
#else
    static const std::string why =
        "unavailable: built without CUPTI (libcupti was not found when fusionlab was configured)";
#endif
    return why;
}

DramBytes DramCounters::measure(const std::function<void()>&, CUstream_st*, size_t) {
    DramBytes d;
    d.error = availability();
    return d;
}

#if !FUSIONLAB_GPU_MODULE  // the program of a build with CUDA asks the module (app/platform/module_loader.cpp)
std::string probe_hardware_counters(int device) { return DramCounters(device).availability(); }
#endif
#endif

}  // namespace kernels
