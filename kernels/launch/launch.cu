// Launch overhead on the GPU: K dependent steps y = y*a + b (kernels/launch/launch.h).
//
// Versions, and why each exists:
//   step         one element per thread, 256 threads per block: load y (x for step 1), one fmaf,
//                store y. Deliberately minimal: at L2-resident sizes its run time is a couple of
//                microseconds, so the launch, not the work, is what a stream of them pays for.
//   stream       K launches of `step` on one stream, issued back to back by the host.
//   graph        the same K launches captured once (cudaStreamBeginCapture) into a CUDA graph,
//                instantiated once, replayed with one cudaGraphLaunch per run.
//   fused_steps  one kernel: load x once, K fmaf in registers, store y once.
// Math is fp32 whatever the storage dtype; stream/graph round y to the dtype after every step.
//
// Bytes (per run, es = bytes per element, n = elements): stream/graph K x (n es read + n es
// written), through L2 when 2 n es fits in it; fused n es read + n es written.
//
// [SECTION] Kernels
// [SECTION] Launchers
// [SECTION] Workspace: buffers, graph, check
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
#include "kernels/gpu/gpu_check.cuh"
#include "kernels/gpu/gpu_dtype.cuh"
#include "kernels/gpu/gpu_memory.cuh"
#include "kernels/gpu/gpu_workload.h"
#include "kernels/core/philox.h"
#include "kernels/launch/launch.h"
#include "kernels/launch/launch_gpu.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace kernels::launch::gpu {

using kernels::gpu::check;
using kernels::gpu::check_launch;
using kernels::gpu::DeviceMemory;
using kernels::gpu::from_float;
using kernels::gpu::to_float;

namespace {

// =============================================================================================
// [SECTION] Kernels
// =============================================================================================
// `in` and `y` may be the same buffer (steps 2..K run in place), so no __restrict__.
template <typename T>
__global__ void __launch_bounds__(kThreads) step_kernel(const T* in, T* y, int64_t n, float a, float b) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (i >= n) return;
    const float v = to_float(in[i]);  // load y (x for step 1) from memory into a register
    y[i] = from_float<T>(fmaf(v, a, b));  // store y to memory: the next step reads it back
}

template <typename T>
__global__ void __launch_bounds__(kThreads) fused_steps_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n,
                                                               int64_t steps, float a, float b) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (i >= n) return;
    float v = to_float(x[i]);  // load x from memory once
    for (int64_t k = 0; k < steps; ++k) v = fmaf(v, a, b);  // K steps in a register
    y[i] = from_float<T>(v);  // store y to memory once
}

// Same expression as launch::x_value() on the host: input_value() in fp32, rounded to T.
template <typename T>
__global__ void fill_kernel(T* x, int64_t n, uint64_t seed) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) x[i] = from_float<T>(input_value(seed, kX, static_cast<uint64_t>(i)));
}

// y[idx[j]] -> out[j], for checking sampled elements of a large y without copying all of it.
template <typename T>
__global__ void gather_kernel(const T* y, const int64_t* idx, int64_t count, float* out) {
    const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j < count) out[j] = to_float(y[idx[j]]);
}

// =============================================================================================
// [SECTION] Launchers
// =============================================================================================
unsigned grid_for(int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

template <typename T>
void launch_step_typed(const void* in, void* y, int64_t n, cudaStream_t s) {
    step_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<const T*>(in), static_cast<T*>(y), n, kA, kB);
    check_launch("step");
}

template <typename T>
void launch_fused_typed(const void* x, void* y, int64_t n, int64_t steps, cudaStream_t s) {
    fused_steps_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), n, steps, kA,
                                                           kB);
    check_launch("fused_steps");
}

template <typename T>
void launch_fill_typed(void* x, int64_t n, uint64_t seed, cudaStream_t s) {
    fill_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(x), n, seed);
    check_launch("launch fill");
}

template <typename T>
void launch_gather_typed(const void* y, const int64_t* idx, int64_t count, float* out, cudaStream_t s) {
    gather_kernel<T><<<grid_for(count), kThreads, 0, s>>>(static_cast<const T*>(y), idx, count, out);
    check_launch("launch gather");
}

// One dispatch on the dtype for every launcher above.
template <template <typename> class Fn, typename... Args>
void by_dtype(DType t, Args... args) {
    switch (t) {
    case DType::f32: Fn<float>{}(args...); return;
    case DType::f16: Fn<__half>{}(args...); return;
    case DType::bf16: Fn<__nv_bfloat16>{}(args...); return;
    }
}
template <typename T> struct StepFn { template <typename... A> void operator()(A... a) { launch_step_typed<T>(a...); } };
template <typename T> struct FusedFn { template <typename... A> void operator()(A... a) { launch_fused_typed<T>(a...); } };
template <typename T> struct FillFn { template <typename... A> void operator()(A... a) { launch_fill_typed<T>(a...); } };
template <typename T> struct GatherFn { template <typename... A> void operator()(A... a) { launch_gather_typed<T>(a...); } };

}  // namespace

