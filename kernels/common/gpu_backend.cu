// The GPU backend: device facts and the measured copy ceiling, device buffers (cached between jobs
// of the same sizes, rotated or L2-flushed when the working set would fit in L2), a correctness
// check of every run against the float64 CPU reference, and CUDA-event timing of each kernel.
// Every CUDA call is checked; failures come back as Measurement::ok == false, never as a crash.
//
// [SECTION] Small RAII holders
// [SECTION] Device facts and the copy ceiling
// [SECTION] Buffer sets
// [SECTION] Correctness check
// [SECTION] GpuBackend
// [SECTION] Entry points (backend.h, gpu_testing.h)
#include "kernels/attention/attention.h"
#include "kernels/attention/attention_workspace.cuh"
#include "kernels/common/backend.h"
#include "kernels/common/ceilings.h"
#include "kernels/common/cupti_detach.h"
#include "kernels/common/dram_counters.h"
#include "kernels/common/env.h"
#include "kernels/common/format.h"
#include "kernels/common/gpu_check.cuh"
#include "kernels/common/gpu_elementwise.cuh"
#include "kernels/common/gpu_memory.cuh"
#include "kernels/common/gpu_testing.h"
#include "kernels/common/output_check.h"
#include "kernels/common/kernel_trace.cuh"
#include "kernels/common/timeline.h"
#include "kernels/common/sanitizer_run.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/skip/skip.h"
#include "kernels/skip/skip_workspace.cuh"
#include "kernels/launch/launch.h"
#include "kernels/launch/launch_gpu.cuh"
#include "kernels/workload.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <future>
#include <mutex>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
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
// [SECTION] Buffer sets
// =============================================================================================
struct BufferSet {
    std::vector<DeviceMemory> memory;
    ElementwiseBuffers ptrs;
};

uint64_t set_bytes(const std::vector<BufferSpec>& specs, int es) {
    uint64_t b = 0;
    for (const BufferSpec& s : specs) b += s.elements * static_cast<uint64_t>(es);
    return b;
}

BufferSet allocate_set(const std::vector<BufferSpec>& specs, int es) {
    BufferSet set;
    for (const BufferSpec& s : specs) {
        set.memory.emplace_back(s.elements * static_cast<size_t>(es));
        set.ptrs.*(s.member) = set.memory.back().get();
    }
    return set;
}

// Every buffer a variant writes gets 0xFF bytes: NaN in fp32, fp16 and bf16, so an element the
// kernels leave unwritten shows up in count_nonfinite().
void poison_outputs(const std::vector<BufferSpec>& specs, const BufferSet& set, int es, cudaStream_t s) {
    for (const BufferSpec& spec : specs)
        if (spec.output)
            check(cudaMemsetAsync(set.ptrs.*(spec.member), 0xFF, spec.elements * static_cast<size_t>(es), s),
                  "poisoning " + spec.name);
}

std::vector<std::string> kernel_names(const std::string& variant, const Params& p) {
    std::vector<std::string> names;
    for (const KernelModel& k : model(variant, p).kernels) names.push_back(k.name);
    return names;
}

void launch_variant(const std::vector<std::string>& names, const Params& p, const BufferSet& set, cudaStream_t s) {
    for (const std::string& name : names) launch_kernel(name, p, set.ptrs, s);
}

std::string oom_message(uint64_t needed, const std::string& what) {
    size_t free_bytes = 0, total_bytes = 0;
    (void)cudaMemGetInfo(&free_bytes, &total_bytes);
    return "out of GPU memory: this run needs " + format_bytes(static_cast<double>(needed)) + " (" + what + "), " +
           format_bytes(static_cast<double>(free_bytes)) + " free of " + format_bytes(static_cast<double>(total_bytes)) +
           "; try smaller sizes (rows x hidden; attention: N, batch x heads, or flash instead of naive)";
}

// =============================================================================================
// [SECTION] Correctness check
// =============================================================================================
struct CheckResult {
    int64_t nonfinite = 0;
    double max_abs = 0, rel_l2 = 0;
    int64_t elements = 0;
    std::string note;
};

// Max absolute and relative L2 error of checked values against the reference; a non-finite
// difference makes both infinite.
struct ErrorSum {
    double max_abs = 0, err2 = 0, ref2 = 0;
    void add(const float* got, const double* want, size_t n) {
        for (size_t c = 0; c < n; ++c) {
            const double e = static_cast<double>(got[c]) - want[c];
            if (!std::isfinite(e)) {
                max_abs = err2 = INFINITY;
                continue;
            }
            max_abs = std::max(max_abs, std::fabs(e));
            err2 += e * e;
            ref2 += want[c] * want[c];
        }
    }
    double rel_l2() const { return ref2 > 0 ? std::sqrt(err2 / ref2) : (err2 > 0 ? INFINITY : 0.0); }
};

int64_t scan_nonfinite(DType t, const void* out, int64_t elements, unsigned long long* counter, cudaStream_t s) {
    check(cudaMemsetAsync(counter, 0, sizeof(unsigned long long), s), "cudaMemsetAsync");
    count_nonfinite(t, out, elements, counter, s);
    unsigned long long host = 0;
    check(cudaMemcpyAsync(&host, counter, sizeof(host), cudaMemcpyDeviceToHost, s), "cudaMemcpy");
    check(cudaStreamSynchronize(s), "output scan");
    return static_cast<int64_t>(host);
}

