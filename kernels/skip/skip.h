// Skip-connection epilogue workload (consistency models, Song et al. 2023):
//   out = c_skip(t) x + c_out(t) F(x, t),  c_skip(t) = σ_d² / (t² + σ_d²),  c_out(t) = σ_d t / √(σ_d² + t²)
// with F = attention(q, k, v) (kernels/attention) and σ_d = 0.5 or 1.
//
// How the parameters map (one decision, documented here and in README):
//   batch_heads   the attention problems, as in the attention workload: batch x heads
//   batch         batch elements; batch_heads must be a multiple of it; heads = batch_heads / batch
//   t             the largest noise level: batch element b uses t_b = t (b + 1) / batch, so one run
//                 covers a range of t; t = 0 makes every t_b 0 (then out = x exactly)
//   sigma_d       0.5 or 1
//   N, d, dtype, causal, Br, Bc, seed: the attention workload's own parameters.
// Shapes: q, k, v and attn_out are [batch, heads, N, d] (the attention kernels' layout, head h of
// batch element b is attention problem b heads + h); x and out are [batch, N, C] with C = heads d,
// the layout a transformer block's residual stream has. The epilogue of head h writes the d columns
// h d .. h d + d - 1 of each of its rows of out.
//
// Variants (names fixed: the lessons use them):
//   attention          flash_tc alone, writing attn_out: the baseline every other variant is timed against
//                      (flash_tc and flash take the tile Br x Bc from the parameters, as in kernels/attention)
//   two_pass           flash_tc writes attn_out; a skip kernel reads attn_out and x and writes out
//   fused              flash_tc's epilogue loads the x tile into SRAM and writes out once:
//                      attn_out never reaches HBM
//   teaching_two_pass  the same on the teaching kernel flash (any d and tile)
//   teaching_fused
//   wgmma_two_pass     the same on flash_wgmma (sm_90a: H100, H200; d 64 or 128, Br and Bc 64 or 128);
//   wgmma_fused        its epilogue: the producer warp's TMA copies the x tile into Qi's place once a
//                      consumer warpgroup's last Sij is done, and the consumers write out from registers
// Large t: c_skip -> 0 and c_out -> σ_d, so out -> σ_d attention (exactly attention for σ_d = 1).
#pragma once

#include "kernels/attention/attention.h"
#include "kernels/core/types.h"
#include "kernels/core/variant_names.h"
#include "kernels/core/schedule.h"
#include "kernels/core/workload_def.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kernels::skip {

// Tensor id of x for input_value(); q, k, v keep attention's ids (11, 12, 13). Keep stable.
enum TensorId : uint32_t { kX = 14 };

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------
struct SkipParams {
    attention::AttentionParams attn;
    int64_t batch = 4;     // batch elements: one t each
    double sigma_d = 0.5;  // 0.5 or 1
    double t = 1.0;        // largest noise level; element b uses t (b + 1) / batch

    bool operator==(const SkipParams&) const = default;
};

inline constexpr double kMaxT = 1000.0;
inline constexpr double kSigmaChoices[] = {0.5, 1.0};

// The variants as values inside the workload, in the order of variants() (skip_model.cpp) and
// kVariantNames; names are read where they come in. As attention's Variant, values past wgmma_fused
// are kept for variants added at run time, which nothing here knows.
enum class Variant : int { attention, two_pass, fused, teaching_two_pass, teaching_fused, wgmma_two_pass, wgmma_fused };
inline constexpr const char* kVariantNames[] = {
    "attention", "two_pass", "fused", "teaching_two_pass", "teaching_fused", "wgmma_two_pass", "wgmma_fused"};
inline const char* name_of(Variant v) { return name_in(kVariantNames, v); }
inline std::optional<Variant> find_variant(const std::string& name) { return find_named<Variant>(kVariantNames, name); }
inline Variant variant_of(const std::string& name) { return named_or_throw<Variant>(kVariantNames, name, "skip"); }

