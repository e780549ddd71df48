// Skip connection on the GPU: out = c_skip(t_b) x + c_out(t_b) attention(q, k, v).
//
// Versions (see skip.h for the variants and skip_model.cpp for their bytes):
//   two_pass   the attention kernel (flash_tc, the teaching flash or flash_wgmma) stores
//              attn_out; skip_kernel reads attn_out and x and writes out. attn_out makes a round
//              trip through HBM: 2 batch_heads N d es bytes more than fused.
//   fused      the attention kernel's epilogue (kernels/attention/attention_epilogue.cuh) loads the
//              x tile into SRAM and writes out from the Oi registers: attn_out never exists.
//   attention  the attention kernel alone storing attn_out: the baseline.
// skip_kernel is what a framework's eager mode runs after attention: one thread per 8 elements of
// out (16-byte loads for fp16/bf16) in [batch, N, heads d] order; attn_out is [batch, heads, N, d],
// so each thread finds its 8 elements' head and row there (8 divides d: the 8 stay in one head).
//
// [SECTION] Element helpers
// [SECTION] skip_kernel (two_pass's second kernel)
// [SECTION] Buffers and launches
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
#include "kernels/attention/attention_epilogue.cuh"
#include "kernels/cuda/gpu_check.cuh"
#include "kernels/cuda/gpu_dtype.cuh"
#include "kernels/gpu/gpu_workload.h"
#include "kernels/cuda/gpu_memory.cuh"
#include "kernels/core/philox.h"
#include "kernels/skip/skip.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernels::skip::gpu {

using attention::gpu::SkipCoefficients;
using attention::gpu::SkipEpilogue;
using kernels::gpu::check;
using kernels::gpu::check_launch;
using kernels::gpu::with_type;
using kernels::gpu::DeviceMemory;
using kernels::gpu::from_float;
using kernels::gpu::to_float;

