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
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/cuda/gpu_dtype.cuh"
#include "kernels/cuda/gpu_memory.cuh"
#include "kernels/gpu/gpu_workload.h"
#include "kernels/core/philox.h"
#include "kernels/launch/launch.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
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
template <typename T> struct GatherFn { template <typename... A> void operator()(A... a) { launch_gather_typed<T>(a...); } };

// =============================================================================================
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
// =============================================================================================
// K dependent steps on x and y: timed as whole runs from an idle GPU (events between the launches
// would add their own cost to each gap) and never L2-flushed (x and y stay in L2 between steps, as
// in a real loop). The graph variant's graph is captured and instantiated when the job is prepared,
// never timed. The range profiler cannot profile a graph replay (on an H200, CUDA 13.0,
// cuptiRangeProfilerStop failed with CUPTI_ERROR_UNKNOWN and the counters stayed off for the
// session): the graph runs exactly the stream's K kernels on the same buffers, so those are counted.
class LaunchGpu final : public GpuWorkload {
public:
    ~LaunchGpu() override { drop_graph(); }

    uint64_t bytes_per_set(const std::string&, const Params& params) const override {
        const LaunchParams p = to_launch(params);
        return 2 * static_cast<uint64_t>(p.elements) * static_cast<uint64_t>(dtype_bytes(p.dtype));
    }
    std::string buffers_named(const std::string&, const Params&) const override { return "x and y"; }
    L2Handling l2_handling() const override { return L2Handling::keep; }
    TimingStyle timing_style() const override { return TimingStyle::whole_run_idle; }

    // x and y are kept while elements and dtype stay the same; a cached graph built for other
    // parameters (or the old buffers) is dropped.
    void prepare(const std::string& variant, const Params& params, int, cudaStream_t s) override {
        const Variant v = variant_of(variant);
        const LaunchParams p = to_launch(params);
        const uint64_t bytes = static_cast<uint64_t>(p.elements) * static_cast<uint64_t>(dtype_bytes(p.dtype));
        if (!prepared_ || x_.bytes() != bytes) {
            drop_graph();  // it points at the old buffers
            x_ = DeviceMemory();
            y_ = DeviceMemory();
            x_ = DeviceMemory(bytes, "x");
            y_ = DeviceMemory(bytes, "y");
        }
        if (graph_ && !(graph_params_ == p)) drop_graph();
        variant_ = v;
        p_ = p;
        prepared_ = true;
        if (variant_ == Variant::graph) build_graph(s);  // capture + instantiate, never timed
    }
    void release() override {
        drop_graph();
        x_ = DeviceMemory();
        y_ = DeviceMemory();
        prepared_ = false;
    }
    uint64_t bytes_held() const override { return x_.bytes() + y_.bytes(); }
    // x = input_value(seed, kX, i) in the dtype; y = 0xFF bytes (NaN in every dtype).
    void fill_inputs(cudaStream_t s) override { kernels::gpu::fill_input(p_.dtype, x_.get(), p_.elements, p_.seed, kX, s); }
    void poison_outputs(cudaStream_t s) override {
        check(cudaMemsetAsync(y_.get(), 0xFF, y_.bytes(), s), "poisoning y");
    }

    size_t kernel_count() const override { return static_cast<size_t>(launch::kernel_count(variant_, p_)); }
    // Step k alone (the events fallback of the timeline); fused is its one kernel.
    void launch_kernel(size_t k, int, cudaStream_t s) override {
        if (variant_ == Variant::fused) run(Variant::fused, s);
        else launch_step(static_cast<int64_t>(k), s);
    }
    void launch_run(cudaStream_t s) override { run(variant_, s); }
    void launch_counted_run(cudaStream_t s) override { run(variant_ == Variant::graph ? Variant::stream : variant_, s); }
    std::string counted_run_note() const override {
        return variant_ == Variant::graph ? "counted on the same K kernels launched one by one (the range profiler cannot "
                                     "profile a graph replay)"
                                   : "";
    }
    bool kernels_separable() const override { return variant_ != Variant::graph; }
    std::string launches_text() const override {
        if (variant_ == Variant::stream) return std::to_string(p_.steps) + " cudaLaunchKernel calls";
        if (variant_ == Variant::graph)
            return "one cudaGraphLaunch of " + std::to_string(p_.steps) + " kernel nodes, captured and instantiated "
                                                                         "beforehand";
        return "one launch";
    }

