// Model of the skip-connection workload: parameter checks, the mapping from the app's Params, and
// the schedule of each variant, built on the attention kernels' own schedule (attention_model.cpp)
// so the attention part is counted exactly as the attention workload counts it.
//
// HBM bytes (T = batch_heads N d es, one tensor; A = the attention kernel's own traffic: q once,
// k and v once per (row block, key tile), see attention_model.cpp):
//   attention          A, writing attn_out (T)                                   = A
//   two_pass           A writing attn_out; skip: read attn_out (T), x (T), write out (T) = A + 3 T
//   fused              A with its store retargeted to out, plus the x tile read once (T)  = A + T
// so fused saves 2 T over two_pass: attn_out's write and its read back. The teaching_ and wgmma_
// variants count the same on their kernels (flash, flash_wgmma: A is that kernel's traffic).
// FLOPs: the attention kernel's, plus 3 per output element for c_skip x + c_out O (two multiplies,
// one add; the coefficients are computed once per thread, not counted).
//
// [SECTION] Variants and validation
// [SECTION] Params of the app <-> SkipParams (the one mapping)
// [SECTION] Schedule
// [SECTION] Totals
#include "kernels/skip/skip.h"
#include "kernels/attention/wgmma_registers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace kernels::skip {

namespace {
uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}
}  // namespace

// =============================================================================================
// [SECTION] Variants and validation
// =============================================================================================
const std::vector<VariantInfo>& variants() {
    static const std::vector<VariantInfo> v = {
        {"attention", "baseline: flash_tc alone writes attn_out = F(q, k, v); no skip connection", 1},
        {"two_pass", "flash_tc writes attn_out to HBM, then a skip kernel reads attn_out and x and writes "
                     "out = c_skip x + c_out attn_out",
         2},
        {"fused", "flash_tc's epilogue loads the x tile into SRAM and writes out = c_skip x + c_out Oi once: "
                  "attn_out never reaches HBM",
         1},
        {"teaching_two_pass", "the teaching kernel flash writes attn_out, then the skip kernel (Br, Bc from the "
                              "parameters)",
         2},
        {"teaching_fused", "the teaching kernel flash with the skip epilogue: x tile into SRAM, out written once", 1},
        {"wgmma_two_pass", "flash_wgmma (Hopper: TMA, wgmma, warp roles) writes attn_out, then the skip kernel", 2},
        {"wgmma_fused", "flash_wgmma's epilogue: the producer warp's TMA brings the x tile into Qi's place, the "
                        "consumer warpgroups write out once from their registers",
         1},
    };
    return v;
}

bool has_variant(const std::string& variant) { return find_variant(variant).has_value(); }

attention::Variant base_kernel(Variant v) {
    switch (v) {
    case Variant::attention:
    case Variant::two_pass:
    case Variant::fused: return attention::Variant::flash_tc;
    case Variant::teaching_two_pass:
    case Variant::teaching_fused: return attention::Variant::flash;
    case Variant::wgmma_two_pass:
    case Variant::wgmma_fused: return attention::Variant::flash_wgmma;
    }
    throw std::invalid_argument(std::string("skip has no attention kernel for ") + name_of(v));
}

std::string base_variant(const std::string& variant) { return attention::name_of(base_kernel(variant_of(variant))); }
bool is_fused(const std::string& variant) { return is_fused(variant_of(variant)); }
bool is_two_pass(const std::string& variant) { return is_two_pass(variant_of(variant)); }
bool writes_out(const std::string& variant) { return writes_out(variant_of(variant)); }
bool has_attn_out(const std::string& variant) { return has_attn_out(variant_of(variant)); }

std::string validate(const SkipParams& p) {
    if (std::string bad = attention::validate(p.attn); !bad.empty()) return bad;
    if (p.batch < 1 || p.batch > attention::kMaxBatchHeads)
        return "batch = " + std::to_string(p.batch) + " is out of range: it must be 1 .. " +
               std::to_string(attention::kMaxBatchHeads);
    if (p.attn.batch_heads % p.batch != 0)
        return "batch = " + std::to_string(p.batch) + " does not divide batch x heads = " +
               std::to_string(p.attn.batch_heads) + ": each batch element needs the same number of heads";
    if (std::find(std::begin(kSigmaChoices), std::end(kSigmaChoices), p.sigma_d) == std::end(kSigmaChoices))
        return "sigma_d = " + number(p.sigma_d) + " is not one of the choices: it must be 0.5 or 1";
    if (!std::isfinite(p.t) || p.t < 0 || p.t > kMaxT)
        return "t = " + number(p.t) + " is out of range: it must be between 0 and " + number(kMaxT);
    return "";
}