// =============================================================================================
// [SECTION] Workspace: buffers, graph, check
// =============================================================================================
struct Workspace::Impl {
    LaunchParams p;
    bool prepared = false;
    DeviceMemory x, y;
    cudaGraphExec_t graph = nullptr;
    LaunchParams graph_params;  // what `graph` was captured for

    void drop_graph() {
        if (graph) (void)cudaGraphExecDestroy(graph);
        graph = nullptr;
    }
    ~Impl() { drop_graph(); }
};

Workspace::Workspace() : impl_(std::make_unique<Impl>()) {}
Workspace::~Workspace() = default;

void Workspace::prepare(const LaunchParams& p) {
    Impl& w = *impl_;
    const uint64_t bytes = static_cast<uint64_t>(p.elements) * static_cast<uint64_t>(dtype_bytes(p.dtype));
    if (!w.prepared || w.x.bytes() != bytes) {
        w.drop_graph();  // it points at the old buffers
        w.x = DeviceMemory();
        w.y = DeviceMemory();
        w.x = DeviceMemory(bytes, "x");
        w.y = DeviceMemory(bytes, "y");
    }
    if (w.graph && !(w.graph_params == p)) w.drop_graph();
    w.p = p;
    w.prepared = true;
}

void Workspace::release() {
    impl_->drop_graph();
    impl_->x = DeviceMemory();
    impl_->y = DeviceMemory();
    impl_->prepared = false;
}

uint64_t Workspace::bytes() const { return impl_->x.bytes() + impl_->y.bytes(); }

void Workspace::fill_inputs(cudaStream_t s) const {
    by_dtype<FillFn>(impl_->p.dtype, impl_->x.get(), impl_->p.elements, impl_->p.seed, s);
}

void Workspace::poison_output(cudaStream_t s) const {
    check(cudaMemsetAsync(impl_->y.get(), 0xFF, impl_->y.bytes(), s), "poisoning y");
}

void Workspace::launch_step(int64_t k, cudaStream_t s) const {
    const Impl& w = *impl_;
    const void* in = k == 0 ? w.x.get() : w.y.get();  // step 1 reads x, later steps read y
    by_dtype<StepFn>(w.p.dtype, in, w.y.get(), w.p.elements, s);
}

void Workspace::build_graph(cudaStream_t s) {
    Impl& w = *impl_;
    if (w.graph) return;
    // Capture mode "thread local": launches from other threads (none here) would not be captured.
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
        for (int64_t k = 0; k < w.p.steps; ++k) launch_step(k, s);
    } catch (...) {
        (void)cudaStreamEndCapture(s, &graph);
        if (graph) (void)cudaGraphDestroy(graph);
        throw;
    }
    check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
    const cudaError_t e = cudaGraphInstantiate(&w.graph, graph, 0);
    (void)cudaGraphDestroy(graph);  // the executable graph keeps what it needs
    check(e, "cudaGraphInstantiate");
    check(cudaGraphUpload(w.graph, s), "cudaGraphUpload");
    w.graph_params = w.p;
}

void Workspace::run(const std::string& variant, cudaStream_t s) {
    Impl& w = *impl_;
    if (variant == "stream") {
        for (int64_t k = 0; k < w.p.steps; ++k) launch_step(k, s);
    } else if (variant == "graph") {
        build_graph(s);
        check(cudaGraphLaunch(w.graph, s), "cudaGraphLaunch");
    } else if (variant == "fused") {
        by_dtype<FusedFn>(w.p.dtype, w.x.get(), w.y.get(), w.p.elements, w.p.steps, s);
    } else {
        throw std::invalid_argument("launch has no variant '" + variant + "'");
    }
}