namespace {

// =============================================================================================
// [SECTION] Element helpers
// =============================================================================================
template <typename T, int VEC> struct alignas(sizeof(T) * VEC) Vec {
    T v[VEC];
};

// =============================================================================================
// [SECTION] skip_kernel (two_pass's second kernel)
// =============================================================================================
// Thread i owns out elements [i VEC, i VEC + VEC) of [batch, N, heads d]. HBM: reads VEC elements
// of attn_out and of x, writes VEC of out: 3 batch_heads N d es bytes over the whole grid.
template <typename T, int VEC>
__global__ void __launch_bounds__(kSkipThreads) skip_kernel(const T* __restrict__ attn_out, const T* __restrict__ x,
                                                             T* __restrict__ out, int64_t total, int N, int d,
                                                             SkipEpilogue ep) {
    const int64_t e = (static_cast<int64_t>(blockIdx.x) * kSkipThreads + threadIdx.x) * VEC;
    if (e >= total) return;
    const int64_t C = static_cast<int64_t>(ep.heads) * d;
    const int64_t col = e % C, rest = e / C;
    const int n = static_cast<int>(rest % N), b = static_cast<int>(rest / N);
    const int h = static_cast<int>(col / d), c = static_cast<int>(col % d);
    const int bh = b * ep.heads + h;
    const int64_t o_at = (static_cast<int64_t>(bh) * N + n) * d + c;
    const Vec<T, VEC> xv = *reinterpret_cast<const Vec<T, VEC>*>(x + e);           // load x tile into registers
    const Vec<T, VEC> ov = *reinterpret_cast<const Vec<T, VEC>*>(attn_out + o_at);  // load attn_out tile into registers
    const SkipCoefficients k = attention::gpu::skip_coefficients(ep, bh);
    Vec<T, VEC> r;
#pragma unroll
    for (int i = 0; i < VEC; ++i)
        r.v[i] = from_float<T>(attention::gpu::skip_value(to_float(xv.v[i]), to_float(ov.v[i]), k));
    *reinterpret_cast<Vec<T, VEC>*>(out + e) = r;  // write out tile = c_skip*x + c_out*O to HBM
}

// =============================================================================================
// [SECTION] Buffers and launches
// =============================================================================================
struct Buffers {
    DeviceMemory q, k, v, attn_out, x, out;
};

SkipEpilogue epilogue_of(const SkipParams& p, const Buffers& b) {
    SkipEpilogue ep;
    ep.x = b.x.get();
    ep.out = b.out.get();
    ep.heads = static_cast<int>(heads_per_batch(p));
    ep.batch = static_cast<int>(p.batch);
    ep.t = static_cast<float>(p.t);
    ep.sigma_d = static_cast<float>(p.sigma_d);
    return ep;
}

void allocate(Variant variant, const SkipParams& p, Buffers& b) {
    const size_t tensor = static_cast<size_t>(tensor_bytes(p));
    b.q = DeviceMemory(tensor, "q");
    b.k = DeviceMemory(tensor, "k");
    b.v = DeviceMemory(tensor, "v");
    if (has_attn_out(variant)) b.attn_out = DeviceMemory(tensor, "attn_out");
    if (writes_out(variant)) {
        b.x = DeviceMemory(tensor, "x");
        b.out = DeviceMemory(tensor, "out");
    }
}

// q, k, v exactly as the attention workload fills them (attention::q_value() and friends), and x.
void fill_inputs(const SkipParams& p, const Buffers& b, cudaStream_t stream) {
    const int64_t n = p.attn.batch_heads * p.attn.N * p.attn.d;
    kernels::gpu::fill_input(p.attn.dtype, b.q.get(), n, p.attn.seed, attention::kQ, stream);
    kernels::gpu::fill_input(p.attn.dtype, b.k.get(), n, p.attn.seed, attention::kK, stream);
    kernels::gpu::fill_input(p.attn.dtype, b.v.get(), n, p.attn.seed, attention::kV, stream);
    kernels::gpu::fill_input(p.attn.dtype, b.x.get(), n, p.attn.seed, kX, stream);  // none for the variant attention
}

void poison_outputs(const SkipParams& p, const Buffers& b, cudaStream_t stream) {
    const size_t tensor = static_cast<size_t>(tensor_bytes(p));
    if (b.attn_out.get()) check(cudaMemsetAsync(b.attn_out.get(), 0xFF, tensor, stream), "poisoning attn_out");
    if (b.out.get()) check(cudaMemsetAsync(b.out.get(), 0xFF, tensor, stream), "poisoning out");
}

void launch_skip(const SkipParams& p, const Buffers& b, cudaStream_t stream) {
    const int64_t total = p.attn.batch_heads * p.attn.N * p.attn.d;
    const unsigned blocks = static_cast<unsigned>(skip_blocks(p));
    const SkipEpilogue ep = epilogue_of(p, b);
    with_type(p.attn.dtype, [&](auto zero) {
        using T = decltype(zero);
        const T* o = static_cast<const T*>(b.attn_out.get());
        const T* x = static_cast<const T*>(b.x.get());
        T* out = static_cast<T*>(b.out.get());
        const int N = static_cast<int>(p.attn.N), d = static_cast<int>(p.attn.d);
        if (skip_vector_width(p) == 8) skip_kernel<T, 8><<<blocks, kSkipThreads, 0, stream>>>(o, x, out, total, N, d, ep);
        else skip_kernel<T, 1><<<blocks, kSkipThreads, 0, stream>>>(o, x, out, total, N, d, ep);
    });
    check_launch("skip_kernel");
}

size_t kernel_count_of(Variant variant) { return is_two_pass(variant) ? 2 : 1; }

void launch_kernel_of(Variant variant, size_t k, const SkipParams& p, const Buffers& b, cudaStream_t stream) {
    if (k >= kernel_count_of(variant))
        throw std::invalid_argument(std::string(name_of(variant)) + " has no kernel " + std::to_string(k));
    if (k == 1) return launch_skip(p, b, stream);
    const SkipEpilogue ep = is_fused(variant) ? epilogue_of(p, b) : SkipEpilogue{};
    attention::gpu::launch_attention_kernel(base_kernel(variant), p.attn, b.q.get(), b.k.get(), b.v.get(),
                                            b.attn_out.get(), ep, stream);
}

const DeviceMemory& result_of(Variant variant, const Buffers& b) {
    return writes_out(variant) ? b.out : b.attn_out;
}

// Element index of row `row` of attention problem bh in the result: out in [batch, N, heads d]
// order, or attn_out in [batch_heads, N, d] order for the variant attention.
uint64_t result_index(Variant variant, const SkipParams& p, int64_t bh, int64_t row) {
    if (writes_out(variant)) return bnc_index(p, bh, row, 0);
    return (static_cast<uint64_t>(bh) * static_cast<uint64_t>(p.attn.N) + static_cast<uint64_t>(row)) *
           static_cast<uint64_t>(p.attn.d);
}

}  // namespace

}  // namespace kernels::skip::gpu

