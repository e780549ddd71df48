// The two elementwise workloads as the rest of the program sees them (kernels/core/workload_def.h):
// chain (LayerNorm -> GELU -> Dropout -> residual add) and bias_gelu. Their kernels, model and CPU
// reference are the other files of this folder; elementwise.h says what each variant does.
#include "kernels/sim/emulate.h"
#include "kernels/core/workload_def.h"
#include "kernels/elementwise/elementwise.h"

#include <cmath>
#include <memory>
#include <stdexcept>

namespace kernels {

#if FUSIONLAB_HAVE_CUDA
namespace elementwise::gpu {
std::unique_ptr<GpuWorkload> make_chain_gpu();      // elementwise.cu
std::unique_ptr<GpuWorkload> make_bias_gelu_gpu();  // elementwise.cu
}  // namespace elementwise::gpu
#endif

namespace elementwise {

ElementwiseParams to_elementwise(const Params& p) {
    ElementwiseParams e;
    e.chain = p.workload == "chain";
    e.dtype = p.dtype;
    e.rows = p.get_int("rows");
    e.hidden = p.get_int("hidden");
    e.dropout_p = e.chain ? p.get("dropout") : 0.0;
    e.seed = seed_of(p);
    return e;
}

Params to_params(const ElementwiseParams& e) {
    Params p;
    p.workload = e.chain ? "chain" : "bias_gelu";
    p.dtype = e.dtype;
    p.set("rows", e.rows).set("hidden", e.hidden).set("seed", e.seed);
    if (e.chain) p.set("dropout", e.dropout_p);
    return p;
}

namespace {

// =============================================================================================
// Parameters
// =============================================================================================
const ParamSpec kRows{"rows", "rows (tokens)", 1, 1048576, true, true,
                      "Rows of the activation matrix: tokens = batch x sequence length.\n"
                      "Every kernel's bytes grow linearly with rows x hidden.",
                      4096};
const ParamSpec kHidden{"hidden", "hidden size", 1, 65536, true, true,
                        "Features per row (model width). LayerNorm normalises across one row, so a fused kernel\n"
                        "keeps a whole row on chip: hidden x 4 bytes of registers per row. Rows longer than one\n"
                        "block holds (past 16384 in fp16/bf16, 8192 in fp32) are shared by a cluster of blocks\n"
                        "(compute capability 9.0 and later).",
                        4096};
const ParamSpec kDropout{"dropout", "dropout p", 0, 0.99, false, false,
                         "Probability of zeroing an element; kept elements are scaled by 1/(1-p).\n"
                         "The mask is Philox(seed, index), regenerated in each kernel, never stored.",
                         0.1};

// The pricing and model hooks read the job's ElementwiseParams, decoded once (WorkloadDef::decode).
const ElementwiseParams& job_params(const DecodedParams& d) { return decoded_as<ElementwiseParams>(d); }

// After the specs' checks: rows and hidden are whole numbers, as the decoded struct holds them.
std::string validate_size(const DecodedParams& p) {
    const ElementwiseParams& e = job_params(p);
    const double elements = static_cast<double>(e.rows) * static_cast<double>(e.hidden);
    if (elements > kMaxElements)
        return "rows x hidden = " + param_number_text(elements) + " elements is too large: at most " +
               param_number_text(kMaxElements) + " (2^30)";
    return "";
}

// =============================================================================================
// Model, description, memory view
// =============================================================================================
Schedule chain(const std::string& variant, const DecodedParams& p) { return chain_schedule(variant, job_params(p)); }
Schedule bias_gelu(const std::string& variant, const DecodedParams& p) {
    return bias_gelu_schedule(variant, job_params(p));
}

uint64_t min_bytes_of(const DecodedParams& p) {
    const ElementwiseParams& e = job_params(p);
    const uint64_t es = static_cast<uint64_t>(dtype_bytes(e.dtype));
    const uint64_t n = static_cast<uint64_t>(e.rows) * static_cast<uint64_t>(e.hidden);
    const uint64_t h = static_cast<uint64_t>(e.hidden);
    if (e.chain) return (2 * n + 2 * h + n) * es;  // read x, residual, gamma, beta; write out
    return (n + h + n) * es;                       // read x, bias; write out
}

// "8192 x 8192", and with a variant the layout its kernels launch with (row_config / flat_config:
// the one choice the launcher, the model and the memory view share), as attention names its tile.
std::string describe(const Params& p, const std::string& variant) {
    const std::string shape = std::to_string(p.get_int("rows")) + " x " + std::to_string(p.get_int("hidden"));
    if (variant.empty()) return shape;
    const ElementwiseParams e = to_elementwise(p);
    try {
        if (!e.chain) return shape + ", " + config_text(flat_config(e));
        const Variant v = variant_of(e, variant);
        const std::string rows = config_text(row_config(e, v == Variant::fused_spill ? RowKernel::spill : RowKernel::picked));
        return shape + ", " + (v == Variant::unfused ? "layernorm " + rows + "; flat kernels " + config_text(flat_config(e)) : rows);
    } catch (const std::invalid_argument& bad) {
        return shape + " (" + bad.what() + ")";  // a forced layout that cannot run says why
    }
}

// What a device cannot run of the chain: fused_spill past one block's row (the lesson's kernel,
// kept as measured), and a row shared by a thread-block cluster before compute capability 9.0.
std::string chain_device_refusal(const std::string& variant, const DecodedParams& p, const DeviceBudget& budget) {
    const ElementwiseParams& e = job_params(p);
    RowConfig c;
    try {
        c = row_config(e, variant_of(e, variant) == Variant::fused_spill ? RowKernel::spill : RowKernel::picked);
    } catch (const std::invalid_argument& bad) {
        return bad.what();
    }
    const DeviceInfo& d = budget.device;
    if (c.staged && d.smem_per_block_optin > 0 && c.staged_bytes(e.dtype) > d.smem_per_block_optin)
        return "hidden " + std::to_string(e.hidden) + " stages " + std::to_string(c.staged_bytes(e.dtype) / 1024) +
               " KiB of the row per block in shared memory (" + config_text(c) + "); " + d.name + " allows " +
               std::to_string(d.smem_per_block_optin / 1024) + " KiB per block";
    if (c.ctas_per_row > 1 && d.cc_major > 0 && d.cc_major < 9)
        return "hidden " + std::to_string(e.hidden) + " runs as a cluster of " + std::to_string(c.ctas_per_row) +
               " blocks per row, which needs compute capability 9.0 or later; " + d.name + " is " +
               std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
    return "";
}

// Tensors are rows x hidden except the hidden-long vectors gamma, beta, bias.
TensorFootprint footprint(const DecodedParams& p, const std::string& name) {
    const ElementwiseParams& e = job_params(p);
    const uint64_t es = static_cast<uint64_t>(dtype_bytes(e.dtype));
    const std::string es_text = std::to_string(es) + " B";
    if (name == "gamma" || name == "beta" || name == "bias")
        return {static_cast<uint64_t>(e.hidden) * es,
                "hidden x " + es_text + " = " + std::to_string(e.hidden) + " x " + es_text};
    return {static_cast<uint64_t>(e.rows) * static_cast<uint64_t>(e.hidden) * es,
            "rows x hidden x " + es_text + " = " + std::to_string(e.rows) + " x " + std::to_string(e.hidden) + " x " +
                es_text};
}

EmulatedCheck emulate_of(const std::string& variant, const Params& p, const EmulationBudget& budget) {
    return emulate(variant, to_elementwise(p), budget);
}

// Each thread keeps its elements in registers.
OnChip on_chip(const std::string&, const Params&, const ScheduleKernel&) { return OnChip::registers; }

}  // namespace
}  // namespace elementwise

// =============================================================================================
// The definitions
// =============================================================================================
const WorkloadDef& chain_workload() {
    static const WorkloadDef def = [] {
        WorkloadDef w;
        w.name = "chain";
        w.title = "LayerNorm -> GELU -> Dropout -> add";
        w.description =
            "LayerNorm -> GELU -> Dropout -> residual add on a rows x hidden activation, as after a "
            "transformer block's attention. Unfused: 4 kernels, each reading and writing HBM. "
            "Fused: 1 kernel keeps each row on chip.";
        w.params = {elementwise::kRows, elementwise::kHidden, elementwise::kDropout, seed_param()};
        // fused vs unfused: what keeping the row on chip saves. fused_spill vs fused: the same kernel
        // with its registers capped, so the pair shows exactly what spilling costs (it is slower than
        // fused; against unfused it would mix the fusion's gain with the spill's loss).
        w.variants = with_baselines({
            {"unfused", "4 kernels: LayerNorm, GELU, Dropout, Add. Each reads its input from HBM and writes its output "
                        "back: three intermediate tensors make the round trip.",
             4},
            {"fused", "1 kernel: each row is loaded once, normalised, activated, dropped out and added to the residual "
                      "in registers, then stored once.",
             1},
            {"fused_spill", "The fused kernel built for twice the resident warps: capped at 32 registers, it spills "
                            "part of the row to local memory (HBM-backed, cached in L1/L2) and reads it back: a fused "
                            "kernel that spills is an unfused kernel in disguise.",
             1}},
            {{"fused", "unfused"}, {"fused_spill", "fused"}});
        w.decode = decode_with<elementwise::ElementwiseParams, elementwise::to_elementwise>;
        w.validate = elementwise::validate_size;
        w.schedule = elementwise::chain;
        w.min_bytes = elementwise::min_bytes_of;
        w.device_refusal = elementwise::chain_device_refusal;
        w.describe = elementwise::describe;
        w.footprint = elementwise::footprint;
        w.on_chip = elementwise::on_chip;
        w.emulate = elementwise::emulate_of;
#if FUSIONLAB_HAVE_CUDA
        w.make_gpu = elementwise::gpu::make_chain_gpu;
#endif
        return w;
    }();
    return def;
}

const WorkloadDef& bias_gelu_workload() {
    static const WorkloadDef def = [] {
        WorkloadDef w;
        w.name = "bias_gelu";
        w.title = "bias + GELU";
        w.description =
            "y = GELU(x + bias), the MLP epilogue. Unfused: a bias kernel, then a GELU kernel "
            "(the sum makes a round trip through HBM). Fused: one kernel.";
        w.params = {elementwise::kRows, elementwise::kHidden, seed_param()};
        // fused vs unfused: h's round trip through memory is the whole difference.
        w.variants = with_baselines({{"unfused", "2 kernels: bias add writes h = x + bias to HBM, GELU reads it back.", 2},
                                     {"fused", "1 kernel: x + bias and GELU in registers; h never reaches HBM.", 1}},
                                    {{"fused", "unfused"}});
        w.decode = decode_with<elementwise::ElementwiseParams, elementwise::to_elementwise>;
        w.validate = elementwise::validate_size;
        w.schedule = elementwise::bias_gelu;
        w.min_bytes = elementwise::min_bytes_of;
        w.describe = elementwise::describe;
        w.footprint = elementwise::footprint;
        w.on_chip = elementwise::on_chip;
        w.emulate = elementwise::emulate_of;
#if FUSIONLAB_HAVE_CUDA
        w.make_gpu = elementwise::gpu::make_bias_gelu_gpu;
#endif
        return w;
    }();
    return def;
}

}  // namespace kernels
