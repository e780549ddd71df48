// DramCounters through the CUPTI range profiler (CUDA 13 API). The call order is the one that worked
// on an H200 (kernels/PERF.md, "Measured DRAM bytes (hardware counters)"): cuptiProfilerInitialize, DeviceSupported, GetChipName,
// GetCounterAvailability, host object + config image; per measurement Enable, counter data image,
// SetConfig (auto range, user replay), Start/launch/Stop until every pass is submitted, DecodeData,
// evaluate each range, Disable. With FUSIONLAB_CUPTI_DETACH=1 (a diagnostic switch, cupti_detach.h)
// the host object and the profiler are released after each measurement, so the backend can detach
// CUPTI between jobs; the next measurement sets them up again.
//
// [SECTION] CUPTI errors
// [SECTION] Initialisation (once per device)
// [SECTION] One measurement
// [SECTION] DramCounters
#include "kernels/profiling/dram_counters.h"
#include "kernels/core/env.h"

#include "kernels/profiling/cupti_detach.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#if FUSIONLAB_HAVE_CUPTI
#include <cudaTypedefs.h>
#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#endif

namespace kernels {

#if FUSIONLAB_HAVE_CUPTI

namespace {

// =============================================================================================
// [SECTION] CUPTI errors
// =============================================================================================
// A failed CUPTI (or CUDA) call inside this file; carries the message and whether to cache it.
struct CounterFailure {
    std::string message;
    bool permanent = true;
};

std::optional<bool> read_admin_only() {
    std::ifstream params("/proc/driver/nvidia/params");
    if (!params) return std::nullopt;
    std::stringstream text;
    text << params.rdbuf();
    return profiling_admin_only(text.str());
}

void cupti_check(CUptiResult r, const char* call) {
    if (r == CUPTI_SUCCESS) return;
    const char* text = nullptr;
    if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr) text = "";
    // cuptiGetResultString gives "CUPTI_ERROR_X" names on some versions and prose on others: keep both.
    const std::string given(text);
    const bool is_name = given.rfind("CUPTI_", 0) == 0;
    const std::string name = is_name ? given : "CUPTI error " + std::to_string(static_cast<int>(r));
    const std::string prose = is_name ? std::string() : given;
    throw CounterFailure{describe_cupti_failure(call, static_cast<int>(r), name, prose, read_admin_only()),
                         cupti_failure_is_permanent(static_cast<int>(r))};
}

void cuda_check(cudaError_t e, const std::string& what) {
    if (e == cudaSuccess) return;
    (void)cudaGetLastError();
    // Out of memory for the flush buffer may pass; anything else stays.
    throw CounterFailure{"unavailable: " + what + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")",
                         e != cudaErrorMemoryAllocation};
}

// Reads the scratch buffer so L2 holds only clean lines of it; sink keeps the loads alive.
__global__ void counters_l2_flush_kernel(const uint4* __restrict__ src, int64_t vectors, unsigned* sink) {
    unsigned acc = 0;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) {
        const uint4 v = src[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;  // practically never taken; the compiler cannot drop the loads
}

// The driver's context current on this thread (the runtime's primary context after cudaSetDevice),
// fetched through the runtime so the binary does not link libcuda (it must start without a driver).
CUcontext current_context() {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status{};
    cuda_check(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &status),
               "cudaGetDriverEntryPointByVersion(cuCtxGetCurrent)");
    if (fn == nullptr || status != cudaDriverEntryPointSuccess)
        throw CounterFailure{"unavailable: the driver does not export cuCtxGetCurrent", true};
    CUcontext ctx = nullptr;
    if (reinterpret_cast<PFN_cuCtxGetCurrent_v4000>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr)
        throw CounterFailure{"unavailable: no current CUDA context on the calling thread", true};
    return ctx;
}

CUdevice driver_device(int ordinal) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status{};
    cuda_check(cudaGetDriverEntryPointByVersion("cuDeviceGet", &fn, 12000, cudaEnableDefault, &status),
               "cudaGetDriverEntryPointByVersion(cuDeviceGet)");
    CUdevice dev = 0;
    if (fn == nullptr || status != cudaDriverEntryPointSuccess ||
        reinterpret_cast<PFN_cuDeviceGet_v2000>(fn)(&dev, ordinal) != CUDA_SUCCESS)
        throw CounterFailure{"unavailable: cuDeviceGet failed for device " + std::to_string(ordinal), true};
    return dev;
}