std::string validate(const std::string& variant, const SkipParams& p) {
    if (!has_variant(variant))
        return "unknown skip variant '" + variant +
               "': attention, two_pass, fused, teaching_two_pass, teaching_fused, wgmma_two_pass or wgmma_fused";
    if (std::string bad = validate(p); !bad.empty()) return bad;
    // flash_tc's own limits, with the skip variants that lift them (attention's message names its own).
    const attention::Variant kernel = base_kernel(variant_of(variant));
    if (kernel == attention::Variant::flash_tc) {
        if (p.attn.dtype == DType::f32)
            return variant + " runs flash_tc, on tensor cores in fp16 or bf16 only (fp32 accumulation); for fp32 use "
                             "teaching_two_pass or teaching_fused";
        if (p.attn.d != 32 && p.attn.d != 64 && p.attn.d != 128)
            return variant + " runs flash_tc, built for d = 32, 64 or 128, not d = " + std::to_string(p.attn.d) +
                   "; teaching_two_pass and teaching_fused take any d <= 128";
    }
    // flash_wgmma's (attention's message names its own limits; these name the variants that lift them).
    if (kernel == attention::Variant::flash_wgmma) {
        if (p.attn.dtype == DType::f32)
            return variant + " runs flash_wgmma, on tensor cores in fp16 or bf16 only (fp32 accumulation); for fp32 use "
                             "teaching_two_pass or teaching_fused";
        if (p.attn.d != 64 && p.attn.d != 128)
            return variant + " runs flash_wgmma, built for d = 64 or 128, not d = " + std::to_string(p.attn.d) +
                   "; two_pass and fused (flash_tc) take d = 32, the teaching variants any d <= 128";
    }
    if (std::string bad = attention::validate(base_variant(variant), p.attn); !bad.empty())
        return variant + " runs " + base_variant(variant) + ": " + bad;
    return "";
}

std::string device_refusal(const std::string& variant, const SkipParams& p, const DeviceBudget& dev) {
    if (std::string bad = validate(variant, p); !bad.empty()) return bad;
    // The base kernel's limits (compute capability, shared memory); its memory check counts only
    // q, k, v, o, so ours below replaces it with this variant's buffers.
    DeviceBudget unlimited = dev;
    unlimited.memory_bytes = UINT64_MAX;
    if (std::string why = attention::device_refusal(base_variant(variant), p.attn, unlimited); !why.empty())
        return variant + " runs " + base_variant(variant) + ": " + why;
    const uint64_t need = device_bytes(variant, p);
    if (need > dev.memory_bytes)
        return variant + " needs " + attention::format_gib(need) + " for its buffers; " +
               attention::format_gib(dev.memory_bytes) + " of GPU memory " + dev.memory_what;
    return "";
}

int64_t heads_per_batch(const SkipParams& p) { return p.attn.batch_heads / std::max<int64_t>(p.batch, 1); }

double t_of(const SkipParams& p, int64_t b) {
    return p.t * static_cast<double>(b + 1) / static_cast<double>(p.batch);
}
double c_skip(double sigma_d, double t) { return sigma_d * sigma_d / (t * t + sigma_d * sigma_d); }
double c_out(double sigma_d, double t) { return sigma_d * t / std::sqrt(sigma_d * sigma_d + t * t); }

// =============================================================================================
// [SECTION] Params of the app <-> SkipParams (the one mapping)
// =============================================================================================
SkipParams to_skip(const Params& p) {
    SkipParams s;
    s.attn = attention::to_attention(p);
    s.batch = p.get_int("batch");
    s.sigma_d = p.get("sigma_d");
    s.t = p.get("t");
    return s;
}

Params to_params(const SkipParams& s) {
    Params p = attention::to_params(s.attn);
    p.workload = "skip";
    p.set("batch", static_cast<double>(s.batch)).set("sigma_d", s.sigma_d).set("t", s.t);
    return p;
}

