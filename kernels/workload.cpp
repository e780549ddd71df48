// Workload registry: parameters, variants, and dispatch of schedule() to each workload's model.
#include "kernels/workload.h"

#include "kernels/attention/attention.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/skip/skip.h"
#include "kernels/launch/launch.h"

#include <cmath>
#include <cstdio>
#include <algorithm>

namespace kernels {

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------
// rows*hidden is capped so the unfused chain's six tensors fit a classroom GPU at fp32 and the
// CPU reference stays interactive when it checks sampled rows.
static constexpr double kMaxElements = 1073741824.0;  // 2^30

static const ParamSpec kRows{ParamId::rows, "rows", "rows (tokens)", 1, 1048576, true, true,
    "Rows of the activation matrix: tokens = batch x sequence length.\n"
    "Every kernel's bytes grow linearly with rows x hidden."};
static const ParamSpec kHidden{ParamId::hidden, "hidden", "hidden size", 1, 16384, true, true,
    "Features per row (model width). LayerNorm normalises across one row, so a fused kernel\n"
    "keeps a whole row on chip: hidden x 4 bytes of registers per row."};
static const ParamSpec kDropout{ParamId::dropout_p, "dropout", "dropout p", 0, 0.99, false, false,
    "Probability of zeroing an element; kept elements are scaled by 1/(1-p).\n"
    "The mask is Philox(seed, index), regenerated in each kernel, never stored."};
static const ParamSpec kSeed{ParamId::seed, "seed", "seed", 0, 9007199254740991.0, true, false,
    "Seeds the random inputs and the dropout mask. Same seed, same numbers, on GPU and CPU."};

// Attention: ranges come from kernels/attention/attention.h, which also validates (one source).
static const std::vector<double> kTileChoices(std::begin(attention::kTileSizes), std::end(attention::kTileSizes));
static const ParamSpec kSeqLen{ParamId::seq_len, "N", "N (sequence length)", 1,
    static_cast<double>(attention::kMaxN), true, true,
    "Rows of Q, K and V: tokens in the sequence. naive writes S and P, N x N each, to HBM and reads\n"
    "them back, so its bytes grow as N^2; flash's bytes grow as N (K and V re-read N/Br times)."};
static const ParamSpec kHeadDim{ParamId::head_dim, "d", "d (head dimension)", 1,
    static_cast<double>(attention::kMaxD), true, true,
    "Columns of Q, K, V per head. FLOPs are 4 N^2 d per head; flash_tc is built for d = 32, 64, 128,\n"
    "the teaching kernel flash takes any d up to 128. Larger d means larger tiles in shared memory."};
static const ParamSpec kBatchHeads{ParamId::batch_heads, "heads", "batch x heads", 1,
    static_cast<double>(attention::kMaxBatchHeads), true, true,
    "Independent attention problems (batch size times heads). Each gets its own grid rows:\n"
    "few heads at small N leave SMs idle."};
static const ParamSpec kTileBr{ParamId::tile_br, "br", "Br (Q tile rows)", 16, 128, true, true,
    "Rows of Q one flash thread block keeps on chip (Qi). K and V are read from HBM once per\n"
    "block, so larger Br means fewer re-reads, but Qi, Sij and Oi must fit in shared memory.\n"
    "flash_tc uses its own fixed tile.", ParamKind::choice, kTileChoices};
static const ParamSpec kTileBc{ParamId::tile_bc, "bc", "Bc (K/V tile rows)", 16, 128, true, true,
    "Rows of K and V staged in shared memory per loop step (Kj, Vj). A tile that does not fit\n"
    "shared memory is refused with the numbers. flash_tc uses its own fixed tile.",
    ParamKind::choice, kTileChoices};
static const ParamSpec kCausal{ParamId::causal, "causal", "causal mask", 0, 1, true, false,
    "Query row r attends to keys 0..r only (decoder attention). flash skips key tiles wholly above\n"
    "the diagonal, about half the FLOPs; naive still computes and stores the whole N x N.",
    ParamKind::boolean};

// Skip connection (kernels/skip/skip.h validates the combination: batch must divide batch x heads).
static const std::vector<double> kSigmaChoices(std::begin(skip::kSigmaChoices), std::end(skip::kSigmaChoices));
static const ParamSpec kBatch{ParamId::batch, "batch", "batch (elements, one t each)", 1,
    static_cast<double>(attention::kMaxBatchHeads), true, true,
    "Batch elements: batch x heads is split into this many elements of batch_heads / batch heads.\n"
    "Each element has its own noise level t_b = t (b + 1) / batch; it must divide batch x heads."};
static const ParamSpec kSigmaD{ParamId::sigma_d, "sigma_d", "sigma_d (data std)", 0.5, 1, false, false,
    "Standard deviation of the data in the consistency-model parametrisation:\n"
    "c_skip(t) = sigma_d^2 / (t^2 + sigma_d^2), c_out(t) = sigma_d t / sqrt(sigma_d^2 + t^2).",
    ParamKind::choice, kSigmaChoices};
static const ParamSpec kNoiseT{ParamId::noise_t, "t", "t (largest noise level)", 0, skip::kMaxT, false, false,
    "Noise level of the last batch element; element b uses t (b + 1) / batch, so one run covers a range.\n"
    "t = 0: out = x exactly (c_skip = 1, c_out = 0). Large t: out -> sigma_d x attention."};

const std::vector<ParamSpec>& param_specs(Workload w) {
    static const std::vector<ParamSpec> chain{kRows, kHidden, kDropout, kSeed};
    static const std::vector<ParamSpec> bias_gelu{kRows, kHidden, kSeed};
    static const std::vector<ParamSpec> attention_specs{kSeqLen, kHeadDim, kBatchHeads, kTileBr, kTileBc, kCausal, kSeed};
    switch (w) {
    case Workload::chain: return chain;
    case Workload::bias_gelu: return bias_gelu;
    case Workload::attention: return attention_specs;
    case Workload::skip: {
        static const std::vector<ParamSpec> skip_specs{kSeqLen, kHeadDim, kBatchHeads, kBatch, kNoiseT, kSigmaD,
                                                       kTileBr, kTileBc, kCausal, kSeed};
        return skip_specs;
    }
    case Workload::launch: return launch::param_specs();
    }
    return chain;
}

const std::vector<ParamSpec>& all_param_specs() {
    static const std::vector<ParamSpec> all = [] {
        std::vector<ParamSpec> specs;
        for (Workload w : kAllWorkloads)
            for (const ParamSpec& s : param_specs(w))
                if (std::none_of(specs.begin(), specs.end(), [&](const ParamSpec& t) { return t.id == s.id; }))
                    specs.push_back(s);
        return specs;
    }();
    return all;
}

const ParamSpec* find_param_spec(Workload w, ParamId id) {
    for (const ParamSpec& s : param_specs(w))
        if (s.id == id) return &s;
    return nullptr;
}

double get_param(const Params& p, ParamId id) {
    switch (id) {
    case ParamId::rows: return static_cast<double>(p.rows);
    case ParamId::hidden: return static_cast<double>(p.hidden);
    case ParamId::dropout_p: return p.dropout_p;
    case ParamId::seed: return static_cast<double>(p.seed);
    case ParamId::batch_heads: return static_cast<double>(p.batch_heads);
    case ParamId::seq_len: return static_cast<double>(p.seq_len);
    case ParamId::head_dim: return static_cast<double>(p.head_dim);
    case ParamId::tile_br: return static_cast<double>(p.tile_br);
    case ParamId::tile_bc: return static_cast<double>(p.tile_bc);
    case ParamId::causal: return p.causal ? 1.0 : 0.0;
    case ParamId::batch: return static_cast<double>(p.batch);
    case ParamId::sigma_d: return p.sigma_d;
    case ParamId::noise_t: return p.noise_t;
    case ParamId::steps: return static_cast<double>(p.steps);
    case ParamId::elements: return static_cast<double>(p.elements);
    }
    return 0;
}

void set_param(Params& p, ParamId id, double value) {
    const auto whole = [&] { return static_cast<int64_t>(std::llround(value)); };
    switch (id) {
    case ParamId::rows: p.rows = whole(); break;
    case ParamId::hidden: p.hidden = whole(); break;
    case ParamId::dropout_p: p.dropout_p = value; break;
    case ParamId::seed: p.seed = static_cast<uint64_t>(std::llround(value < 0 ? 0 : value)); break;
    case ParamId::batch_heads: p.batch_heads = whole(); break;
    case ParamId::seq_len: p.seq_len = whole(); break;
    case ParamId::head_dim: p.head_dim = whole(); break;
    case ParamId::tile_br: p.tile_br = whole(); break;
    case ParamId::tile_bc: p.tile_bc = whole(); break;
    case ParamId::causal: p.causal = value != 0; break;
    case ParamId::batch: p.batch = whole(); break;
    case ParamId::sigma_d: p.sigma_d = value; break;
    case ParamId::noise_t: p.noise_t = value; break;
    case ParamId::steps: p.steps = whole(); break;
    case ParamId::elements: p.elements = whole(); break;
    }
}

static std::string number(double v) {
    char buf[48];
    if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
    else std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string legal_values_text(const ParamSpec& spec) {
    switch (spec.kind) {
    case ParamKind::boolean: return "0 or 1";
    case ParamKind::choice: {
        std::string text;
        for (size_t i = 0; i < spec.choices.size(); ++i) {
            if (i > 0) text += i + 1 == spec.choices.size() ? " or " : ", ";
            text += number(spec.choices[i]);
        }
        return text;
    }
    case ParamKind::number: break;
    }
    return number(spec.min) + " .. " + number(spec.max);
}

std::string check_param_value(const ParamSpec& spec, double value) {
    const std::string named = std::string(spec.name) + " = " + number(value);
    if (!std::isfinite(value)) return std::string(spec.name) + " is not a finite number";
    switch (spec.kind) {
    case ParamKind::boolean:
        if (value != 0 && value != 1) return named + " is not a switch: it must be 0 or 1";
        return "";
    case ParamKind::choice:
        if (std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end())
            return named + " is not one of the choices: it must be " + legal_values_text(spec);
        return "";
    case ParamKind::number: break;
    }
    if (value < spec.min || value > spec.max)
        return named + " is out of range: it must be between " + number(spec.min) + " and " + number(spec.max);
    if (spec.integer && value != std::floor(value)) return named + " is not a whole number";
    return "";
}

std::string validate(const Params& p) {
    if (p.workload == Workload::skip) {
        for (const ParamSpec& s : {kBatch, kSigmaD, kNoiseT, kSeed})
            if (std::string bad = check_param_value(s, get_param(p, s.id)); !bad.empty()) return bad;
        return skip::validate(skip::to_skip(p));
    }
    if (p.workload == Workload::attention) {
        if (std::string bad = attention::validate(attention::to_attention(p)); !bad.empty()) return bad;
        return check_param_value(kSeed, get_param(p, ParamId::seed));
    }
    for (const ParamSpec& s : param_specs(p.workload))
        if (std::string bad = check_param_value(s, get_param(p, s.id)); !bad.empty()) return bad;
    if (p.workload == Workload::launch) return "";  // steps and elements are bounded by their specs
    const double elements = static_cast<double>(p.rows) * static_cast<double>(p.hidden);
    if (elements > kMaxElements)
        return "rows x hidden = " + number(elements) + " elements is too large: at most " + number(kMaxElements) +
               " (2^30)";
    return "";
}

// ---------------------------------------------------------------------------------------------
// Variants
// ---------------------------------------------------------------------------------------------
const std::vector<VariantInfo>& variants(Workload w) {
    static const std::vector<VariantInfo> chain{
        {"unfused", "4 kernels: LayerNorm, GELU, Dropout, Add. Each reads its input from HBM and writes its output "
                    "back: three intermediate tensors make the round trip.",
         4},
        {"fused", "1 kernel: each row is loaded once, normalised, activated, dropped out and added to the residual "
                  "in registers, then stored once.",
         1},
        {"fused_spill", "The fused kernel built for twice the resident warps: capped at 32 registers, it spills part "
                        "of the row to local memory (HBM-backed, cached in L1/L2) and reads it back: a fused kernel "
                        "that spills is an unfused kernel in disguise.",
         1}};
    static const std::vector<VariantInfo> bias_gelu{
        {"unfused", "2 kernels: bias add writes h = x + bias to HBM, GELU reads it back.", 2},
        {"fused", "1 kernel: x + bias and GELU in registers; h never reaches HBM.", 1}};
    switch (w) {
    case Workload::chain: return chain;
    case Workload::bias_gelu: return bias_gelu;
    case Workload::attention: return attention::variants();
    case Workload::skip: return skip::variants();
    case Workload::launch: return launch::variants();
    }
    return chain;
}

bool has_variant(Workload w, const std::string& variant) {
    for (const VariantInfo& v : variants(w))
        if (v.name == variant) return true;
    return false;
}

// ---------------------------------------------------------------------------------------------
// Schedule and model
// ---------------------------------------------------------------------------------------------
Schedule schedule(const std::string& variant, const Params& p) {
    switch (p.workload) {
    case Workload::chain: return elementwise::chain_schedule(variant, p);
    case Workload::bias_gelu: return elementwise::bias_gelu_schedule(variant, p);
    case Workload::attention: return attention::schedule(variant, attention::to_attention(p));
    case Workload::skip: return skip::schedule(variant, skip::to_skip(p));
    case Workload::launch: return launch::schedule(variant, p);
    }
    return {};
}

uint64_t KernelModel::bytes_read() const {
    uint64_t b = 0;
    for (const BufferTraffic& t : buffers) b += t.bytes_read;
    return b;
}

uint64_t KernelModel::bytes_written() const {
    uint64_t b = 0;
    for (const BufferTraffic& t : buffers) b += t.bytes_written;
    return b;
}

double Model::flops() const {
    double f = 0;
    for (const KernelModel& k : kernels) f += k.flops;
    return f;
}

uint64_t Model::bytes_read() const {
    uint64_t b = 0;
    for (const KernelModel& k : kernels) b += k.bytes_read();
    return b;
}

uint64_t Model::bytes_written() const {
    uint64_t b = 0;
    for (const KernelModel& k : kernels) b += k.bytes_written();
    return b;
}

uint64_t Model::local_bytes() const {
    uint64_t b = 0;
    for (const KernelModel& k : kernels) b += k.local_bytes();
    return b;
}

Model model_from_schedule(const Schedule& s) {
    Model m;
    for (const ScheduleKernel& k : s.kernels) {
        KernelModel km;
        km.name = k.name;
        km.tensor_cores = k.tensor_cores;
        km.blocks = k.blocks;
        km.threads_per_block = k.threads_per_block;
        km.registers = k.registers;
        m.kernels.push_back(std::move(km));
    }
    for (const TileEvent& e : s.events) {
        KernelModel& k = m.kernels.at(static_cast<size_t>(e.kernel));
        k.flops += e.flops * static_cast<double>(e.repeat);
        if (e.kind == EventKind::compute) continue;
        if (e.local) {
            (e.kind == EventKind::load ? k.local_read : k.local_written) += e.bytes * e.repeat;
            continue;
        }
        auto it = std::find_if(k.buffers.begin(), k.buffers.end(),
                               [&](const BufferTraffic& b) { return b.buffer == e.buffer; });
        if (it == k.buffers.end()) it = k.buffers.insert(k.buffers.end(), BufferTraffic{e.buffer, 0, 0});
        (e.kind == EventKind::load ? it->bytes_read : it->bytes_written) += e.bytes * e.repeat;
    }
    return m;
}

Model model(const std::string& variant, const Params& p) { return model_from_schedule(schedule(variant, p)); }

// ---------------------------------------------------------------------------------------------
// Spills
// ---------------------------------------------------------------------------------------------
ModelSpills model_spills(const Model& m, const DeviceInfo& device) {
    ModelSpills s;
    for (const KernelModel& k : m.kernels) {
        SpillEstimate e = spill_estimate(k, device);
        s.local_bytes += e.local_bytes;
        s.beyond_l1_bytes += e.beyond_l1_bytes;
        if (e.local_bytes > 0) {
            if (!s.note.empty()) s.note += "; ";
            s.note += k.name + " spills (" + std::to_string(k.registers.registers) + " registers, " +
                      std::to_string(k.registers.spill_store_bytes) + " B stored and " +
                      std::to_string(k.registers.spill_load_bytes) + " B reloaded per thread, " +
                      k.registers.source + "): " + e.note;
        }
        s.per_kernel.push_back(std::move(e));
    }
    return s;
}

int resident_threads_per_sm(int threads_per_block, int registers, const DeviceInfo& device) {
    if (threads_per_block <= 0) return 0;
    const SmLimits sm = sm_limits(device.cc_major, device.cc_minor);
    int blocks = std::min(sm.max_threads / threads_per_block, sm.max_blocks);
    if (registers > 0) {
        // Registers are handed out per warp in units of 256, i.e. 8 per thread.
        const int per_thread = (registers + 7) / 8 * 8;
        const int warps = (threads_per_block + 31) / 32;
        blocks = std::min(blocks, sm.registers / (per_thread * 32 * warps));
    }
    return std::max(blocks, 1) * threads_per_block;
}

SpillEstimate spill_estimate(const KernelModel& k, const DeviceInfo& device) {
    SpillEstimate e;
    e.local_bytes = k.local_bytes();
    if (e.local_bytes == 0 || k.threads_per_block <= 0) return e;
    e.resident_threads_per_sm = resident_threads_per_sm(k.threads_per_block, k.registers.registers, device);
    e.footprint_per_sm = static_cast<uint64_t>(k.registers.stack_bytes) * static_cast<uint64_t>(e.resident_threads_per_sm);
    e.l1_bytes = static_cast<uint64_t>(sm_limits(device.cc_major, device.cc_minor).l1_shared_bytes);
    if (e.footprint_per_sm > e.l1_bytes)
        e.beyond_l1 = 1.0 - static_cast<double>(e.l1_bytes) / static_cast<double>(e.footprint_per_sm);
    e.beyond_l1_bytes = static_cast<uint64_t>(e.beyond_l1 * static_cast<double>(e.local_bytes));
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "%d resident threads per SM x %d B of stack = %.0f KiB of local memory per SM against %.0f KiB of "
                  "L1: about %.0f%% of the %.1f MB of spill traffic leaves the SM (to L2, and to HBM when L2 is full)",
                  e.resident_threads_per_sm, k.registers.stack_bytes, static_cast<double>(e.footprint_per_sm) / 1024.0,
                  static_cast<double>(e.l1_bytes) / 1024.0, 100.0 * e.beyond_l1, static_cast<double>(e.local_bytes) / 1e6);
    e.note = buf;
    return e;
}

uint64_t min_bytes(const Params& p) {
    const uint64_t es = static_cast<uint64_t>(dtype_bytes(p.dtype));
    const uint64_t n = static_cast<uint64_t>(p.rows) * static_cast<uint64_t>(p.hidden);
    const uint64_t h = static_cast<uint64_t>(p.hidden);
    switch (p.workload) {
    case Workload::chain: return (2 * n + 2 * h + n) * es;   // read x, residual, gamma, beta; write out
    case Workload::bias_gelu: return (n + h + n) * es;       // read x, bias; write out
    case Workload::attention: return attention::min_bytes(attention::to_attention(p));  // Q, K, V read; O written
    case Workload::skip: return skip::min_bytes(skip::to_skip(p));  // q, k, v, x read; out written
    case Workload::launch: return launch::min_bytes(p);  // x read once, y written once
    }
    return 0;
}

std::string device_refusal(const std::string& variant, const Params& p, const DeviceInfo& device) {
    if (p.workload != Workload::attention && p.workload != Workload::skip) return "";  // elementwise kernels need no more than any CUDA GPU has
    attention::DeviceFacts facts;
    facts.name = device.name;
    facts.cc_major = device.cc_major;
    facts.cc_minor = device.cc_minor;
    facts.smem_per_block = device.smem_per_block;
    facts.smem_per_block_optin = device.smem_per_block_optin;
    facts.memory_bytes = static_cast<uint64_t>(std::max<int64_t>(device.global_mem_bytes, 0));
    facts.memory_what = "in total";
    if (p.workload == Workload::skip) return skip::device_refusal(variant, skip::to_skip(p), facts);
    return attention::device_refusal(variant, attention::to_attention(p), facts);
}

}  // namespace kernels