const char* support_name(CUpti_Profiler_Support_Level l) {
    switch (l) {
        case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
        case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
        case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
        default: return "unknown";
    }
}

void CUPTIAPI ignore_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

CUptiResult try_profiler_initialize() {
    CUpti_Profiler_Initialize_Params p{};
    p.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    CUptiResult r = cuptiProfilerInitialize(&p);
    // After cuptiFinalize (cupti_detach.h) the profiler API alone does not attach CUPTI again
    // (CUPTI_ERROR_NOT_INITIALIZED on an H100, CUDA 13.0); other CUPTI calls attach it lazily:
    // flushing no activity, else subscribing and unsubscribing a callback that does nothing.
    if (r == CUPTI_ERROR_NOT_INITIALIZED) {
        (void)cuptiActivityFlushAll(0);
        r = cuptiProfilerInitialize(&p);
    }
    if (r == CUPTI_ERROR_NOT_INITIALIZED) {
        CUpti_SubscriberHandle subscriber = nullptr;
        if (cuptiSubscribe(&subscriber, ignore_callback, nullptr) == CUPTI_SUCCESS) (void)cuptiUnsubscribe(subscriber);
        r = cuptiProfilerInitialize(&p);
    }
    return r;
}

// Once per process, unless CUPTI is detached between jobs (cupti_detach.h): then once per setup.
void profiler_initialize() {
    if (!cupti_detach_enabled()) {
        static const CUptiResult once = try_profiler_initialize();
        cupti_check(once, "cuptiProfilerInitialize");
        return;
    }
    cupti_check(try_profiler_initialize(), "cuptiProfilerInitialize");
}

void profiler_deinitialize() {
    CUpti_Profiler_DeInitialize_Params p{};
    p.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
    (void)cuptiProfilerDeInitialize(&p);  // best effort: nothing useful to do with an error here
}

}  // namespace

struct DramCounters::State {
    int device = 0;
    bool initialised = false;
    std::string availability;   // "" when readable
    CUcontext ctx = nullptr;
    std::vector<uint8_t> counter_availability;
    std::vector<uint8_t> config_image;
    CUpti_Profiler_Host_Object* host = nullptr;
    bool profiler_initialised = false;
    size_t passes = 0;
    int64_t l2_bytes = 0;

    ~State() { release(); }

    // Ends the profiler's use of CUPTI (host object; when CUPTI is detached between jobs the profiler
    // itself too, so the backend can detach CUPTI between jobs); the next measurement sets it up again.
    void release() {
        if (host != nullptr) {
            CUpti_Profiler_Host_Deinitialize_Params p{};
            p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
            p.pHostObject = host;
            (void)cuptiProfilerHostDeinitialize(&p);  // nothing useful to do with an error here
            host = nullptr;
        }
        if (profiler_initialised && cupti_detach_enabled()) profiler_deinitialize();
        profiler_initialised = false;
    }

