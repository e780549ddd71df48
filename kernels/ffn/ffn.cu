// The feed-forward block on the GPU: out = GELU(x·W1 + b1)·W2 + b2 (kernels/ffn/ffn.h).
//
// Versions, and why each exists:
//   unfused            cuBLAS GEMM (cublasGemmEx, fp32 accumulation) x·W1 -> h1; the elementwise
//                      workloads' bias_add kernel h1 + b1 -> h2 and gelu kernel h2 -> act; cuBLAS GEMM
//                      act·W2 -> y; bias_add y + b2 -> out. What eager mode runs: every intermediate
//                      is stored by one kernel and loaded by the next.
//   fused_elementwise  the same GEMMs; bias + GELU is the bias_gelu workload's fused kernel (one
//                      read of h1, one write of act).
//   epilogue           cuBLASLt (cublasLtMatmul) with CUBLASLT_EPILOGUE_GELU_BIAS for GEMM 1 and
//                      CUBLASLT_EPILOGUE_BIAS for GEMM 2: the bias and GELU are applied to the
//                      accumulator tile in registers, then the tile is stored once. The two GEMMs
//                      (LtGemm, LtPair) and cuBLAS's error and type helpers are in kernels/ffn/ffn_lt.h.
//   epilogue_graph     the epilogue's two cublasLtMatmul calls captured once per buffer set into a
//                      CUDA graph (instantiated and uploaded outside any timing), one cudaGraphLaunch
//                      per run.
// At small M the libraries may split K: a GEMM is then two kernels on the GPU, the MMA writing
// partial sums to the workspace and a reduction kernel that sums them and applies the epilogue (H100,
// CUDA 13.0: the second GEMM at M <= 256). The timeline shows them; the model's schedule shows the
// GEMM as the one library call it is.
// Row-major matrices through column-major cuBLAS: C (rows x N) = A (rows x K) · B (K x N) row-major
// is Cᵀ = Bᵀ Aᵀ column-major, so every call passes B first (m = N, n = rows, k = K) and the bias
// runs along the column-major rows (N of them), which is what the epilogues broadcast.
//
// Timing: each rep starts on an idle GPU and is bracketed by one event before its first launch and
// one after its last (TimingStyle::whole_run_idle), the same for all four variants, so the host's
// launch work is inside the time as it is in a decode step. Reps rotate through the harness's buffer
// sets, or, when those would need more than 8, the harness flushes L2 before each rep (outside its
// events): either way a rep never finds its weights in L2, as a model's next layer would not.
//
// [SECTION] Buffer sets
// [SECTION] unfused: cuBLAS GEMM, bias, GELU, cuBLAS GEMM, bias
// [SECTION] fused_elementwise: cuBLAS GEMM, fused bias+GELU, cuBLAS GEMM, bias
// [SECTION] Inputs
// [SECTION] The GPU workload (with epilogue_graph's capture and replay: build_graphs, launch_run)
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/cuda/gpu_dtype.cuh"
#include "kernels/cuda/gpu_memory.cuh"
#include "kernels/gpu/gpu_workload.h"
#include "kernels/core/philox.h"
#include "kernels/elementwise/elementwise_gpu.cuh"
#include "kernels/ffn/ffn.h"
#include "kernels/ffn/ffn_lt.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