CheckResult check_against_reference(const Params& p, const void* out, unsigned long long* counter, cudaStream_t s,
                                    int64_t max_elements) {
    CheckResult r;
    r.nonfinite = scan_nonfinite(p.dtype, out, p.rows * p.hidden, counter, s);
    const std::vector<int64_t> rows = elementwise::rows_to_check(p, max_elements);
    const size_t es = static_cast<size_t>(dtype_bytes(p.dtype)), hidden = static_cast<size_t>(p.hidden);
    std::vector<unsigned char> bits(hidden * es);
    std::vector<float> got(hidden);
    std::vector<double> want(hidden);
    ErrorSum errors;
    for (int64_t row : rows) {
        const unsigned char* src = static_cast<const unsigned char*>(out) + static_cast<size_t>(row) * hidden * es;
        check(cudaMemcpy(bits.data(), src, hidden * es, cudaMemcpyDeviceToHost), "copying an output row");
        to_float(p.dtype, bits.data(), got.data(), hidden);
        elementwise::reference_row(p, row, want.data());
        errors.add(got.data(), want.data(), hidden);
    }
    r.elements = static_cast<int64_t>(rows.size() * hidden);
    r.max_abs = errors.max_abs;
    r.rel_l2 = errors.rel_l2();
    r.note = (static_cast<int64_t>(rows.size()) == p.rows
                  ? "all " + std::to_string(p.rows) + " rows"
                  : std::to_string(rows.size()) + " of " + std::to_string(p.rows) +
                        " rows sampled (first, last, evenly spaced)") +
             " vs the float64 CPU reference; whole output scanned for unwritten (poisoned) or non-finite elements";
    return r;
}

// Attention: sampled (head, row) pairs of O (attention::rows_to_check) against the float64
// reference; the whole of O scanned on the device for poison or non-finite values.
//
// The reference rows do not depend on the variant (nor on Br, Bc), and computing them is the
// slow part (N x d Philox inputs per sampled head, then the rows): ~90 ms at N = 8192 on one core.
// So they are computed once per parameter set, on a thread of their own that starts before the
// checked run and works while the GPU runs and the timed reps follow; every variant of the same
// parameters (the live loop runs them back to back) reuses them. A time is still never reported
// for a run whose output has not been compared (run_attention joins before returning).
struct AttentionReference {
    std::vector<attention::RowRef> rows;
    std::vector<double> want;  // rows.size() x d
};
using SharedReference = std::shared_future<std::shared_ptr<const AttentionReference>>;

SharedReference attention_reference(const attention::AttentionParams& a, double max_mults) {
    struct Entry {
        attention::AttentionParams key;
        double max_mults = 0;
        SharedReference reference;
    };
    static std::mutex mutex;
    static Entry last;
    attention::AttentionParams key = a;
    key.Br = key.Bc = 0;  // tiles change how, not what
    std::lock_guard<std::mutex> lock(mutex);
    if (last.reference.valid() && last.key == key && last.max_mults == max_mults) return last.reference;
    last.key = key;
    last.max_mults = max_mults;
    last.reference = std::async(std::launch::async, [key, max_mults] {
                         auto ref = std::make_shared<AttentionReference>();
                         ref->rows = attention::rows_to_check(key, max_mults);
                         const size_t d = static_cast<size_t>(key.d);
                         ref->want.resize(ref->rows.size() * d);
                         for (size_t i = 0; i < ref->rows.size(); ++i)
                             attention::reference_row(key, ref->rows[i].head, ref->rows[i].row, &ref->want[i * d]);
                         return std::shared_ptr<const AttentionReference>(std::move(ref));
                     }).share();
    return last.reference;
}

// What the device produced for the check: the non-finite count and the sampled rows of O, copied
// to the host right after the checked run (the timed reps that follow overwrite O).
struct AttentionSample {
    attention::AttentionParams params;
    int64_t nonfinite = 0;
    std::vector<float> got;  // rows x d, in rows_to_check order
};

AttentionSample gather_attention(const attention::AttentionParams& a, const attention::gpu::Workspace& ws,
                                 const std::vector<attention::RowRef>& rows, unsigned long long* counter,
                                 cudaStream_t s) {
    AttentionSample g;
    g.params = a;
    g.nonfinite = scan_nonfinite(a.dtype, ws.output(), ws.output_elements(), counter, s);
    const size_t d = static_cast<size_t>(a.d), es = static_cast<size_t>(dtype_bytes(a.dtype));
    std::vector<unsigned char> bits(d * es);
    g.got.resize(rows.size() * d);
    for (size_t i = 0; i < rows.size(); ++i) {
        ws.copy_output_row(rows[i].head, rows[i].row, bits.data());
        to_float(a.dtype, bits.data(), &g.got[i * d], d);
    }
    return g;
}

CheckResult compare_attention(const AttentionSample& g, const AttentionReference& ref) {
    const attention::AttentionParams& a = g.params;
    const size_t d = static_cast<size_t>(a.d);
    if (g.got.size() != ref.want.size())
        throw std::logic_error("attention check: the sampled rows differ from the reference's rows");
    ErrorSum errors;
    errors.add(g.got.data(), ref.want.data(), ref.rows.size() * d);
    CheckResult r;
    r.nonfinite = g.nonfinite;
    const int64_t all_rows = a.batch_heads * a.N;
    r.elements = static_cast<int64_t>(ref.rows.size() * d);
    r.max_abs = errors.max_abs;
    r.rel_l2 = errors.rel_l2();
    r.note = (static_cast<int64_t>(ref.rows.size()) == all_rows
                  ? "all " + std::to_string(all_rows) + " rows of O"
                  : std::to_string(ref.rows.size()) + " of " + std::to_string(all_rows) +
                        " rows of O sampled (first, last, evenly spaced rows of the first, middle and last heads)") +
             " vs the float64 CPU reference; all of O scanned for unwritten (poisoned) or non-finite elements";
    return r;
}

