// Elementwise workloads: LayerNorm -> GELU -> Dropout -> residual add ("chain") and bias + GELU.
//
// Function computed (row r of a rows x hidden matrix, stats in float, eps = 1e-5):
//   chain:     h   = LayerNorm(x[r]) * gamma + beta
//              out = Dropout_p(GELU(h)) + residual[r]        (kept elements scaled by 1/(1-p))
//   bias_gelu: out = GELU(x[r] + bias)
// GELU is the exact erf form, 0.5 x (1 + erf(x / sqrt 2)) (PyTorch's default).
// The dropout mask is Philox(seed, element index) (kernels/core/philox.h): every variant and the CPU
// reference drop the same elements. Inputs are input_value(seed, tensor id, index) rounded to
// the dtype, so any row can be regenerated on the host to check it.
//
// Variants:
//   chain     unfused  4 kernels: layernorm (x -> h1), gelu (h1 -> h2), dropout (h2 -> h3),
//                      add (h3 + residual -> out). Intermediates stored in the input dtype,
//                      as framework eager mode does. The mask is regenerated, never stored.
//             fused    1 kernel: a row stays on chip from the load of x to the store of out.
//             fused_spill  the same kernel built for twice the resident warps: capped at 32
//                      registers it spills part of the row to local memory and reloads it, so
//                      it moves the fused kernel's HBM bytes plus spill traffic (local bytes).
//   bias_gelu unfused  2 kernels: bias_add (x + bias -> h), gelu (h -> out)
//             fused    1 kernel.
#pragma once

#include "kernels/core/types.h"
#include "kernels/core/variant_names.h"
#include "kernels/core/schedule.h"
#include "kernels/core/workload_def.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kernels::elementwise {

// The two workloads' parameters (their WorkloadDefs: elementwise_def.cpp). The one mapping from
// the app's Params is to_elementwise().
struct ElementwiseParams {
    bool chain = true;  // chain, else bias_gelu
    DType dtype = DType::bf16;
    int64_t rows = 4096;     // tokens (batch x sequence)
    int64_t hidden = 4096;   // features per row
    double dropout_p = 0.1;  // chain only
    uint64_t seed = 1234;    // dropout mask and input data
};
ElementwiseParams to_elementwise(const Params& p);  // p.workload is chain or bias_gelu
Params to_params(const ElementwiseParams& e);       // workload = chain or bias_gelu

// rows x hidden is capped so the unfused chain's six tensors fit a classroom GPU at fp32 and the
// CPU reference stays interactive when it checks sampled rows.
inline constexpr double kMaxElements = 1073741824.0;  // 2^30

// Tensor ids for input_value(); part of the data definition, keep stable.
enum TensorId : uint32_t { kX = 1, kResidual = 2, kGamma = 3, kBeta = 4, kBias = 5 };

inline constexpr float kLayerNormEps = 1e-5f;

// ---------------------------------------------------------------------------------------------
// Inputs (host side; the GPU fills its buffers with the same function)
// ---------------------------------------------------------------------------------------------
// Value of element (row, col) of a rows x hidden input, rounded to p.dtype.
float x_value(const ElementwiseParams& p, int64_t row, int64_t col);
float residual_value(const ElementwiseParams& p, int64_t row, int64_t col);
// Per-feature vectors: gamma in [0.5, 1.5), beta and bias in [-1, 1), rounded to p.dtype.
float gamma_value(const ElementwiseParams& p, int64_t col);
float beta_value(const ElementwiseParams& p, int64_t col);
float bias_value(const ElementwiseParams& p, int64_t col);

// ---------------------------------------------------------------------------------------------
// CPU reference, float64 arithmetic on the dtype-rounded inputs
// ---------------------------------------------------------------------------------------------
double gelu(double x);
// Writes p.hidden values of output row `row` into out.
void reference_row(const ElementwiseParams& p, int64_t row, double* out);

