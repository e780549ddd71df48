// The variants' arithmetic on the CPU: what the simulated backend shows instead of "no kernel ran".
//
// A workload's WorkloadDef::emulate runs a variant's algorithm on the CPU in that variant's own
// arithmetic (stored tensors rounded to the dtype, fp32 accumulators where the kernel keeps fp32,
// the kernel's order of operations: tiles, online softmax, block reductions, dropout mask), on the
// rows the GPU check samples (the workload's rows_to_check for a CheckBudget), and compares it with
// the float64 reference the way the GPU check does (ErrorSum, kernels/core/output_check.h). It
// first estimates its CPU time from the work per row and runs only under EmulationBudget::max_seconds.
//
// What is emulated exactly and what approximately (every workload's *_emulate.cpp says which):
//   exact     rounding of stored tensors (fp16 / bf16 round to nearest even, as __float2half_rn and
//             __float2bfloat16_rn), fp32 adds and multiplies, the order of every sum a kernel makes
//             (its loop, tile and reduction tree), the Philox dropout mask, the inputs.
//   near      fp32 FMA: a * b + c in double (the product is exact), then rounded to fp32: the sum is
//             rounded twice, which differs from one rounding only in rare ties (one ulp).
//             ex2.approx, rcp.approx, rsqrtf: the correctly rounded value (the hardware's is within
//             about 2 ulp of fp32).
//             Tensor-core MMA (mma.sync, cuBLAS): each k-step of 16 products summed exactly, added to
//             the fp32 accumulator and rounded toward zero. Tensor cores normalise their fp32 sums by
//             truncation (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor cores",
//             PeerJ Comput. Sci. 2021: V100, T4, A100); with it ffn's errors at d_model = 4096 come out
//             as the H100's (4e-4 to 9e-4 in bf16), with round-to-nearest 2 to 10 times smaller
//             (kernels/PERF.md). Not modeled: the truncation of aligned products inside a k-step.
//             Library GEMMs (cuBLAS, cuBLASLt) in fp32: one sequential FMA chain along K (the library
//             may split K and add the parts in another order).
// So the emulated error is the GPU's in magnitude, not bit for bit (kernels/PERF.md compares them).
#pragma once

#include "kernels/core/output_check.h"
#include "kernels/core/types.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kernels {

// The simulated backend's time limit for one emulation: above it the result says why not.
inline constexpr double kEmulationSeconds = 0.5;

// What an emulation may spend.
struct EmulationBudget {
    CheckBudget check = kFullCheck;     // which rows: those the GPU check samples with this budget
    double max_seconds = kEmulationSeconds;  // estimated CPU time above which it does not run
    std::function<bool()> cancelled = {};    // polled between rows: true stops it
};

// An emulated check: the error statistics of the variant's emulated output against the float64
// reference, or why there are none.
struct EmulatedCheck {
    bool computed = false;
    std::string why_not;       // "not emulated: ~2.3 s on the CPU at this size (the limit is 0.5 s)"
    double estimated_s = 0;    // the estimate it was judged by
    double seconds = 0;        // what it took (computed ones)
    double max_abs = 0, rel_l2 = 0;
    int64_t elements = 0;      // values compared with the reference
    int64_t rows = 0;          // rows (or elements, for launch) compared
    int64_t all_rows = 0;      // rows the output has
    std::string unit = "rows"; // what rows counts: "rows" or "elements"
    std::string note;          // what was compared: "36 of 65536 rows of O (first, last, ...) vs ..."
};

// ---------------------------------------------------------------------------------------------
// The driver every workload's emulation uses
// ---------------------------------------------------------------------------------------------
// What the CPU spends per unit of work, measured on the development machine (one core of a shared
// 2-core AMD EPYC VM, Release build, 2026-11-25; kernels/PERF.md "Arithmetic on the CPU"): the
// estimates scale these. A slower CPU takes longer than estimated; the driver then stops at
// kEmulationOverrun times the limit and says so.
inline constexpr double kInputSeconds = 3.0e-8;       // one input_value() + rounding (Philox4x32-10): 23-38 ns
inline constexpr double kMacSeconds = 1.2e-9;         // one float64 multiply-add of a reference dot product: 0.5-1.25 ns
inline constexpr double kChainSeconds = 5.0e-9;       // one emulated fp32 FMA that waits for the previous one: 5.2-5.3 ns
inline constexpr double kRoundSeconds = 3.0e-9;       // one rounding to fp16 / bf16 inside such a chain: 3.0 ns
inline constexpr double kElementSeconds = 2.5e-8;     // the math of one elementwise output (GELU, erf, roundings)
inline constexpr double kEmulationOverrun = 3.0;      // stop after this many times the limit