    // =========================================================================================
    // [SECTION] Initialisation (once per device)
    // =========================================================================================
    void initialise() {
        cuda_check(cudaSetDevice(device), "cudaSetDevice");
        cuda_check(cudaFree(nullptr), "creating the CUDA context");  // the primary context, current now
        ctx = current_context();
        int l2 = 0;
        cuda_check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute(L2)");
        l2_bytes = l2;
        profiler_initialize();
        profiler_initialised = true;

        CUpti_Profiler_DeviceSupported_Params sup{};
        sup.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
        sup.cuDevice = driver_device(device);
        sup.api = CUPTI_PROFILER_RANGE_PROFILING;
        cupti_check(cuptiProfilerDeviceSupported(&sup), "cuptiProfilerDeviceSupported");
        if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
            throw CounterFailure{std::string("unavailable: this device does not support the CUPTI range profiler "
                                             "(architecture ") + support_name(sup.architecture) + ", SLI " +
                                     support_name(sup.sli) + ", vGPU " + support_name(sup.vGpu) +
                                     ", confidential compute " + support_name(sup.confidentialCompute) + ", CMP " +
                                     support_name(sup.cmp) + ", WSL " + support_name(sup.wsl) + ")",
                                 true};

        CUpti_Device_GetChipName_Params chip{};
        chip.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
        chip.deviceIndex = static_cast<size_t>(device);
        cupti_check(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");

        CUpti_Profiler_GetCounterAvailability_Params avail{};
        avail.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
        avail.ctx = ctx;
        cupti_check(cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability (size)");
        counter_availability.assign(avail.counterAvailabilityImageSize, 0);
        avail.pCounterAvailabilityImage = counter_availability.data();
        cupti_check(cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");

        CUpti_Profiler_Host_Initialize_Params hi{};
        hi.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
        hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        hi.pChipName = chip.pChipName;
        hi.pCounterAvailabilityImage = counter_availability.data();
        cupti_check(cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize");
        host = hi.pHostObject;

        const char* metrics[] = {kDramReadMetric, kDramWriteMetric};
        CUpti_Profiler_Host_ConfigAddMetrics_Params add{};
        add.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
        add.pHostObject = host;
        add.ppMetricNames = metrics;
        add.numMetrics = 2;
        cupti_check(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");

        CUpti_Profiler_Host_GetConfigImageSize_Params size{};
        size.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
        size.pHostObject = host;
        cupti_check(cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
        config_image.assign(size.configImageSize, 0);
        CUpti_Profiler_Host_GetConfigImage_Params image{};
        image.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
        image.pHostObject = host;
        image.configImageSize = config_image.size();
        image.pConfigImage = config_image.data();
        cupti_check(cuptiProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage");

        CUpti_Profiler_Host_GetNumOfPasses_Params np{};
        np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
        np.configImageSize = config_image.size();
        np.pConfigImage = config_image.data();
        cupti_check(cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
        passes = np.numOfPasses;
    }

    // =========================================================================================
    // [SECTION] One measurement
    // =========================================================================================
    // Enables the range profiler on the context for one measurement and disables it whatever happens.
    struct Session {
        CUpti_RangeProfiler_Object* object = nullptr;
        explicit Session(CUcontext c) {
            CUpti_RangeProfiler_Enable_Params p{};
            p.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
            p.ctx = c;
            cupti_check(cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable");
            object = p.pRangeProfilerObject;
        }
        ~Session() {
            CUpti_RangeProfiler_Disable_Params p{};
            p.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
            p.pRangeProfilerObject = object;
            (void)cuptiRangeProfilerDisable(&p);  // best effort: the measurement's own error is the one to report
        }
        Session(const Session&) = delete;
        Session& operator=(const Session&) = delete;
    };

    // Scratch memory for the L2 flush, freed when the measurement ends (it is 4x L2: do not hold it).
    struct Scratch {
        void* ptr = nullptr;
        explicit Scratch(size_t bytes) { cuda_check(cudaMalloc(&ptr, bytes), "cudaMalloc of the L2 flush buffer"); }
        ~Scratch() { if (ptr) (void)cudaFree(ptr); }
        Scratch(const Scratch&) = delete;
        Scratch& operator=(const Scratch&) = delete;
    };

    DramBytes measure(const std::function<void()>& launch, cudaStream_t stream, size_t kernels) {
        // A range per kernel launch: the run's, and the two flushes'. Sized to the run (the counter
        // image and the profiler's setup grow with it: 1024 ranges made every measurement of a short
        // run about a second slower on the H100); a run of more kernels than it said is counted on
        // its first kernels (said in the note).
        // Twice the kernels it names, plus some, for libraries that launch more than one (cuBLAS).
        const size_t kMaxRanges = 2 * std::clamp<size_t>(kernels, 1, 1024) + 8;
        const char* metrics[] = {kDramReadMetric, kDramWriteMetric};
        cuda_check(cudaSetDevice(device), "cudaSetDevice");

        const size_t flush_bytes = 4 * static_cast<size_t>(std::max<int64_t>(l2_bytes, 1 << 20));
        int sms = 0;
        cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
        Scratch flush(flush_bytes + sizeof(unsigned));
        cuda_check(cudaMemsetAsync(flush.ptr, 0, flush_bytes + sizeof(unsigned), stream), "cudaMemsetAsync");
        unsigned* sink = reinterpret_cast<unsigned*>(static_cast<char*>(flush.ptr) + flush_bytes);
        // Where L2 is emptied (kernels/PERF.md, "Counters vs Nsight Compute"). Starting the range
        // profiler leaves about 20 MiB of dirty lines in L2 on an H100 (a kernel that only reads
        // 64 MiB counted 20 MiB of writes whatever flush ran before Start; an idle kernel, none):
        // so the flush runs inside the session, as range 0, and is dropped from the sums; a second
        // read pass after the run, the last range, writes back what the run left dirty, and only
        // its writes count (they are the run's). FUSIONLAB_COUNTER_FLUSH=read: the flush before
        // 2026-11-25, a read pass before Start, kept to reproduce the +16 to +21 MiB it let in.
        const bool flush_in_session = !env_is("FUSIONLAB_COUNTER_FLUSH", "read");
        const auto flush_l2 = [&](const char* what) {
            counters_l2_flush_kernel<<<sms * 4, 256, 0, stream>>>(static_cast<const uint4*>(flush.ptr),
                                                                   static_cast<int64_t>(flush_bytes / 16), sink);
            cuda_check(cudaGetLastError(), what);
        };

        // Declared before the session: CUPTI may touch the counter data image until Disable, so it
        // must outlive the session (locals are destroyed in reverse order).
        std::vector<uint8_t> counter_data;
        Session session(ctx);
        CUpti_RangeProfiler_GetCounterDataSize_Params ds{};
        ds.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
        ds.pRangeProfilerObject = session.object;
        ds.pMetricNames = metrics;
        ds.numMetrics = 2;
        ds.maxNumOfRanges = kMaxRanges;
        ds.maxNumRangeTreeNodes = static_cast<uint32_t>(kMaxRanges);
        cupti_check(cuptiRangeProfilerGetCounterDataSize(&ds), "cuptiRangeProfilerGetCounterDataSize");
        counter_data.assign(ds.counterDataSize, 0);
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{};
        init.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
        init.pRangeProfilerObject = session.object;
        init.counterDataSize = counter_data.size();
        init.pCounterData = counter_data.data();
        cupti_check(cuptiRangeProfilerCounterDataImageInitialize(&init), "cuptiRangeProfilerCounterDataImageInitialize");

        CUpti_RangeProfiler_SetConfig_Params cfg{};
        cfg.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
        cfg.pRangeProfilerObject = session.object;
        cfg.configSize = config_image.size();
        cfg.pConfig = config_image.data();
        cfg.counterDataImageSize = counter_data.size();
        cfg.pCounterDataImage = counter_data.data();
        cfg.range = CUPTI_AutoRange;
        cfg.replayMode = CUPTI_UserReplay;
        cfg.maxRangesPerPass = kMaxRanges;
        cfg.numNestingLevels = 1;
        cfg.minNestingLevel = 1;
        cfg.passIndex = 0;
        cfg.targetNestingLevel = 1;
        cupti_check(cuptiRangeProfilerSetConfig(&cfg), "cuptiRangeProfilerSetConfig");

        DramBytes result;
        for (int pass = 0;; ++pass) {
            if (pass > 64) throw CounterFailure{"unavailable: the range profiler never reported all passes submitted", false};
            if (!flush_in_session) {  // the old flush: before Start, in no range
                flush_l2("launching the L2 flush");
                cuda_check(cudaStreamSynchronize(stream), "the L2 flush");
            }
            CUpti_RangeProfiler_Start_Params start{};
            start.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
            start.pRangeProfilerObject = session.object;
            cupti_check(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
            if (flush_in_session) flush_l2("launching the L2 flush (range 0)");  // evict what L2 holds now
            launch();
            cuda_check(cudaGetLastError(), "launching the measured kernels");
            if (flush_in_session) flush_l2("launching the L2 flush (last range)");  // write back what the run left dirty
            cuda_check(cudaGetLastError(), "launching the measured kernels");
            cuda_check(cudaStreamSynchronize(stream), "the measured run");
            CUpti_RangeProfiler_Stop_Params stop{};
            stop.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
            stop.pRangeProfilerObject = session.object;
            cupti_check(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
            result.passes = pass + 1;
            if (stop.isAllPassSubmitted) break;
        }

        CUpti_RangeProfiler_DecodeData_Params decode{};
        decode.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
        decode.pRangeProfilerObject = session.object;
        cupti_check(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
        if (decode.numOfRangeDropped > 0)
            throw CounterFailure{"unavailable: the range profiler dropped " + std::to_string(decode.numOfRangeDropped) +
                                     " ranges (more than " + std::to_string(kMaxRanges) + " kernels in one run)",
                                 false};

        CUpti_RangeProfiler_GetCounterDataInfo_Params info{};
        info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
        info.pCounterDataImage = counter_data.data();
        info.counterDataImageSize = counter_data.size();
        cupti_check(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
        // Every range recorded: the closing flush may not have fit (a run of more kernels than ranges).
        const bool full = info.numTotalRanges >= kMaxRanges;
        const bool closing_flush = flush_in_session && !full;
        const size_t flush_ranges = (flush_in_session ? 1 : 0) + (closing_flush ? 1 : 0);
        if (info.numTotalRanges <= flush_ranges)
            throw CounterFailure{"unavailable: the range profiler recorded no kernel (did the callable launch any?)",
                                 false};

        double read = 0, written = 0, written_after = 0;
        for (size_t r = flush_in_session ? 1 : 0; r < info.numTotalRanges; ++r) {
            CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri{};
            ri.structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE;
            ri.pCounterDataImage = counter_data.data();
            ri.counterDataImageSize = counter_data.size();
            ri.rangeIndex = r;
            ri.rangeDelimiter = "/";
            cupti_check(cuptiRangeProfilerCounterDataGetRangeInfo(&ri), "cuptiRangeProfilerCounterDataGetRangeInfo");
            double values[2] = {0, 0};
            CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{};
            ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
            ev.pHostObject = host;
            ev.pCounterDataImage = counter_data.data();
            ev.counterDataImageSize = counter_data.size();
            ev.rangeIndex = r;
            ev.ppMetricNames = metrics;
            ev.numMetrics = 2;
            ev.pMetricValues = values;
            cupti_check(cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
            if (closing_flush && r + 1 == info.numTotalRanges) {
                written_after += values[1];  // the closing flush: its reads are its own, its writes the run's
                continue;
            }
            read += values[0];
            written += values[1];
        }
        result.ok = true;
        result.read = static_cast<uint64_t>(std::llround(read));
        result.written = static_cast<uint64_t>(std::llround(written + written_after));
        result.written_after = static_cast<uint64_t>(std::llround(written_after));
        result.flushed_in_session = flush_in_session;
        result.ranges = static_cast<int>(info.numTotalRanges - flush_ranges);
        result.truncated = full;
        return result;
    }
};

// =============================================================================================
// [SECTION] DramCounters
// =============================================================================================
DramCounters::DramCounters(int device) : state_(std::make_unique<State>()) { state_->device = device; }
DramCounters::~DramCounters() = default;

const std::string& DramCounters::availability() {
    State& s = *state_;
    if (s.initialised) return s.availability;
    try {
        s.initialise();
        s.availability.clear();
        s.initialised = true;
    } catch (const CounterFailure& f) {
        s.availability = f.message;
        s.initialised = f.permanent;  // a transient failure (counters busy) is retried by the next call
        s.release();  // a retry sets everything up again
    }
    return s.availability;
}

DramBytes DramCounters::measure(const std::function<void()>& launch, CUstream_st* stream, size_t kernels) {
    DramBytes d;
    if (const std::string& why = availability(); !why.empty()) {
        d.error = why;
        return d;
    }
    try {
        if (state_->host == nullptr) state_->initialise();  // released after the previous measurement
        d = state_->measure(launch, stream, kernels);
    } catch (const CounterFailure& f) {
        // No permission shows up at Enable on some drivers: remember it so later jobs skip the work.
        if (f.permanent) state_->availability = f.message;
        d.error = f.message;
    }
    // Detaching CUPTI after the job (cupti_detach.h) needs the profiler released; otherwise the
    // session is kept for the next measurement.
    if (cupti_detach_enabled()) state_->release();
    return d;
}

namespace {
// The probe's kernel: writes its buffer once, so the probe sees one range with real DRAM traffic.
__global__ void counters_probe_kernel(unsigned* out, int64_t n) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = static_cast<unsigned>(i);
}
}  // namespace

std::string probe_hardware_counters(int device) {
    DramCounters counters(device);
    if (const std::string& why = counters.availability(); !why.empty()) return why;
    constexpr int64_t kElements = int64_t{1} << 20;
    unsigned* buffer = nullptr;
    cudaStream_t stream = nullptr;
    if (cudaMalloc(&buffer, kElements * sizeof(unsigned)) != cudaSuccess ||
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        (void)cudaGetLastError();
        if (buffer) (void)cudaFree(buffer);
        return "unavailable: could not allocate the probe's buffer or stream";
    }
    const DramBytes d = counters.measure([&] {
        counters_probe_kernel<<<static_cast<unsigned>(kElements / 256), 256, 0, stream>>>(buffer, kElements);
    }, stream);
    (void)cudaStreamDestroy(stream);
    (void)cudaFree(buffer);
    return d.ok ? std::string() : d.error;
}

#endif

}  // namespace kernels
