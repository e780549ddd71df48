// The GPU backend, the harness every workload runs through: device facts and the measured copy
// ceiling, one L2 decision (rotate buffer sets, flush, or keep), the checked run before any timing,
// CUDA-event timing, the kernel timeline, the hardware counters and out-of-memory handling. It names
// no workload: each one's device side is a GpuWorkload (kernels/gpu/gpu_workload.h) made by its
// WorkloadDef.
// Every CUDA call is checked; failures come back as Measurement::ok == false, never as a crash.
//
// [SECTION] Small RAII holders
// [SECTION] Device facts and the copy ceiling
// [SECTION] The L2 decision
// [SECTION] GpuBackend
// [SECTION] Entry points (backend.h, gpu_testing.h)
#include "kernels/sim/sim_backend.h"
#include "kernels/profiling/ceilings.h"
#include "kernels/profiling/cupti_detach.h"
#include "kernels/profiling/dram_counters.h"
#include "kernels/core/env.h"
#include "kernels/core/format.h"
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/cuda/gpu_memory.cuh"
#include "kernels/gpu/gpu_testing.h"
#include "kernels/gpu/gpu_workload.h"
#include "kernels/profiling/kernel_trace.cuh"
#include "kernels/core/output_check.h"
#include "kernels/gpu/sanitizer_run.h"
#include "kernels/core/timeline.h"
#include "kernels/core/registry.h"
#include "kernels/gpu/student_kernel.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace kernels {

namespace gpu {

namespace {

// =============================================================================================
// [SECTION] Small RAII holders
// =============================================================================================
class EventPool {
public:
    ~EventPool() { for (cudaEvent_t e : events_) (void)cudaEventDestroy(e); }
    EventPool() = default;
    EventPool(const EventPool&) = delete;
    EventPool& operator=(const EventPool&) = delete;
    // At least n events, created once and reused.
    void reserve(size_t n) {
        while (events_.size() < n) {
            cudaEvent_t e = nullptr;
            check(cudaEventCreate(&e), "cudaEventCreate");
            events_.push_back(e);
        }
    }
    cudaEvent_t operator[](size_t i) const { return events_[i]; }

private:
    std::vector<cudaEvent_t> events_;
};

float elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    return ms;
}

// =============================================================================================
// [SECTION] Device facts and the copy ceiling
// =============================================================================================
constexpr int kCopyThreads = 256, kCopyVectorsPerThread = 4;

// 16-byte vectors, all four loads of a thread in flight before its stores.
__global__ void __launch_bounds__(kCopyThreads) copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                                            int64_t vectors) {
    const int64_t base = static_cast<int64_t>(blockIdx.x) * kCopyThreads * kCopyVectorsPerThread + threadIdx.x;
    uint4 r[kCopyVectorsPerThread];
#pragma unroll
    for (int k = 0; k < kCopyVectorsPerThread; ++k) {
        const int64_t i = base + static_cast<int64_t>(k) * kCopyThreads;
        if (i < vectors) r[k] = src[i];  // load source tile into registers
    }
#pragma unroll
    for (int k = 0; k < kCopyVectorsPerThread; ++k) {
        const int64_t i = base + static_cast<int64_t>(k) * kCopyThreads;
        if (i < vectors) dst[i] = r[k];  // store tile to HBM
    }
}

// Reads a scratch buffer so that whatever the timed kernels touched is evicted from L2 by clean
// lines (a read leaves nothing dirty to be written back during the next timed rep).
// The L2 flush scratch buffer: its contents are never used, but written once so that reading it is
// not a read of uninitialised memory (compute-sanitizer initcheck reports that).
DeviceMemory zeroed_memory(size_t bytes) {
    DeviceMemory m(bytes, "the L2 flush buffer");
    check(cudaMemset(m.get(), 0, bytes), "cudaMemset of the L2 flush buffer");
    return m;
}

__global__ void l2_flush_kernel(const uint4* __restrict__ src, int64_t vectors, unsigned* sink) {
    unsigned acc = 0;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const uint4 v = src[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9E3779B9u) *sink = acc;  // practically never: keeps the loads from being removed
}

void launch_copy(const void* src, void* dst, int64_t vectors, cudaStream_t s) {
    const int64_t per_block = static_cast<int64_t>(kCopyThreads) * kCopyVectorsPerThread;
    const int64_t blocks = (vectors + per_block - 1) / per_block;
    copy_kernel<<<static_cast<unsigned>(blocks), kCopyThreads, 0, s>>>(static_cast<const uint4*>(src),
                                                                       static_cast<uint4*>(dst), vectors);
    check_launch("copy_kernel");
}

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

// FP32 lanes per SM by architecture (CUDA programming guide, arithmetic instruction throughput).
int fp32_lanes_per_sm(int major, int minor) {
    if (major == 7) return 64;
    if (major == 8) return minor == 0 ? 64 : 128;
    if (major >= 9) return 128;
    return 0;
}

// Dense fp16/bf16 tensor-core FLOPs per SM per clock with fp32 accumulation, data-centre parts
// (V100, A100, H100: 125, 312, 989 TFLOP/s at their boost clocks). 0 = unknown for this part.
int tensor_flops_per_sm_clock(int major, int minor) {
    if (major == 7 && minor == 0) return 1024;
    if (major == 8 && minor == 0) return 2048;
    if (major == 9 && minor == 0) return 4096;
    return 0;
}