// =============================================================================================
// [SECTION] The GPU workload (kernels/gpu/gpu_workload.h)
// =============================================================================================
namespace kernels::skip::gpu {
namespace {

// q, k, v, x in; attn_out and/or out written. Sampled (problem, row) pairs of the result (out, or
// attn_out for the variant attention) against the float64 reference; the whole result scanned.
class SkipGpu final : public GpuWorkload {
public:
    uint64_t bytes_per_set(const std::string& variant, const Params& params) const override {
        return device_bytes(variant, to_skip(params));
    }
    std::string buffers_named(const std::string& variant, const Params&) const override {
        return "q, k, v" + std::string(has_attn_out(variant) ? ", attn_out" : "") + (writes_out(variant) ? ", x, out" : "");
    }
    // Keeps the buffers when the sizes and the set of buffers are unchanged (shapes within the same
    // bytes, t, sigma_d, tiles, seed); frees the old ones first otherwise.
    void prepare(const std::string& variant_name, const Params& params, int, cudaStream_t) override {
        const Variant variant = variant_of(variant_name);
        const SkipParams p = to_skip(params);
        const bool same = has_attn_out(variant_) == has_attn_out(variant) && writes_out(variant_) == writes_out(variant) &&
                          tensor_bytes(p_) == tensor_bytes(p) && p_.attn.dtype == p.attn.dtype;
        kernels::gpu::keep_or_allocate(buffers_, prepared_, same, [&](Buffers& b) { allocate(variant, p, b); });
        variant_ = variant;
        p_ = p;
    }
    void release() override {
        buffers_ = Buffers{};
        prepared_ = false;
    }
    uint64_t bytes_held() const override { return prepared_ ? device_bytes(name_of(variant_), p_) : 0; }

    void fill_inputs(cudaStream_t stream) override { gpu::fill_inputs(p_, buffers_, stream); }
    void poison_outputs(cudaStream_t stream) override { gpu::poison_outputs(p_, buffers_, stream); }
    // Kernel k in the model's order: 0 the attention kernel (with the epilogue when fused), 1 skip.
    size_t kernel_count() const override { return kernel_count_of(variant_); }
    void launch_kernel(size_t k, int, cudaStream_t stream) override {
        launch_kernel_of(variant_, k, p_, buffers_, stream);
    }

