// CUPTI through dlopen (cupti_lazy.h). Each CUPTI function the GPU module calls is defined here
// with the header's own signature and forwards to libcupti, opened on the first call. The module
// is linked with -Bsymbolic, so its calls land here even where a libcupti is loaded too.
// Windows would LoadLibrary("cupti64_<version>.dll") and GetProcAddress instead: the forwarders
// stay the same.
#include "kernels/profiling/cupti_lazy.h"

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <dlfcn.h>

#include <mutex>

#ifndef FUSIONLAB_CUPTI_SONAME
#error "FUSIONLAB_CUPTI_SONAME (libcupti.so.N) comes from CMakeLists.txt"
#endif

namespace kernels {
namespace {

struct CuptiLibrary {
    void* handle = nullptr;
    std::string why_not;  // "" when open
};

CuptiLibrary& library() {
    static CuptiLibrary lib;
    static std::once_flag once;
    std::call_once(once, [] {
        lib.handle = dlopen(FUSIONLAB_CUPTI_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!lib.handle) {
            const char* e = dlerror();
            lib.why_not = std::string(FUSIONLAB_CUPTI_SONAME) + " (CUPTI, CUDA " FUSIONLAB_CUDA_VERSION
                          ") could not be loaded: " + (e ? e : "unknown error") +
                          ". Install NVIDIA's cuda-cupti-" FUSIONLAB_CUDA_PKG_VERSION
                          " package (or the CUDA toolkit) and make sure the loader finds it (README, Install for "
                          "a classroom); the GPU backend runs without hardware counters meanwhile";
        }
    });
    return lib;
}

// The library's `name`, or nullptr (the reason kept for cuptiGetResultString) when either is missing.
void* cupti_symbol(const char* name) {
    CuptiLibrary& lib = library();
    if (!lib.handle) return nullptr;
    void* fn = dlsym(lib.handle, name);
    if (!fn) {
        static std::mutex m;
        std::lock_guard<std::mutex> lock(m);
        if (lib.why_not.empty())
            lib.why_not = std::string(FUSIONLAB_CUPTI_SONAME) + " lacks " + name + ": it is older than CUDA " +
                          FUSIONLAB_CUDA_VERSION + "'s CUPTI; install cuda-cupti-" FUSIONLAB_CUDA_PKG_VERSION;
    }
    return fn;
}

}  // namespace

const char* cupti_library_name() { return FUSIONLAB_CUPTI_SONAME; }

std::string cupti_status() { return library().why_not; }

}  // namespace kernels