int attribute(cudaDeviceAttr a, int device, const char* what) {
    int v = 0;
    check(cudaDeviceGetAttribute(&v, a, device), what);
    return v;
}

DeviceInfo query_device(int device) {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    DeviceInfo d;
    d.name = prop.name;
    d.simulated = false;
    int driver = 0, runtime = 0;
    check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
    check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
    d.driver = "CUDA " + cuda_version(driver) + " driver";
    d.runtime = "CUDA " + cuda_version(runtime) + " runtime";
    d.cc_major = prop.major;
    d.cc_minor = prop.minor;
    d.sm_count = prop.multiProcessorCount;
    // CUDA 13 removed cudaDeviceProp::clockRate / memoryClockRate: ask the attributes (kHz).
    d.sm_clock_mhz = attribute(cudaDevAttrClockRate, device, "SM clock") / 1000;
    d.mem_clock_mhz = attribute(cudaDevAttrMemoryClockRate, device, "memory clock") / 1000;
    d.mem_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device, "memory bus width");
    d.global_mem_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    d.l2_bytes = prop.l2CacheSize;
    d.smem_per_block = static_cast<int>(prop.sharedMemPerBlock);
    d.smem_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
    // Double data rate: two transfers per memory clock on each bus bit.
    d.peak_bw_gbps = 2.0 * d.mem_clock_mhz * 1e6 * (d.mem_bus_bits / 8.0) / 1e9;
    d.peak_fp32_tflops = 2.0 * fp32_lanes_per_sm(d.cc_major, d.cc_minor) * d.sm_count * d.sm_clock_mhz * 1e6 / 1e12;
    d.peak_tensor_tflops =
        static_cast<double>(tensor_flops_per_sm_clock(d.cc_major, d.cc_minor)) * d.sm_count * d.sm_clock_mhz * 1e6 / 1e12;
    return d;
}

// Device-to-device copy through copy_kernel: >= 1 GiB each way when memory allows.
void measure_copy_ceiling(DeviceInfo& d, cudaStream_t s) {
    size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    const size_t gib = size_t{1} << 30;
    size_t bytes = gib;
    std::string size_note;
    if (free_bytes < 3 * gib) {
        bytes = (free_bytes / 4) & ~size_t{15};
        size_note = " (only " + format_bytes(static_cast<double>(free_bytes)) + " free, so a smaller buffer)";
    }
    if (bytes < (size_t{64} << 20)) {
        d.ceiling_note = "copy ceiling unavailable: only " + format_bytes(static_cast<double>(free_bytes)) +
                         " of GPU memory free";
        return;
    }
    DeviceMemory src(bytes), dst(bytes);
    check(cudaMemsetAsync(src.get(), 0x5A, bytes, s), "cudaMemsetAsync");
    const int64_t vectors = static_cast<int64_t>(bytes / 16);
    constexpr int kWarmup = 2, kReps = 10;
    EventPool ev;
    ev.reserve(2 * kReps);
    for (int i = 0; i < kWarmup; ++i) launch_copy(src.get(), dst.get(), vectors, s);
    for (int i = 0; i < kReps; ++i) {
        check(cudaEventRecord(ev[2 * i], s), "cudaEventRecord");
        launch_copy(src.get(), dst.get(), vectors, s);
        check(cudaEventRecord(ev[2 * i + 1], s), "cudaEventRecord");
    }
    check(cudaStreamSynchronize(s), "copy ceiling measurement");
    std::vector<double> ms;
    for (int i = 0; i < kReps; ++i) ms.push_back(elapsed_ms(ev[2 * i], ev[2 * i + 1]));
    const TimeStats t = summarize(ms);
    d.measured_copy_gbps = 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e-3) / 1e9;
    d.ceiling_note = "device-to-device copy kernel, 16-byte vectors, " + format_bytes(static_cast<double>(bytes)) +
                     " read + " + format_bytes(static_cast<double>(bytes)) + " written" + size_note + "; median of " +
                     std::to_string(kReps) + " reps after " + std::to_string(kWarmup) +
                     " warm-ups, CUDA events; measured when the backend started";
}

// =============================================================================================
// [SECTION] The L2 decision
// =============================================================================================
// One decision for every workload, from its working set (one buffer set), the L2 and how the
// workload wants its reps to treat L2 (kernels/gpu/gpu_workload.h).
struct L2Plan {
    int sets = 1;        // buffer sets the reps rotate through
    bool flush = false;  // an L2 flush (read of a scratch buffer) before each rep, outside its events
    std::string note;    // what was done and why, for the timing note
};

constexpr int kMaxRotationSets = 8;