// =============================================================================================
// [SECTION] Schedule
// =============================================================================================
int skip_vector_width(const SkipParams& p) { return p.attn.d % 8 == 0 ? 8 : 1; }

uint64_t skip_blocks(const SkipParams& p) {
    const uint64_t per_block = u(kSkipThreads) * u(skip_vector_width(p));
    return ceil_div(u(p.attn.batch_heads) * u(p.attn.N) * u(p.attn.d), per_block);
}

namespace {

// The attention kernel's store of Oi becomes the epilogue. Its text is "store Oi (Oi / l)", for
// flash_wgmma followed by where from, then the block suffix " (row block(s) i = ...)".
std::string suffix_of(const TileEvent& e) {
    const size_t at = e.what.find(" (row block");
    return at == std::string::npos ? "" : e.what.substr(at);
}

void retarget_attention_store(Schedule& s, bool fused, bool wgmma) {
    std::vector<TileEvent> events;
    for (const TileEvent& e : s.events) {
        if (e.kind != EventKind::store || e.buffer != "O") {
            events.push_back(e);
            continue;
        }
        const std::string suffix = suffix_of(e);
        const std::string registers = wgmma ? " from the consumer warpgroups' registers" : "";
        if (!fused) {
            events.push_back({e.kind, e.kernel, "attn_out", e.bytes, 0, e.repeat,
                              "write attn_out tile Oi / l" + registers + suffix});
            continue;
        }
        // The x tile has Oi's shape and bytes (rows x d: one head's d columns of x for those rows).
        events.push_back({EventKind::load, e.kernel, "x", e.bytes, 0, e.repeat,
                          (wgmma ? "load x tile into SRAM: the producer warp's TMA copy, in Qi's place once each consumer "
                                   "warpgroup's last Sij is done"
                                 : "load x tile into SRAM (in Qi's place: Qi is done)") +
                              suffix});
        events.push_back({EventKind::compute, e.kernel, "", 0, 0, e.repeat,
                          std::string("compute c_skip(t_b)*x + c_out(t_b)*Oi / l in ") +
                              (wgmma ? "the consumer warpgroups' registers" : "registers") +
                              " (t_b: this block's batch element)" + suffix});
        events.push_back({EventKind::store, e.kernel, "out", e.bytes, 0, e.repeat,
                          "write out tile = c_skip*x + c_out*O (O = Oi / l, never stored)" + suffix});
    }
    s.events = std::move(events);
}

// The epilogue's 3 FLOPs per element sit on the compute event before the store of out.
void add_epilogue_flops(Schedule& s, const SkipParams& p) {
    const uint64_t es = u(dtype_bytes(p.attn.dtype));
    for (size_t i = 0; i + 1 < s.events.size(); ++i)
        if (s.events[i].kind == EventKind::compute && s.events[i + 1].kind == EventKind::store &&
            s.events[i + 1].buffer == "out")
            s.events[i].flops = 3.0 * static_cast<double>(s.events[i + 1].bytes / es);
}

// The skip kernel: elementwise over out in [batch, N, C] order, skip_vector_width() elements per
// thread, kSkipThreads threads per block; the last block may be ragged.
void add_skip_kernel(Schedule& s, const SkipParams& p) {
    const uint64_t es = u(dtype_bytes(p.attn.dtype));
    const uint64_t total = u(p.attn.batch_heads) * u(p.attn.N) * u(p.attn.d);
    const uint64_t per_block = u(kSkipThreads) * u(skip_vector_width(p));
    const uint64_t blocks = skip_blocks(p), full = total / per_block, tail = total - full * per_block;
    const int k = static_cast<int>(s.kernels.size());
    s.kernels.push_back({"skip", blocks, kSkipThreads, false});
    auto add_block = [&](uint64_t elements, uint64_t repeat, const std::string& which) {
        s.events.push_back({EventKind::load, k, "attn_out", elements * es, 0, repeat,
                            "load attn_out tile into registers" + which});
        s.events.push_back({EventKind::load, k, "x", elements * es, 0, repeat, "load x tile into registers" + which});
        s.events.push_back({EventKind::compute, k, "", 0, 3.0 * static_cast<double>(elements), repeat,
                            "compute c_skip(t_b)*x + c_out(t_b)*attn_out in registers" + which});
        s.events.push_back({EventKind::store, k, "out", elements * es, 0, repeat,
                            "write out tile = c_skip*x + c_out*O" + which});
    };
    if (full > 0)
        add_block(per_block, full, " (" + std::to_string(full) + (full == 1 ? " block of " : " blocks of ") +
                                       std::to_string(per_block) + " elements)");
    if (tail > 0)
        add_block(tail, 1, " (last block) [ragged: " + std::to_string(tail) + " of " + std::to_string(per_block) +
                               " elements]");
}

}  // namespace