namespace kernels::ffn::gpu {

using kernels::gpu::check;
using kernels::gpu::check_launch;
using kernels::gpu::DeviceMemory;

namespace {

// =============================================================================================
// [SECTION] Buffer sets
// =============================================================================================
constexpr size_t kAlignBytes = 256;  // every buffer of a set starts here

// One buffer set: pointers into the workload's arena; nullptr where the variant has no such buffer.
struct Set {
    void* x = nullptr;
    void* W1 = nullptr;
    void* b1 = nullptr;
    void* W2 = nullptr;
    void* b2 = nullptr;
    void* h1 = nullptr;
    void* h2 = nullptr;
    void* act = nullptr;
    void* y = nullptr;
    void* out = nullptr;
    void*& slot(const std::string& name) {
        if (name == "x") return x;
        if (name == "W1") return W1;
        if (name == "b1") return b1;
        if (name == "W2") return W2;
        if (name == "b2") return b2;
        if (name == "h1") return h1;
        if (name == "h2") return h2;
        if (name == "act") return act;
        if (name == "y") return y;
        return out;
    }
};

size_t aligned(size_t bytes) { return (bytes + kAlignBytes - 1) / kAlignBytes * kAlignBytes; }

// =============================================================================================
// [SECTION] unfused: cuBLAS GEMM, bias, GELU, cuBLAS GEMM, bias
// =============================================================================================
// C (rows x N) = A (rows x K) · B (K x N), row-major, fp32 accumulation (fp16/bf16: tensor cores;
// fp32: true fp32, the handle's default math mode never uses TF32).
void cublas_gemm(cublasHandle_t h, DType t, const void* A, const void* B, void* C, int64_t rows, int64_t K, int64_t N,
                 cudaStream_t s) {
    check_cublas(cublasSetStream(h, s), "cublasSetStream");
    const float alpha = 1.0f, beta = 0.0f;
    const cudaDataType_t ct = cuda_type(t);
    // cuBLAS loads A and B tiles from HBM/L2 into shared memory, accumulates in registers, stores C to HBM.
    check_cublas(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(N), static_cast<int>(rows),
                              static_cast<int>(K), &alpha, B, ct, static_cast<int>(N), A, ct, static_cast<int>(K), &beta, C,
                              ct, static_cast<int>(N), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
}

elementwise::ElementwiseParams flat_params(const FfnParams& p, int64_t hidden) {
    elementwise::ElementwiseParams e;
    e.chain = false;
    e.dtype = p.dtype;
    e.rows = p.M;
    e.hidden = hidden;
    e.seed = p.seed;
    return e;
}

// bias_add of the elementwise workloads: load in tile + bias from HBM into registers, store out tile to HBM.
void bias_kernel(const FfnParams& p, void* in, void* bias, void* out, int64_t hidden, cudaStream_t s) {
    kernels::gpu::ElementwiseBuffers b;
    b.x = in;
    b.bias = bias;
    b.h1 = out;
    kernels::gpu::launch_kernel("bias_add", flat_params(p, hidden), b, s);
}

// gelu of the elementwise workloads: load h2 tile from HBM into registers, store act tile to HBM.
void gelu_kernel(const FfnParams& p, void* in, void* out, cudaStream_t s) {
    kernels::gpu::ElementwiseBuffers b;
    b.h1 = in;
    b.out = out;
    kernels::gpu::launch_kernel("gelu", flat_params(p, p.d_ff), b, s);
}

// =============================================================================================
// [SECTION] fused_elementwise: cuBLAS GEMM, fused bias+GELU, cuBLAS GEMM, bias
// =============================================================================================
// fused_bias_gelu of the elementwise workloads: load h1 tile + b1 from HBM into registers, add and
// GELU in registers, store act tile to HBM (h2 never exists).
void bias_gelu_kernel(const FfnParams& p, void* in, void* bias, void* out, cudaStream_t s) {
    kernels::gpu::ElementwiseBuffers b;
    b.x = in;
    b.bias = bias;
    b.out = out;
    kernels::gpu::launch_kernel("fused_bias_gelu", flat_params(p, p.d_ff), b, s);
}

// =============================================================================================
// [SECTION] Inputs
// =============================================================================================
// Same expression as ffn::x_value() and friends on the host: input_value() x scale in fp32, rounded to T.
void fill(DType t, void* dst, int64_t n, uint64_t seed, uint32_t id, float scale, cudaStream_t s) {
    kernels::gpu::fill_input(t, dst, n, seed, id, s, kernels::gpu::InputScale{scale, 0.0f});
}

}  // namespace

// =============================================================================================
// [SECTION] The GPU workload (with epilogue_graph's capture and replay: build_graphs, launch_run)
// =============================================================================================
namespace {

class FfnGpu final : public GpuWorkload {
public:
    FfnGpu() = default;
    ~FfnGpu() override {
        drop_graphs();
        if (lt_) (void)cublasLtDestroy(lt_);
        if (blas_) (void)cublasDestroy(blas_);
    }