L2Plan plan_l2(L2Handling handling, uint64_t one_set, uint64_t l2) {
    const std::string set_text = format_bytes(static_cast<double>(one_set)), l2_text = format_bytes(static_cast<double>(l2));
    L2Plan plan;
    if (handling == L2Handling::keep) {
        plan.note = "no L2 flush: the working set (" + set_text + ") " + (one_set <= l2 ? "fits" : "does not fit") +
                    " in the " + l2_text + " L2 and stays there between runs, as in the real loop";
        return plan;
    }
    if (one_set >= 2 * l2) {
        plan.note = "one buffer set: working set " + set_text + " >= 2x the " + l2_text +
                    " L2, so little survives in L2 between reps";
        return plan;
    }
    if (handling == L2Handling::rotate_or_flush) {
        const uint64_t want = (3 * l2 + one_set - 1) / std::max<uint64_t>(one_set, 1);  // a cycle spans >= 3x L2
        if (want <= kMaxRotationSets) {
            plan.sets = static_cast<int>(want);
            plan.note = "rotating " + std::to_string(plan.sets) + " buffer sets of " + set_text +
                        " (cycle >= 3x the " + l2_text + " L2), so a rep's inputs are not left in L2 by the previous reps";
            return plan;
        }
    }
    plan.flush = true;
    plan.note = "working set " + set_text + " < 2x the " + l2_text + " L2" +
                (handling == L2Handling::rotate_or_flush
                     ? " and rotation would need more than " + std::to_string(kMaxRotationSets) + " sets"
                     : std::string()) +
                ": L2 flushed before each rep by reading a " + format_bytes(static_cast<double>(2 * l2)) +
                " scratch buffer, outside the timed region";
    return plan;
}

std::string oom_message(uint64_t needed, const std::string& what) {
    size_t free_bytes = 0, total_bytes = 0;
    (void)cudaMemGetInfo(&free_bytes, &total_bytes);
    return "out of GPU memory: this run needs " + format_bytes(static_cast<double>(needed)) + " (" + what + "), " +
           format_bytes(static_cast<double>(free_bytes)) + " free of " + format_bytes(static_cast<double>(total_bytes)) +
           "; try smaller sizes, or a variant that keeps its intermediates on chip";
}

// =============================================================================================
// [SECTION] GpuBackend
// =============================================================================================
struct Cancelled {};
// A student's kernel ran past its watchdog limit (GpuBackend::wait_or_stop).
struct WatchdogStopped : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The CPU reference's budget for the check that precedes every timing: kFullCheck or kQuickCheck
// (kernels/core/output_check.h, shared with the simulated backend's CPU emulation).
// GPU time the quick pass spends on timed reps (at least one rep whatever its length).
constexpr double kQuickTimedBudgetMs = 60;

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

class GpuBackend final : public Backend {
public:
    explicit GpuBackend(int device) : device_index_(device), counters_(device) {
        check(cudaSetDevice(device), "cudaSetDevice");
        info_ = query_device(device);
        stream_ = std::make_unique<Stream>();
        counter_ = DeviceMemory(sizeof(unsigned long long));
        if (sanitizer_run()) {
            // Under compute-sanitizer a 1 GiB copy and an 8192^3 cuBLAS GEMM take minutes (racecheck
            // spent a whole 300 s slot in the GEMM on an H100) and their times mean nothing.
            info_.ceiling_note = info_.compute_ceiling_note = std::string("not measured: ") + sanitizer_run_note();
        } else {
            measure_copy_ceiling(info_, stream_->get());
            load_or_measure_compute_ceilings(info_);  // kernels/profiling/ceilings.h: cached per device, driver, clocks
        }
    }

    const DeviceInfo& device() const override { return info_; }

    // Parameters, then the workload's device refusal with this device's facts and the GPU memory
    // free now plus what this backend holds in cached buffers (released before a new configuration
    // is allocated).
    std::string unavailable_reason(const Job& job) const override {
        const Params& p = job.params;
        const WorkloadDef* found = find_workload(p.workload);  // found by name once, here
        if (std::string bad = found ? validate(*found, p) : validate(p); !bad.empty()) return bad;
        const WorkloadDef& w = *found;
        if (job.variant == kStudentVariant && !job.student)
            return "the variant yours runs a student's kernel: `fusionlab exercises run` or the exercise pane gives it one";
        // yours runs on the buffers of the built-in variant it takes a kernel of: that variant's limits.
        const std::string& variant = job.student ? job.student->base_variant : job.variant;
        if (!w.find_variant(variant)) return unknown_variant_message(p.workload, variant);
        if (!w.make_gpu) return "the " + w.name + " workload has no GPU kernels in this build";
        if (!w.device_refusal) return "";
        size_t free_bytes = 0, total_bytes = 0;
        if (const cudaError_t e = cudaMemGetInfo(&free_bytes, &total_bytes); e != cudaSuccess) {
            (void)cudaGetLastError();
            return std::string("cannot query the CUDA device: ") + cudaGetErrorString(e);
        }
        return device_refusal(w, variant, p, DeviceBudget{info_, free_bytes + bytes_held(), "free"});
    }

    Measurement run(const Job& job, const CancelToken& cancel) override {
        Measurement m;
        m.job = job;
        m.device = info_;
        m.build_type = build_type();
        try {
            if (!broken_.empty()) throw std::runtime_error(broken_);
            run_checked(job, cancel, m);
            m.ok = true;
        } catch (const Cancelled&) {
            m.ok = false;
            m.error = "cancelled";
        } catch (const WatchdogStopped& e) {
            m.ok = false;
            m.error = e.what();
            m.context_lost = true;
            broken_ = std::string("the GPU context is held by a kernel the watchdog stopped waiting for: ") + e.what();
        } catch (const CudaError& e) {
            m.ok = false;
            m.error = e.what();
            if (e.code() == cudaErrorMemoryAllocation) {
                release_all_buffers();
                m.error = oom_message(needed_bytes_, needed_what_) + " [" + e.what() + "]";
            } else if (e.sticky()) {
                broken_ = std::string("the GPU context failed earlier and cannot be used again until fusionlab "
                                      "restarts: ") + e.what();
                m.error = job.student ? "your kernel faulted: " + std::string(e.what()) +
                                            "; the GPU context of this process is lost (the exercise runs in a process of its "
                                            "own, so the app and its other variants keep running)"
                                      : broken_;
                m.context_lost = true;
            }
        } catch (const std::exception& e) {
            m.ok = false;
            m.error = e.what();
        }
        detach_cupti_if_attached(m);
        return m;
    }

private:
    // With FUSIONLAB_CUPTI_DETACH=1 (a diagnostic switch, cupti_detach.h), detach CUPTI after a job
    // that traced or counted. The stream is idle
    // here (every path above synchronised or threw).
    void detach_cupti_if_attached(Measurement& m) {
        if (!cupti_attached_) return;
        cupti_attached_ = false;
        if (!cupti_detach_enabled()) return;
        (void)cudaStreamSynchronize(stream_->get());
        if (std::string why = detach_cupti(); !why.empty()) m.timing_note += (m.timing_note.empty() ? "" : "; ") + why;
    }