Schedule schedule(const std::string& variant, const SkipParams& p) {
    if (const std::string bad = validate(variant, p); !bad.empty()) throw std::invalid_argument(bad);
    const Variant v = variant_of(variant);
    Schedule s = attention::schedule(base_kernel(v), p.attn);
    // fused runs flash_tc's instance with the epilogue, which has its own register report.
    if (v == Variant::fused) s.kernels[0].registers = attention::flash_tc_registers(p.attn, true);
    // wgmma_fused likewise (flash_wgmma's epilogue instance: at 64 x 64, d = 64, 149 registers a thread, one block an
    // SM, where wgmma_two_pass's attention kernel holds 119 and runs two).
    if (v == Variant::wgmma_fused) s.kernels[0].registers = attention::flash_wgmma_launch_registers(p.attn, true);
    // The teaching kernel with the epilogue runs the same compiled j-loop, registers, shared memory and
    // grid as without it, yet each warp waits 6.56 cycles per issued instruction against 4.55 (ncu,
    // H100, 2026-11-25, kernels/PERF.md "The teaching kernel's j-loop as one shared function"), for a
    // cause not yet found. Enough warps hide it: in the H200's re-take of 2026-11-28 12:49 UTC it ran at
    // teaching_two_pass's time where 8 or more blocks (32 warps) share an SM (16 x 16, 16 x 32, 16 x 64 at
    // d = 64), 1.22-1.30x where 4-5 do, 1.43-1.50x at 3 and 1.73x alone (kernels/PERF.md, "Held out, fifth
    // pass"): its full rate needs 32 resident warps (BlockShape::full_rate_warps). Was 4.55 / 6.56 of the
    // rates at Br >= 64 only.
    if (v == Variant::teaching_fused) {
        s.kernels[0].block.full_rate_warps = 32;
        s.kernels[0].block.source += "; teaching_fused: its full rate needs 32 resident warps (ncu: 6.56 cycles an "
                                     "instruction against 4.55)";
    }
    // The fused epilogue loads the x tile after the loop, in Qi's place: one more trip to memory on
    // each block's critical path.
    if (is_fused(v)) s.kernels[0].block.memory_trips += 1;
    retarget_attention_store(s, is_fused(v), base_kernel(v) == attention::Variant::flash_wgmma);
    if (is_two_pass(v)) add_skip_kernel(s, p);
    add_epilogue_flops(s, p);  // the skip kernel's compute event gets the same 3 per element it has
    return s;
}

Model model(const std::string& variant, const SkipParams& p) { return model_from_schedule(schedule(variant, p)); }

// =============================================================================================
// [SECTION] Totals
// =============================================================================================
uint64_t tensor_bytes(const SkipParams& p) {
    return u(p.attn.batch_heads) * u(p.attn.N) * u(p.attn.d) * u(dtype_bytes(p.attn.dtype));
}
uint64_t min_bytes(const SkipParams& p) { return 5 * tensor_bytes(p); }

uint64_t device_bytes(const std::string& variant, const SkipParams& p) {
    // q, k, v always; attn_out unless fused; x and out unless attention.
    const uint64_t tensors = 3 + (has_attn_out(variant) ? 1 : 0) + (writes_out(variant) ? 2 : 0);
    return tensors * tensor_bytes(p);
}

uint64_t extra_bytes_over_attention(const std::string& variant, const SkipParams& p) {
    if (is_two_pass(variant)) return 3 * tensor_bytes(p);
    if (is_fused(variant)) return tensor_bytes(p);
    return 0;
}

}  // namespace kernels::skip