// ---------------------------------------------------------------------------------------------
// The kernels' arithmetic on the CPU (elementwise_emulate.cpp; kernels/sim/emulate.h)
// ---------------------------------------------------------------------------------------------
// GELU as the device computes it (A&S 7.1.26 erf, rcp.approx, ex2.approx) in fp32: ffn's GELU
// kernels are these too.
float gpu_gelu(float x);
// The logistic form the 16-bit kernels take (v7, kernels/elementwise/gelu_logistic.h), in fp32.
float gpu_gelu_logistic(float x);
// The GELU a kernel storing `t` computes (fused_chain_spill, kept as recorded, always takes gpu_gelu).
float gpu_gelu_for(DType t, float x);
// GELU(x) * scale + residual as the 16-bit fused chain computes a kept element (v7: the scale folded into
// the logistic form, the residual added in the same FMA).
float gpu_gelu_logistic_scaled_add(float x, float scale, float residual);
// Instructions per element fused_bias_gelu issues storing `t` (ncu, H200: 22.9 with v7's logistic GELU for
// 16-bit outputs); 0 where none was measured (fp32), which the model then prices by its bytes. ffn's
// bias_gelu runs the same kernel.
double fused_bias_gelu_instructions_per_element(DType t);
// Output row `row` of `variant` as its kernels compute it, rounded where they store: hidden values.
void emulate_row(const std::string& variant, const ElementwiseParams& p, int64_t row, float* out);
// WorkloadDef::emulate of chain and bias_gelu: out on rows_to_check(p, budget) against the reference.
EmulatedCheck emulate(const std::string& variant, const ElementwiseParams& p, const EmulationBudget& budget);

// Rows the correctness check compares: all rows when rows*hidden <= max_elements, otherwise the
// first, the last and evenly spaced rows in between (the workloads are row-independent).
std::vector<int64_t> rows_to_check(const ElementwiseParams& p, int64_t max_elements = int64_t{1} << 22);

// ---------------------------------------------------------------------------------------------
// Model and schedule (called through workload.h's dispatch)
// ---------------------------------------------------------------------------------------------
// Launch shapes shared by the schedule and the CUDA launchers, so the animation shows the
// blocks the GPU really runs.
struct LaunchShape {
    uint64_t blocks;
    int threads;
    int64_t elements_per_block;  // for flat (vectorised) kernels; rows kernels use hidden
};

// How a row kernel (layernorm, fused_chain, fused_chain_spill) lays rows over the GPU: picked per
// shape by row_config() (elementwise_shapes.cpp), which the CUDA launcher, the model's schedule,
// the CPU emulation and the memory animation all call. A row is split into chunks of 8 elements;
// each thread holds `chunks_per_thread` of them in registers; `threads_per_row` threads of one
// block share a row; a block owns `rows_per_block` rows (short rows), or a thread-block cluster of
// `ctas_per_row` blocks shares one row (long rows; Hopper and later).
struct RowConfig {
    int chunks_per_thread = 4;  // 2, 3 or 4
    int threads_per_row = 256;  // a multiple of 32
    int rows_per_block = 1;     // rows_per_block x threads_per_row <= 512
    int ctas_per_row = 1;       // 1, 2, 4 or 8 (a cluster when > 1; then rows_per_block = 1)
    bool vector = true;         // hidden % 8 == 0: 16-byte moves; else the scalar (ragged) path
    // staged: the row (a block's slice of it) is staged in shared memory by cp.async instead of held
    // in registers (staged_row_kernel); chunks_per_thread is then any count, rows_per_block 1.
    // stage_residual: the fused chain's residual is staged too (else read in the last pass).
    bool staged = false;
    bool stage_residual = false;
    bool streaming = false;     // x, residual loads and out stores with the evict-first hint (.cs)
    // rows_in_sequence (v8): a block (or a cluster) runs this many of its rows one after another, and
    // copies the next row's x into shared memory (cp.async) while it reduces and finishes the current
    // one, so a row's loads are in flight behind the row before it; 1: one row per block or cluster
    // (v7). Register layouts of whole-vector rows only.
    int rows_in_sequence = 1;
    std::string why;            // the picker's reason, in words (the model's description shows it)
    int threads_per_block() const { return threads_per_row * rows_per_block; }
    // Dynamic shared memory of a block running rows in sequence: two buffers of its x chunks (the current
    // row's and the next one's) and, for the fused chain (residual), one of its residual chunks.
    int64_t prefetch_bytes(DType t, bool residual) const {
        return rows_in_sequence > 1 && !staged
                   ? (residual ? 3 : 2) * int64_t{threads_per_block()} * chunks_per_thread * 8 * dtype_bytes(t)
                   : 0;
    }
    // Dynamic shared memory of a staged block: its slice of x (and of the residual), in bytes.
    int64_t staged_bytes(DType t) const {
        return staged ? int64_t{threads_per_row} * chunks_per_thread * 8 * dtype_bytes(t) * (stage_residual ? 2 : 1) : 0;
    }
};
// A staged block's shared memory: at most kStageMaxBytes (one block per SM on an H100/H200, whose
// blocks may opt in to 227 KiB), x's slice and, when both fit, the residual's.
inline constexpr int64_t kStageMaxBytes = 128 * 1024;
inline constexpr int kRowMaxThreads = 512;     // a row kernel's block
inline constexpr int kRowMaxClusterCtas = 8;   // the portable cluster size
inline constexpr int64_t kMaxHidden = 65536;   // the widest row a cluster of 8 x 512 threads x 2 chunks holds
inline constexpr int64_t kSpillMaxHidden = 16384;  // fused_chain_spill: one block of 512 threads x 4 chunks
// Which row kernel: the one whose layout is picked per shape (layernorm, fused_chain), or
// fused_chain_spill, the lesson's spilling kernel, kept as it was measured: one block per row, 64
// bytes of x per thread (2 chunks when a block of whole warps covers the row with 2), at most 16384.
enum class RowKernel { picked, spill };
// The configuration for p: FUSIONLAB_ROW_CONFIG, when set ("cpt=4,tpr=256,rpb=1,ctas=2,seq=4", any
// subset; the rest picked as usual), else the per-shape rule. Throws std::invalid_argument for a
// forced configuration that cannot hold the row, and (spill) for a row wider than kSpillMaxHidden,
// with the reason.
RowConfig row_config(const ElementwiseParams& p, RowKernel kernel = RowKernel::picked);
RowKernel row_kernel_of(const std::string& kernel_name);  // "fused_chain_spill" -> spill, else picked
// "128 threads x 4 chunks per row, cluster of 2" (the bench table's shape, the memory view)
std::string config_text(const RowConfig& c);
// blocks (CTAs) and threads of a row kernel
LaunchShape row_kernel_shape(const ElementwiseParams& p, RowKernel kernel = RowKernel::picked);
// Which compiled row_kernel runs p (the register table's key): row_config's chunks per thread and
// vector path. The launcher also takes the scalar path when a buffer is not 16-byte aligned, which
// cudaMalloc'd buffers always are.
struct RowInstance {
    int chunks_per_thread = 4;  // 0: staged_row_kernel (any chunks per thread, a run-time count)
    bool vector = true;
    bool in_sequence = false;   // v8: row_sequence_kernel (rows in sequence, vector rows only)
};
RowInstance row_kernel_instance(const ElementwiseParams& p, RowKernel kernel = RowKernel::picked);
// What ptxas made of that instance of `kernel` ("layernorm", "fused_chain", "fused_chain_spill")
// for sm_90 (kernels/elementwise/row_kernel_registers.inc, checked against the compiler by ctest
// and against the binary by a GPU test); empty for any other kernel.
RegisterUse row_kernel_registers(const std::string& kernel, const ElementwiseParams& p);