// A forwarder with the header's parameters: resolves once, then calls through.
#define FL_CUPTI_FORWARD(name, params, args)                                                     \
    extern "C" CUptiResult CUPTIAPI name params {                                                \
        using Fn = CUptiResult(CUPTIAPI*) params;                                                 \
        static const Fn fn = reinterpret_cast<Fn>(kernels::cupti_symbol(#name));                 \
        return fn ? fn args : CUPTI_ERROR_NOT_INITIALIZED;                                        \
    }

extern "C" CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
    using Fn = CUptiResult(CUPTIAPI*)(CUptiResult, const char**);
    static const Fn fn = reinterpret_cast<Fn>(kernels::cupti_symbol("cuptiGetResultString"));
    if (fn && kernels::library().why_not.empty()) return fn(result, str);
    // The library (or one of its functions) is missing: the "error" is that, said in full.
    if (str) *str = kernels::library().why_not.c_str();
    return CUPTI_SUCCESS;
}

FL_CUPTI_FORWARD(cuptiFinalize, (void), ())
FL_CUPTI_FORWARD(cuptiSubscribe, (CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* userdata),
                 (subscriber, callback, userdata))
FL_CUPTI_FORWARD(cuptiUnsubscribe, (CUpti_SubscriberHandle subscriber), (subscriber))
// Activity API (the timeline's kernel trace)
FL_CUPTI_FORWARD(cuptiActivityEnable, (CUpti_ActivityKind kind), (kind))
FL_CUPTI_FORWARD(cuptiActivityDisable, (CUpti_ActivityKind kind), (kind))
FL_CUPTI_FORWARD(cuptiActivityFlushAll, (uint32_t flag), (flag))
FL_CUPTI_FORWARD(cuptiActivityRegisterCallbacks,
                 (CUpti_BuffersCallbackRequestFunc requested, CUpti_BuffersCallbackCompleteFunc completed),
                 (requested, completed))
FL_CUPTI_FORWARD(cuptiActivityGetNextRecord, (uint8_t * buffer, size_t valid_bytes, CUpti_Activity** record),
                 (buffer, valid_bytes, record))
// Profiler target and host API (the DRAM counters)
FL_CUPTI_FORWARD(cuptiProfilerInitialize, (CUpti_Profiler_Initialize_Params * p), (p))
FL_CUPTI_FORWARD(cuptiProfilerDeInitialize, (CUpti_Profiler_DeInitialize_Params * p), (p))
FL_CUPTI_FORWARD(cuptiProfilerDeviceSupported, (CUpti_Profiler_DeviceSupported_Params * p), (p))
FL_CUPTI_FORWARD(cuptiProfilerGetCounterAvailability, (CUpti_Profiler_GetCounterAvailability_Params * p), (p))
FL_CUPTI_FORWARD(cuptiDeviceGetChipName, (CUpti_Device_GetChipName_Params * p), (p))
FL_CUPTI_FORWARD(cuptiProfilerHostInitialize, (CUpti_Profiler_Host_Initialize_Params * p), (p))
FL_CUPTI_FORWARD(cuptiProfilerHostDeinitialize, (CUpti_Profiler_Host_Deinitialize_Params * p), (p))
FL_CUPTI_FORWARD(cuptiProfilerHostConfigAddMetrics, (CUpti_Profiler_Host_ConfigAddMetrics_Params * p), (p))
FL_CUPTI_FORWARD(cuptiProfilerHostGetConfigImageSize, (CUpti_Profiler_Host_GetConfigImageSize_Params * p), (p))
FL_CUPTI_FORWARD(cuptiProfilerHostGetConfigImage, (CUpti_Profiler_Host_GetConfigImage_Params * p), (p))
FL_CUPTI_FORWARD(cuptiProfilerHostGetNumOfPasses, (CUpti_Profiler_Host_GetNumOfPasses_Params * p), (p))
FL_CUPTI_FORWARD(cuptiProfilerHostEvaluateToGpuValues, (CUpti_Profiler_Host_EvaluateToGpuValues_Params * p), (p))
FL_CUPTI_FORWARD(cuptiRangeProfilerEnable, (CUpti_RangeProfiler_Enable_Params * p), (p))
FL_CUPTI_FORWARD(cuptiRangeProfilerDisable, (CUpti_RangeProfiler_Disable_Params * p), (p))
FL_CUPTI_FORWARD(cuptiRangeProfilerStart, (CUpti_RangeProfiler_Start_Params * p), (p))
FL_CUPTI_FORWARD(cuptiRangeProfilerStop, (CUpti_RangeProfiler_Stop_Params * p), (p))
FL_CUPTI_FORWARD(cuptiRangeProfilerSetConfig, (CUpti_RangeProfiler_SetConfig_Params * p), (p))
FL_CUPTI_FORWARD(cuptiRangeProfilerGetCounterDataSize, (CUpti_RangeProfiler_GetCounterDataSize_Params * p), (p))
FL_CUPTI_FORWARD(cuptiRangeProfilerGetCounterDataInfo, (CUpti_RangeProfiler_GetCounterDataInfo_Params * p), (p))
FL_CUPTI_FORWARD(cuptiRangeProfilerDecodeData, (CUpti_RangeProfiler_DecodeData_Params * p), (p))
FL_CUPTI_FORWARD(cuptiRangeProfilerCounterDataImageInitialize,
                 (CUpti_RangeProfiler_CounterDataImage_Initialize_Params * p), (p))
FL_CUPTI_FORWARD(cuptiRangeProfilerCounterDataGetRangeInfo, (CUpti_RangeProfiler_CounterData_GetRangeInfo_Params * p),
                 (p))
