// The skip-connection workload as the rest of the program sees it (kernels/core/workload_def.h):
// out = c_skip(t) x + c_out(t) attention(q, k, v), two passes against the skip fused into the
// attention kernel's epilogue. Its attention parameters are the attention workload's (same names,
// same specs); skip.h says what each variant does.
#include "kernels/attention/attention.h"
#include "kernels/sim/emulate.h"
#include "kernels/core/workload_def.h"
#include "kernels/skip/skip.h"

#include <iterator>
#include <memory>

namespace kernels {

#if FUSIONLAB_HAVE_CUDA
namespace skip::gpu {
std::unique_ptr<GpuWorkload> make_gpu_workload();  // skip.cu
}  // namespace skip::gpu
namespace attention::gpu {
std::string kernel_not_built(const std::string& kernel);  // attention.cu (attention_epilogue.cuh)
}  // namespace attention::gpu
#endif

namespace skip {
namespace {

// =============================================================================================
// Parameters (skip.h validates the combination: batch must divide batch x heads)
// =============================================================================================
const ParamSpec kBatch{"batch", "batch (elements, one t each)", 1,
                       static_cast<double>(attention::kMaxBatchHeads), true, true,
                       "Batch elements: batch x heads is split into this many elements of batch_heads / batch heads.\n"
                       "Each element has its own noise level t_b = t (b + 1) / batch; it must divide batch x heads.",
                       4};
const ParamSpec kSigmaD{"sigma_d", "sigma_d (data std)", 0.5, 1, false, false,
                        "Standard deviation of the data in the consistency-model parametrisation:\n"
                        "c_skip(t) = sigma_d^2 / (t^2 + sigma_d^2), c_out(t) = sigma_d t / sqrt(sigma_d^2 + t^2).",
                        0.5, ParamKind::choice,
                        std::vector<double>(std::begin(kSigmaChoices), std::end(kSigmaChoices))};
const ParamSpec kNoiseT{"t", "t (largest noise level)", 0, kMaxT, false, false,
                        "Noise level of the last batch element; element b uses t (b + 1) / batch, so one run covers a "
                        "range.\nt = 0: out = x exactly (c_skip = 1, c_out = 0). Large t: out -> sigma_d x attention.",
                        1.0};

// The pricing and model hooks read the job's SkipParams, decoded once (WorkloadDef::decode).
const SkipParams& job_params(const DecodedParams& d) { return decoded_as<SkipParams>(d); }

std::string validate_params(const DecodedParams& p) { return validate(job_params(p)); }
EmulatedCheck emulate_of(const std::string& variant, const Params& p, const EmulationBudget& budget) {
    return emulate(variant, to_skip(p), budget);
}
Schedule schedule_of(const std::string& variant, const DecodedParams& p) { return schedule(variant, job_params(p)); }
uint64_t min_bytes_of(const DecodedParams& p) { return min_bytes(job_params(p)); }
std::string refusal_of(const std::string& variant, const DecodedParams& p, const DeviceBudget& device) {
    const SkipParams& sp = job_params(p);
#if FUSIONLAB_HAVE_CUDA
    // A real GPU runs this build's kernels: a variant whose attention kernel the build does not have
    // (flash_wgmma without sm_90a code) is refused first.
    if (!device.device.simulated && has_variant(variant) && validate(variant, sp).empty())
        if (std::string missing = attention::gpu::kernel_not_built(base_variant(variant)); !missing.empty())
            return variant + " runs " + missing;
#endif
    return device_refusal(variant, sp, device);
}

// "4x4 heads, N=1024, d=64, t=1, sigma_d=0.5, tile 64x64": batch x heads per element and the tile.
std::string describe_of(const Params& p, const std::string& variant) {
    const SkipParams s = to_skip(p);
    const std::string kernel = has_variant(variant) ? base_variant(variant) : "";
    std::string text = std::to_string(s.batch) + "x" + std::to_string(heads_per_batch(s)) + " heads, N=" +
                       std::to_string(s.attn.N) + ", d=" + std::to_string(s.attn.d) + (s.attn.causal ? ", causal" : "") +
                       ", t=" + param_number_text(s.t) + ", sigma_d=" + param_number_text(s.sigma_d);
    if (!kernel.empty()) {
        const attention::Tile tile = attention::flash_tile(kernel, s.attn);
        text += ", tile " + std::to_string(tile.Br) + "x" + std::to_string(tile.Bc);
    }
    return text;
}

// Every tensor is batch_heads x N x d (x and out laid out [batch, N, heads x d]).
TensorFootprint footprint(const DecodedParams& p, const std::string& name) {
    const SkipParams& s = job_params(p);
    const std::string es = std::to_string(dtype_bytes(s.attn.dtype)) + " B";
    return {tensor_bytes(s), std::string(name == "x" || name == "out" ? "batch x N x (heads x d)" : "batch_heads x N x d") +
                                 " x " + es + " = " + std::to_string(s.attn.batch_heads) + " x " +
                                 std::to_string(s.attn.N) + " x " + std::to_string(s.attn.d) + " x " + es};
}

// The attention kernels tile in SRAM; the skip kernel keeps its elements in registers.
OnChip on_chip(const std::string&, const Params&, const ScheduleKernel& kernel) {
    return kernel.name == "skip" ? OnChip::registers : OnChip::shared_memory;
}

// auto tiles: every variant of a family (the same attention kernel) takes the tile its two-pass
// variant runs fastest, so fused against two_pass still differs only in attn_out's round trip.
std::vector<Params> auto_candidates_of(const std::string& variant, const Params& p) {
    return attention::auto_tile_candidates(base_variant(variant), p);
}
std::string auto_decider_of(const std::string& variant) {
    const std::string base = base_variant(variant);
    return base == "flash" ? "teaching_two_pass" : base == "flash_wgmma" ? "wgmma_two_pass" : "two_pass";
}

// The attention kernel's tiles; in the fused variants the x tile reuses Qi's space.
std::vector<SramPart> sram_parts(const std::string& variant, const Params& p, int) {
    const bool x_in_qi = is_fused(variant);
    return attention::flash_sram_parts(base_variant(variant), to_skip(p).attn, x_in_qi ? "Qi/x" : "Qi",
                                       x_in_qi ? " (the x tile reuses it in the epilogue)" : "");
}

}  // namespace
}  // namespace skip

const WorkloadDef& skip_workload() {
    static const WorkloadDef def = [] {
        WorkloadDef w;
        w.name = "skip";
        w.title = "skip connection: c_skip x + c_out attention";
        w.description =
            "Consistency-model skip connection out = c_skip(t) x + c_out(t) attention(q, k, v), one t per batch "
            "element. two_pass: the attention kernel writes attn_out to HBM and a skip kernel reads it back with "
            "x. fused: the attention kernel's epilogue loads the x tile and writes out once, so attn_out never "
            "reaches HBM. teaching_*: the same on the teaching kernel; wgmma_*: on flash_wgmma (H100, H200), whose "
            "producer warp brings the x tile in by TMA.";
        using attention::param;
        w.params = {param("N"),   param("d"),  param("heads"),  skip::kBatch, skip::kNoiseT,
                    skip::kSigmaD, param("br"), param("bc"), param("causal"), seed_param()};
        // Each fused epilogue against the two-pass run of the same attention kernel: the pair differs
        // only in attn_out's round trip. attention alone and the two-pass variants are baselines.
        w.variants = with_baselines(skip::variants(), {{"fused", "two_pass"},
                                                       {"teaching_fused", "teaching_two_pass"},
                                                       {"wgmma_fused", "wgmma_two_pass"}});
        w.decode = decode_with<skip::SkipParams, skip::to_skip>;
        w.validate = skip::validate_params;
        w.auto_candidates = skip::auto_candidates_of;
        w.auto_decider = skip::auto_decider_of;
        w.schedule = skip::schedule_of;
        w.min_bytes = skip::min_bytes_of;
        w.device_refusal = skip::refusal_of;
        w.describe = skip::describe_of;
        w.footprint = skip::footprint;
        w.on_chip = skip::on_chip;
        w.sram_parts = skip::sram_parts;
        w.emulate = skip::emulate_of;
#if FUSIONLAB_HAVE_CUDA
        w.make_gpu = skip::gpu::make_gpu_workload;
#endif
        return w;
    }();
    return def;
}

}  // namespace kernels