Check Workspace::check_output(const std::string& variant, unsigned long long* counter, cudaStream_t s) const {
    const Impl& w = *impl_;
    const LaunchParams& p = w.p;
    Check r;
    check(cudaMemsetAsync(counter, 0, sizeof(unsigned long long), s), "cudaMemsetAsync");
    kernels::gpu::count_nonfinite(p.dtype, w.y.get(), p.elements, counter, s);
    unsigned long long nonfinite = 0;
    check(cudaMemcpyAsync(&nonfinite, counter, sizeof nonfinite, cudaMemcpyDeviceToHost, s), "cudaMemcpy");

    const std::vector<int64_t> idx = elements_to_check(p);
    const int64_t count = static_cast<int64_t>(idx.size());
    DeviceMemory idx_dev(idx.size() * sizeof(int64_t), "checked indices");
    DeviceMemory got_dev(idx.size() * sizeof(float), "checked values");
    check(cudaMemcpyAsync(idx_dev.get(), idx.data(), idx_dev.bytes(), cudaMemcpyHostToDevice, s), "cudaMemcpy");
    by_dtype<GatherFn>(p.dtype, static_cast<const void*>(w.y.get()), static_cast<const int64_t*>(idx_dev.get()), count,
                       static_cast<float*>(got_dev.get()), s);
    std::vector<float> got(idx.size());
    check(cudaMemcpyAsync(got.data(), got_dev.get(), got_dev.bytes(), cudaMemcpyDeviceToHost, s), "cudaMemcpy");
    check(cudaStreamSynchronize(s), "launch check");
    r.nonfinite = static_cast<int64_t>(nonfinite);

    double err2 = 0, ref2 = 0;
    for (size_t j = 0; j < idx.size(); ++j) {
        const double want = reference_value(variant, p, idx[j]);
        const double e = static_cast<double>(got[j]) - want;
        if (!std::isfinite(e)) {
            r.max_abs = err2 = INFINITY;
            continue;
        }
        r.max_abs = std::max(r.max_abs, std::fabs(e));
        err2 += e * e;
        ref2 += want * want;
    }
    r.rel_l2 = ref2 > 0 ? std::sqrt(err2 / ref2) : (err2 > 0 ? INFINITY : 0.0);
    r.elements = count;
    r.note = (count == p.elements ? "all " + std::to_string(count) + " elements of y"
                                  : std::to_string(count) + " of " + std::to_string(p.elements) +
                                        " elements of y (evenly spaced, the last included)") +
             " vs the float64 CPU reference (" + (variant == "fused" ? "rounded once" : "rounded after every step") +
             "); all of y scanned for unwritten (poisoned) or non-finite elements";
    return r;
}

}  // namespace kernels::launch::gpu

// =============================================================================================
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
// =============================================================================================
namespace kernels::launch::gpu {
namespace {

// K dependent steps: timed as whole runs from an idle GPU (events between the launches would add
// their own cost to each gap) and never L2-flushed (x and y stay in L2 between steps, as in a
// real loop). The range profiler cannot profile a graph replay (on an H200, CUDA 13.0,
// cuptiRangeProfilerStop failed with CUPTI_ERROR_UNKNOWN and the counters stayed off for the
// session): the graph runs exactly the stream's K kernels on the same buffers, so those are counted.
class LaunchGpu final : public GpuWorkload {
public:
    uint64_t bytes_per_set(const std::string&, const Params& params) const override {
        const LaunchParams p = to_launch(params);
        return 2 * static_cast<uint64_t>(p.elements) * static_cast<uint64_t>(dtype_bytes(p.dtype));
    }
    std::string buffers_named(const std::string&, const Params&) const override { return "x and y"; }
    L2Handling l2_handling() const override { return L2Handling::keep; }
    TimingStyle timing_style() const override { return TimingStyle::whole_run_idle; }

    void prepare(const std::string& variant, const Params& params, int, cudaStream_t s) override {
        variant_ = variant;
        p_ = to_launch(params);
        ws_.prepare(p_);
        if (variant_ == "graph") ws_.build_graph(s);  // capture + instantiate, never timed
    }
    void release() override { ws_.release(); }
    uint64_t bytes_held() const override { return ws_.bytes(); }
    void fill_inputs(cudaStream_t s) override { ws_.fill_inputs(s); }
    void poison_outputs(cudaStream_t s) override { ws_.poison_output(s); }

    size_t kernel_count() const override { return static_cast<size_t>(launch::kernel_count(variant_, p_)); }
    // Step k alone (the events fallback of the timeline); fused is its one kernel.
    void launch_kernel(size_t k, int, cudaStream_t s) override {
        if (variant_ == "fused") ws_.run("fused", s);
        else ws_.launch_step(static_cast<int64_t>(k), s);
    }
    void launch_run(cudaStream_t s) override { ws_.run(variant_, s); }
    void launch_counted_run(cudaStream_t s) override { ws_.run(variant_ == "graph" ? "stream" : variant_, s); }
    std::string counted_run_note() const override {
        return variant_ == "graph" ? "counted on the same K kernels launched one by one (the range profiler cannot "
                                     "profile a graph replay)"
                                   : "";
    }
    bool kernels_separable() const override { return variant_ != "graph"; }
    std::string launches_text() const override {
        if (variant_ == "stream") return std::to_string(p_.steps) + " cudaLaunchKernel calls";
        if (variant_ == "graph")
            return "one cudaGraphLaunch of " + std::to_string(p_.steps) + " kernel nodes, captured and instantiated "
                                                                         "beforehand";
        return "one launch";
    }

    void gather_output(cudaStream_t s, unsigned long long* counter) override {
        check_ = ws_.check_output(variant_, counter, s);
    }
    GpuCheck finish_check() override {
        return GpuCheck{check_.nonfinite, p_.elements, check_.max_abs, check_.rel_l2, check_.elements, check_.note};
    }

private:
    Workspace ws_;
    std::string variant_;
    LaunchParams p_;
    Check check_;
};

}  // namespace

std::unique_ptr<GpuWorkload> make_gpu_workload() { return std::make_unique<LaunchGpu>(); }

}  // namespace kernels::launch::gpu