    // Device bytes this backend holds: every workload's cached buffers and the L2 flush buffer.
    uint64_t bytes_held() const {
        uint64_t held = flush_.bytes();
        for (const auto& [name, w] : workloads_) held += w->bytes_held();
        return held;
    }

    void release_all_buffers() {
        flush_ = DeviceMemory();
        for (auto& [name, w] : workloads_) w->release();
    }

    // The device side of `def`, made on first use; every other workload's buffers are freed first,
    // so only one workload holds GPU memory at a time.
    GpuWorkload& workload_for(const WorkloadDef& def) {
        for (auto& [name, w] : workloads_)
            if (name != def.name) w->release();
        std::unique_ptr<GpuWorkload>& w = workloads_[def.name];
        if (!w) w = def.make_gpu();
        return *w;
    }

    // What the compiled kernels on this device report beside the model's spill traffic.
    void note_spills(const Model& mod, const Params& p, const GpuWorkload& w, Measurement& m) const {
        if (std::string here = w.register_note(mod, p); !here.empty())
            m.spill_note += (m.spill_note.empty() ? "" : "; ") + here;
    }

    // The L2 decision, the out-of-memory check and the workload's buffers for this job (`variant`:
    // the built-in variant whose buffers it runs on; a student's kernel gets one buffer set, flushed).
    void prepare_buffers(GpuWorkload& w, const Job& job, const std::string& variant) {
        const Params& p = job.params;
        const uint64_t one_set = w.bytes_per_set(variant, p);
        const uint64_t l2 = static_cast<uint64_t>(std::max<int64_t>(info_.l2_bytes, 1));
        const L2Plan plan = plan_l2(job.student ? L2Handling::flush : w.l2_handling(), one_set, l2);
        sets_ = plan.sets;
        l2_note_ = plan.note;
        const uint64_t flush_bytes = plan.flush ? 2 * l2 : 0;
        needed_bytes_ = one_set * static_cast<uint64_t>(plan.sets) + flush_bytes;
        needed_what_ = (plan.sets == 1 ? "one buffer set of " : std::to_string(plan.sets) + " buffer sets of ") +
                       format_bytes(static_cast<double>(one_set)) + ": " + w.buffers_named(variant, p) +
                       (plan.flush ? "; + " + format_bytes(static_cast<double>(flush_bytes)) + " L2 flush buffer" : "");
        if (!plan.flush) flush_ = DeviceMemory();
        size_t free_bytes = 0, total_bytes = 0;
        check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
        if (needed_bytes_ > free_bytes + w.bytes_held() + flush_.bytes())
            throw std::runtime_error(oom_message(needed_bytes_, needed_what_));
        w.prepare(variant, p, plan.sets, stream_->get());
        if (plan.flush && flush_.bytes() < flush_bytes) flush_ = zeroed_memory(flush_bytes);
    }