// One row-wise emulated check. Rows are visited in order; for each, the reference (unless shared)
// and the emulation. The float64 reference of every row may be shared by all variants of the same
// parameters (reference_key non-empty): computed once, kept for the next variant (the live loop
// measures the variants back to back), as the GPU check shares it.
struct RowCheck {
    int64_t rows = 0;        // rows compared
    int64_t width = 0;       // values per row
    int64_t all_rows = 0;    // rows the output has
    DType dtype = DType::f32;
    std::string what;        // "rows of O" / "elements of y"
    std::string how;         // "first, last, evenly spaced rows of the first, middle and last heads"
    std::string versus = "the float64 CPU reference";
    double setup_s = 0;      // estimated seconds before the rows (inputs every row shares)
    double reference_s = 0;  // estimated seconds of the reference rows (0 when shared and ready)
    double emulation_s = 0;  // estimated seconds of the emulated rows
    std::string reference_key;  // "": not shared
    std::function<void()> setup = {};                         // optional, before the first row
    std::function<void(int64_t row, double* want)> reference;  // row index 0 .. rows-1
    std::function<void(int64_t row, float* got)> emulate;
};
// Runs c within b (estimate first; "not emulated: ..." above the limit) and sums the errors.
EmulatedCheck run_row_check(const RowCheck& c, const EmulationBudget& b);
// True when the reference rows under `key` are ready (shared by an earlier variant).
bool shared_reference_ready(const std::string& key);

// "36 sampled rows", "all 4096 rows" (or elements): the label's count.
std::string sampled_text(int64_t rows, int64_t all_rows, const std::string& unit);

// ---------------------------------------------------------------------------------------------
// The simulated backend's side
// ---------------------------------------------------------------------------------------------
// The emulated check of job's variant: the GPU check's rows for the job's budget (kFullCheck, or
// kQuickCheck for a quick job), or, when those would take longer than max_seconds, the quick
// check's rows. Never throws: failures come back as why_not.
EmulatedCheck emulate_check(const Job& job, const std::function<bool()>& cancelled,
                            double max_seconds = kEmulationSeconds);
// Fills m's error fields from it: checked, max_abs_error, rel_l2_error, checked_elements and the
// note "computed on the CPU (emulated fp16 arithmetic, 36 sampled rows): ...", or the reason.
void record_emulated_check(const EmulatedCheck& e, DType dtype, Measurement& m);

// ---------------------------------------------------------------------------------------------
// GPU arithmetic on the CPU (the rules of the header comment)
// ---------------------------------------------------------------------------------------------
namespace emu {

// fp32 FFMA: the product of two floats is exact in double; the sum is rounded to double, then to float.
inline float fma32(float a, float b, float c) {
    return static_cast<float>(static_cast<double>(a) * static_cast<double>(b) + static_cast<double>(c));
}
// Flush-to-zero of the .ftz instructions: subnormal inputs and results become zero.
inline float ftz(float v) { return std::fabs(v) < 0x1p-126f ? std::copysign(0.0f, v) : v; }
inline float exp2_ftz(float x) { return ftz(std::exp2(ftz(x))); }            // ex2.approx.ftz.f32
inline float rcp_ftz(float x) { return ftz(static_cast<float>(1.0 / static_cast<double>(ftz(x)))); }  // rcp.approx.ftz
inline float rsqrt(float x) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x))); }  // rsqrtf
// exp2f (CUDA's accurate one, within 2 ulp): the correctly rounded value.
inline float exp2_f32(float x) { return std::exp2(x); }

// The 16 products of one tensor-core k-step, summed exactly (fp16 / bf16 products have at most 22
// significant bits; the sum of 16 of them fits float64 for the magnitudes here).
inline double dot16_exact(const float* a, const float* b, int n = 16) {
    double s = 0;
    for (int k = 0; k < n; ++k) s += static_cast<double>(a[k]) * static_cast<double>(b[k]);
    return s;
}
// The accumulator after one MMA k-step: rounded to fp32 toward zero.
inline float mma_step(float acc, double step) {
    const double sum = static_cast<double>(acc) + step;
    const float nearest = static_cast<float>(sum);
    return std::fabs(static_cast<double>(nearest)) > std::fabs(sum) ? std::nextafter(nearest, 0.0f) : nearest;
}

// A library GEMM's accumulation of one output, a[k] times b[k * stride] along K: one fp32 FMA chain
// in K order (fp32), or tensor-core k-steps of 16 (fp16/bf16; a ragged last step is zero-padded).
float gemm_dot(DType t, const float* a, const float* b, int64_t K, int64_t stride);
// The same for a whole output row: out[n] = gemm_dot(t, a, B + n, K, N) for n < N (B row-major K x N),
// visited row of B by row of B (the same result, each output's own order kept).
void gemm_row(DType t, const float* a, const float* B, int64_t K, int64_t N, float* out);

// A warp's __shfl_xor_sync butterfly sum (offsets 16, 8, 4, 2, 1) of 32 lane values: lane 0's
// result (every lane gets the same: fp32 addition is commutative).
float butterfly_sum(const float* lanes32);

}  // namespace emu

}  // namespace kernels
