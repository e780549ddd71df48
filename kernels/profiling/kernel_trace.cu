// CUPTI activity records for the timeline (kernel_trace.cuh), and the CUDA-event fallback.
//
// CUPTI hands activity records over in buffers it asks us for (buffer_requested) and returns when
// full or flushed (buffer_completed); both callbacks may run on a CUPTI thread, so the records go
// into a vector under a mutex. The callbacks are registered once per CUPTI attachment.
//
// First-use costs would land inside the traced run as huge gaps (measured on an H200: 0.4 to 2 ms
// before some kernel when a fresh 8 MiB buffer was allocated and first touched mid-run, and CUPTI's
// own lazy set-up): so buffers are kept in a pool, touched once when made, and every trace runs the
// work once with records on before the runs it keeps. With FUSIONLAB_CUPTI_DETACH=1 CUPTI is
// detached after each full job (cupti_detach.h), so the callbacks are registered again after it.
#include "kernels/profiling/cupti_detach.h"
#include "kernels/core/env.h"
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/profiling/kernel_trace.cuh"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#if FUSIONLAB_HAVE_CUPTI
#include <cupti_activity.h>
#include <cupti_result.h>
#endif

namespace kernels::gpu {

namespace {

struct RawKernel {
    std::string name;
    uint64_t start_ns = 0, end_ns = 0;
};

#if FUSIONLAB_HAVE_CUPTI
std::mutex g_mutex;
std::vector<RawKernel> g_records;
size_t g_dropped = 0;

constexpr size_t kBufferBytes = 8u << 20;  // ~40k kernel records per buffer
constexpr size_t kAlign = 8;

std::vector<uint8_t*> g_pool;  // returned buffers, reused: no allocation or page fault mid-run

uint8_t* new_buffer() {
    void* raw = std::aligned_alloc(kAlign, kBufferBytes);
    if (raw) std::memset(raw, 0, kBufferBytes);  // touch every page now, not while the GPU waits
    return static_cast<uint8_t*>(raw);
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    uint8_t* b = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (!g_pool.empty()) {
            b = g_pool.back();
            g_pool.pop_back();
        }
    }
    if (!b) b = new_buffer();
    *buffer = b;
    *size = b ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    std::lock_guard<std::mutex> lock(g_mutex);
    CUpti_Activity* record = nullptr;
    while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        if (k->end < k->start || k->start == 0) {  // not completed when flushed: no usable times
            ++g_dropped;
            continue;
        }
        g_records.push_back({k->name ? k->name : "?", k->start, k->end});
    }
    g_pool.push_back(buffer);
}

std::string cupti_error(CUptiResult r, const char* what) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    return std::string(what) + " failed: " + (text ? text : "unknown CUPTI error") + " (CUPTI error " +
           std::to_string(static_cast<int>(r)) + ")";
}
#endif

// "void kernels::gpu::(anonymous namespace)::step_kernel<float>(const float*, ...)" or a mangled
// "_ZN..." symbol -> something a row label can hold.
std::string short_symbol(const std::string& name) {
    std::string s = name;
    if (const size_t paren = s.find('('); paren != std::string::npos) s = s.substr(0, paren);
    if (const size_t space = s.rfind(' '); space != std::string::npos) s = s.substr(space + 1);
    if (s.size() > 48) s = s.substr(0, 45) + "...";
    return s;
}

}  // namespace