    uint64_t bytes_per_set(const std::string& variant, const Params& params) const override {
        return buffer_set_bytes(variant, to_ffn(params));
    }
    std::string buffers_named(const std::string& variant, const Params&) const override {
        std::string names;
        for (const std::string& b : buffers(variant)) names += (names.empty() ? "" : ", ") + b;
        return names + " (+ 32 MiB cuBLASLt workspace)";
    }
    L2Handling l2_handling() const override { return L2Handling::rotate_or_flush; }
    TimingStyle timing_style() const override { return TimingStyle::whole_run_idle; }

    void prepare(const std::string& variant_name, const Params& params, int sets, cudaStream_t s) override {
        const Variant variant = variant_of(variant_name);
        const FfnParams p = to_ffn(params);
        // The harness's L2 decision: up to 8 rotated sets when they span 3x the L2, else one set
        // and an L2 flush before each rep (outside its events), so no rep finds its weights in L2.
        uint64_t set_bytes = 0;
        for (const std::string& b : buffers(variant_name)) set_bytes += aligned(buffer_elements(p, b) * dtype_bytes(p.dtype));
        const int n = std::max(sets, 1);
        const bool same = arena_.get() && p == p_ && variant == variant_ && n == static_cast<int>(sets_.size());
        if (!same) {
            drop_graphs();
            sets_.clear();
            arena_ = DeviceMemory();
            arena_ = DeviceMemory(set_bytes * static_cast<uint64_t>(n), "ffn buffer sets");
            // Written once: epilogue_graph's warm run before its capture (build_graphs) reads set 0
            // before the inputs are uploaded; compute-sanitizer's initcheck reported those reads
            // inside cuBLASLt's gelubias GEMMs (docs/RELIABILITY.md, 2026-11-28).
            check(cudaMemsetAsync(arena_.get(), 0, set_bytes * static_cast<uint64_t>(n), s), "clearing the ffn buffer sets");
            char* base = static_cast<char*>(arena_.get());
            for (int i = 0; i < n; ++i) {
                Set set;
                char* at = base + set_bytes * static_cast<uint64_t>(i);
                for (const std::string& b : buffers(variant_name)) {
                    set.slot(b) = at;
                    at += aligned(buffer_elements(p, b) * dtype_bytes(p.dtype));
                }
                sets_.push_back(set);
            }
            if (!workspace_.get()) workspace_ = DeviceMemory(kLtWorkspaceBytes, "cuBLASLt workspace");
        }
        if (!blas_) {
            check_cublas(cublasCreate(&blas_), "cublasCreate");
            check_cublas(cublasSetMathMode(blas_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
        }
        if (!lt_) check_cublas(cublasLtCreate(&lt_), "cublasLtCreate");
        variant_ = variant;
        p_ = p;
        next_ = 0;
        last_ = 0;
        if (is_epilogue() && !(lt_params_ == p && lt_pair_)) {
            drop_graphs();
            lt_pair_ = std::make_unique<LtPair>(lt_, p, true);
            lt_params_ = p;
        }
        if (variant_ == Variant::epilogue_graph && graphs_.empty()) build_graphs(s);  // never timed
    }

    void release() override {
        drop_graphs();
        sets_.clear();
        arena_ = DeviceMemory();
        workspace_ = DeviceMemory();
        lt_pair_.reset();
        host_weights_ = Weights{};
        have_weights_ = false;
    }
    uint64_t bytes_held() const override { return arena_.bytes() + workspace_.bytes(); }

    void fill_inputs(cudaStream_t s) override {
        const FfnParams& p = p_;
        for (Set& set : sets_) {
            fill(p.dtype, set.x, p.M * p.d_model, p.seed, kX, 1.0f, s);
            fill(p.dtype, set.W1, p.d_model * p.d_ff, p.seed, kW1, w1_scale(p), s);
            fill(p.dtype, set.b1, p.d_ff, p.seed, kB1, 0.25f, s);
            fill(p.dtype, set.W2, p.d_ff * p.d_model, p.seed, kW2, w2_scale(p), s);
            fill(p.dtype, set.b2, p.d_model, p.seed, kB2, 0.25f, s);
        }
    }
    // Every buffer a kernel writes, so a kernel that did not run leaves NaN all the way to out.
    void poison_outputs(cudaStream_t s) override {
        for (Set& set : sets_)
            for (const std::string& b : buffers(name_of(variant_))) {
                if (b == "x" || b == "W1" || b == "b1" || b == "W2" || b == "b2") continue;
                check(cudaMemsetAsync(set.slot(b), 0xFF, buffer_elements(p_, b) * dtype_bytes(p_.dtype), s),
                      "poisoning " + b);
            }
    }

    size_t kernel_count() const override {
        return variant_ == Variant::unfused ? 5 : variant_ == Variant::fused_elementwise ? 4 : 2;
    }
    void launch_kernel(size_t k, int set_index, cudaStream_t s) override {
        Set& b = sets_[static_cast<size_t>(set_index) % sets_.size()];
        const FfnParams& p = p_;
        if (variant_ == Variant::unfused) {
            switch (k) {
            case 0: cublas_gemm(blas_, p.dtype, b.x, b.W1, b.h1, p.M, p.d_model, p.d_ff, s); return;  // h1 = x·W1
            case 1: bias_kernel(p, b.h1, b.b1, b.h2, p.d_ff, s); return;                            // h2 = h1 + b1
            case 2: gelu_kernel(p, b.h2, b.act, s); return;                                          // act = GELU(h2)
            case 3: cublas_gemm(blas_, p.dtype, b.act, b.W2, b.y, p.M, p.d_ff, p.d_model, s); return;  // y = act·W2
            default: bias_kernel(p, b.y, b.b2, b.out, p.d_model, s); return;                        // out = y + b2
            }
        }
        if (variant_ == Variant::fused_elementwise) {
            switch (k) {
            case 0: cublas_gemm(blas_, p.dtype, b.x, b.W1, b.h1, p.M, p.d_model, p.d_ff, s); return;
            case 1: bias_gelu_kernel(p, b.h1, b.b1, b.act, s); return;  // act = GELU(h1 + b1)
            case 2: cublas_gemm(blas_, p.dtype, b.act, b.W2, b.y, p.M, p.d_ff, p.d_model, s); return;
            default: bias_kernel(p, b.y, b.b2, b.out, p.d_model, s); return;
            }
        }
        // epilogue (and epilogue_graph's kernels one by one, for the timeline's event fallback)
        if (k == 0) lt_pair_->gemm1->run(b.x, b.W1, b.act, b.b1, workspace_.get(), s);  // act = GELU(x·W1 + b1)
        else lt_pair_->gemm2->run(b.act, b.W2, b.out, b.b2, workspace_.get(), s);       // out = act·W2 + b2
    }
    // One run on the next buffer set of the rotation.
    void launch_run(cudaStream_t s) override {
        last_ = next_;
        next_ = (next_ + 1) % sets_.size();
        if (variant_ == Variant::epilogue_graph) {
            check(cudaGraphLaunch(graphs_[last_], s), "cudaGraphLaunch");
            return;
        }
        for (size_t k = 0; k < kernel_count(); ++k) launch_kernel(k, static_cast<int>(last_), s);
    }
    // The range profiler cannot profile a graph replay (PERF.md, Launch overhead: on an H200 it
    // failed and left the counters off for the session): the graph runs exactly the epilogue's two
    // kernels on the same buffers, so those are counted, launched one by one.
    void launch_counted_run(cudaStream_t s) override {
        if (variant_ != Variant::epilogue_graph) return launch_run(s);
        last_ = next_;
        next_ = (next_ + 1) % sets_.size();
        launch_kernel(0, static_cast<int>(last_), s);
        launch_kernel(1, static_cast<int>(last_), s);
    }
    std::string counted_run_note() const override {
        return variant_ == Variant::epilogue_graph ? "counted on the same 2 kernels launched one by one (the range profiler "
                                              "cannot profile a graph replay)"
                                            : "";
    }
    bool kernels_separable() const override { return variant_ != Variant::epilogue_graph; }
    std::string launches_text() const override {
        std::string text = variant_ == Variant::epilogue_graph
                               ? "one cudaGraphLaunch of 2 kernel nodes, captured and instantiated beforehand"
                               : std::to_string(kernel_count()) + " launches: " +
                                     (variant_ == Variant::epilogue ? std::string("2 cublasLtMatmul calls")
                                                             : std::string("2 cublasGemmEx calls and ") +
                                                                   std::to_string(kernel_count() - 2) +
                                                                   " elementwise kernels");
        return text;
    }

    void begin_check(const CheckBudget& budget) override { budget_ = budget; }
    void gather_output(cudaStream_t s, unsigned long long* counter) override {
        const FfnParams& p = p_;
        const Set& b = sets_[last_];
        check_ = GpuCheck{};
        check_.output_elements = p.M * p.d_model;
        check_.nonfinite = kernels::gpu::scan_nonfinite(p.dtype, b.out, check_.output_elements, counter, s);
        rows_ = rows_to_check(p, budget_.max_mults);
        const size_t es = static_cast<size_t>(dtype_bytes(p.dtype));
        const size_t row_bytes = static_cast<size_t>(p.d_model) * es;
        std::vector<unsigned char> bits(rows_.size() * row_bytes);
        for (size_t i = 0; i < rows_.size(); ++i)
            check(cudaMemcpyAsync(bits.data() + i * row_bytes, static_cast<const char*>(b.out) + rows_[i] * row_bytes,
                                  row_bytes, cudaMemcpyDeviceToHost, s),
                  "copying out rows");
        // The weights the reference multiplies by: the device's own (checked against input_value()
        // on a sample in finish_check), copied once per parameter set.
        const bool have = have_weights_ && weights_params_.d_model == p.d_model && weights_params_.d_ff == p.d_ff &&
                          weights_params_.dtype == p.dtype && weights_params_.seed == p.seed;
        if (!have) {
            host_weights_ = Weights{};
            host_weights_.dtype = p.dtype;
            host_weights_.d_model = p.d_model;
            host_weights_.d_ff = p.d_ff;
            const size_t n = static_cast<size_t>(p.d_model * p.d_ff);
            if (p.dtype == DType::f32) {
                host_weights_.w1_32.resize(n);
                host_weights_.w2_32.resize(n);
                check(cudaMemcpyAsync(host_weights_.w1_32.data(), b.W1, n * 4, cudaMemcpyDeviceToHost, s), "copying W1");
                check(cudaMemcpyAsync(host_weights_.w2_32.data(), b.W2, n * 4, cudaMemcpyDeviceToHost, s), "copying W2");
            } else {
                host_weights_.w1_16.resize(n);
                host_weights_.w2_16.resize(n);
                check(cudaMemcpyAsync(host_weights_.w1_16.data(), b.W1, n * 2, cudaMemcpyDeviceToHost, s), "copying W1");
                check(cudaMemcpyAsync(host_weights_.w2_16.data(), b.W2, n * 2, cudaMemcpyDeviceToHost, s), "copying W2");
            }
        }
        check(cudaStreamSynchronize(s), "ffn check copies");
        if (!have) {
            weights_params_ = p;
            have_weights_ = true;
        }
        got_.resize(rows_.size() * static_cast<size_t>(p.d_model));
        kernels::gpu::to_float(p.dtype, bits.data(), got_.data(), got_.size());
    }

    GpuCheck finish_check() override {
        const FfnParams& p = p_;
        verify_weights();
        std::vector<double> want;
        reference_rows(name_of(variant_), p, host_weights_, rows_, want);
        kernels::ErrorSum e;
        e.add(got_.data(), want.data(), got_.size());
        check_.max_abs = e.max_abs;
        check_.rel_l2 = e.rel_l2();
        check_.elements = static_cast<int64_t>(got_.size());
        check_.note = std::to_string(rows_.size()) + " of " + std::to_string(p.M) +
                      " rows of out (first, last and evenly spaced; 2 d_model d_ff multiply-adds each) vs the float64 "
                      "CPU reference with this variant's roundings" +
                      (is_epilogue() ? " and cuBLASLt's tanh-form GELU" : "") +
                      "; all of out scanned for unwritten (poisoned) or non-finite elements";
        return check_;
    }

private:
    bool is_epilogue() const { return ffn::is_epilogue(variant_); }

    void drop_graphs() {
        for (cudaGraphExec_t g : graphs_) (void)cudaGraphExecDestroy(g);
        graphs_.clear();
    }

    // One graph per buffer set: the two cublasLtMatmul calls captured on `s`. One eager run first,
    // so that any lazy set-up of cuBLASLt's kernels happens outside the capture.
    void build_graphs(cudaStream_t s) {
        launch_kernel(0, 0, s);
        launch_kernel(1, 0, s);
        check(cudaStreamSynchronize(s), "ffn warm run before the graph capture");
        for (size_t i = 0; i < sets_.size(); ++i) {
            check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
            cudaGraph_t graph = nullptr;
            try {
                launch_kernel(0, static_cast<int>(i), s);
                launch_kernel(1, static_cast<int>(i), s);
            } catch (...) {
                (void)cudaStreamEndCapture(s, &graph);
                if (graph) (void)cudaGraphDestroy(graph);
                throw;
            }
            check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
            cudaGraphExec_t exec = nullptr;
            const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
            (void)cudaGraphDestroy(graph);  // the executable graph keeps what it needs
            check(e, "cudaGraphInstantiate");
            graphs_.push_back(exec);
            check(cudaGraphUpload(exec, s), "cudaGraphUpload");
        }
    }

    // The device's weights are what input_value() gives: a sample of each, the last element included.
    void verify_weights() const {
        const FfnParams& p = p_;
        const int64_t n = p.d_model * p.d_ff;
        const int64_t step = std::max<int64_t>(1, n / 4096) | 1;
        for (int64_t i = 0; i < n; i += step) {
            const int64_t k = i / p.d_ff, j = i % p.d_ff;  // W1 is d_model x d_ff
            if (host_weights_.w1(k, j) != w1_value(p, k, j))
                throw std::runtime_error("the device's W1 differs from its definition at (" + std::to_string(k) + ", " +
                                         std::to_string(j) + ")");
            const int64_t r = i / p.d_model, c = i % p.d_model;  // W2 is d_ff x d_model
            if (host_weights_.w2(r, c) != w2_value(p, r, c))
                throw std::runtime_error("the device's W2 differs from its definition at (" + std::to_string(r) + ", " +
                                         std::to_string(c) + ")");
        }
        if (host_weights_.w1(p.d_model - 1, p.d_ff - 1) != w1_value(p, p.d_model - 1, p.d_ff - 1) ||
            host_weights_.w2(p.d_ff - 1, p.d_model - 1) != w2_value(p, p.d_ff - 1, p.d_model - 1))
            throw std::runtime_error("the device's weights differ from their definition at the last element");
    }

    cublasHandle_t blas_ = nullptr;
    cublasLtHandle_t lt_ = nullptr;
    DeviceMemory arena_, workspace_;
    std::vector<Set> sets_;
    size_t next_ = 0, last_ = 0;
    Variant variant_ = Variant::unfused;
    FfnParams p_;
    std::unique_ptr<LtPair> lt_pair_;
    FfnParams lt_params_;
    std::vector<cudaGraphExec_t> graphs_;
    CheckBudget budget_;
    GpuCheck check_;
    std::vector<int64_t> rows_;
    std::vector<float> got_;
    Weights host_weights_;
    FfnParams weights_params_;
    bool have_weights_ = false;
};

}  // namespace

std::unique_ptr<GpuWorkload> make_gpu_workload() { return std::make_unique<FfnGpu>(); }

}  // namespace kernels::ffn::gpu
