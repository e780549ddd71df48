// The feed-forward block as the rest of the program sees it (kernels/core/workload_def.h):
// out = GELU(x·W1 + b1)·W2 + b2 as 5, 4 or 2 kernels, or 2 replayed from a CUDA graph.
// ffn.h says what each variant does; ffn_model.cpp counts its bytes.
#include "kernels/sim/emulate.h"
#include "kernels/core/format.h"
#include "kernels/core/workload_def.h"
#include "kernels/ffn/ffn.h"

#include <cmath>
#include <cstdio>
#include <memory>

namespace kernels {

#if FUSIONLAB_HAVE_CUDA
namespace ffn::gpu {
std::unique_ptr<GpuWorkload> make_gpu_workload();  // ffn.cu
}  // namespace ffn::gpu
#endif

namespace ffn {

FfnParams to_ffn(const Params& p) {
    FfnParams f;
    f.dtype = p.dtype;
    f.M = p.get_int("M");
    f.d_model = p.get_int("d_model");
    const int64_t d_ff = p.get_int("d_ff");
    f.d_ff = d_ff == 0 ? 4 * f.d_model : d_ff;
    f.seed = seed_of(p);
    return f;
}

namespace {

// =============================================================================================
// Parameters
// =============================================================================================
const ParamSpec kTokens{"M", "tokens M", 1, static_cast<double>(kMaxTokens), true, true,
                        "Tokens in the batch: the rows of x. Decode runs 1..64 (each weight is used M times: the\n"
                        "GEMMs stream W1 and W2 at memory speed and the launches show); prefill 4096 and up (the\n"
                        "GEMMs are compute-bound and the M x d_ff activations are the bytes fusion saves).",
                        2048, ParamKind::number, {}, 1, static_cast<double>(kMaxTokens)};
const ParamSpec kModel{"d_model", "d_model", static_cast<double>(kMinModel), static_cast<double>(kMaxModel), true, true,
                       "Model width: x and out are M x d_model, W1 is d_model x d_ff, W2 d_ff x d_model.\n"
                       "A multiple of 8 (16-byte rows, as cuBLASLt's tensor-core kernels want).",
                       4096};
const ParamSpec kFf{"d_ff", "d_ff (0: 4 x d_model)", 0, static_cast<double>(kMaxFf), true, false,
                    "Hidden width of the block: h and act are M x d_ff. 0 means 4 x d_model, the usual choice.\n"
                    "Otherwise 256 .. 32768, a multiple of 8.",
                    0};

// The pricing and model hooks read the job's FfnParams, decoded once (WorkloadDef::decode).
const FfnParams& job_params(const DecodedParams& d) { return decoded_as<FfnParams>(d); }

std::string validate_of(const DecodedParams& p) { return validate(job_params(p)); }
Schedule schedule_of(const std::string& variant, const DecodedParams& p) { return schedule(variant, job_params(p)); }
void l2_reuse_of(const std::string& variant, const DecodedParams& p, uint64_t l2_bytes, Model& m) {
    gemm_l2_reuse(variant, job_params(p), l2_bytes, m);
}
uint64_t min_bytes_of(const DecodedParams& p) { return min_bytes(job_params(p)); }

// cuBLASLt's workspace (ffn.cu allocates it with the buffers).
constexpr uint64_t kWorkspaceBytes = uint64_t{32} << 20;

std::string device_refusal(const std::string& variant, const DecodedParams& params, const DeviceBudget& device) {
    const FfnParams& p = job_params(params);
    const uint64_t need = buffer_set_bytes(variant, p) + kWorkspaceBytes;
    if (device.memory_bytes > 0 && need > device.memory_bytes) {
        std::string names;
        for (const std::string& b : buffers(variant)) names += (names.empty() ? "" : ", ") + b;
        return "ffn " + variant + " needs " + format_bytes(static_cast<double>(need)) + " (" + names +
               " and a 32 MiB cuBLASLt workspace) but the GPU has " +
               format_bytes(static_cast<double>(device.memory_bytes)) + " " + device.memory_what +
               "; try fewer tokens M or a smaller d_model / d_ff";
    }
    if (device.device.cc_major > 0 && device.device.cc_major < 7 && p.dtype != DType::f32)
        return "fp16/bf16 GEMMs on tensor cores need compute capability 7.0 or newer (bf16: 8.0); this GPU is " +
               std::to_string(device.device.cc_major) + "." + std::to_string(device.device.cc_minor);
    if (device.device.cc_major > 0 && device.device.cc_major < 8 && p.dtype == DType::bf16)
        return "bf16 GEMMs need compute capability 8.0 or newer; this GPU is " + std::to_string(device.device.cc_major) +
               "." + std::to_string(device.device.cc_minor) + ": use fp16";
    return "";
}

std::string describe_of(const Params& params, const std::string&) {
    const FfnParams p = to_ffn(params);
    return "M=" + std::to_string(p.M) + ", d_model=" + std::to_string(p.d_model) + ", d_ff=" + std::to_string(p.d_ff);
}

TensorFootprint footprint(const DecodedParams& params, const std::string& buffer) {
    const FfnParams& p = job_params(params);
    const uint64_t es = static_cast<uint64_t>(dtype_bytes(p.dtype));
    const std::string es_text = std::to_string(es) + " B";
    const uint64_t bytes = buffer_elements(p, buffer) * es;
    const std::string M = std::to_string(p.M), d = std::to_string(p.d_model), f = std::to_string(p.d_ff);
    if (buffer == "x" || buffer == "y" || buffer == "out")
        return {bytes, "M x d_model x " + es_text + " = " + M + " x " + d + " x " + es_text};
    if (buffer == "W1") return {bytes, "d_model x d_ff x " + es_text + " = " + d + " x " + f + " x " + es_text};
    if (buffer == "W2") return {bytes, "d_ff x d_model x " + es_text + " = " + f + " x " + d + " x " + es_text};
    if (buffer == "b1") return {bytes, "d_ff x " + es_text + " = " + f + " x " + es_text};
    if (buffer == "b2") return {bytes, "d_model x " + es_text + " = " + d + " x " + es_text};
    return {bytes, "M x d_ff x " + es_text + " = " + M + " x " + f + " x " + es_text};
}

// The GEMMs are cuBLAS's (tiles of its own choosing); the bias and GELU kernels keep their
// elements in registers.
OnChip on_chip(const std::string&, const Params&, const ScheduleKernel& k) {
    return k.name.rfind("gemm", 0) == 0 ? OnChip::library : OnChip::registers;
}

EmulatedCheck emulate_of(const std::string& variant, const Params& p, const EmulationBudget& budget) {
    return emulate(variant, to_ffn(p), budget);
}

// Under the bench's row: how much of the model's bytes are weights, and each kernel's time on the
// GPU clock from the timeline (the timed reps give one time for the whole run), with the
// elementwise kernels' share of the copy ceiling. At small M the libraries split K and add a
// reduction kernel: the timeline then has more kernels than the model and keeps their own names.
std::string bench_note(const Measurement& m) {
    const FfnParams p = to_ffn(m.job.params);
    const uint64_t es = static_cast<uint64_t>(dtype_bytes(p.dtype));
    const double weights = static_cast<double>((2 * static_cast<uint64_t>(p.d_model) * static_cast<uint64_t>(p.d_ff)) * es);
    const double total = static_cast<double>(m.bytes());
    char head[96];
    std::snprintf(head, sizeof head, "weights %.0f%% of the model's bytes", total > 0 ? 100.0 * weights / total : 0.0);
    std::string text = head;
    if (m.timeline.empty() || m.device.simulated) return text;
    const size_t modeled = schedule(m.job.variant, p).kernels.size();
    if (m.timeline.size() != modeled)
        text += "; " + std::to_string(m.timeline.size()) + " kernels on the GPU for the model's " +
                std::to_string(modeled) + " (the library split K and added a reduction kernel)";
    text += "; kernels on the GPU clock:";
    for (const KernelSpan& k : m.timeline) {
        const double us = (k.end_ms - k.start_ms) * 1e3;
        const std::string name = k.name.size() > 28 ? k.name.substr(0, 25) + "..." : k.name;
        char cell[128];
        if (k.name.rfind("gemm", 0) != 0 && k.bytes > 0 && m.device.measured_copy_gbps && us > 0)
            std::snprintf(cell, sizeof cell, " %s %.2f us (%.0f%% of copy)", name.c_str(), us,
                          100.0 * static_cast<double>(k.bytes) / (us * 1e3) / *m.device.measured_copy_gbps);
        else
            std::snprintf(cell, sizeof cell, " %s %.2f us", name.c_str(), us);
        text += cell;
    }
    return text;
}

}  // namespace
}  // namespace ffn

const WorkloadDef& ffn_workload() {
    static const WorkloadDef def = [] {
        WorkloadDef w;
        w.name = "ffn";
        w.title = "feed-forward block: GELU(x·W1 + b1)·W2 + b2";
        w.description =
            "A transformer layer's feed-forward block on M tokens. unfused: 5 kernels as eager mode runs them "
            "(GEMM, bias, GELU, GEMM, bias). fused_elementwise: bias+GELU in one kernel (4). epilogue: cuBLASLt GEMMs "
            "that add the bias and apply GELU to the accumulator in registers before the one store (2). "
            "epilogue_graph: those 2 replayed from a CUDA graph. Small M (decode): the weights and the launches set "
            "the time; large M (prefill): the GEMMs' FLOPs.";
        w.params = {ffn::kTokens, ffn::kModel, ffn::kFf, seed_param()};
        // Each rung against the one below it, so each pair shows one change: fused_elementwise vs
        // unfused (bias+GELU in one kernel), epilogue vs fused_elementwise (the elementwise work moved
        // into the GEMMs' epilogues), epilogue_graph vs epilogue (the same 2 kernels from a CUDA graph:
        // launches only, no bytes).
        w.variants = with_baselines(ffn::variants(), {{"fused_elementwise", "unfused"},
                                                      {"epilogue", "fused_elementwise"},
                                                      {"epilogue_graph", "epilogue"}});
        w.decode = decode_with<ffn::FfnParams, ffn::to_ffn>;
        w.validate = ffn::validate_of;
        w.schedule = ffn::schedule_of;
        w.min_bytes = ffn::min_bytes_of;
        w.device_refusal = ffn::device_refusal;
        w.describe = ffn::describe_of;
        w.footprint = ffn::footprint;
        w.l2_reuse = ffn::l2_reuse_of;
        w.on_chip = ffn::on_chip;
        w.bench_note = ffn::bench_note;
        w.emulate = ffn::emulate_of;
        w.timed_from_idle = true;  // ffn.cu times every variant as whole runs from an idle GPU, as a decode step runs
#if FUSIONLAB_HAVE_CUDA
        w.make_gpu = ffn::gpu::make_gpu_workload;
#endif
        return w;
    }();
    return def;
}

}  // namespace kernels