KernelTrace trace_kernels(const std::function<void()>& launch_all, cudaStream_t stream) {
    KernelTrace t;
    // FUSIONLAB_TIMELINE=events: the event fallback on purpose (to compare the two, or where a tool
    // that holds CUPTI, such as compute-sanitizer or nsys, runs the app).
    if (env_is("FUSIONLAB_TIMELINE", "events")) {
        t.error = "turned off by FUSIONLAB_TIMELINE=events";
        return t;
    }
#if FUSIONLAB_HAVE_CUPTI
    t.attached_cupti = true;
    // Registered once per attachment: detach_cupti() drops the callbacks.
    {
        static std::mutex register_mutex;
        static uint64_t registered_at = UINT64_MAX;  // cupti_detach_count() when last registered
        std::lock_guard<std::mutex> lock(register_mutex);
        if (registered_at != cupti_detach_count()) {
            if (const CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
                r != CUPTI_SUCCESS) {
                t.error = cupti_error(r, "cuptiActivityRegisterCallbacks");
                return t;
            }
            registered_at = cupti_detach_count();
        }
    }
    check(cudaStreamSynchronize(stream), "before the traced run");
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        while (g_pool.size() < 2)
            if (uint8_t* b = new_buffer()) g_pool.push_back(b);
            else break;
    }
    if (const CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
        t.error = cupti_error(r, "cuptiActivityEnable(CONCURRENT_KERNEL)");
        return t;
    }
    // A warm run (pays CUPTI's first-use costs; dropped), then kTracedRuns runs back to back and one
    // flush at the end; the records are split per run and the run with the shortest span is kept.
    // No flush between runs: on H200 every run that followed a flush held one ~0.3-0.8 ms gap after
    // its first kernel (the flush's buffer hand-back racing the next launches), which is the
    // tracer's cost, not the workload's.
    constexpr int kTracedRuns = 3;
    std::vector<RawKernel> best;
    uint64_t best_span = UINT64_MAX;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_records.clear();
        g_dropped = 0;
    }
    try {
        for (int run = 0; run <= kTracedRuns; ++run) {
            launch_all();
            check(cudaStreamSynchronize(stream), run == 0 ? "warm traced run" : "traced run");
        }
    } catch (...) {
        (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        (void)cuptiActivityFlushAll(1);
        throw;
    }
    if (const CUptiResult r = cuptiActivityFlushAll(1); r != CUPTI_SUCCESS) {
        (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        t.error = cupti_error(r, "cuptiActivityFlushAll");
        return t;
    }
    std::vector<RawKernel> all;
    size_t dropped = 0;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        all.swap(g_records);
        dropped = g_dropped;
        g_dropped = 0;
    }
    const size_t runs = kTracedRuns + 1;
    if (dropped > 0 || all.empty() || all.size() % runs != 0) {
        (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        t.error = dropped > 0 ? std::to_string(dropped) + " kernel records had no end time (incomplete when flushed)"
                  : all.empty() ? std::string("CUPTI delivered no kernel records for the traced runs")
                                : std::to_string(all.size()) + " kernel records for " + std::to_string(runs) +
                                      " runs: not the same number per run";
        return t;
    }
    std::sort(all.begin(), all.end(), [](const RawKernel& a, const RawKernel& b) { return a.start_ns < b.start_ns; });
    const size_t per_run = all.size() / runs;
    for (size_t run = 1; run < runs; ++run) {  // run 0 is the warm one
        std::vector<RawKernel> raw(all.begin() + static_cast<std::ptrdiff_t>(run * per_run),
                                   all.begin() + static_cast<std::ptrdiff_t>((run + 1) * per_run));
        uint64_t first = UINT64_MAX, last = 0;
        for (const RawKernel& k : raw) {
            first = std::min(first, k.start_ns);
            last = std::max(last, k.end_ns);
        }
        if (last - first < best_span) {
            best_span = last - first;
            best = std::move(raw);
        }
    }
    (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    std::vector<RawKernel>& raw = best;
    std::sort(raw.begin(), raw.end(), [](const RawKernel& a, const RawKernel& b) { return a.start_ns < b.start_ns; });
    const uint64_t t0 = raw.front().start_ns;
    for (const RawKernel& k : raw)
        t.spans.push_back({k.name, static_cast<double>(k.start_ns - t0) * 1e-6,
                           static_cast<double>(k.end_ns - t0) * 1e-6, 0});
    t.ok = true;
#else
    (void)launch_all;
    (void)stream;
    t.error = "built without CUPTI";
#endif
    return t;
}

std::vector<KernelSpan> event_timeline(size_t count, const std::function<void(size_t)>& launch, cudaStream_t stream) {
    std::vector<cudaEvent_t> events(2 * count, nullptr);
    auto destroy = [&] {
        for (cudaEvent_t e : events)
            if (e) (void)cudaEventDestroy(e);
    };
    std::vector<KernelSpan> spans;
    try {
        for (cudaEvent_t& e : events) check(cudaEventCreate(&e), "cudaEventCreate");
        for (size_t k = 0; k < count; ++k) {
            check(cudaEventRecord(events[2 * k], stream), "cudaEventRecord");
            launch(k);
            check(cudaEventRecord(events[2 * k + 1], stream), "cudaEventRecord");
        }
        check(cudaStreamSynchronize(stream), "event timeline run");
        for (size_t k = 0; k < count; ++k) {
            float start = 0, end = 0;
            check(cudaEventElapsedTime(&start, events[0], events[2 * k]), "cudaEventElapsedTime");
            check(cudaEventElapsedTime(&end, events[0], events[2 * k + 1]), "cudaEventElapsedTime");
            spans.push_back({"", static_cast<double>(start), static_cast<double>(end), 0});
        }
    } catch (...) {
        destroy();
        throw;
    }
    destroy();
    return spans;
}

void name_spans(std::vector<KernelSpan>& spans, const std::vector<std::string>& model_names,
                const std::vector<uint64_t>& model_bytes, std::string& note) {
    if (spans.size() == model_names.size()) {
        for (size_t i = 0; i < spans.size(); ++i) {
            spans[i].name = model_names[i];
            spans[i].bytes = i < model_bytes.size() ? model_bytes[i] : 0;
        }
        return;
    }
    for (KernelSpan& s : spans) s.name = short_symbol(s.name);
    note = std::to_string(spans.size()) + " kernels recorded where the model has " + std::to_string(model_names.size()) +
           " (a library split its work): names are the kernels' symbols, bytes unknown";
}

}  // namespace kernels::gpu
