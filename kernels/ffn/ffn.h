// Feed-forward block of a transformer layer: out = GELU(x·W1 + b1)·W2 + b2.
//
// Shapes (row-major): x is M x d_model (M tokens), W1 d_model x d_ff, b1 d_ff, W2 d_ff x d_model,
// b2 d_model, out M x d_model. GELU is the exact erf form except inside cuBLASLt's epilogue (below).
// M is what moves the block from decode (M = 1..64 tokens: each weight element is used M times, so
// the GEMMs stream W1 and W2 at memory speed and the launches show) to prefill (M >= 4096: the
// GEMMs are compute-bound and the M x d_ff activations are the bytes that fusion can save).
//
// Variants (all compute the same block; what each changes and why):
//   unfused            5 kernels, what eager mode does: cuBLAS GEMM x·W1 -> h1, bias kernel
//                      h1 + b1 -> h2, GELU kernel h2 -> act, cuBLAS GEMM act·W2 -> y, bias kernel
//                      y + b2 -> out. Each intermediate (M x d_ff three times, M x d_model once) is
//                      written to HBM and read back by the next kernel.
//   fused_elementwise  4 kernels: the bias add and GELU become one elementwise kernel (the
//                      bias_gelu workload's fused kernel): h2 never exists. Saves two M x d_ff passes
//                      and one launch; the GEMMs are untouched.
//   epilogue           2 kernels: cuBLASLt GEMMs whose epilogue works on the accumulator tile in
//                      registers before its one store: GEMM 1 adds b1 and applies GELU (epilogue
//                      GELU_BIAS), GEMM 2 adds b2 (epilogue BIAS). h1, h2 and y never exist: only
//                      act goes through HBM between the two GEMMs, and two launches remain.
//   epilogue_graph     the epilogue variant's two kernels captured once into a CUDA graph and
//                      replayed with one cudaGraphLaunch, as decode engines do: the host's launch
//                      work is done once at instantiation.
//
// Precision: inputs are rounded to the dtype; GEMMs accumulate in fp32 (fp16/bf16 on tensor cores;
// fp32 in true fp32, never TF32); every stored intermediate is rounded to the dtype, so the
// variants differ in how many roundings they make, and the float64 reference follows each
// variant's rounding points. cuBLASLt's GELU epilogue is the tanh form,
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (what PyTorch's GELU(approximate='tanh') computes),
// so the reference of the epilogue variants uses it; the erf form differs from it by at most 4.8e-4 (at x = -2.70).
#pragma once

#include "kernels/core/schedule.h"
#include "kernels/core/types.h"
#include "kernels/core/variant_names.h"
#include "kernels/core/workload_def.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kernels::ffn {

// Tensor ids for input_value(); part of the data definition, keep stable.
enum TensorId : uint32_t { kX = 41, kW1 = 42, kB1 = 43, kW2 = 44, kB2 = 45 };

inline constexpr int64_t kMaxTokens = 16384;
inline constexpr int64_t kMinModel = 256, kMaxModel = 8192;
inline constexpr int64_t kMaxFf = 32768;
// d_model and d_ff are multiples of this: every row starts 16-byte aligned in fp16/bf16, which
// cuBLASLt's tensor-core kernels and its bias epilogue want.
inline constexpr int64_t kAlign = 8;

// The workload's parameters (its WorkloadDef: ffn_def.cpp; lessons use the names M, d_model,
// d_ff). The one mapping from the app's Params is to_ffn().
struct FfnParams {
    DType dtype = DType::bf16;
    int64_t M = 2048;        // tokens
    int64_t d_model = 4096;
    int64_t d_ff = 16384;    // the parameter 0 means 4 x d_model; to_ffn() resolves it
    uint64_t seed = 1234;
    bool operator==(const FfnParams&) const = default;
};
FfnParams to_ffn(const Params& p);

// The CTA tile the model assumes cuBLAS(Lt) runs for both GEMMs of p (M tokens). Their L2->SM bytes
// are counted per CTA tile from it: each CTA reads its A panel (rows x K) and its B panel (K x cols)
// from L2, a panel shared by a cluster's CTAs once per cluster.
// From the kernels the recordings' CUPTI timelines name (assets/recordings/h100-2026-11-27 and
// h200-2026-11-27, ffn at M <= 256, d_model = 4096, bf16, where the timeline keeps cuBLASLt's names;
// nvjet_sm90_tst_<N-tile>x<token-tile>_64x<stages>_<cluster>: cuBLAS's m is our N, its n our rows):
//   M <= 128: 128 output columns x the tokens rounded up to a power of two (8 .. 128), k-steps of 64,
//             2 CTAs along the columns in a cluster sharing the x (or act) panel by TMA multicast
//             (nvjet_sm90_tst_128x8_64x12_2x1 at M = 1 .. 8, 128x16 at 16, ..., 128x128_64x6_2x1 at 128);
//   M > 128:  256 output columns x 128 tokens, 2 CTAs along the tokens sharing the weight panel
//             (nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA at M = 256, the largest recorded by name:
//             at M >= 512 the timeline has the model's kernel count and keeps the model's names).
// fp32 runs cuBLAS's SIMT SGEMM (no TMA, no clusters; not recorded): 128 x 128, k-steps of 32.
// Where cuBLASLt splits K (gemm2 at M <= 256) each CTA reads a K slice: the operand bytes are the
// same; its partial sums through the workspace are not modeled.
struct GemmTile {
    int64_t rows = 128, cols = 128, k = 64;
    int64_t cluster_rows = 1, cluster_cols = 1;  // CTAs of a cluster along the tokens / the columns
    const char* source = "";                     // where it comes from, a few words for the memory view
};
GemmTile gemm_tile(const FfnParams& p);

// The variants as values inside the workload, in the order of variants() (ffn_model.cpp) and
// kVariantNames; names are read where they come in. Values past epilogue_graph are kept for
// variants added at run time, which nothing here knows.
enum class Variant : int { unfused, fused_elementwise, epilogue, epilogue_graph };
inline constexpr const char* kVariantNames[] = {"unfused", "fused_elementwise", "epilogue", "epilogue_graph"};
inline const char* name_of(Variant v) { return name_in(kVariantNames, v); }
inline std::optional<Variant> find_variant(const std::string& name) { return find_named<Variant>(kVariantNames, name); }
inline Variant variant_of(const std::string& name) { return named_or_throw<Variant>(kVariantNames, name, "ffn"); }
// GEMM 1 runs the bias and GELU as cuBLASLt's epilogue (tanh-form GELU): epilogue, epilogue_graph.
inline bool is_epilogue(Variant v) { return v == Variant::epilogue || v == Variant::epilogue_graph; }

const std::vector<VariantInfo>& variants();
bool has_variant(const std::string& variant);
// Cross-parameter checks: d_model and d_ff multiples of kAlign, d_ff in range. "" when legal.
std::string validate(const FfnParams& p);

// ---------------------------------------------------------------------------------------------
// Model (ffn_model.cpp)
// ---------------------------------------------------------------------------------------------
// Kernel names, in launch order: unfused gemm1, bias1, gelu, gemm2, bias2; fused_elementwise
// gemm1, bias_gelu, gemm2, bias2; epilogue(_graph) gemm1_bias_gelu, gemm2_bias.
Schedule schedule(const std::string& variant, const FfnParams& p);
// cuBLASLt's re-reads of the GEMM operands that do not fit in half the L2 (WorkloadDef::l2_reuse):
// the generic rules charge each operand once; the counters see the weights once per 1536 rows of
// tokens (plus half a pass) and the activations once per 2048 output columns. Never more than the
// L2->SM reads of the operand (gemm_tile's panels): every DRAM read passes through L2 to an SM.
void gemm_l2_reuse(const std::string& variant, const FfnParams& p, uint64_t l2_bytes, Model& m);
// The HBM tensors a variant touches, in the order the GPU side allocates them ("x", "W1", "b1",
// "W2", "b2", then its intermediates among "h1", "h2", "act", "y", and "out").
std::vector<std::string> buffers(const std::string& variant);
// Elements of one buffer.
uint64_t buffer_elements(const FfnParams& p, const std::string& buffer);
// Device bytes of one buffer set of the variant (every buffer above).
uint64_t buffer_set_bytes(const std::string& variant, const FfnParams& p);
// x, W1, b1, W2, b2 read once, out written once.
uint64_t min_bytes(const FfnParams& p);
// 2 M d_model d_ff per GEMM.
double gemm_flops(const FfnParams& p);
// FLOPs per element counted for the elementwise work (as the elementwise workloads count them).
inline constexpr double kBiasFlops = 1, kGeluFlops = 5;

// ---------------------------------------------------------------------------------------------
// Inputs and the float64 reference (ffn_reference.cpp)
// ---------------------------------------------------------------------------------------------
// Weights are scaled by 1/sqrt(fan_in) (as a layer's initialisation would), so activations stay
// O(1) at every size; the scale is computed once in fp32 and passed to the GPU fill as is.
float w1_scale(const FfnParams& p);
float w2_scale(const FfnParams& p);
float x_value(const FfnParams& p, int64_t row, int64_t col);
float w1_value(const FfnParams& p, int64_t k, int64_t j);  // row k of d_model, column j of d_ff
float b1_value(const FfnParams& p, int64_t j);
float w2_value(const FfnParams& p, int64_t j, int64_t c);  // row j of d_ff, column c of d_model
float b2_value(const FfnParams& p, int64_t c);

double gelu_erf(double x);
double gelu_tanh(double x);

// The weights the reference multiplies by: regenerated from input_value() (small sizes, tests), or
// the device's own copies (dtype bits, checked on a sample against input_value() by the caller)
// so that a check at d_model = 8192 does not spend seconds in Philox.
struct Weights {
    DType dtype = DType::bf16;
    int64_t d_model = 0, d_ff = 0;
    std::vector<uint16_t> w1_16, w2_16;  // fp16/bf16 bits
    std::vector<float> w1_32, w2_32;     // fp32
    float w1(int64_t k, int64_t j) const;
    float w2(int64_t j, int64_t c) const;
};
Weights generate_weights(const FfnParams& p);
// Raw dtype bits to float (fp16 through a table, bf16 by a shift).
float bits_to_float(DType t, uint16_t bits);

// Output rows `rows` of `variant` in float64 with the variant's rounding points: rows.size() x
// d_model values into out, row after row.
void reference_rows(const std::string& variant, const FfnParams& p, const Weights& w, const std::vector<int64_t>& rows,
                    std::vector<double>& out);
// Rows the GPU check compares: the first and the last, and evenly spaced ones in between, as many
// as max_mults multiply-adds of reference (2 d_model d_ff per row) allow; at least the first and
// the last (one when M = 1), at most 64.
std::vector<int64_t> rows_to_check(const FfnParams& p, double max_mults);

// ---------------------------------------------------------------------------------------------
// The variants' arithmetic on the CPU (ffn_emulate.cpp; kernels/sim/emulate.h)
// ---------------------------------------------------------------------------------------------
// Output row `row` of `variant` as its GEMMs and elementwise kernels compute it, rounded where they
// store (w: generate_weights(p)); and WorkloadDef::emulate: out on rows_to_check(p, budget).
void emulate_row(const std::string& variant, const FfnParams& p, const Weights& w, int64_t row, float* out);
EmulatedCheck emulate(const std::string& variant, const FfnParams& p, const EmulationBudget& budget);

}  // namespace kernels::ffn