const std::vector<VariantInfo>& variants();
bool has_variant(const std::string& variant);
// The attention kernel a variant runs: flash_tc, flash (the teaching kernel) or flash_wgmma.
attention::Variant base_kernel(Variant v);
std::string base_variant(const std::string& variant);  // its name
inline bool is_fused(Variant v) { return v == Variant::fused || v == Variant::teaching_fused || v == Variant::wgmma_fused; }
inline bool is_two_pass(Variant v) {
    return v == Variant::two_pass || v == Variant::teaching_two_pass || v == Variant::wgmma_two_pass;
}
inline bool writes_out(Variant v) { return v != Variant::attention; }  // every variant but attention
inline bool has_attn_out(Variant v) { return !is_fused(v); }          // attention and the two-pass ones
// The same by name (throw for an unknown one).
bool is_fused(const std::string& variant);
bool is_two_pass(const std::string& variant);
bool writes_out(const std::string& variant);
bool has_attn_out(const std::string& variant);

// "" when valid, else a message naming the parameter, the value and what is legal.
std::string validate(const SkipParams& p);
std::string validate(const std::string& variant, const SkipParams& p);
// "" when `variant` can run p on `dev`: the base attention kernel's refusal (flash_tc below sm_80
// or in fp32, flash_wgmma on anything but compute capability 9.0, tiles vs shared memory) and the
// buffers vs memory.
std::string device_refusal(const std::string& variant, const SkipParams& p, const DeviceBudget& dev);

int64_t heads_per_batch(const SkipParams& p);  // batch_heads / batch
// t_b of batch element b, and the coefficients in float64.
double t_of(const SkipParams& p, int64_t b);
double c_skip(double sigma_d, double t);
double c_out(double sigma_d, double t);

// ---------------------------------------------------------------------------------------------
// The app's flat Params <-> SkipParams: the one place the fields are mapped.
// ---------------------------------------------------------------------------------------------
SkipParams to_skip(const Params& p);
Params to_params(const SkipParams& s);  // workload = skip

// ---------------------------------------------------------------------------------------------
// Inputs and CPU reference (float64 on the dtype-rounded inputs)
// ---------------------------------------------------------------------------------------------
// Element index of (attention problem bh, row, col) in the [batch, N, C] tensors x and out.
uint64_t bnc_index(const SkipParams& p, int64_t bh, int64_t row, int64_t col);
float x_value(const SkipParams& p, int64_t bh, int64_t row, int64_t col);
// The d values of out for attention problem bh, query row `row`: c_skip x + c_out O.
void reference_out_row(const SkipParams& p, int64_t bh, int64_t row, double* out);
// What the variant writes as its result: out, or attn_out for the variant attention.
void reference_result_row(const std::string& variant, const SkipParams& p, int64_t bh, int64_t row, double* out);

// The variant's arithmetic on the CPU on the rows the GPU check samples (skip_emulate.cpp;
// kernels/sim/emulate.h): WorkloadDef::emulate.
EmulatedCheck emulate(const std::string& variant, const SkipParams& p, const EmulationBudget& budget);

// ---------------------------------------------------------------------------------------------
// The skip kernel of the two-pass variants (elementwise over out in [batch, N, C] order)
// ---------------------------------------------------------------------------------------------
int skip_vector_width(const SkipParams& p);  // 8 when d % 8 == 0 (16-byte loads in fp16), else 1
inline constexpr int kSkipThreads = 256;
uint64_t skip_blocks(const SkipParams& p);

// ---------------------------------------------------------------------------------------------
// Model and schedule
// ---------------------------------------------------------------------------------------------
// The attention kernel's schedule (kernels/attention) with its store of Oi renamed: attention and
// the two-pass variants write "attn_out"; the fused variants load the x tile into SRAM and write
// "out". The two-pass variants add the skip kernel (load attn_out, x; write out).
Schedule schedule(const std::string& variant, const SkipParams& p);
Model model(const std::string& variant, const SkipParams& p);

uint64_t tensor_bytes(const SkipParams& p);        // one [batch_heads, N, d] tensor
uint64_t min_bytes(const SkipParams& p);           // q, k, v, x read once; out written once
uint64_t device_bytes(const std::string& variant, const SkipParams& p);  // the buffers a variant allocates
// HBM bytes a variant moves beyond attention alone: two_pass's skip kernel reads attn_out and x and
// writes out (3 tensors); fused reads x (its store of out replaces attention's store of attn_out).
uint64_t extra_bytes_over_attention(const std::string& variant, const SkipParams& p);

}  // namespace kernels::skip