// How a flat kernel (gelu, dropout, add, bias_add, fused_bias_gelu, and ffn's bias_add, gelu,
// fused_bias_gelu) tiles the flattened tensor: block b owns threads x bytes_per_thread bytes of
// each input. Picked by flat_config() (FUSIONLAB_FLAT_CONFIG="threads=256,bytes=64" forces it).
struct FlatConfig {
    int threads = 256;          // 128, 256 or 512
    int bytes_per_thread = 64;  // per input: 32 or 64 (whole chunks of 8 elements)
    bool streaming = false;     // loads and stores with the evict-first hint (.cs)
    std::string why;
};
FlatConfig flat_config(const ElementwiseParams& p);
std::string config_text(const FlatConfig& c);
LaunchShape flat_kernel_shape(const ElementwiseParams& p);  // grid-stride-free flat kernels (gelu, add, ...)

// The variants of chain and bias_gelu as values inside the workload (bias_gelu has the first two),
// in the order of their variant lists (elementwise_def.cpp) and kVariantNames; names are read where
// they come in. Values past fused_spill are kept for variants added at run time.
enum class Variant : int { unfused, fused, fused_spill };
inline constexpr const char* kVariantNames[] = {"unfused", "fused", "fused_spill"};
// The variant called `name` in chain's or bias_gelu's list (p.chain); throws std::invalid_argument
// (with the workload's variants) for a name the workload does not have.
Variant variant_of(const ElementwiseParams& p, const std::string& name);

Schedule chain_schedule(const std::string& variant, const ElementwiseParams& p);
Schedule bias_gelu_schedule(const std::string& variant, const ElementwiseParams& p);

// FLOPs counted per element (documented in elementwise_model.cpp next to the numbers).
double chain_flops(const std::string& kernel, const ElementwiseParams& p);

}  // namespace kernels::elementwise