// Skip connection: sampled (problem, row) pairs of the result (out, or attn_out for the variant
// attention) against the float64 reference; the whole result scanned for poison or non-finite values.
CheckResult check_skip(const std::string& variant, const skip::SkipParams& p, const skip::gpu::Workspace& ws,
                       unsigned long long* counter, cudaStream_t s) {
    CheckResult r;
    r.nonfinite = scan_nonfinite(p.attn.dtype, ws.result(), ws.result_elements(), counter, s);
    const std::vector<attention::RowRef> rows = attention::rows_to_check(p.attn);
    const size_t d = static_cast<size_t>(p.attn.d), es = static_cast<size_t>(dtype_bytes(p.attn.dtype));
    std::vector<unsigned char> bits(d * es);
    std::vector<float> got(d);
    std::vector<double> want(d);
    ErrorSum errors;
    for (const attention::RowRef& rr : rows) {
        ws.copy_result_row(rr.head, rr.row, bits.data());
        to_float(p.attn.dtype, bits.data(), got.data(), d);
        skip::reference_result_row(variant, p, rr.head, rr.row, want.data());
        errors.add(got.data(), want.data(), d);
    }
    const int64_t all_rows = p.attn.batch_heads * p.attn.N;
    const std::string what = skip::writes_out(variant) ? "out" : "attn_out";
    r.elements = static_cast<int64_t>(rows.size() * d);
    r.max_abs = errors.max_abs;
    r.rel_l2 = errors.rel_l2();
    r.note = (static_cast<int64_t>(rows.size()) == all_rows
                  ? "all " + std::to_string(all_rows) + " rows of " + what
                  : std::to_string(rows.size()) + " of " + std::to_string(all_rows) + " rows of " + what +
                        " sampled (first, last, evenly spaced rows of the first, middle and last heads)") +
             " vs the float64 CPU reference; all of " + what + " scanned for unwritten (poisoned) or non-finite elements";
    return r;
}

// =============================================================================================
// [SECTION] GpuBackend
// =============================================================================================
struct Cancelled {};

// The CPU reference's budget for the check that precedes every timing. A full job samples up to
// 4e8 multiply-adds of attention rows (~0.5 s on one core at N = 8192) or 4M elementwise outputs; a
// quick job (the GUI's first pass while a slider moves) fewer, so the answer comes within ~300 ms.
// Every configuration is still checked before its time is shown; the full pass re-checks more.
constexpr double kFullCheckMults = 4e8, kQuickCheckMults = 2e7;
constexpr int64_t kFullCheckElements = int64_t{1} << 22, kQuickCheckElements = int64_t{1} << 18;
// GPU time the quick pass spends on timed reps (at least one rep whatever its length).
constexpr double kQuickTimedBudgetMs = 60;

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
            load_or_measure_compute_ceilings(info_);  // kernels/common/ceilings.h: cached per device, driver, clocks
        }
    }

    const DeviceInfo& device() const override { return info_; }

    // Elementwise: any CUDA GPU runs it (sizes are validate()'s business). Attention: the device's
    // compute capability and shared memory per block, and GPU memory free now plus what this
    // backend holds in cached buffers (released before a new configuration is allocated).
    std::string unavailable_reason(const Job& job) const override {
        const Params& p = job.params;
        if (std::string bad = validate(p); !bad.empty()) return bad;
        if (!has_variant(p.workload, job.variant))
            return "unknown variant '" + job.variant + "' for workload " + to_string(p.workload);
        // elementwise and launch: any CUDA GPU
        if (p.workload != Workload::attention && p.workload != Workload::skip) return "";
        attention::gpu::DeviceLimits limits = attention::gpu::device_limits();
        if (!limits.ok) return "cannot query the CUDA device: " + limits.error;
        uint64_t held = attention_.bytes() + skip_.bytes() + flush_.bytes();
        for (const BufferSet& set : sets_)
            for (const DeviceMemory& mem : set.memory) held += mem.bytes();
        limits.free_bytes += static_cast<int64_t>(held);
        if (p.workload == Workload::skip)
            return skip::device_refusal(job.variant, skip::to_skip(p), attention::gpu::device_facts(limits));
        return attention::device_refusal(job.variant, attention::to_attention(p), attention::gpu::device_facts(limits));
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
        } catch (const CudaError& e) {
            m.ok = false;
            m.error = e.what();
            if (e.code() == cudaErrorMemoryAllocation) {
                release_all_buffers();
                m.error = oom_message(needed_bytes_, needed_what_) + " [" + e.what() + "]";
            } else if (e.sticky()) {
                broken_ = std::string("the GPU context failed earlier and cannot be used again until fusionlab "
                                      "restarts: ") + e.what();
                m.error = broken_;
            }
        } catch (const std::exception& e) {
            m.ok = false;
            m.error = e.what();
        }
        detach_cupti_if_attached(m);
        return m;
    }