    // The non-finite count of all of y and the sampled elements (elements_to_check), copied right
    // after the checked run.
    void gather_output(cudaStream_t s, unsigned long long* counter) override {
        nonfinite_ = kernels::gpu::scan_nonfinite(p_.dtype, y_.get(), p_.elements, counter, s);
        idx_ = elements_to_check(p_);
        const int64_t count = static_cast<int64_t>(idx_.size());
        DeviceMemory idx_dev(idx_.size() * sizeof(int64_t), "checked indices");
        DeviceMemory got_dev(idx_.size() * sizeof(float), "checked values");
        check(cudaMemcpyAsync(idx_dev.get(), idx_.data(), idx_dev.bytes(), cudaMemcpyHostToDevice, s), "cudaMemcpy");
        by_dtype<GatherFn>(p_.dtype, static_cast<const void*>(y_.get()), static_cast<const int64_t*>(idx_dev.get()),
                           count, static_cast<float*>(got_dev.get()), s);
        got_.resize(idx_.size());
        check(cudaMemcpyAsync(got_.data(), got_dev.get(), got_dev.bytes(), cudaMemcpyDeviceToHost, s), "cudaMemcpy");
        check(cudaStreamSynchronize(s), "launch check");
    }
    GpuCheck finish_check() override {
        std::vector<double> want(idx_.size());
        for (size_t j = 0; j < idx_.size(); ++j) want[j] = reference_value(variant_, p_, idx_[j]);
        ErrorSum errors;
        errors.add(got_.data(), want.data(), want.size());
        const int64_t count = static_cast<int64_t>(idx_.size());
        GpuCheck c;
        c.nonfinite = nonfinite_;
        c.output_elements = p_.elements;
        c.max_abs = errors.max_abs;
        c.rel_l2 = errors.rel_l2();
        c.elements = count;
        c.note = (count == p_.elements ? "all " + std::to_string(count) + " elements of y"
                                       : std::to_string(count) + " of " + std::to_string(p_.elements) +
                                             " elements of y (evenly spaced, the last included)") +
                 " vs the float64 CPU reference (" + (variant_ == Variant::fused ? "rounded once" : "rounded after every step") +
                 "); all of y scanned for unwritten (poisoned) or non-finite elements";
        return c;
    }

private:
    void drop_graph() {
        if (graph_) (void)cudaGraphExecDestroy(graph_);
        graph_ = nullptr;
    }

    // Step k (0-based) of the stream/graph variants: step 1 reads x, later steps read y.
    void launch_step(int64_t k, cudaStream_t s) const {
        const void* in = k == 0 ? x_.get() : y_.get();
        by_dtype<StepFn>(p_.dtype, in, y_.get(), p_.elements, s);
    }

    // Captures and instantiates the graph of the K launches for the current parameters (no-op when cached).
    void build_graph(cudaStream_t s) {
        if (graph_) return;
        // Capture mode "thread local": launches from other threads (none here) would not be captured.
        check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
        cudaGraph_t graph = nullptr;
        try {
            for (int64_t k = 0; k < p_.steps; ++k) launch_step(k, s);
        } catch (...) {
            (void)cudaStreamEndCapture(s, &graph);
            if (graph) (void)cudaGraphDestroy(graph);
            throw;
        }
        check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
        const cudaError_t e = cudaGraphInstantiate(&graph_, graph, 0);
        (void)cudaGraphDestroy(graph);  // the executable graph keeps what it needs
        check(e, "cudaGraphInstantiate");
        check(cudaGraphUpload(graph_, s), "cudaGraphUpload");
        graph_params_ = p_;
    }

    // One run of `variant`: stream = K launches of the step kernel, graph = one cudaGraphLaunch of
    // the K launches, fused = one launch.
    void run(Variant variant, cudaStream_t s) {
        switch (variant) {
        case Variant::stream:
            for (int64_t k = 0; k < p_.steps; ++k) launch_step(k, s);
            return;
        case Variant::graph:
            build_graph(s);
            check(cudaGraphLaunch(graph_, s), "cudaGraphLaunch");
            return;
        case Variant::fused: by_dtype<FusedFn>(p_.dtype, x_.get(), y_.get(), p_.elements, p_.steps, s); return;
        }
        throw std::invalid_argument(std::string("launch has no kernels for ") + name_of(variant));
    }

    Variant variant_ = Variant::stream;
    LaunchParams p_;
    bool prepared_ = false;
    DeviceMemory x_, y_;
    cudaGraphExec_t graph_ = nullptr;
    LaunchParams graph_params_;  // what graph_ was captured for
    int64_t nonfinite_ = 0;
    std::vector<int64_t> idx_;
    std::vector<float> got_;
};

}  // namespace

std::unique_ptr<GpuWorkload> make_gpu_workload() { return std::make_unique<LaunchGpu>(); }

}  // namespace kernels::launch::gpu