    // Every workload's job: buffers, inputs, poisoned outputs; the checked run; the timed reps;
    // the comparison with the CPU reference (a time is only kept for a checked output); the
    // timeline; the hardware counters.
    void run_checked(const Job& job, const CancelToken& cancel, Measurement& m) {
        const Params& p = job.params;
        if (std::string why = unavailable_reason(job); !why.empty()) {
            m.refused = validate(p).empty() && has_variant(p.workload, job.variant);
            throw std::invalid_argument(why);
        }
        check(cudaSetDevice(device_index_), "cudaSetDevice");
        const cudaStream_t s = stream_->get();
        const WorkloadDef& def = workload_def(p);
        GpuWorkload& w = workload_for(def);
        // The variant `yours` runs a student's kernel in the place of kernel `replaced` of the built-in
        // variant `variant`, on its buffers, against its check (kernels/gpu/student_kernel.cuh).
        const StudentKernel* student = job.student.get();
        const std::string& variant = student ? student->base_variant : job.variant;

        // Modeled bytes at every level; DRAM from the L2 reuse model for this GPU's L2.
        Model mod = model(def, variant, p, static_cast<uint64_t>(std::max<int64_t>(info_.l2_bytes, 0)));
        size_t replaced = mod.kernels.size();
        if (student) {
            for (size_t k = 0; k < mod.kernels.size(); ++k)
                if (mod.kernels[k].name == student->replaces) replaced = k;
            if (replaced == mod.kernels.size())
                throw std::invalid_argument(variant + " has no kernel named " + student->replaces + " for yours to replace");
            mod.kernels[replaced].name = student->entry;
        }
        record_model(mod, p, info_, m);
        if (student) m.model_variant = variant;
        else note_spills(mod, p, w, m);
        quick_ = job.quick;

        // Host-side phases of the job, for the live loop's budget (PERF.md "Live loop").
        auto t = std::chrono::steady_clock::now();
        prepare_buffers(w, job, variant);
        if (w.kernel_count() != mod.kernels.size())
            throw std::logic_error(def.name + " " + variant + " launches " + std::to_string(w.kernel_count()) +
                                   " kernels but its model has " + std::to_string(mod.kernels.size()));
        std::unique_ptr<StudentLaunch> yours;
        if (student) yours = std::make_unique<StudentLaunch>(*student, w, info_, p.dtype);
        const auto launch_k = [&](size_t k, int set, cudaStream_t stream) {
            if (yours && k == replaced) yours->launch(stream);
            else w.launch_kernel(k, set, stream);
        };
        const auto launch_all = [&](cudaStream_t stream) {
            if (!yours) return w.launch_run(stream);
            for (size_t k = 0; k < mod.kernels.size(); ++k) launch_k(k, 0, stream);
        };
        w.fill_inputs(s);
        w.poison_outputs(s);
        if (yours) yours->poison(s);
        check(cudaStreamSynchronize(s), "filling the inputs");
        const double prepare_ms = ms_since(t);

        // Correctness first: one run on poisoned outputs; what the check needs is copied now (the
        // reps overwrite it) and compared with the float64 reference before this job reports a time.
        t = std::chrono::steady_clock::now();
        w.begin_check(check_budget(job.quick));
        launch_all(s);
        if (yours) {
            // A student's kernel may never end: the watchdog waits its limit, then gives up on the
            // context (WatchdogStopped); the caller's process must end to free the GPU.
            try {
                wait_or_stop(s, student->watchdog_seconds, student->entry);
            } catch (const WatchdogStopped&) {
                yours->abandon();  // freeing its buffers would wait for the kernel that never ends
                throw;
            }
            if (std::string outside = yours->check_guards(); !outside.empty()) throw std::runtime_error(outside);
            yours->copy_outputs_back(s);
        }
        check(cudaStreamSynchronize(s), "checked run of " + job.variant);
        const double checked_run_ms = ms_since(t);
        w.gather_output(s, static_cast<unsigned long long*>(counter_.get()));
        const double check_ms = ms_since(t);

        t = std::chrono::steady_clock::now();
        if (w.timing_style() == TimingStyle::whole_run_idle && !yours) time_whole_runs(job, cancel, mod, w, m);
        else
            time_kernels(job, cancel, mod, [&](size_t k, int rep, cudaStream_t stream) {
                launch_k(k, rep % sets_, stream);
            }, m, checked_run_ms);
        const double timed_ms = ms_since(t);

        t = std::chrono::steady_clock::now();
        try {
            accept_check(w.finish_check(), p.dtype, m);
        } catch (...) {
            m.time = {};  // a time is only ever shown for a checked output
            m.kernels.clear();
            throw;
        }
        const double reference_wait_ms = ms_since(t);

        t = std::chrono::steady_clock::now();
        record_timeline(mod, [&](size_t k) { launch_k(k, 0, s); }, m, [&] { launch_all(s); },
                        w.kernels_separable() || yours);
        const double timeline_ms = ms_since(t);

        t = std::chrono::steady_clock::now();
        measure_dram_bytes(job, [&] { yours ? launch_all(s) : w.launch_counted_run(s); }, w.kernel_count(), m);
        if (m.measured_bytes && !yours)
            if (std::string note = w.counted_run_note(); !note.empty()) m.measured_bytes_note += "; " + note;

        if (w.timing_style() == TimingStyle::kernel_events)
            m.timing_note = "median of " + std::to_string(m.time.reps) + " reps after " +
                            (warmup_used_ > 0 ? std::to_string(warmup_used_) + " warm-up runs"
                                              : std::string("the checked run (as warm-up)")) +
                            "; CUDA events at every kernel boundary; " + l2_note_;
        else
            m.timing_note = "median of " + std::to_string(m.time.reps) + " reps after " + std::to_string(warmup_used_) +
                            " warm-up runs; each rep starts on an idle GPU (stream synchronised) and is timed by one "
                            "CUDA event before its first launch and one after its last, none in between, so the host's "
                            "launch rate is inside the time (" + w.launches_text() +
                            "); per-kernel row = rep time / kernels; " + l2_note_;
        if (!quick_budget_note_.empty()) m.timing_note += "; " + quick_budget_note_;
        if (sanitizer_run()) m.timing_note = std::string(sanitizer_run_note()) + "; " + m.timing_note;
        if (yours)
            m.timing_note = "yours: " + yours->description() + ", in the place of " + variant + "'s " + student->replaces +
                            " kernel, on its buffers (one set; outputs guarded by " +
                            format_bytes(static_cast<double>(kGuardBytes)) + " on each side); modeled bytes are " +
                            variant + "'s; " + m.timing_note;
        char phases[320];
        std::snprintf(phases, sizeof phases,
                      "host phases: buffers + inputs %.0f ms, checked run + copy %.0f ms, warm-up + timed reps %.0f ms, "
                      "CPU reference and comparison %.0f ms, timeline %.0f ms, counters %.0f ms",
                      prepare_ms, check_ms, timed_ms, reference_wait_ms, timeline_ms, ms_since(t));
        m.timing_note += std::string("; ") + phases;
    }