private:
    // Attached, CUPTI keeps host memory for every kernel launch (cupti_detach.h): with
    // FUSIONLAB_CUPTI_DETACH=1, detach it after a job that traced or counted. The stream is idle
    // here (every path above synchronised or threw).
    void detach_cupti_if_attached(Measurement& m) {
        if (!cupti_attached_) return;
        cupti_attached_ = false;
        if (!cupti_detach_enabled()) return;
        (void)cudaStreamSynchronize(stream_->get());
        if (std::string why = detach_cupti(); !why.empty()) m.timing_note += (m.timing_note.empty() ? "" : "; ") + why;
    }

    void release_buffers() {
        sets_.clear();
        flush_ = DeviceMemory();
        layout_.reset();
    }

    void release_all_buffers() {
        release_buffers();
        attention_.release();
        skip_.release();
        launch_.release();
    }

    // Decides rotation / flush for this working set, (re)allocates buffers when the sizes changed.
    void prepare_buffers(const std::string& variant, const Params& p, const std::vector<BufferSpec>& specs) {
        const int es = dtype_bytes(p.dtype);
        const uint64_t one_set = set_bytes(specs, es);
        const uint64_t l2 = static_cast<uint64_t>(std::max<int64_t>(info_.l2_bytes, 1));
        constexpr int kMaxSets = 8;
        int sets = 1;
        bool flush = false;
        if (one_set < 2 * l2) {
            const uint64_t want = (3 * l2 + one_set - 1) / one_set;  // the rotation cycle spans >= 3x L2
            if (want <= kMaxSets) sets = static_cast<int>(want);
            else flush = true;
        }
        const Layout layout{p.workload, variant, p.dtype, p.rows, p.hidden, sets, flush};
        if (layout_ && *layout_ == layout) return;

        release_buffers();
        const uint64_t flush_bytes = flush ? 2 * l2 : 0;
        needed_bytes_ = one_set * static_cast<uint64_t>(sets) + flush_bytes;
        needed_what_ = std::to_string(sets) + (sets == 1 ? " buffer set of " : " buffer sets of ") +
                       format_bytes(static_cast<double>(one_set)) +
                       (flush ? " + " + format_bytes(static_cast<double>(flush_bytes)) + " L2 flush buffer" : "");
        size_t free_bytes = 0, total_bytes = 0;
        check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
        if (needed_bytes_ > free_bytes) throw std::runtime_error(oom_message(needed_bytes_, needed_what_));
        for (int i = 0; i < sets; ++i) sets_.push_back(allocate_set(specs, es));
        if (flush) flush_ = zeroed_memory(flush_bytes);
        layout_ = layout;

        if (flush)
            l2_note_ = "working set " + format_bytes(static_cast<double>(one_set)) + " fits in L2 (" +
                       format_bytes(static_cast<double>(l2)) + ") and rotation would need more than " +
                       std::to_string(kMaxSets) + " sets: L2 flushed before each rep by reading a " +
                       format_bytes(static_cast<double>(flush_bytes)) + " scratch buffer, outside the timed region";
        else if (sets > 1)
            l2_note_ = "rotating " + std::to_string(sets) + " buffer sets of " + format_bytes(static_cast<double>(one_set)) +
                       " (cycle >= 3x the " + format_bytes(static_cast<double>(l2)) +
                       " L2), so a rep's inputs are not left in L2 by the previous reps";
        else
            l2_note_ = "one buffer set: working set " + format_bytes(static_cast<double>(one_set)) + " >= 2x the " +
                       format_bytes(static_cast<double>(l2)) + " L2, so little survives in L2 between reps";
    }

    // The model's spill traffic comes from ptxas's report for sm_90 (row_kernel_registers.inc).
    // The binary on this device may differ (another architecture): the note says what the
    // runtime reports for the instance that runs, registers and stack frame per thread.
    void note_spills(const Model& mod, const Params& p, Measurement& m) const {
        const ModelSpills spills = model_spills(mod, info_);
        m.local_bytes = spills.local_bytes;
        m.local_beyond_l1_bytes = spills.beyond_l1_bytes;
        m.spill_note = spills.note;
        if (p.workload != Workload::chain) return;
        for (const KernelModel& k : mod.kernels) {
            if (k.registers.registers == 0) continue;
            const RegisterUse here = row_kernel_attributes(k.name, p);
            if (here.registers == k.registers.registers && here.stack_bytes == k.registers.stack_bytes) continue;
            if (!m.spill_note.empty()) m.spill_note += "; ";
            m.spill_note += k.name + " on this device: " + std::to_string(here.registers) + " registers, " +
                            std::to_string(here.stack_bytes) + " B of stack per thread (the model's " +
                            std::to_string(k.registers.registers) + " and " + std::to_string(k.registers.stack_bytes) +
                            " B are " + k.registers.source + ")";
        }
    }

    void run_checked(const Job& job, const CancelToken& cancel, Measurement& m) {
        const Params& p = job.params;
        if (std::string why = unavailable_reason(job); !why.empty()) {
            m.refused = validate(p).empty() && has_variant(p.workload, job.variant);
            throw std::invalid_argument(why);
        }
        check(cudaSetDevice(device_index_), "cudaSetDevice");

        const Model mod = model(job.variant, p);
        m.flops = mod.flops();
        m.bytes_read = mod.bytes_read();
        m.bytes_written = mod.bytes_written();
        m.min_bytes = min_bytes(p);
        note_spills(mod, p, m);
        std::vector<std::string> names;
        for (const KernelModel& k : mod.kernels) names.push_back(k.name);

        quick_ = job.quick;
        phases_note_.clear();
        if (p.workload == Workload::launch) {
            run_launch(job, cancel, mod, m);  // its own timing: no event between the K launches
            return;
        }
        if (p.workload == Workload::attention) run_attention(job, cancel, mod, names, m);
        else if (p.workload == Workload::skip) run_skip(job, cancel, mod, names, m);
        else run_elementwise(job, cancel, mod, names, m);
        m.timing_note = "median of " + std::to_string(m.time.reps) + " reps after " +
                        (warmup_used_ > 0 ? std::to_string(warmup_used_) + " warm-up runs"
                                          : std::string("the checked run (as warm-up)")) +
                        "; CUDA events at every kernel boundary; " + l2_note_;
        if (!quick_budget_note_.empty()) m.timing_note += "; " + quick_budget_note_;
        if (sanitizer_run()) m.timing_note = std::string(sanitizer_run_note()) + "; " + m.timing_note;
        if (!phases_note_.empty()) m.timing_note += "; " + phases_note_;
    }

    void run_elementwise(const Job& job, const CancelToken& cancel, const Model& mod,
                         const std::vector<std::string>& names, Measurement& m) {
        const Params& p = job.params;
        const cudaStream_t s = stream_->get();
        attention_.release();  // the other workload's buffers: free them before allocating ours
        skip_.release();
        launch_.release();
        const std::vector<BufferSpec> specs = buffer_specs(job.variant, p);
        const int es = dtype_bytes(p.dtype);
        prepare_buffers(job.variant, p, specs);
        for (const BufferSet& set : sets_) {
            fill_inputs(p, set.ptrs, s);
            poison_outputs(specs, set, es, s);
        }

        // Correctness first: one run on poisoned outputs, checked before anything is timed.
        const auto t_checked = std::chrono::steady_clock::now();
        launch_variant(names, p, sets_[0], s);
        check(cudaStreamSynchronize(s), "checked run of " + job.variant);
        const double checked_run_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_checked).count();
        accept_check(check_against_reference(p, sets_[0].ptrs.out, static_cast<unsigned long long*>(counter_.get()), s,
                                             job.quick ? kQuickCheckElements : kFullCheckElements),
                     p.rows * p.hidden, p.dtype, m);

        auto set_for = [&](int rep) -> const BufferSet& { return sets_[static_cast<size_t>(rep) % sets_.size()]; };
        time_kernels(job, cancel, mod, [&](size_t k, int rep, cudaStream_t stream) {
            launch_kernel(names[k], p, set_for(rep).ptrs, stream);
        }, m, checked_run_ms);
        record_timeline(mod, [&](size_t k) { launch_kernel(names[k], p, sets_[0].ptrs, s); }, m);
        measure_dram_bytes(job, [&] {
            for (const std::string& name : names) launch_kernel(name, p, sets_[0].ptrs, s);
        }, m);
    }

    void run_attention(const Job& job, const CancelToken& cancel, const Model& mod,
                       const std::vector<std::string>& names, Measurement& m) {
        const attention::AttentionParams a = attention::to_attention(job.params);
        const cudaStream_t s = stream_->get();
        // Host-side phases of the job, for the live loop's budget (PERF.md "Live loop").
        const auto t_start = std::chrono::steady_clock::now();
        auto ms_since = [](std::chrono::steady_clock::time_point t) {
            return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
        };
        if (layout_ || !sets_.empty()) release_buffers();  // the elementwise buffers: free them before allocating ours
        skip_.release();
        launch_.release();
        needed_bytes_ = attention::io_bytes(a) + (job.variant == "naive" ? attention::naive_scratch_bytes(a) : 0);
        needed_what_ = job.variant == "naive" ? "Q, K, V, O and naive's S and P" : "Q, K, V and O";
        attention_.prepare(job.variant, a);
        if (attention_.kernel_count() != names.size())
            throw std::logic_error("attention " + job.variant + " launches " + std::to_string(attention_.kernel_count()) +
                                   " kernels but its model has " + std::to_string(names.size()));
        // Timed reps reuse one buffer set: O (and S, P) are rewritten by each rep, Q, K, V only read.
        // When the working set would sit in L2, an L2 flush runs before each rep, outside its events.
        const uint64_t working = attention_.bytes();
        const uint64_t l2 = static_cast<uint64_t>(std::max<int64_t>(info_.l2_bytes, 1));
        if (working < 2 * l2) {
            if (flush_.bytes() < 2 * l2) flush_ = zeroed_memory(2 * l2);
            l2_note_ = "working set " + format_bytes(static_cast<double>(working)) + " < 2x the " +
                       format_bytes(static_cast<double>(l2)) + " L2: L2 flushed before each rep by reading a " +
                       format_bytes(static_cast<double>(flush_.bytes())) + " scratch buffer, outside the timed region";
        } else {
            flush_ = DeviceMemory();
            l2_note_ = "one buffer set: working set " + format_bytes(static_cast<double>(working)) + " >= 2x the " +
                       format_bytes(static_cast<double>(l2)) + " L2, so little survives in L2 between reps";
        }
        attention_.fill_inputs(s);
        attention_.poison_outputs(s);
        check(cudaStreamSynchronize(s), "filling the inputs");
        const double prepare_ms = ms_since(t_start);

        // Correctness first: one run on poisoned O (and S, P), compared with the float64 reference
        // before this job reports a time. The reference is computed on another thread meanwhile.
        auto t = std::chrono::steady_clock::now();
        const double mults = job.quick ? kQuickCheckMults : kFullCheckMults;
        const SharedReference reference = attention_reference(a, mults);
        for (size_t k = 0; k < names.size(); ++k) attention_.launch_kernel(k, s);
        check(cudaStreamSynchronize(s), "checked run of " + job.variant);
        const double checked_run_ms = ms_since(t);
        const AttentionSample sample = gather_attention(a, attention_, attention::rows_to_check(a, mults),
                                                        static_cast<unsigned long long*>(counter_.get()), s);
        const double check_ms = ms_since(t);

        t = std::chrono::steady_clock::now();
        time_kernels(job, cancel, mod, [&](size_t k, int, cudaStream_t stream) { attention_.launch_kernel(k, stream); },
                     m, checked_run_ms);
        const double timed_ms = ms_since(t);
        t = std::chrono::steady_clock::now();
        try {
            accept_check(compare_attention(sample, *reference.get()), attention_.output_elements(), a.dtype, m);
        } catch (...) {
            m.time = {};  // a time is only ever shown for a checked output
            m.kernels.clear();
            throw;
        }
        const double reference_wait_ms = ms_since(t);
        t = std::chrono::steady_clock::now();
        record_timeline(mod, [&](size_t k) { attention_.launch_kernel(k, s); }, m);
        const double timeline_ms = ms_since(t);
        t = std::chrono::steady_clock::now();
        measure_dram_bytes(job, [&] {
            for (size_t k = 0; k < names.size(); ++k) attention_.launch_kernel(k, s);
        }, m);
        char phases[320];
        std::snprintf(phases, sizeof phases,
                      "host phases: buffers + inputs %.0f ms, checked run + copy %.0f ms, warm-up + timed reps %.0f ms, "
                      "wait for the CPU reference %.0f ms, timeline %.0f ms, counters %.0f ms",
                      prepare_ms, check_ms, timed_ms, reference_wait_ms, timeline_ms, ms_since(t));
        phases_note_ = phases;
    }

    // The skip connection: as run_attention, with the skip workspace (q, k, v, x; attn_out and/or out).
    void run_skip(const Job& job, const CancelToken& cancel, const Model& mod, const std::vector<std::string>& names,
                  Measurement& m) {
        const skip::SkipParams sp = skip::to_skip(job.params);
        const cudaStream_t s = stream_->get();
        if (layout_ || !sets_.empty()) release_buffers();  // the elementwise buffers: free them before allocating ours
        attention_.release();
        launch_.release();
        needed_bytes_ = skip::device_bytes(job.variant, sp);
        needed_what_ = "q, k, v" + std::string(skip::has_attn_out(job.variant) ? ", attn_out" : "") +
                       (skip::writes_out(job.variant) ? ", x, out" : "");
        skip_.prepare(job.variant, sp);
        if (skip_.kernel_count() != names.size())
            throw std::logic_error("skip " + job.variant + " launches " + std::to_string(skip_.kernel_count()) +
                                   " kernels but its model has " + std::to_string(names.size()));
        const uint64_t working = skip_.bytes();
        const uint64_t l2 = static_cast<uint64_t>(std::max<int64_t>(info_.l2_bytes, 1));
        if (working < 2 * l2) {
            if (flush_.bytes() < 2 * l2) flush_ = zeroed_memory(2 * l2);
            l2_note_ = "working set " + format_bytes(static_cast<double>(working)) + " < 2x the " +
                       format_bytes(static_cast<double>(l2)) + " L2: L2 flushed before each rep by reading a " +
                       format_bytes(static_cast<double>(flush_.bytes())) + " scratch buffer, outside the timed region";
        } else {
            flush_ = DeviceMemory();
            l2_note_ = "one buffer set: working set " + format_bytes(static_cast<double>(working)) + " >= 2x the " +
                       format_bytes(static_cast<double>(l2)) + " L2, so little survives in L2 between reps";
        }
        skip_.fill_inputs(s);
        skip_.poison_outputs(s);

        // Correctness first: one run on poisoned attn_out and out, checked before anything is timed.
        const auto t_checked = std::chrono::steady_clock::now();
        for (size_t k = 0; k < names.size(); ++k) skip_.launch_kernel(k, s);
        check(cudaStreamSynchronize(s), "checked run of " + job.variant);
        const double checked_run_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_checked).count();
        accept_check(check_skip(job.variant, sp, skip_, static_cast<unsigned long long*>(counter_.get()), s),
                     skip_.result_elements(), sp.attn.dtype, m);

        time_kernels(job, cancel, mod, [&](size_t k, int, cudaStream_t stream) { skip_.launch_kernel(k, stream); }, m,
                     checked_run_ms);
        record_timeline(mod, [&](size_t k) { skip_.launch_kernel(k, s); }, m);
        measure_dram_bytes(job, [&] {
            for (size_t k = 0; k < names.size(); ++k) skip_.launch_kernel(k, s);
        }, m);
    }

    // The launch workload: K dependent steps as K launches, a replayed graph, or one kernel.
    // Timing differs from time_kernels() on purpose: an event between every launch would add its own
    // cost to each gap, so each rep is bracketed by two events only, and it starts on an idle GPU
    // (the stream is synchronised first) so the host's rate of issuing launches is inside the
    // interval, as it is for any program that launches its steps one by one.
    void run_launch(const Job& job, const CancelToken& cancel, const Model& mod, Measurement& m) {
        const Params& p = job.params;
        const cudaStream_t s = stream_->get();
        release_buffers();  // the other workloads' buffers: free them before allocating ours
        attention_.release();
        skip_.release();
        const uint64_t one = static_cast<uint64_t>(p.elements) * static_cast<uint64_t>(dtype_bytes(p.dtype));
        needed_bytes_ = 2 * one;
        needed_what_ = "x and y";
        launch_.prepare(p);
        launch_.fill_inputs(s);
        launch_.poison_output(s);
        if (job.variant == "graph") launch_.build_graph(s);  // capture + instantiate, never timed

        // Correctness first: one run on poisoned y, checked before anything is timed.
        launch_.run(job.variant, s);
        check(cudaStreamSynchronize(s), "checked run of " + job.variant);
        const launch::gpu::Check c = launch_.check_output(job.variant, static_cast<unsigned long long*>(counter_.get()), s);
        accept_check(CheckResult{c.nonfinite, c.max_abs, c.rel_l2, c.elements, c.note}, p.elements, p.dtype, m);

        const int reps = std::max(job.reps, 20), warmup = std::max(job.warmup, 1);
        for (int i = 0; i < warmup; ++i) launch_.run(job.variant, s);
        events_.reserve(2 * static_cast<size_t>(reps));
        for (int r = 0; r < reps; ++r) {
            if (cancel.cancelled()) {
                (void)cudaStreamSynchronize(s);
                throw Cancelled{};
            }
            check(cudaStreamSynchronize(s), "idle GPU before a timed rep");
            check(cudaEventRecord(events_[2 * static_cast<size_t>(r)], s), "cudaEventRecord");
            launch_.run(job.variant, s);
            check(cudaEventRecord(events_[2 * static_cast<size_t>(r) + 1], s), "cudaEventRecord");
        }
        check(cudaStreamSynchronize(s), "timed reps");
        std::vector<double> whole;
        for (int r = 0; r < reps; ++r)
            whole.push_back(elapsed_ms(events_[2 * static_cast<size_t>(r)], events_[2 * static_cast<size_t>(r) + 1]));
        m.time = summarize(whole);
        // One row for the K identical kernels: the mean per kernel (rep time / K), launch gaps included.
        const int64_t count = launch::kernel_count(job.variant, p);
        const double per = 1.0 / static_cast<double>(count);
        const KernelModel& k0 = mod.kernels.front();
        m.kernels.push_back(KernelTime{k0.name + (count > 1 ? " x" + std::to_string(count) : std::string()),
                                       {m.time.median_ms * per, m.time.min_ms * per, m.time.max_ms * per, m.time.reps},
                                       k0.bytes_read() + k0.bytes_written()});
        const uint64_t l2 = static_cast<uint64_t>(std::max<int64_t>(info_.l2_bytes, 1));
        m.timing_note =
            "median of " + std::to_string(reps) + " reps after " + std::to_string(warmup) +
            " warm-up runs; each rep starts on an idle GPU (stream synchronised) and is timed by one CUDA event "
            "before its first launch and one after its last, none in between, so the host's launch rate is "
            "inside the time (" +
            (job.variant == "stream"  ? std::to_string(p.steps) + " cudaLaunchKernel calls"
             : job.variant == "graph" ? "one cudaGraphLaunch of " + std::to_string(p.steps) +
                                            " kernel nodes, captured and instantiated beforehand"
                                      : std::string("one launch")) +
            "); per-kernel row = rep time / kernels; no L2 flush: x and y (" +
            format_bytes(static_cast<double>(2 * one)) + ") " + (2 * one <= l2 ? "fit" : "do not fit") + " in the " +
            format_bytes(static_cast<double>(l2)) + " L2 and stay there between steps, as in a real loop";

        record_timeline(mod, [&](size_t k) { launch_.launch_step(static_cast<int64_t>(k), s); }, m,
                        [&] { launch_.run(job.variant, s); }, job.variant);
        // The range profiler cannot profile a graph replay: on an H200 (CUDA 13.0) cuptiRangeProfilerStop
        // failed with CUPTI_ERROR_UNKNOWN, and the counters then stayed off for the whole session. The
        // graph runs exactly the stream's K kernels on the same buffers, so those are what is counted.
        const bool graph = job.variant == "graph";
        measure_dram_bytes(job, [&] { launch_.run(graph ? "stream" : job.variant, s); }, m);
        if (graph && m.measured_bytes)
            m.measured_bytes_note += "; counted on the same K kernels launched one by one (the range profiler "
                                     "cannot profile a graph replay)";
    }

    // One more, untimed run after the timed reps with CUPTI kernel activity records on: each
    // kernel's start and end on the GPU clock (m.timeline). Where CUPTI cannot trace, CUDA events
    // around each kernel instead (launch_k(k) enqueues kernel k of the model). `launch_all`, when
    // given, is how the variant really runs (the launch workload's graph replay); for a graph the
    // event fallback can only bracket the whole replay.
    void record_timeline(const Model& mod, const std::function<void(size_t)>& launch_k, Measurement& m,
                         const std::function<void()>& launch_all = {}, const std::string& variant = "") {
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
            bytes.push_back(k.bytes_read() + k.bytes_written());
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
        if (variant == "graph") {
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
    static void accept_check(const CheckResult& c, int64_t output_elements, DType t, Measurement& m) {
        m.checked = true;
        m.max_abs_error = c.max_abs;
        m.rel_l2_error = c.rel_l2;
        m.checked_elements = c.elements;
        m.check_note = c.note;
        if (c.nonfinite > 0)
            throw std::runtime_error(std::to_string(c.nonfinite) + " of " + std::to_string(output_elements) +
                                     " output elements are unwritten (still poisoned) or not finite");
        // Relative L2 is the criterion; a tiny output (a few elements) can cancel to near zero while
        // its O(1) operands carry O(1)-scaled rounding, so a small absolute error also passes.
        if (!output_matches(t, c.rel_l2, c.max_abs))
            throw std::runtime_error("output differs from the CPU reference: relative L2 error " +
                                     std::to_string(c.rel_l2) + " > tolerance " + std::to_string(relative_tolerance(t)) +
                                     " for " + to_string(t) + " (max abs error " + std::to_string(c.max_abs) +
                                     " > " + std::to_string(absolute_tolerance(t)) + ")");
    }

    // One more run of the variant under the hardware counters, after the timed reps (the profiler
    // serialises and replays, so it never shares a run with timing). The counters flush L2 first.
    // A failure leaves measured_bytes empty and says why in the note; DramCounters caches failures
    // that cannot go away, so later jobs do not retry an impossible initialisation.
    void measure_dram_bytes(const Job& job, const std::function<void()>& launch_all, Measurement& m) {
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
        const DramBytes d = counters_.measure(launch_all, stream_->get());
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
        // A quick (interactive) job takes its reps as asked; a full one at least kMinGpuTimedReps
        // (a sanitizer run: 1, kernels/common/sanitizer_run.h).
        int reps = job.quick ? std::max(job.reps, kMinReps) : gpu_timed_reps(job.reps);
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
        auto flush_l2 = [&] {
            if (flush_.get() == nullptr) return;
            l2_flush_kernel<<<info_.sm_count * 4, 256, 0, s>>>(static_cast<const uint4*>(flush_.get()),
                                                               static_cast<int64_t>(flush_.bytes() / 16),
                                                               static_cast<unsigned*>(counter_.get()));
            check_launch("l2_flush_kernel");
        };
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
                                           mod.kernels[k].bytes_read() + mod.kernels[k].bytes_written()});
    }

    struct Layout {
        Workload workload;
        std::string variant;
        DType dtype;
        int64_t rows, hidden;
        int sets;
        bool flush;
        bool operator==(const Layout&) const = default;
    };

    int device_index_ = 0;
    int warmup_used_ = 1;             // by the last time_kernels()
    std::string quick_budget_note_;   // set when the quick pass's budget cut its reps
    DeviceInfo info_;
    DramCounters counters_;  // initialised lazily, on the first job that asks for counters
    bool cupti_attached_ = false;  // this job called CUPTI: detach_cupti_if_attached() may detach it
    std::unique_ptr<Stream> stream_;
    DeviceMemory counter_;
    EventPool events_;
    std::optional<Layout> layout_;
    std::vector<BufferSet> sets_;
    DeviceMemory flush_;
    attention::gpu::Workspace attention_;
    skip::gpu::Workspace skip_;
    launch::gpu::Workspace launch_;
    std::string l2_note_;
    uint64_t needed_bytes_ = 0;
    std::string needed_what_;
    std::string broken_;  // set after a sticky CUDA error: the context is unusable
    bool quick_ = false;  // the job being run is a quick (interactive) one
    std::string phases_note_;  // where the host time of the last job went (attention)
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