    // The job's budget picks the sampled rows, as attention's check does (a quick pass checks fewer).
    void begin_check(const CheckBudget& budget) override { max_mults_ = budget.max_mults; }
    void gather_output(cudaStream_t s, unsigned long long* counter) override {
        const void* result = result_of(variant_, buffers_).get();
        nonfinite_ = kernels::gpu::scan_nonfinite(p_.attn.dtype, result, result_elements(), counter, s);
        rows_ = attention::rows_to_check(p_.attn, max_mults_);
        const size_t d = static_cast<size_t>(p_.attn.d), es = static_cast<size_t>(dtype_bytes(p_.attn.dtype));
        std::vector<unsigned char> bits(d * es);
        got_.resize(rows_.size() * d);
        for (size_t i = 0; i < rows_.size(); ++i) {
            const auto* src = static_cast<const unsigned char*>(result) +
                              static_cast<size_t>(result_index(variant_, p_, rows_[i].head, rows_[i].row)) * es;
            check(cudaMemcpy(bits.data(), src, d * es, cudaMemcpyDeviceToHost), "copying a row of the result");
            kernels::gpu::to_float(p_.attn.dtype, bits.data(), &got_[i * d], d);
        }
    }
    GpuCheck finish_check() override {
        const size_t d = static_cast<size_t>(p_.attn.d);
        std::vector<double> want(d);
        ErrorSum errors(p_.attn.dtype);
        for (size_t i = 0; i < rows_.size(); ++i) {
            reference_result_row(name_of(variant_), p_, rows_[i].head, rows_[i].row, want.data());
            errors.add(&got_[i * d], want.data(), d, (rows_[i].head * p_.attn.N + rows_[i].row) * p_.attn.d);
        }
        const int64_t all_rows = p_.attn.batch_heads * p_.attn.N;
        const std::string what = writes_out(variant_) ? "out" : "attn_out";
        GpuCheck c;
        c.first_wrong = errors.wrong_element_text([&](int64_t at) {
            const int64_t dd = p_.attn.d, bh = at / (p_.attn.N * dd), row = (at / dd) % p_.attn.N, col = at % dd;
            if (!writes_out(variant_))
                return "attn_out[problem " + std::to_string(bh) + ", row " + std::to_string(row) + ", column " +
                       std::to_string(col) + "]";
            const int64_t heads = heads_per_batch(p_);
            return "out[batch " + std::to_string(bh / heads) + ", row " + std::to_string(row) + ", column " +
                   std::to_string((bh % heads) * dd + col) + "] (element " +
                   std::to_string(bnc_index(p_, bh, row, col)) + ")";
        });
        c.nonfinite = nonfinite_;
        c.output_elements = result_elements();
        c.elements = static_cast<int64_t>(rows_.size() * d);
        c.max_abs = errors.max_abs;
        c.rel_l2 = errors.rel_l2();
        c.note = (static_cast<int64_t>(rows_.size()) == all_rows
                      ? "all " + std::to_string(all_rows) + " rows of " + what
                      : std::to_string(rows_.size()) + " of " + std::to_string(all_rows) + " rows of " + what +
                            " sampled (first, last, evenly spaced rows of the first, middle and last heads)") +
                 " vs the float64 CPU reference; all of " + what +
                 " scanned for unwritten (poisoned) or non-finite elements";
        return c;
    }

    // A buffer by name (nullptr when this variant has none): a student's kernel's arguments.
    void* buffer(const std::string& name) const {
        const Buffers& b = buffers_;
        if (name == "q") return b.q.get();
        if (name == "k") return b.k.get();
        if (name == "v") return b.v.get();
        if (name == "attn_out") return b.attn_out.get();
        if (name == "x") return b.x.get();
        if (name == "out") return b.out.get();
        return nullptr;
    }

    // The variant `yours` (exercises/skip_epilogue.exercise): the epilogue's buffers and coefficients' inputs.
    std::optional<StudentArgument> student_argument(const std::string& name) const override {
        const uint64_t tensor = static_cast<uint64_t>(tensor_bytes(p_));
        if (name == "q" || name == "k" || name == "v" || name == "attn_out" || name == "x") {
            void* ptr = buffer(name);
            if (!ptr) return std::nullopt;
            return StudentArgument::of(ptr, "const T*");
        }
        if (name == "out") {
            void* ptr = buffer(name);
            if (!ptr) return std::nullopt;
            return StudentArgument::of(ptr, "T*", tensor);
        }
        if (name == "N") return StudentArgument::of(static_cast<int>(p_.attn.N), "int");
        if (name == "d") return StudentArgument::of(static_cast<int>(p_.attn.d), "int");
        if (name == "heads") return StudentArgument::of(static_cast<int>(heads_per_batch(p_)), "int");
        if (name == "batch") return StudentArgument::of(static_cast<int>(p_.batch), "int");
        if (name == "t") return StudentArgument::of(static_cast<float>(p_.t), "float");
        if (name == "sigma_d") return StudentArgument::of(static_cast<float>(p_.sigma_d), "float");
        return std::nullopt;
    }
    std::vector<std::string> student_argument_names() const override {
        return {"q", "k", "v", "attn_out", "x", "out", "N", "d", "heads", "batch", "t", "sigma_d"};
    }

private:
    int64_t result_elements() const { return p_.attn.batch_heads * p_.attn.N * p_.attn.d; }

    Variant variant_ = Variant::attention;
    SkipParams p_;
    bool prepared_ = false;
    Buffers buffers_;
    double max_mults_ = kFullCheck.max_mults;
    int64_t nonfinite_ = 0;
    std::vector<attention::RowRef> rows_;
    std::vector<float> got_;
};

}  // namespace

std::unique_ptr<GpuWorkload> make_gpu_workload() { return std::make_unique<SkipGpu>(); }

}  // namespace kernels::skip::gpu