    // Waits for the stream up to `seconds`; past that, the kernel is taken to be hung: CUDA has no call
    // that stops one kernel, and destroying the context waits for it, so the watchdog says so and
    // leaves the context to the process's end (the caller runs student kernels in a process of its own).
    void wait_or_stop(cudaStream_t s, double seconds, const std::string& what) {
        const auto start = std::chrono::steady_clock::now();
        for (;;) {
            const cudaError_t e = cudaStreamQuery(s);
            if (e == cudaSuccess) return;
            if (e != cudaErrorNotReady) check(e, "checked run of " + what);
            if (ms_since(start) > seconds * 1000) {
                char text[160];
                std::snprintf(text, sizeof text, "%.3g s", seconds);
                throw WatchdogStopped("stopped by the watchdog: your kernel " + what + " was still running after " + text +
                                      " (the exercise's limit for one run); a loop that never ends? The GPU is freed "
                                      "when the process that ran it exits");
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }

    // Reads the flush buffer (when plan_l2() chose a flush) so that what the last rep touched leaves
    // L2 with clean lines; on the stream, outside any rep's events.
    void flush_l2() {
        if (flush_.get() == nullptr) return;
        l2_flush_kernel<<<info_.sm_count * 4, 256, 0, stream_->get()>>>(static_cast<const uint4*>(flush_.get()),
                                                                        static_cast<int64_t>(flush_.bytes() / 16),
                                                                        static_cast<unsigned*>(counter_.get()));
        check_launch("l2_flush_kernel");
    }

    // Timing of a whole_run_idle workload (launch overhead): an event between every launch would
    // add its own cost to each gap, so each rep is bracketed by two events only, and it starts on an
    // idle GPU (the stream is synchronised first) so the host's rate of issuing launches is inside
    // the interval, as it is for any program that launches its steps one by one.
    void time_whole_runs(const Job& job, const CancelToken& cancel, const Model& mod, GpuWorkload& w, Measurement& m) {
        const cudaStream_t s = stream_->get();
        const int reps = job.quick || job.reps_as_asked ? std::max(job.reps, kMinReps) : gpu_timed_reps(job.reps);
        const int warmup = std::max(gpu_warmup_runs(job.warmup), 1);
        warmup_used_ = warmup;
        quick_budget_note_.clear();
        for (int i = 0; i < warmup; ++i) w.launch_run(s);
        events_.reserve(2 * static_cast<size_t>(reps));
        for (int r = 0; r < reps; ++r) {
            if (cancel.cancelled()) {
                (void)cudaStreamSynchronize(s);
                throw Cancelled{};
            }
            flush_l2();  // when plan_l2() chose a flush: before the rep, outside its events
            check(cudaStreamSynchronize(s), "idle GPU before a timed rep");
            check(cudaEventRecord(events_[2 * static_cast<size_t>(r)], s), "cudaEventRecord");
            w.launch_run(s);
            check(cudaEventRecord(events_[2 * static_cast<size_t>(r) + 1], s), "cudaEventRecord");
        }
        check(cudaStreamSynchronize(s), "timed reps");
        std::vector<double> whole;
        for (int r = 0; r < reps; ++r)
            whole.push_back(elapsed_ms(events_[2 * static_cast<size_t>(r)], events_[2 * static_cast<size_t>(r) + 1]));
        m.time = summarize(whole);
        // No events between the kernels, so one row: K launches of one kernel (the launch workload's
        // steps) as the mean per kernel, rep time / K, launch gaps included; different kernels as the
        // whole run with all their bytes (the timeline, when recorded, has each kernel's own span).
        const size_t count = mod.kernels.size();
        const KernelModel& k0 = mod.kernels.front();
        const bool same = std::all_of(mod.kernels.begin(), mod.kernels.end(),
                                      [&](const KernelModel& k) { return k.name == k0.name; });
        if (same) {
            const double per = 1.0 / static_cast<double>(std::max<size_t>(count, 1));
            m.kernels.push_back(KernelTime{k0.name + (count > 1 ? " x" + std::to_string(count) : std::string()),
                                           {m.time.median_ms * per, m.time.min_ms * per, m.time.max_ms * per, m.time.reps},
                                           k0.dram_bytes()});
        } else {
            m.kernels.push_back(KernelTime{"whole run (" + std::to_string(count) + " kernels)", m.time, mod.dram_bytes()});
        }
    }

    // One more, untimed run after the timed reps with CUPTI kernel activity records on: each
    // kernel's start and end on the GPU clock (m.timeline). Where CUPTI cannot trace, CUDA events
    // around each kernel instead (launch_k(k) enqueues kernel k of the model). `launch_all`, when
    // given, is how the variant really runs (the launch workload's graph replay); for a graph the
    // event fallback can only bracket the whole replay.
    void record_timeline(const Model& mod, const std::function<void(size_t)>& launch_k, Measurement& m,
                         const std::function<void()>& launch_all, bool kernels_separable) {
        if (quick_) {
            // The GUI's quick pass answers while a slider moves; tracing (CUPTI set-up, a warm run
            // and 3 traced runs) is left to the full pass that replaces it moments later.
            m.timeline_source = "not recorded in the quick pass: the full pass that follows records it";
            return;
        }
        const cudaStream_t s = stream_->get();
        std::vector<std::string> names;
        std::vector<uint64_t> bytes;
        for (const KernelModel& k : mod.kernels) {
            names.push_back(k.name);
            bytes.push_back(k.dram_bytes());
        }
        const auto run_all = [&] {
            if (launch_all) launch_all();
            else
                for (size_t k = 0; k < names.size(); ++k) launch_k(k);
        };
        KernelTrace trace = trace_kernels(run_all, s);
        cupti_attached_ = cupti_attached_ || trace.attached_cupti;
        std::string note;
        if (trace.ok) {
            name_spans(trace.spans, names, bytes, note);
            m.timeline = std::move(trace.spans);
            m.timeline_source = "CUPTI activity records: each kernel's start and end on the GPU clock; after the timed "
                                "reps, a warm run and 3 traced runs, the one with the shortest span kept; tracing adds "
                                "host time to each launch, so gaps behind a host-bound stream of launches read a "
                                "little long" +
                                (note.empty() ? std::string() : "; " + note);
            return;
        }
        if (!kernels_separable) {
            m.timeline = event_timeline(1, [&](size_t) { launch_all(); }, s);
            m.timeline.front().name = "graph: " + std::to_string(names.size()) + " kernels";
            uint64_t total = 0;
            for (uint64_t b : bytes) total += b;
            m.timeline.front().bytes = total;
            m.timeline_source = "CUDA events around the whole graph replay (CUPTI unavailable: " + trace.error +
                                "); events cannot sit between a graph's kernels";
            return;
        }
        m.timeline = event_timeline(names.size(), launch_k, s);
        name_spans(m.timeline, names, bytes, note);
        m.timeline_source = "CUDA events around each kernel (CUPTI unavailable: " + trace.error +
                            "); the host records each start event before the launch call, so a span includes any "
                            "wait for its launch to arrive: behind a host-bound stream spans read long and gaps short";
    }

    // Records the check in m; throws when the output has poison left or differs from the reference.
    static void accept_check(const GpuCheck& c, DType t, Measurement& m) {
        m.checked = true;
        m.max_abs_error = c.max_abs;
        m.rel_l2_error = c.rel_l2;
        m.checked_elements = c.elements;
        m.check_note = c.note;
        const std::string which = c.first_wrong.empty() ? "" : "; " + c.first_wrong;
        if (c.nonfinite > 0)
            throw std::runtime_error(std::to_string(c.nonfinite) + " of " + std::to_string(c.output_elements) +
                                     " output elements are unwritten (still poisoned) or not finite" + which);
        // Relative L2 is the criterion; a tiny output (a few elements) can cancel to near zero while
        // its O(1) operands carry O(1)-scaled rounding, so a small absolute error also passes.
        if (!output_matches(t, c.rel_l2, c.max_abs))
            throw std::runtime_error("output differs from the CPU reference" + which + "; relative L2 error " +
                                     std::to_string(c.rel_l2) + " > tolerance " + std::to_string(relative_tolerance(t)) +
                                     " for " + to_string(t) + " (max abs error " + std::to_string(c.max_abs) +
                                     " > " + std::to_string(absolute_tolerance(t)) + ")");
    }

    // One more run of the variant under the hardware counters, after the timed reps (the profiler
    // serialises and replays, so it never shares a run with timing). The counters flush L2 first.
    // A failure leaves measured_bytes empty and says why in the note; DramCounters caches failures
    // that cannot go away, so later jobs do not retry an impossible initialisation.
    void measure_dram_bytes(const Job& job, const std::function<void()>& launch_all, size_t kernels, Measurement& m) {
        if (!job.measure_counters) {
            m.measured_bytes_note = "not measured: the job did not ask for hardware counters";
            return;
        }
        if (sanitizer_run()) {
            m.measured_bytes_note = "not measured: sanitizer run (the CUPTI profiler and compute-sanitizer cannot share the GPU)";
            return;
        }
        // FUSIONLAB_COUNTERS=off: no profiler session at all (to tell its cost, in time or host
        // memory, from the rest of a job's, e.g. in scripts/device_diagnose.sh's soaks).
        if (env_is("FUSIONLAB_COUNTERS", "off")) {
            m.measured_bytes_note = "not measured: turned off by FUSIONLAB_COUNTERS=off";
            return;
        }
        cupti_attached_ = cupti_attached_ || counters_.availability().empty();
        const DramBytes d = counters_.measure(launch_all, stream_->get(), kernels);
        if (!d.ok) {
            m.measured_bytes_note = d.error;
            return;
        }
        m.measured_bytes = d.total();
        m.measured_bytes_read = d.read;
        m.measured_bytes_written = d.written;
        m.measured_bytes_note = measured_bytes_note(d);
    }

    // Launches kernel k (model order) of timed rep `rep` on the stream.
    using KernelLauncher = std::function<void(size_t kernel, int rep, cudaStream_t stream)>;

    // The timing loop every workload shares: warm-up, >= 20 reps with a CUDA event at every kernel
    // boundary, L2 flush (when flush_ is allocated) before each rep outside its events, cancel
    // checked between reps; whole-variant and per-kernel median/min/max into m.
    // `checked_run_ms`, when known, is the host time of the checked run that came just before.
    void time_kernels(const Job& job, const CancelToken& cancel, const Model& mod, const KernelLauncher& launch,
                      Measurement& m, double checked_run_ms = -1) {
        const cudaStream_t s = stream_->get();
        const size_t kernels_per_rep = mod.kernels.size();
        // A quick (interactive) job and a recording's (reps_as_asked) take their reps as asked; a full
        // one at least kMinGpuTimedReps
        // (a sanitizer run: 1, kernels/gpu/sanitizer_run.h).
        int reps = job.quick || job.reps_as_asked ? std::max(job.reps, kMinReps) : gpu_timed_reps(job.reps);
        int warmup = gpu_warmup_runs(job.warmup);
        quick_budget_note_.clear();
        if (job.quick && checked_run_ms > 0 && !sanitizer_run()) {
            // The checked run has just run these kernels on these buffers: it is the warm-up. Reps stop
            // at the budget, so a slow kernel (teaching flash at N = 8192: 51 ms a run) still answers
            // within the live loop's 300 ms; the full pass that follows takes its 20+ reps.
            warmup = 0;
            const int fit = static_cast<int>(kQuickTimedBudgetMs / checked_run_ms);
            if (fit < reps)
                quick_budget_note_ = "quick pass: " + std::to_string(std::max(fit, 1)) + " of " +
                                     std::to_string(reps) + " reps fit its " +
                                     std::to_string(static_cast<int>(kQuickTimedBudgetMs)) + " ms budget";
            reps = std::clamp(fit, 1, reps);
        }
        warmup_used_ = warmup;
        const size_t per_rep = kernels_per_rep + 1;
        events_.reserve(per_rep * static_cast<size_t>(reps));
        for (int i = 0; i < warmup; ++i) {
            flush_l2();
            for (size_t k = 0; k < kernels_per_rep; ++k) launch(k, i, s);
        }
        // Keep a few reps queued ahead of the one we wait for, so the GPU never idles between reps
        // (an idle GPU would put the host's launch latency inside the next rep's events).
        constexpr int kQueued = 4;
        for (int r = 0; r < reps; ++r) {
            if (cancel.cancelled()) {
                (void)cudaStreamSynchronize(s);
                throw Cancelled{};
            }
            flush_l2();
            const size_t e0 = static_cast<size_t>(r) * per_rep;
            check(cudaEventRecord(events_[e0], s), "cudaEventRecord");
            for (size_t k = 0; k < kernels_per_rep; ++k) {
                launch(k, r, s);
                check(cudaEventRecord(events_[e0 + k + 1], s), "cudaEventRecord");
            }
            if (r >= kQueued)
                check(cudaEventSynchronize(events_[static_cast<size_t>(r - kQueued) * per_rep + kernels_per_rep]),
                      "timed rep");
        }
        check(cudaStreamSynchronize(s), "timed reps");

        std::vector<double> whole;
        std::vector<std::vector<double>> per_kernel(kernels_per_rep);
        for (int r = 0; r < reps; ++r) {
            const size_t e0 = static_cast<size_t>(r) * per_rep;
            whole.push_back(elapsed_ms(events_[e0], events_[e0 + kernels_per_rep]));
            for (size_t k = 0; k < kernels_per_rep; ++k)
                per_kernel[k].push_back(elapsed_ms(events_[e0 + k], events_[e0 + k + 1]));
        }
        m.time = summarize(whole);
        for (size_t k = 0; k < kernels_per_rep; ++k)
            m.kernels.push_back(KernelTime{mod.kernels[k].name, summarize(per_kernel[k]),
                                           mod.kernels[k].dram_bytes()});
    }

    int device_index_ = 0;
    int warmup_used_ = 1;             // by the last timing
    std::string quick_budget_note_;   // set when the quick pass's budget cut its reps
    DeviceInfo info_;
    DramCounters counters_;  // initialised lazily, on the first job that asks for counters
    bool cupti_attached_ = false;  // this job called CUPTI: detach_cupti_if_attached() may detach it
    std::unique_ptr<Stream> stream_;
    DeviceMemory counter_;
    EventPool events_;
    std::map<std::string, std::unique_ptr<GpuWorkload>> workloads_;  // by WorkloadDef::name
    int sets_ = 1;                    // buffer sets of the current job (plan_l2)
    DeviceMemory flush_;
    std::string l2_note_;
    uint64_t needed_bytes_ = 0;
    std::string needed_what_;
    std::string broken_;  // set after a sticky CUDA error: the context is unusable
    bool quick_ = false;  // the job being run is a quick (interactive) one
};

}  // namespace

// =============================================================================================
// [SECTION] Entry points (backend.h, gpu_testing.h)
// =============================================================================================
int usable_device_count(std::string* why_not) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (why_not) {
            *why_not = std::string("no usable CUDA device: cudaGetDeviceCount failed with ") + cudaGetErrorName(e) +
                       " (error " + std::to_string(static_cast<int>(e)) + ": " + cudaGetErrorString(e) + ")";
            if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice)
                *why_not += "; no NVIDIA driver is loaded, or it is older than this build's CUDA runtime";
        }
        return 0;
    }
    if (count == 0 && why_not) *why_not = "no usable CUDA device: the driver reports 0 devices";
    return count;
}

}  // namespace gpu

bool built_with_cuda() { return true; }

std::unique_ptr<Backend> make_gpu_backend(std::string* why_not) {
    if (gpu::usable_device_count(why_not) == 0) return nullptr;
    try {
        return std::make_unique<gpu::GpuBackend>(0);
    } catch (const std::exception& e) {
        if (why_not) *why_not = std::string("CUDA device 0 could not be used: ") + e.what();
        return nullptr;
    }
}

}  // namespace kernels