VariantOutput run_variant_once(const std::string& variant, const Params& p) {
    VariantOutput result;
    try {
        if (const std::string bad = validate(p); !bad.empty()) throw std::invalid_argument(bad);
        Stream stream;
        const cudaStream_t s = stream.get();
        const std::vector<BufferSpec> specs = buffer_specs(variant, p);
        const int es = dtype_bytes(p.dtype);
        const BufferSet set = allocate_set(specs, es);
        DeviceMemory counter(sizeof(unsigned long long));
        fill_inputs(p, set.ptrs, s);
        poison_outputs(specs, set, es, s);
        launch_variant(kernel_names(variant, p), p, set, s);
        check(cudaStreamSynchronize(s), "run of " + variant);
        result.nonfinite =
            scan_nonfinite(p.dtype, set.ptrs.out, p.rows * p.hidden, static_cast<unsigned long long*>(counter.get()), s);
        const size_t n = static_cast<size_t>(p.rows * p.hidden);
        std::vector<unsigned char> bits(n * static_cast<size_t>(es));
        check(cudaMemcpy(bits.data(), set.ptrs.out, bits.size(), cudaMemcpyDeviceToHost), "copying the output");
        result.out.resize(n);
        to_float(p.dtype, bits.data(), result.out.data(), n);
        result.ok = true;
    } catch (const std::exception& e) {
        result.error = e.what();
    }
    return result;
}

InputsOnHost download_inputs(const Params& p) {
    InputsOnHost r;
    try {
        Stream stream;
        const std::string variant = "fused";
        const std::vector<BufferSpec> specs = buffer_specs(variant, p);
        const int es = dtype_bytes(p.dtype);
        const BufferSet set = allocate_set(specs, es);
        fill_inputs(p, set.ptrs, stream.get());
        check(cudaStreamSynchronize(stream.get()), "fill_inputs");
        for (const BufferSpec& spec : specs) {
            if (spec.output) continue;
            std::vector<unsigned char> bits(spec.elements * static_cast<size_t>(es));
            check(cudaMemcpy(bits.data(), set.ptrs.*(spec.member), bits.size(), cudaMemcpyDeviceToHost), "copy input");
            std::vector<float> values(spec.elements);
            to_float(p.dtype, bits.data(), values.data(), spec.elements);
            r.tensors.emplace_back(spec.name, std::move(values));
        }
        r.ok = true;
    } catch (const std::exception& e) {
        r.error = e.what();
    }
    return r;
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
